/* The "New tournament" form: add a bot found by name to the entrants (one a line), and show
   the deadline or the entrants depending on the kind of entry. The form works without it. */
(function () {
  "use strict";

  var search = document.getElementById("entrant-search");
  var add = document.getElementById("entrant-add");
  var list = document.getElementById("id_entrants");
  if (!search || !add || !list) { return; }

  function names() {
    return list.value.split("\n").map(function (n) { return n.trim(); }).filter(Boolean);
  }

  function addName() {
    var name = search.value.trim();
    if (!name) { return; }
    var have = names();
    if (have.map(function (n) { return n.toLowerCase(); }).indexOf(name.toLowerCase()) < 0) {
      have.push(name);
      list.value = have.join("\n") + "\n";
    }
    search.value = "";
    search.focus();
  }

  add.addEventListener("click", addName);
  search.addEventListener("keydown", function (event) {
    if (event.key === "Enter") { event.preventDefault(); addName(); }
  });

  function showEntry() {
    var chosen = document.querySelector("input[name=entry]:checked");
    var open = chosen && chosen.value === "open";
    document.getElementById("row-entry_deadline").hidden = !open;
    document.getElementById("row-entrants").hidden = open;
    document.getElementById("entrant-search-row").hidden = open;
  }

  document.querySelectorAll("input[name=entry]").forEach(function (input) {
    input.addEventListener("change", showEntry);
  });
  showEntry();
}());
