/* A person's game against the bots: receives the view the worker publishes, pushed (events/,
   server-sent events) where the server offers it and the browser has EventSource, else by
   polling state/ (once a second while nobody moves, every 250 ms while a bot is to play or
   the person's move is on its way); draws it on the replay viewer's table (cards drawn by
   replay.js's window.kaiserCards), and posts the person's moves (move/). Legal cards are raised; click one, or choose with the arrow keys and
   press Enter. A trick just completed stays on the table for HOLD_MS (or until a click), though
   the bots may have led to the next one meanwhile. No dependencies. */
(function () {
  "use strict";

  var POLL_IDLE_MS = 1000;  // nobody moves: the person's turn, a game not started yet
  var POLL_BUSY_MS = 250;   // a bot is to play, or the person's move is on its way
  var HOLD_MS = 1200;
  var root = document.getElementById("play");
  if (!root || !window.kaiserCards) { return; }
  var K = window.kaiserCards, SEAT_NAMES = K.SEAT_NAMES;
  var TEAMS = ["you and North", "West and East"];  // the person's team first, as the table says them
  // Sergeant Major's words (sm.js), for a table of three (root's data-game). Each game's
  // script says which game its table is (`game`); a game with none here is not drawn.
  var S = window.smCards, SM = S && S.game, GAME = root.getAttribute("data-game");
  var SUIT_NAMES = { C: "\u2663 clubs", D: "\u2666 diamonds", H: "\u2665 hearts", S: "\u2660 spades" };
  var DOING = { bid: "to bid", trump: "naming trump", discard: "discarding", play: "to play",
                misdeal: "deciding whether to throw the hand in" };
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
    message(!r ? "The game is over." : GAME === SM ? S.personResultText(data.view) :
      GAME === K.game ? K.personResultText(r, data.view.names) : "The game is over.");
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

  /* --- Drawing ----------------------------------------------------------------------------- */

  function draw() {
    var v = game.view;
    if (GAME === SM) { smDraw(v); return; }
    if (GAME !== K.game) {  // never another game's table: say so, and draw nothing
      var note = $("p-actions");
      note.innerHTML = "";
      note.appendChild(el("p", "errors", "This site has no drawing of this game's table (" + GAME + ")."));
      return;
    }
    for (var seat = 0; seat < 4; seat++) { drawSeat(v, seat); }
    drawTrick(v);
    drawActions(v);
    drawSide(v);
  }

  function lastBid(v, seat) {
    var bid = null;
    v.bids.forEach(function (b) { if (b.seat === seat) { bid = b.bid; } });
    return bid;
  }

  function drawSeat(v, seat) {
    var box = root.querySelector('.seat[data-seat="' + seat + '"]');
    box.innerHTML = "";
    box.className = "seat seat-" + seat + " team-" + (seat % 2 ? "B" : "A") + (v.seat === seat && !v.over ? " to-play" : "");
    var head = el("div", "seat-head");
    head.appendChild(el("span", "seat-name", SEAT_NAMES[seat] + (seat === 0 ? " (you)" : seat === 2 ? " (partner)" : "")));
    head.appendChild(el("span", "seat-player", v.names[seat] || ""));
    if (v.dealer === seat) { head.appendChild(el("span", "badge dealer", "dealer")); }
    if (v.contract && v.contract.seat === seat) { head.appendChild(el("span", "badge contract-badge", "bid " + K.bidText(v.contract.bid))); }
    box.appendChild(head);
    var bid = lastBid(v, seat);
    if (bid && !v.contract) { box.appendChild(el("div", "bubble", K.bidText(bid))); }
    var hand = el("div", "hand");
    if (seat === 0) { drawHand(v, hand); }
    else {
      for (var i = 0; i < v.hand_sizes[seat]; i++) { hand.appendChild(el("span", "card back", "\u00a0")); }
    }
    box.appendChild(hand);
  }

  function playable(v) {
    return v.your_turn && !game.pending &&
      (v.decision === "play" || v.decision === "discard" || v.decision === "give");
  }

  /* How many cards the decision takes: a discard (the kitty's size), a gift (its count). */
  function needed(v) { return v.count || v.kitty; }

  function drawHand(v, hand) {
    var cards = v.hand.slice().sort(K.cardOrder), legal = playable(v) ? v.legal : [];
    var cardNode = GAME === SM ? S.cardNode : K.cardNode;
    var legalCards = cards.filter(function (c) { return legal.indexOf(c) >= 0; });
    if (game.focus >= legalCards.length) { game.focus = 0; }
    cards.forEach(function (c) {
      var node = cardNode(c), isLegal = legal.indexOf(c) >= 0;
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
      hand.appendChild(node);
    });
  }

  /* Who is doing what while no card is on the table. */
  function tableNote(v) { return K.tableNoteText(v, tableWho(v)); }

  /* Each seat by name, the person's own as "you": "you won it", never their username. */
  function tableWho(v) {
    var who = K.tableNames(v.names);
    who[0] = "you";
    return who;
  }

  function drawTrick(v) {
    var box = $("p-trick"), shows = game.showLast ? "last" : game.held ? "held" : "current";
    var trick = shows === "last" ? v.last_trick : shows === "held" ? game.held : v.trick;
    box.innerHTML = "";
    box.setAttribute("data-shows", shows);
    if (!trick || !trick.cards.length) {
      box.appendChild(el("div", "trick-note muted", tableNote(v)));
      return;
    }
    trick.cards.forEach(function (c, i) {
      var seat = (trick.leader + i) % 4, slot = el("div", "played played-" + seat), node = K.cardNode(c);
      node.setAttribute("data-seat", String(seat));
      if (trick.winner === seat) { slot.classList.add("winner"); }
      slot.appendChild(node);
      box.appendChild(slot);
    });
    if (shows !== "current") {
      box.appendChild(el("div", "trick-note", (shows === "last" ? "last trick: " : "") +
        tableWho(v)[trick.winner] + " won it"));
    }
  }

  function button(text, data, action) {
    var b = el("button", "move", text);
    b.type = "button";
    Object.keys(data).forEach(function (k) { b.setAttribute("data-" + k, data[k]); });
    b.addEventListener("click", function () { send(action); });
    b.disabled = game.pending;
    return b;
  }

  function drawActions(v) {
    var box = $("p-actions");
    box.innerHTML = "";
    if (v.over) { return; }
    if (!v.your_turn) {
      box.appendChild(el("p", "muted", SEAT_NAMES[v.seat] + " (" + (v.names[v.seat] || "a bot") + ") is " +
        (DOING[v.waiting_for] || v.waiting_for) + "\u2026"));
      return;
    }
    var prompt = { bid: "Your bid:", trump: "Name trump:", discard: "Choose " + v.kitty + " cards to discard:",
      play: "Your turn: play a raised card (click it, or \u2190 \u2192 and Enter).", misdeal: "Throw this hand in?" }[v.decision];
    box.appendChild(el("p", "prompt", prompt));
    if (v.decision === "bid") {
      v.legal.forEach(function (b) { box.appendChild(button(K.bidText(b), { bid: b }, b)); });
    } else if (v.decision === "trump") {
      v.legal.forEach(function (s) { box.appendChild(button(SUIT_NAMES[s], { suit: s }, s)); });
    } else if (v.decision === "misdeal") {
      box.appendChild(button("Throw it in", { misdeal: "true" }, true));
      box.appendChild(button("Keep it", { misdeal: "false" }, false));
    } else if (v.decision === "discard") {
      if (v.kitty_cards) { box.appendChild(el("span", "muted", "The kitty held " + v.kitty_cards.join(", ") + ". ")); }
      var go = el("button", "move", "Discard " + (game.chosen.join(", ") || "\u2026"));
      go.type = "button";
      go.id = "p-discard";
      go.disabled = game.pending || game.chosen.length !== v.kitty;
      go.addEventListener("click", function () { send(game.chosen.slice()); });
      box.appendChild(go);
    }
  }

  function drawTurn(v, word) {
    var turn = $("p-turn");
    turn.innerHTML = "";
    turn.appendChild(el("strong", null, word + " " + (v.deal + 1) + " \u00b7 move " + (v.seq + 1)));
    if (v.your_turn && v.deadline) {
      var clock = el("div", "clock");
      clock.id = "p-clock";
      turn.appendChild(clock);
      tick();
    }
  }

  function lastToggle(v) {
    var toggle = el("button", "link", game.showLast ? "Back to the table" : "Show the last trick");
    toggle.type = "button";
    toggle.id = "p-last-toggle";
    toggle.disabled = !v.last_trick;
    toggle.addEventListener("click", function () { game.showLast = !game.showLast; draw(); });
    return toggle;
  }

  function drawSide(v) {
    drawTurn(v, "Deal");
    var contract = $("p-contract");
    contract.innerHTML = "";
    if (v.contract) {
      contract.appendChild(el("div", null, "Contract: " + K.contractText(v.contract, seatWho(v, v.contract.seat))));
      var trump = el("div", "trump", "Trump: ");
      trump.appendChild(el("span", v.contract.trump ? "suit-" + v.contract.trump : null, K.trumpText(v.contract)));
      contract.appendChild(trump);
    } else {
      contract.appendChild(el("div", "muted", "No contract yet"));
    }
    contract.appendChild(el("div", "taken", "Tricks: you and North " + v.taken[0] + " (" + K.pointsText(v.points[0]) +
      ") \u00b7 West and East " + v.taken[1] + " (" + K.pointsText(v.points[1]) + ")"));
    var bids = $("p-bids");
    bids.innerHTML = "";
    bids.appendChild(el("strong", null, "Bidding"));
    var list = el("ol", "bid-list");
    v.bids.forEach(function (b) { list.appendChild(el("li", null, SEAT_NAMES[b.seat] + ": " + K.bidText(b.bid))); });
    if (!v.bids.length) { list.appendChild(el("li", "muted", "\u2014")); }
    bids.appendChild(list);
    var last = $("p-last");
    last.innerHTML = "";
    last.appendChild(lastToggle(v));
    if (v.last_trick) { last.appendChild(lastTrickLine(v)); }
    drawScores(v);
  }

  /* "Last trick: ada: 9♦, north-bot: A♥, …; won by north-bot", red suits red. */
  function lastTrickLine(v) {
    var line = el("div", "last-trick", "Last trick: "), who = tableWho(v);
    line.id = "p-last-trick";
    K.trickPlays(v.last_trick, who).forEach(function (p, i) {
      line.appendChild(document.createTextNode((i ? ", " : "") + p.name + ": "));
      var card = el("span", "suit-" + p.card.slice(-1), K.cardText(p.card));
      card.setAttribute("data-card", p.card);
      line.appendChild(card);
    });
    line.appendChild(document.createTextNode("; won by " + who[v.last_trick.winner]));
    return line;
  }

  /* "North (north-bot)", or "you". */
  function seatWho(v, seat) {
    return seat === 0 ? "you" : SEAT_NAMES[seat] + " (" + (v.names[seat] || "a bot") + ")";
  }

  function drawScores(v) {
    var box = $("p-scores");
    box.innerHTML = "";
    box.appendChild(el("strong", null, "Score (to " + v.target + ")"));
    var table = el("table", "score-table"), head = el("tr");
    ["deal", "contract", "you+N", "W+E"].forEach(function (h) { head.appendChild(el("th", null, h)); });
    table.appendChild(head);
    var last = null;
    v.deals.forEach(function (d, i) {
      if (!d.score) { return; }
      var row = el("tr"), outcome = K.dealOutcomeText(d, TEAMS);
      row.title = outcome;
      row.appendChild(el("td", null, String(i + 1)));
      row.appendChild(el("td", null, d.contract ? K.contractText(d.contract, d.contract.seat === 0 ? "you" : SEAT_NAMES[d.contract.seat]) +
        (d.points ? (d.points[d.contract.seat % 2] >= parseInt(d.contract.bid, 10) ? ", made" : ", set") : "") : "misdeal"));
      row.appendChild(el("td", null, K.number(d.score[0]) + " (" + K.signed(d.delta[0]) + ")"));
      row.appendChild(el("td", null, K.number(d.score[1]) + " (" + K.signed(d.delta[1]) + ")"));
      table.appendChild(row);
      last = { number: i + 1, text: outcome };
    });
    box.appendChild(table);
    box.appendChild(el("div", "running", "Now: you and North " + K.number(v.score[0]) + ", West and East " + K.number(v.score[1])));
    if (last) {  // where the last change of score came from: the numbers above explained
      var why = el("p", "deal-outcome muted", "Deal " + last.number + ": " + last.text);
      why.id = "p-deal-outcome";
      box.appendChild(why);
    }
  }

  /* --- Sergeant Major: three seats, South (you), West and East --------------------------- */

  function smDraw(v) {
    for (var seat = 0; seat < 3; seat++) { smSeat(v, seat); }
    smTrick(v);
    smActions(v);
    smSide(v);
  }

  function smSeat(v, seat) {
    var box = root.querySelector('.seat[data-seat="' + seat + '"]');
    box.innerHTML = "";
    box.className = "seat seat-" + seat + (v.seat === seat && !v.over ? " to-play" : "");
    var head = el("div", "seat-head");
    head.appendChild(el("span", "seat-name", S.SEAT_NAMES[seat] + (seat === 0 ? " (you)" : "")));
    head.appendChild(el("span", "seat-player", v.names[seat] || ""));
    if (v.dealer === seat) { head.appendChild(el("span", "badge dealer", "dealer")); }
    var target = el("span", "badge target", "target " + v.targets[seat]);
    target.setAttribute("data-target", String(v.targets[seat]));
    head.appendChild(target);
    box.appendChild(head);
    // the tricks the seat took against its target: "7 tricks taken, target 5" (issue 43)
    var took = v.taken[seat];
    box.appendChild(el("div", "sm-count", took + (took === 1 ? " trick" : " tricks") +
      " taken, target " + v.targets[seat]));
    var hand = el("div", "hand");
    if (seat === 0) { drawHand(v, hand); }
    else {
      for (var i = 0; i < v.hand_sizes[seat]; i++) { hand.appendChild(el("span", "card back", "\u00a0")); }
    }
    box.appendChild(hand);
  }

  function smTrick(v) {
    var box = $("p-trick"), shows = game.showLast ? "last" : game.held ? "held" : "current";
    var trick = shows === "last" ? v.last_trick : shows === "held" ? game.held : v.trick;
    var who = S.tableWho(v.names);
    box.innerHTML = "";
    box.setAttribute("data-shows", shows);
    if (!trick || !trick.cards.length) {
      box.appendChild(el("div", "trick-note muted", S.tableNote(v, who)));
      return;
    }
    trick.cards.forEach(function (c, i) {
      var seat = (trick.leader + i) % 3, slot = el("div", "played played-" + seat), node = S.cardNode(c);
      node.setAttribute("data-seat", String(seat));
      if (trick.winner === seat) { slot.classList.add("winner"); }
      slot.appendChild(node);
      box.appendChild(slot);
    });
    if (shows !== "current") {
      box.appendChild(el("div", "trick-note", (shows === "last" ? "last trick: " : "") + who[trick.winner] + " won it"));
    }
  }

  var SM_DOING = { give: "giving cards", "return": "returning cards", trump: "naming trump",
                   discard: "discarding", play: "to play" };

  function smActions(v) {
    var box = $("p-actions"), who = S.tableWho(v.names);
    box.innerHTML = "";
    if (v.over) { return; }
    if (!v.your_turn) {
      box.appendChild(el("p", "muted", S.SEAT_NAMES[v.seat] + " (" + (v.names[v.seat] || "a bot") + ") is " +
        (SM_DOING[v.waiting_for] || v.waiting_for) + "\u2026"));
      return;
    }
    var x = v.exchanges[v.exchanges.length - 1], n = needed(v);
    var prompt = {
      trump: "Name trump:",
      discard: "Choose " + n + " cards to discard" + (v.rules.kitty_first ? " (the kitty is in your hand):" :
        " (then you take the kitty, unseen):"),
      give: x ? "Choose " + n + " card" + (n === 1 ? "" : "s") + " to give to " + who[x.receiver] + ":" : "",
      "return": x ? who[x.giver] + " gave you " + S.cardsText(x.given || []) + "; the rules send back " +
        S.cardsText(v.legal) + ":" : "",
      play: "Your turn: play a raised card (click it, or \u2190 \u2192 and Enter).",
    }[v.decision];
    box.appendChild(el("p", "prompt", prompt));
    if (v.decision === "trump") {
      v.legal.forEach(function (s) { box.appendChild(button(SUIT_NAMES[s], { suit: s }, s)); });
    } else if (v.decision === "return") {
      var back = button("Return " + S.cardsText(v.legal), { "return": v.legal.join(" ") }, v.legal.slice());
      back.id = "p-return";
      box.appendChild(back);
    } else if (v.decision === "discard" || v.decision === "give") {
      if (v.kitty_cards) { box.appendChild(el("span", "muted", "The kitty held " + S.cardsText(v.kitty_cards) + ". ")); }
      var word = v.decision === "give" ? "Give " : "Discard ";
      var go = el("button", "move", word + (game.chosen.map(K.cardText).join(" ") || "\u2026"));
      go.type = "button";
      go.id = v.decision === "give" ? "p-give" : "p-discard";
      go.disabled = game.pending || game.chosen.length !== n;
      go.addEventListener("click", function () { send(game.chosen.slice()); });
      box.appendChild(go);
    }
  }

  function smSide(v) {
    var who = S.tableWho(v.names);
    drawTurn(v, "Hand");
    var info = $("p-contract");
    info.innerHTML = "";
    info.appendChild(el("div", "sm-targets", "Targets: " + S.targetsText(v.targets, who)));
    var trump = el("div", "trump", "Trump: ");
    trump.appendChild(el("span", v.trump ? "suit-" + v.trump : null, v.trump ?
      K.SUIT[v.trump] + " " + K.SUIT_WORDS[v.trump] : "not named yet"));
    info.appendChild(trump);
    if (v.discards && v.discards.length) {
      info.appendChild(el("div", "sm-discard", "Your discard: " + S.cardsText(v.discards)));
    }
    info.appendChild(el("div", "taken", "Tricks: " + v.taken.map(function (t, seat) {
      return who[seat] + " " + t + "/" + v.targets[seat];
    }).join(" \u00b7 ")));
    var ex = $("p-bids"), list = el("ol", "bid-list sm-exchanges"), progress = S.exchangeProgress(v);
    ex.innerHTML = "";
    ex.appendChild(el("strong", null, "Exchange"));
    v.exchanges.forEach(function (x, i) { list.appendChild(el("li", null, S.exchangeText(x, who, progress[i]))); });
    if (!v.exchanges.length) {
      list.appendChild(el("li", "muted", v.last ? "none this hand" : "none: the first hand"));
    }
    ex.appendChild(list);
    var last = $("p-last");
    last.innerHTML = "";
    last.appendChild(lastToggle(v));
    if (v.last_trick) { last.appendChild(smLastTrickLine(v, who)); }
    smScores(v, who);
  }

  function smLastTrickLine(v, who) {
    var line = el("div", "last-trick", "Last trick: "), t = v.last_trick;
    line.id = "p-last-trick";
    t.cards.forEach(function (card, i) {
      line.appendChild(document.createTextNode((i ? ", " : "") + who[(t.leader + i) % 3] + ": "));
      var node = el("span", "suit-" + card.slice(-1), K.cardText(card));
      node.setAttribute("data-card", card);
      line.appendChild(node);
    });
    line.appendChild(document.createTextNode("; won by " + who[t.winner]));
    return line;
  }

  function smScores(v, who) {
    var box = $("p-scores");
    box.innerHTML = "";
    box.appendChild(el("strong", null, "Ups and downs"));
    var table = el("table", "score-table sm-scores"), head = el("tr");
    ["hand", "you", "W", "E"].forEach(function (h) { head.appendChild(el("th", null, h)); });
    table.appendChild(head);
    v.deals.forEach(function (d, i) {
      if (!d.score) { return; }
      var row = el("tr");
      row.appendChild(el("td", null, String(i + 1)));
      for (var seat = 0; seat < 3; seat++) {
        row.appendChild(el("td", null, S.number(d.score[seat]) + " (" + S.signed(d.delta[seat]) + ")"));
      }
      table.appendChild(row);
    });
    box.appendChild(table);
    var now = el("div", "running", "Now: " + v.score.map(function (n, seat) {
      return who[seat] + " " + S.number(n);
    }).join(", "));
    now.id = "p-now";
    box.appendChild(now);
  }

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
    var legal = v.hand.slice().sort(K.cardOrder).filter(function (c) { return v.legal.indexOf(c) >= 0; });
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
    // Sergeant Major has no teams: the person alone gives the game up (issue 43)
    var loses = GAME === SM ? "You give the game up." : "You and North lose it.";
    if (!window.confirm("Resign this game? " + loses)) { return; }
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
