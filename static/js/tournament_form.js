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

  // The form follows its Game field: that game's rule sets (its default chosen), games per
  // match in whole sets, seeding by its ladders and its bots as suggestions.
  var data = document.getElementById("game-choices");
  var game = document.getElementById("id_game");
  if (!data || !game) { return; }
  var games = JSON.parse(data.textContent);
  var rules = document.getElementById("id_rules");
  var perMatch = document.getElementById("id_games_per_match");
  var seeding = document.getElementById("id_seeding");
  var suggestions = document.getElementById("bot-names");

  function options(select, pairs, chosen) {
    var keep = select.value;
    select.textContent = "";
    pairs.forEach(function (pair) {
      var option = document.createElement("option");
      option.value = pair[0];
      option.textContent = pair[1];
      select.appendChild(option);
    });
    var values = pairs.map(function (pair) { return pair[0]; });
    select.value = values.indexOf(keep) >= 0 && !chosen ? keep : (chosen || values[0]);
  }

  function follow(changed) {
    var spec = games[game.value];
    if (!spec) { return; }
    var inGame = spec.presets.some(function (p) { return p[0] === rules.value; });
    options(rules, spec.presets, changed || !inGame ? spec.default_preset : null);
    var size = spec.games_per_set;
    perMatch.step = size;
    perMatch.min = size;
    var games_ = parseInt(perMatch.value, 10);
    if (!(games_ >= size) || games_ % size) { perMatch.value = size; }
    options(seeding, spec.seeding, null);
    suggestions.textContent = "";
    spec.bots.forEach(function (name) {
      var option = document.createElement("option");
      option.value = name;
      suggestions.appendChild(option);
    });
  }

  game.addEventListener("change", function () { follow(true); });
  follow(false);
}());
