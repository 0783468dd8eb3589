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
