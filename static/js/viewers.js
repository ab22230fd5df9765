/* The replay viewer (docs/replay-format.md), the same for every game: it steps through a
   replay and asks the drawing registered for the replay's format to draw each step. A game's
   own script registers its drawing:
     window.KaiserArenaReplay.register(format, drawer)
   where drawer = { className, hand (the word for a deal), steps(entry, replay),
   state(entry, steps, index), draw(root, entry, state, replay), label(step), summary(replay) }
   and an entry is one deal of one game ({game, g, d, deal, last}). A replay of a format with
   no drawing gets the generic stepper: the match's moves in the game's words, one a step
   (GET /api/v1/matches/<id>/replay-text/, the game's Game.replay_steps).
   A game's browser side is this one registration: besides its replay drawing, the drawer
   holds `game` (the game's name, as the pages' data-game says it), `cards` (its cards and
   words: cardNode, cardOrder, cardText and the rest its own views use, such as its board
   view) and, for a game a person plays, `table` (the person's table, play.js:
   { draw(tools, view), resultText(view) }). Pages find it by format (drawerOf) or by game
   (gameOf). `cards` on the registry itself is a standard deck's drawing and words, which a
   game's own `cards` build on.
   This file names no game (tests/architecture/test_runtime_names_no_game.py reads it). It
   loads before the games' scripts and starts once they have run (DOMContentLoaded). */
