"use strict";
(function () {
  // Open the task and pair a link points at, so a grid cell lands on an expanded trajectory.
  function reveal() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    for (var node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") { node.open = true; }
    }
    if (target) { target.scrollIntoView(); }
  }
  function filterRows() {
    var grid = document.getElementById("task-grid");
    if (!grid) { return; }
    var onlyFailures = document.getElementById("only-failures").checked;
    var needle = document.getElementById("task-filter").value.trim().toLowerCase();
    var rows = grid.tBodies[0].rows;
    var shown = 0;
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var hide = (onlyFailures && row.dataset.failed !== "yes") ||
        (needle !== "" && row.dataset.search.toLowerCase().indexOf(needle) < 0);
      row.classList.toggle("hidden", hide);
      if (!hide) { shown++; }
    }
    document.getElementById("shown-count").textContent = shown + " of " + rows.length + " tasks";
  }
  window.addEventListener("hashchange", reveal);
  document.addEventListener("DOMContentLoaded", function () {
    var failures = document.getElementById("only-failures");
    var search = document.getElementById("task-filter");
    if (failures) { failures.addEventListener("change", filterRows); }
    if (search) { search.addEventListener("input", filterRows); }
    filterRows();
    reveal();
  });
})();
