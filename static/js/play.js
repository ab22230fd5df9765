/* A person's game against the bots: receives the view the worker publishes, pushed (events/,
   server-sent events) where the server offers it and the browser has EventSource, else by
   polling state/ (once a second while nobody moves, every 250 ms while a bot is to play or
   the person's move is on its way); has the game's table draw it, and posts the person's
   moves (move/). The table is the game's own, registered with its replay drawing
   (viewers.js: window.KaiserArenaReplay.gameOf(the page's data-game).table, drawn with the
   tools below); a game without one is said so and not drawn. Legal cards are raised; click
   one, or choose with the arrow keys and press Enter. A trick just completed stays on the
   table for HOLD_MS (or until a click), though the bots may have led to the next one
   meanwhile. This file names no game (tests/architecture/test_runtime_names_no_game.py).
   No dependencies. */
(function () {
  "use strict";

  var POLL_IDLE_MS = 1000;  // nobody moves: the person's turn, a game not started yet
  var POLL_BUSY_MS = 250;   // a bot is to play, or the person's move is on its way
  var HOLD_MS = 1200;
  var root = document.getElementById("play");
  var registry = window.KaiserArenaReplay;
  if (!root || !registry) { return; }
  var GAME = root.getAttribute("data-game"), entry = registry.gameOf(GAME);
  var TABLE = entry && entry.table, CARDS = entry && entry.cards ? entry.cards : registry.cards;
  var $ = function (id) { return document.getElementById(id); };
  var csrf = root.querySelector("input[name=csrfmiddlewaretoken]").value;
  var game = { seq: -1, view: null, status: root.getAttribute("data-status"), pending: false,
               chosen: [], focus: 0, showLast: false, timer: null, done: false,
               held: null, holdTimer: null, polling: false, resigning: false };

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }

  function message(text, isError) {
    var box = $("p-message");
    box.textContent = text || "";
    box.hidden = !text;
    box.classList.toggle("errors", !!isError);
  }

  /* --- Receiving: pushed, or polled ------------------------------------------------------- */

  function start() {
    var url = root.getAttribute("data-events-url"), over = ["finished", "void"].indexOf(game.status) >= 0;
    if (url && window.EventSource && !over) { listen(url); } else { poll(); }
  }

  function listen(url) {
    var source = new EventSource(url);
    window.kaiserPlay.transport = "push";
    source.onmessage = function (event) {
      window.kaiserPlay.events += 1;
      receive(JSON.parse(event.data));
      if (game.done) { source.close(); }
    };
    source.onerror = function () {
      if (game.done) { return; }
      if (source.readyState === EventSource.CLOSED) {
        // The server does not push (204) or refused: poll instead.
        window.kaiserPlay.transport = "poll";
        poll();
      } else {
        message("Lost touch with the server; reconnecting…", true);  // EventSource retries
      }
    };
  }

  function pollDelay() {
    var v = game.view, busy = game.pending ||
      (game.status === "running" && v && !v.your_turn && !v.over);
    return busy ? POLL_BUSY_MS : POLL_IDLE_MS;
  }

  function schedule(delay) {
    clearTimeout(game.timer);
    window.kaiserPlay.waits.push({ ms: delay, status: game.status, pending: game.pending,
                                   yourTurn: !!(game.view && game.view.your_turn) });
    game.timer = setTimeout(poll, delay);
  }

  function poll() {
    if (game.polling) { return; }  // one request at a time
    game.polling = true;
    window.kaiserPlay.polls += 1;
    fetch(root.getAttribute("data-state-url") + "?after=" + game.seq,
          { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) { throw new Error("the server answered " + r.status); }
        return r.json();
      })
      .then(receive)
      .catch(function (error) { message("Lost touch with the server (" + error.message + "); retrying…", true); })
      .then(function () {
        game.polling = false;
        if (!game.done) { schedule(pollDelay()); }
      });
  }

  function receive(data) {
    var changed = data.status !== game.status || (!data.unchanged && data.view &&
      (data.seq !== game.seq || !game.view || data.view.at !== game.view.at));
    game.status = data.status;
    root.setAttribute("data-status", data.status);
    if (data.unchanged && !changed) { return; }
    if (data.view) {
      var before = game.view && game.view.tricks_done;
      game.view = data.view;
      if (typeof before === "number" && data.view.tricks_done > before && data.view.last_trick) {
        hold(data.view.last_trick);
      }
      game.receivedAt = Date.now();
      game.serverNow = data.now;
      if (data.seq !== game.seq) { game.chosen = []; game.focus = 0; game.pending = false; }
      game.seq = data.seq;
      root.setAttribute("data-seq", String(data.seq));
      window.kaiserPlay.seenAt = data.view.at;
      draw();
    }
    if (data.status === "queued") { message("Waiting for a server to start the game…"); }
    else if (data.status === "running") { message(data.resigning || game.resigning ? "Resigning…" : ""); }
    else { finish(data); }
  }

  function finish(data) {
    game.done = true;
    $("p-actions").innerHTML = "";
    $("p-resign").remove();
    var after = $("p-after");
    after.hidden = false;
    after.innerHTML = "";
    if (data.status === "void") {
      message("This game is void: " + (data.void_reason || "its server stopped") + ".", true);
      return;
    }
    var r = data.view && data.view.result;
    message(r && TABLE ? TABLE.resultText(data.view) : "The game is over.");
    if (data.replay) {
      var link = el("a", "button", "Watch the replay");
      link.href = data.replay;
      link.id = "p-replay";
      after.appendChild(link);
    }
    var again = el("a", null, "Play again");
    again.href = root.getAttribute("data-state-url").replace(/\d+\/state\/$/, "");
    after.appendChild(document.createTextNode(" "));
    after.appendChild(again);
  }

  /* The trick just completed stays on the table HOLD_MS, or until the person clicks. */
  function hold(trick) {
    clearTimeout(game.holdTimer);
    game.held = trick;
    game.holdTimer = setTimeout(release, HOLD_MS);
  }

  function release() {
    clearTimeout(game.holdTimer);
    if (!game.held) { return; }
    game.held = null;
    if (game.view) { draw(); }
  }

  /* --- Drawing: the game's table, with these tools ------------------------------------ */

  function draw() {
    if (!TABLE) {  // never another game's table: say so, and draw nothing
      var note = $("p-actions");
      note.innerHTML = "";
      note.appendChild(el("p", "errors", "This site has no drawing of this game's table (" + GAME + ")."));
      return;
    }
    TABLE.draw(tools, game.view);
  }

  function playable(v) {
    return v.your_turn && !game.pending &&
      (v.decision === "play" || v.decision === "discard" || v.decision === "give");
  }

  /* How many cards the decision takes: a discard (the kitty's size), a gift (its count). */
  function needed(v) { return v.count || v.kitty; }

  /* A seat's box, emptied, its head (the seat's name, its player, the dealer) in it; `cls`
     adds the game's classes. The seat to play is marked. */
  function seat(v, at, name, cls) {
    var box = root.querySelector('.seat[data-seat="' + at + '"]');
    box.innerHTML = "";
    box.className = "seat seat-" + at + (cls ? " " + cls : "") + (v.seat === at && !v.over ? " to-play" : "");
    var head = el("div", "seat-head");
    head.appendChild(el("span", "seat-name", name));
    head.appendChild(el("span", "seat-player", v.names[at] || ""));
    if (v.dealer === at) { head.appendChild(el("span", "badge dealer", "dealer")); }
    box.appendChild(head);
    return { box: box, head: head };
  }

  /* A seat's hand: the person's (seat 0) face up, its legal cards raised, the others' backs. */
  function hand(v, at) {
    var box = el("div", "hand");
    if (at !== 0) {
      for (var i = 0; i < v.hand_sizes[at]; i++) { box.appendChild(el("span", "card back", "\u00a0")); }
      return box;
    }
    var cards = v.hand.slice().sort(CARDS.cardOrder), legal = playable(v) ? v.legal : [];
    var legalCards = cards.filter(function (c) { return legal.indexOf(c) >= 0; });
    if (game.focus >= legalCards.length) { game.focus = 0; }
    cards.forEach(function (c) {
      var node = CARDS.cardNode(c), isLegal = legal.indexOf(c) >= 0;
      node.setAttribute("role", "button");
      if (isLegal) {
        node.classList.add("legal");
        node.tabIndex = -1;
        if (legalCards[game.focus] === c) { node.classList.add("focus"); }
        if (game.chosen.indexOf(c) >= 0) { node.classList.add("chosen"); }
        node.addEventListener("click", function () { choose(c); });
      } else {
        node.setAttribute("aria-disabled", "true");
      }
      box.appendChild(node);
    });
    return box;
  }

  /* The trick on the table: the one being played, or the one just won (held), or the last
     one (its toggle); with none, `note` says who is doing what. `who` names the seats. */
  function trick(v, who, note) {
    var box = $("p-trick"), shows = game.showLast ? "last" : game.held ? "held" : "current";
    var t = shows === "last" ? v.last_trick : shows === "held" ? game.held : v.trick;
    box.innerHTML = "";
    box.setAttribute("data-shows", shows);
    if (!t || !t.cards.length) {
      box.appendChild(el("div", "trick-note muted", note));
      return;
    }
    t.cards.forEach(function (c, i) {
      var at = (t.leader + i) % v.names.length, slot = el("div", "played played-" + at), node = CARDS.cardNode(c);
      node.setAttribute("data-seat", String(at));
      if (t.winner === at) { slot.classList.add("winner"); }
      slot.appendChild(node);
      box.appendChild(slot);
    });
    if (shows !== "current") {
      box.appendChild(el("div", "trick-note", (shows === "last" ? "last trick: " : "") + who[t.winner] + " won it"));
    }
  }

  /* The actions' box, emptied: null when the game is over or another seat is to move (then
     it says who is doing what: `seatNames` by seat, `doing` by decision). */
  function actions(v, seatNames, doing) {
    var box = $("p-actions");
    box.innerHTML = "";
    if (v.over) { return null; }
    if (!v.your_turn) {
      box.appendChild(el("p", "muted", seatNames[v.seat] + " (" + (v.names[v.seat] || "a bot") + ") is " +
        (doing[v.waiting_for] || v.waiting_for) + "\u2026"));
      return null;
    }
    return box;
  }

  function button(text, data, action) {
    var b = el("button", "move", text);
    b.type = "button";
    Object.keys(data).forEach(function (k) { b.setAttribute("data-" + k, data[k]); });
    b.addEventListener("click", function () { send(action); });
    b.disabled = game.pending;
    return b;
  }

  /* One button a suit: "\u2665 hearts". */
  function suitButtons(box, suits) {
    var C = registry.cards;
    suits.forEach(function (s) { box.appendChild(button(C.SUIT[s] + " " + C.SUIT_WORDS[s], { suit: s }, s)); });
  }

  /* The button that sends the cards chosen (a discard, a gift), once there are `count`. */
  function sendChosen(text, id, count) {
    var go = el("button", "move", text);
    go.type = "button";
    go.id = id;
    go.disabled = game.pending || game.chosen.length !== count;
    go.addEventListener("click", function () { send(game.chosen.slice()); });
    return go;
  }

  /* "Deal 3 \u00b7 move 12" (`word`: the game's word for a deal), and the person's clock. */
  function turn(v, word) {
    var box = $("p-turn");
    box.innerHTML = "";
    box.appendChild(el("strong", null, word + " " + (v.deal + 1) + " \u00b7 move " + (v.seq + 1)));
    if (v.your_turn && v.deadline) {
      var clock = el("div", "clock");
      clock.id = "p-clock";
      box.appendChild(clock);
      tick();
    }
  }

  /* The last trick's toggle and line: "Last trick: ada: 9\u2666, north-bot: A\u2665, \u2026;
     won by north-bot", red suits red. `who` names the seats. */
  function lastTrick(v, who) {
    var box = $("p-last");
    box.innerHTML = "";
    var toggle = el("button", "link", game.showLast ? "Back to the table" : "Show the last trick");
    toggle.type = "button";
    toggle.id = "p-last-toggle";
    toggle.disabled = !v.last_trick;
    toggle.addEventListener("click", function () { game.showLast = !game.showLast; draw(); });
    box.appendChild(toggle);
    var t = v.last_trick;
    if (!t) { return; }
    var line = el("div", "last-trick", "Last trick: ");
    line.id = "p-last-trick";
    t.cards.forEach(function (card, i) {
      line.appendChild(document.createTextNode((i ? ", " : "") + who[(t.leader + i) % v.names.length] + ": "));
      var node = el("span", "suit-" + card.slice(-1), CARDS.cardText(card));
      node.setAttribute("data-card", card);
      line.appendChild(node);
    });
    line.appendChild(document.createTextNode("; won by " + who[t.winner]));
    box.appendChild(line);
  }

  // What a game's table draws with (viewers.js: a drawer's `table`), and the table's state
  // it may read (game.chosen: the cards chosen so far).
  var tools = { $: $, el: el, game: game, seat: seat, hand: hand, trick: trick, actions: actions,
                button: button, suitButtons: suitButtons, sendChosen: sendChosen, turn: turn,
                lastTrick: lastTrick, needed: needed };

  function tick() {
    var clock = $("p-clock"), v = game.view;
    if (!clock || !v || !v.deadline) { return; }
    // The server's deadline less the server's time of the answer, counted on this page's clock.
    var left = Math.max(0, Math.round((v.deadline - game.serverNow - (Date.now() - game.receivedAt)) / 1000));
    clock.textContent = "Your move: " + left + " s left";
    clock.classList.toggle("errors", left < 30);
  }

  /* --- Moving ------------------------------------------------------------------------------ */

  function choose(card) {
    var v = game.view;
    if (!playable(v)) { return; }
    if (v.decision === "play") { send(card); return; }
    var at = game.chosen.indexOf(card);
    if (at >= 0) { game.chosen.splice(at, 1); }
    else if (game.chosen.length < needed(v)) { game.chosen.push(card); }
    draw();
  }

  function send(action) {
    var seq = game.seq;
    if (game.pending || !game.view || !game.view.your_turn) { return; }
    game.pending = true;
    game.showLast = false;
    game.held = null;
    draw();
    fetch(root.getAttribute("data-move-url"), {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify({ seq: seq, action: action }),
    }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) { throw new Error(body.error || "refused (" + r.status + ")"); }
        window.kaiserPlay.sent.push({ seq: seq, action: action });
        // Polling: the bots answer at once, so look again soon rather than in a second.
        if (window.kaiserPlay.transport === "poll" && !game.polling && !game.done) { schedule(POLL_BUSY_MS); }
      });
    }).catch(function (error) {
      game.pending = false;
      message("Move refused: " + error.message, true);
      draw();
    });
  }

  function onKey(event) {
    var v = game.view, tag = (event.target.tagName || "").toLowerCase();
    if (!v || !playable(v) || tag === "input" || tag === "select" || tag === "textarea") { return; }
    var legal = v.hand.slice().sort(CARDS.cardOrder).filter(function (c) { return v.legal.indexOf(c) >= 0; });
    if (!legal.length) { return; }
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      event.preventDefault();
      game.focus = (game.focus + (event.key === "ArrowRight" ? 1 : legal.length - 1)) % legal.length;
      draw();
    } else if (event.key === "Enter") {
      event.preventDefault();
      choose(legal[game.focus]);
    }
  }

  $("p-resign").addEventListener("click", function () {
    if (!window.confirm("Resign this game? " + ((TABLE && TABLE.resignWords) ||
        "You give the game up."))) { return; }
    fetch(root.getAttribute("data-resign-url"), {
      method: "POST", credentials: "same-origin",
      headers: { Accept: "application/json", "X-CSRFToken": csrf },
    }).then(function () { game.resigning = true; message("Resigning…"); });
  });
  document.addEventListener("keydown", onKey);
  $("p-table").addEventListener("click", release);
  setInterval(tick, 1000);
  // transport: "push" or "poll"; events: pushed messages received; polls: state/ requests;
  // waits: each pause between two polls and what the page was waiting for.
  window.kaiserPlay = { game: game, sent: [], seenAt: null, transport: "poll", events: 0,
                        polls: 0, waits: [] };
  start();
})();
