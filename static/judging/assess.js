// Keyboard-first judging: one key per grade saves and moves on; arrows step back and forward;
// L puts the document aside; N opens the note. Counts active time (visible page, input within
// the last minute) and sends it as "seconds". Without this file the page works as plain forms.
(function () {
  "use strict";
  var IDLE_MS = 60000;
  var active = 0, lastTick = Date.now(), lastInput = Date.now();

  function tick() {
    var now = Date.now();
    if (document.visibilityState === "visible" && now - lastInput < IDLE_MS) active += now - lastTick;
    lastTick = now;
  }
  setInterval(tick, 1000);
  ["keydown", "mousemove", "mousedown", "scroll", "touchstart"].forEach(function (name) {
    document.addEventListener(name, function () { tick(); lastInput = Date.now(); }, { passive: true });
  });

  function panel() { return document.getElementById("assess-panel"); }
  function busy() { var p = panel(); return p && p.classList.contains("htmx-request") || document.querySelector(".htmx-request"); }

  // Before the judging form goes out, put the active seconds into it (htmx and plain submits).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.id !== "judgment-form") return;
    tick();
    form.elements.seconds.value = (active / 1000).toFixed(1);
  }, true);
  document.addEventListener("htmx:configRequest", function (event) {
    if (event.detail.elt && event.detail.elt.id === "judgment-form") {
      tick();
      event.detail.parameters.seconds = (active / 1000).toFixed(1);
    }
  });
  // A new document: start counting again.
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "assess-panel") {
      active = 0; lastTick = Date.now(); lastInput = Date.now();
      window.scrollTo(0, 0);
    }
  });

  // Claims: the documents handed to this tab stay its own while the page is open (renewed every
  // data-renew-seconds) and are given back when the page goes away, so that another tab or a new
  // browser session continues at once (judging/assessing.py, Queue.renew_claims/release_claims).
  function sendClaims(release) {
    var root = document.querySelector(".assess[data-claims-url]"), p = panel();
    var token = document.querySelector(".highlight-form input[name=csrfmiddlewaretoken]");
    if (!root || !p || !token) return;
    var data = new FormData();
    data.append("csrfmiddlewaretoken", token.value);
    data.append("tab", p.dataset.tab);
    if (release) {
      data.append("release", "1");
      navigator.sendBeacon(root.dataset.claimsUrl, data);
    } else {
      fetch(root.dataset.claimsUrl, { method: "POST", body: data, credentials: "same-origin" }).catch(function () {});
    }
  }
  function keepClaims() {
    var root = document.querySelector(".assess[data-claims-url]");
    if (!root) return;
    setInterval(function () { sendClaims(false); }, 1000 * Number(root.dataset.renewSeconds || 30));
    window.addEventListener("pagehide", function () { sendClaims(true); });
    window.addEventListener("pageshow", function (event) { if (event.persisted) sendClaims(false); });
  }
  keepClaims();

  // "Highlight" returns to the document on screen (the panel may have moved on since the page loaded).
  document.addEventListener("submit", function (event) {
    var p = panel();
    if (event.target.classList.contains("highlight-form") && p) event.target.elements.document.value = p.dataset.document;
  }, true);

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT" || target.isContentEditable)) {
      if (event.key === "Escape") target.blur();
      return;
    }
    var root = panel();
    if (!root || busy()) return;
    var key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (key === "n") {
      var note = root.querySelector("details.note");
      if (note) { note.open = true; note.querySelector("textarea").focus(); event.preventDefault(); }
      return;
    }
    var control = root.querySelector('[data-key="' + CSS.escape(key) + '"]');
    if (!control) return;
    event.preventDefault();
    control.click();  // a click, so that htmx (and a plain submit) sends the button's grade
  });
})();

// A save that fails (a 5xx answer such as 502 from the proxy, or no answer: the network or the
// server down) is shown and sent again: the same grade with the same submission id, which the
// server stores exactly once however often it arrives. After MAX_TRIES the assessor is told plainly.
(function () {
  "use strict";
  var MAX_TRIES = 4, FIRST_WAIT_MS = 1000;  // waits of 1, 2 and 4 s between the tries
  var save = null;  // the last save the assessor asked for: {path, values, tries}
  var timer = null;

  function form() { return document.getElementById("judgment-form"); }

  function say(text) {
    var panel = document.getElementById("assess-panel"), status = document.getElementById("save-status");
    if (!panel) return;
    if (!status) {
      status = document.createElement("p");
      status.id = "save-status";
      status.className = "error";
      status.setAttribute("role", "alert");
      panel.insertBefore(status, form() || panel.firstChild);
    }
    status.textContent = text;
  }

  function resend() {
    var f = form();
    if (!f || !save) return;
    htmx.ajax("POST", save.path, { source: f, target: "#assess-panel", swap: "outerHTML settle:0ms", values: save.values });
  }

  function failed(event) {
    if (!save || !event.detail.elt || event.detail.elt.id !== "judgment-form") return;
    save.tries += 1;
    if (save.tries >= MAX_TRIES) {
      say("Not saved: the server did not take this grade after " + save.tries + " tries. " +
          "Press the grade again, or reload the page in a moment.");
      save = null;
      return;
    }
    var wait = FIRST_WAIT_MS * Math.pow(2, save.tries - 1);
    say("Not saved — retrying in " + Math.round(wait / 1000) + " s (try " + (save.tries + 1) + " of " + MAX_TRIES + ")…");
    timer = setTimeout(resend, wait);
  }

  // Remember what a save sends (with the seconds above); the same submission and grade again
  // is a try of the same save, anything else a new save that replaces a waiting retry.
  document.addEventListener("htmx:configRequest", function (event) {
    if (!event.detail.elt || event.detail.elt.id !== "judgment-form") return;
    clearTimeout(timer);
    var values = {};
    event.detail.formData.forEach(function (value, name) { values[name] = value; });
    if (save && save.values.submission === values.submission && save.values.grade === values.grade) return;
    save = { path: event.detail.path, values: values, tries: 0 };
  });
  document.addEventListener("htmx:responseError", failed);
  document.addEventListener("htmx:sendError", failed);
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "assess-panel") { clearTimeout(timer); save = null; }
  });
})();