(function () {
  "use strict";

  var PLAY_MS = 700;
  var drawers = {};

  /* --- A standard deck: "TH" is 10\u2665, "3S" 3\u2660 ------------------------------------ */

  var SUIT = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  var SUIT_WORDS = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  var SUIT_ORDER = "SHCD"; // alternate black and red in a sorted hand
  var RANKS = "23456789TJQKA";
  var MINUS = "\u2212";

  function cardText(code) {
    var rank = code.slice(0, -1), suit = code.slice(-1);
    return (rank === "T" ? "10" : rank) + (SUIT[suit] || suit);
  }

  function cardNode(code) {
    var node = el("span", "card suit-" + code.slice(-1), cardText(code));
    node.setAttribute("data-card", code);
    return node;
  }

  /* By suit, then the higher card first. */
  function cardOrder(a, b) {
    var sa = SUIT_ORDER.indexOf(a.slice(-1)), sb = SUIT_ORDER.indexOf(b.slice(-1));
    if (sa !== sb) { return sa - sb; }
    return RANKS.indexOf(b.slice(0, -1)) - RANKS.indexOf(a.slice(0, -1));
  }

  /* Numbers with a real minus sign: number(-24) "\u221224", signed(7) "+7", signed(0) "0". */
  function number(n) { return n < 0 ? MINUS + Math.abs(n) : String(n); }
  function signed(n) { return (n > 0 ? "+" : "") + number(n); }

  var registry = {
    register: function (format, drawer) { drawer.format = format; drawers[format] = drawer; },
    drawerOf: function (format) { return drawers[format] || null; },
    gameOf: function (game) {
      var found = Object.keys(drawers).filter(function (f) { return drawers[f].game === game; });
      return found.length ? drawers[found[0]] : null;
    },
    formats: function () { return Object.keys(drawers); },
    cards: { SUIT: SUIT, SUIT_WORDS: SUIT_WORDS, cardText: cardText, cardNode: cardNode,
             cardOrder: cardOrder, number: number, signed: signed },
  };
  window.KaiserArenaReplay = registry;
  if (typeof document === "undefined") { return; }

  var root, $ = function (id) { return document.getElementById(id); };
  var view = { replay: null, game: null, deals: [], dealIndex: 0, steps: [], step: 0, timer: null };
  registry.view = view; // for the curious (and the browser tests)

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }

  function flattenDeals(replay) {
    var out = [];
    (replay.games || []).forEach(function (game, g) {
      game.deals.forEach(function (deal, d) {
        out.push({ game: game, g: g, d: d, deal: deal, last: d === game.deals.length - 1 });
      });
    });
    return out;
  }

  function draw() {
    var entry = view.deals[view.dealIndex];
    if (!entry) { return; }
    var s = view.game.state(entry, view.steps, view.step);
    view.game.draw(root, entry, s, view.replay);
    $("v-slider").max = String(view.steps.length - 1);
    $("v-slider").value = String(view.step);
    $("v-deal").value = String(view.dealIndex);
    $("v-step").textContent = "step " + (view.step + 1) + " of " + view.steps.length + " \u00b7 " +
      view.game.label(view.steps[view.step]);
    root.setAttribute("data-deal", String(view.dealIndex));
    root.setAttribute("data-step", String(view.step));
    if (history.replaceState) {
      history.replaceState(null, "", "#g" + (entry.g + 1) + "d" + (entry.d + 1) + "s" + view.step);
    }
  }

  /* --- Moving ------------------------------------------------------------------------------- */

  function goDeal(index, atEnd) {
    if (index < 0 || index >= view.deals.length) { return false; }
    view.dealIndex = index;
    view.steps = view.game.steps(view.deals[index], view.replay);
    view.step = atEnd ? view.steps.length - 1 : 0;
    draw();
    return true;
  }

  function forward() {
    if (view.step < view.steps.length - 1) { view.step += 1; draw(); return true; }
    return goDeal(view.dealIndex + 1, false);
  }

  function back() {
    if (view.step > 0) { view.step -= 1; draw(); return true; }
    return goDeal(view.dealIndex - 1, true);
  }

  function togglePlay() {
    if (view.timer) { stopPlay(); return; }
    $("v-play").textContent = "\u23f8 pause";
    view.timer = setInterval(function () { if (!forward()) { stopPlay(); } }, PLAY_MS);
  }

  function stopPlay() {
    clearInterval(view.timer);
    view.timer = null;
    $("v-play").textContent = "\u25b6 play";
  }

  function onKey(event) {
    var tag = (event.target.tagName || "").toLowerCase();
    if (!view.replay || tag === "input" || tag === "select" || tag === "textarea") { return; }
    var actions = {
      ArrowRight: forward, ArrowLeft: back,
      ArrowDown: function () { goDeal(view.dealIndex + 1, false); },
      ArrowUp: function () { goDeal(view.dealIndex - 1, false); },
      Home: function () { view.step = 0; draw(); },
      End: function () { view.step = view.steps.length - 1; draw(); },
      " ": togglePlay,
    };
    if (actions[event.key]) { event.preventDefault(); stopPlay(); actions[event.key](); }
  }

  /* --- Loading ------------------------------------------------------------------------------ */

  function message(text, isError) {
    var box = $("v-message");
    box.textContent = text || "";
    box.hidden = !text;
    box.classList.toggle("errors", !!isError);
  }

  /* --- The generic stepper: a game without a drawing, in its own words ------------------- */

  /* Each game of the match an entry, its lines the steps; lines before the first game (the
     players, the rules) head every game. */
  function textDeals(text) {
    var games = [], before = [];
    text.steps.forEach(function (step) {
      if (step.game === null || step.game === undefined) { before.push(step.text); return; }
      var entry = games[games.length - 1];
      if (!entry || entry.g !== step.game) {
        entry = { g: step.game, d: 0, lines: [] };
        games.push(entry);
      }
      entry.lines.push(step.text);
    });
    if (!games.length) { games.push({ g: 0, d: 0, lines: [] }); }
    games.forEach(function (entry) { entry.head = before; entry.last = true; });
    return games;
  }

  var GENERIC = {
    className: "game-generic", hand: "moves", generic: true,
    steps: function (entry) { return entry.lines.map(function (line, i) { return { kind: "line", i: i }; }); },
    state: function (entry, steps, index) { return { index: index }; },
    label: function () { return "move"; },
    summary: function (replay) {
      var r = replay.result || {};
      return "This site has no drawing of " + (replay.format || "this") + " replays: the " +
        "match's moves in the game's words, one a step" + (r.forfeit ? " \u00b7 fault: " +
        r.forfeit.player + " " + r.forfeit.reason : "") + ".";
    },
    draw: function (box, entry, s) {
      // No seats or scores to draw: only the move and the moves so far.
      box.querySelectorAll(".seat").forEach(function (seat) { seat.innerHTML = ""; seat.hidden = true; });
      $("v-scores").hidden = true;
      var now = $("v-trick");
      now.innerHTML = "";
      now.appendChild(el("div", "trick-note generic-step", entry.lines[s.index] || ""));
      var side = $("v-contract");
      side.innerHTML = "";
      entry.head.forEach(function (line) { side.appendChild(el("div", "muted", line)); });
      var list = el("ol", "generic-moves");
      entry.lines.slice(0, s.index + 1).forEach(function (line, i) {
        var item = el("li", i === s.index ? "current" : null, line);
        list.appendChild(item);
      });
      $("v-bids").innerHTML = "";
      $("v-bids").appendChild(list);
    },
  };

  /* The replay's moves in words, from the match's text (the replay URL's replay-text/). */
  function showText(replay, url) {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) { throw new Error("the server answered " + response.status); }
        return response.json();
      })
      .then(function (text) { start(replay, GENERIC, textDeals(text)); })
      .catch(function (error) { message("Could not load the match's moves: " + error.message, true); });
  }


  /* The drawing of the replay's game, or null when it has none on this site. */
  function gameOf(replay) {
    return replay && typeof replay === "object" ? registry.drawerOf(replay.format) : null;
  }

  function show(replay) {
    var game = gameOf(replay);
    if (game) { start(replay, game, flattenDeals(replay)); return; }
    if (!replay || typeof replay !== "object" || !replay.format) {
      message("This is not a Kaiser Arena replay: it has no \"format\".", true);
      return;
    }
    var url = root.getAttribute("data-replay-url");
    if (url && /\/replay\/$/.test(url)) { showText(replay, url.replace(/replay\/$/, "replay-text/")); return; }
    message("This site has no drawing of " + replay.format + " replays; the match's page on the " +
      "site that played it shows its moves in words.", true);
  }

  function start(replay, game, deals) {
    stopPlay();
    view.replay = replay;
    view.game = game;
    Object.keys(drawers).forEach(function (f) { if (drawers[f].className) { root.classList.remove(drawers[f].className); } });
    root.classList.remove(GENERIC.className);
    if (game.className) { root.classList.add(game.className); }
    root.querySelectorAll(".seat").forEach(function (seat) { seat.hidden = !!game.generic; });
    $("v-scores").hidden = !!game.generic;
    view.deals = deals;
    var select = $("v-deal");
    select.innerHTML = "";
    view.deals.forEach(function (entry, i) {
      var option = el("option", null, "game " + (entry.g + 1) + " \u00b7 " + game.hand +
        (game.generic ? "" : " " + (entry.d + 1)));
      option.value = String(i);
      select.appendChild(option);
    });
    root.classList.add("loaded");
    if (!view.deals.length) {
      var f = replay.result && replay.result.forfeit;
      message("No deal was played" + (f ? ": " + f.player + " forfeited (" + f.reason + ")" : "") + ".", true);
      return;
    }
    message(game.summary(replay));
    if (!fromHash()) { goDeal(0, false); }
  }

  function fromHash() {
    var m = /^#g(\d+)d(\d+)s(\d+)$/.exec(location.hash);
    if (!m) { return false; }
    for (var i = 0; i < view.deals.length; i++) {
      if (view.deals[i].g === +m[1] - 1 && view.deals[i].d === +m[2] - 1) {
        goDeal(i, false);
        view.step = Math.min(+m[3], view.steps.length - 1);
        draw();
        return true;
      }
    }
    return false;
  }

  function parseText(text) {
    try { return [JSON.parse(text)]; } catch (e) { /* maybe JSON Lines */ }
    return text.split("\n").filter(function (l) { return l.trim(); }).map(function (l) { return JSON.parse(l); });
  }

  function openText(text, name) {
    var replays;
    try { replays = parseText(text); } catch (e) {
      message(name + " is not JSON: " + e.message, true);
      return;
    }
    var choose = $("v-replay");
    choose.hidden = replays.length < 2;
    choose.innerHTML = "";
    replays.forEach(function (r, i) {
      var option = el("option", null, "replay " + (i + 1) + ": " + (gameOf(r) ? gameOf(r).summary(r) : String(r.format)).slice(0, 60));
      option.value = String(i);
      choose.appendChild(option);
    });
    choose.onchange = function () { show(replays[+choose.value]); };
    show(replays[0]);
  }

  function openFile(file) {
    if (!file) { return; }
    var reader = new FileReader();
    reader.onload = function () { openText(String(reader.result), file.name); };
    reader.onerror = function () { message("Could not read " + file.name, true); };
    reader.readAsText(file);
  }

  function load(url) {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) { throw new Error("the server answered " + response.status); }
        return response.json();
      })
      .then(show)
      .catch(function (error) { message("Could not load the replay: " + error.message, true); });
  }

  function begin() {
  $("v-next").addEventListener("click", function () { stopPlay(); forward(); });
  $("v-prev").addEventListener("click", function () { stopPlay(); back(); });
  $("v-first").addEventListener("click", function () { stopPlay(); view.step = 0; draw(); });
  $("v-last").addEventListener("click", function () { stopPlay(); view.step = view.steps.length - 1; draw(); });
  $("v-play").addEventListener("click", togglePlay);
  $("v-slider").addEventListener("input", function () { stopPlay(); view.step = +this.value; draw(); });
  $("v-deal").addEventListener("change", function () { stopPlay(); goDeal(+this.value, false); });
  $("v-file").addEventListener("change", function () { openFile(this.files[0]); });
  document.addEventListener("keydown", onKey);
  root.addEventListener("dragover", function (e) { e.preventDefault(); root.classList.add("dragging"); });
  root.addEventListener("dragleave", function () { root.classList.remove("dragging"); });
  root.addEventListener("drop", function (e) {
    e.preventDefault();
    root.classList.remove("dragging");
    openFile(e.dataTransfer.files[0]);
  });

  var url = root.getAttribute("data-replay-url");
  if (url) { load(url); } else { message("Open or drop a replay file to watch it."); }
  }

  document.addEventListener("DOMContentLoaded", function () {
    root = document.getElementById("viewer");
    if (root) { begin(); }
  });
})();
