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
