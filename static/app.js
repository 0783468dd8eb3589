// An htmx request answered with an error page (403, 409, 400 or 5xx rendered as a whole page with
// its own top bar) is not swapped into the fragment: its message is shown in place, next to the
// element that sent the request. Fragments a view renders for its own errors (a form with its
// errors, status 400) are swapped as usual. Elements inside [data-htmx-errors="own"] handle their
// errors themselves (the judging page).
(function () {
  "use strict";
  function errorText(html, status) {
    var page = new DOMParser().parseFromString(html, "text/html");
    var reason = page.querySelector("main p") || page.querySelector("main h1");  // the error page's reason
    return reason ? reason.textContent.trim() : "The server answered " + status + ": nothing was changed.";
  }
  function showError(element, text) {
    var next = element.nextElementSibling;
    var message = next && next.classList.contains("htmx-error") ? next : document.createElement("p");
    message.className = "error htmx-error";
    message.setAttribute("role", "alert");
    message.textContent = text;
    if (message !== next) element.insertAdjacentElement("afterend", message);
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr, element = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (xhr.status < 400 || !element || element.closest('[data-htmx-errors="own"]')) return;
    if (!/^\s*<!doctype html/i.test(xhr.responseText || "") && xhr.status < 500) return;  // a fragment with its errors
    event.detail.shouldSwap = false;
    event.detail.isError = false;
    showError(element, errorText(xhr.responseText || "", xhr.status));
  });
})();
