// The pool form shows only the fields of the chosen method: each field names its methods in
// data-methods (judging/views.py, PoolForm.METHOD_FIELDS). Without this file every field shows,
// and the server leaves out the values another method's fields hold.
(function () {
  "use strict";
  function showMethodFields() {
    var form = document.getElementById("pool-form");
    var method = form && form.elements.method;
    if (!method) return;
    form.querySelectorAll("[data-methods]").forEach(function (field) {
      field.closest("label").hidden = field.dataset.methods.split(" ").indexOf(method.value) < 0;
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target.name === "method") showMethodFields();
  });
  document.addEventListener("htmx:afterSwap", showMethodFields);
  document.addEventListener("DOMContentLoaded", showMethodFields);
})();
