/* One board side by side (matches/board_detail.html): the two tables of a duplicate pair that
   played the same cards, stepping together, from the board API
   (/api/v1/matches/<id>/boards/<game>/<deal>/). The steps, the table at each step and the
   cards are the game's, from its one registration with the replay viewer (viewers.js:
   window.KaiserArenaReplay.gameOf(the page's data-game).cards, replay.js's). Starts at the
   first difference (or the #s<step> of the address). No other dependencies. */
(function () {
  "use strict";

  var root = document.getElementById("board");
  var entry = root && window.KaiserArenaReplay &&
    window.KaiserArenaReplay.gameOf(root.getAttribute("data-game"));
  if (!entry || !entry.cards) { return; }
  var K = entry.cards;
  var $ = function (id) { return document.getElementById(id); };
  var view = { tables: [], step: 0, steps: 0, difference: 0 };

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }

  function table(data, t) {
    var deal = data.deals[t];
    if (!deal) { return null; }
    var entry = { deal: deal, game: { seats: data.seats[t], result: null }, last: false };
    return { entry: entry, steps: K.dealSteps(entry), box: $("b-table-" + t), seats: data.seats[t] };
  }

  function who(tab, seat) {
    var side = tab.seats[seat], p = view.players[side] || {};
    return side + " \u00b7 " + (p.name || side) + (p.number ? " v" + p.number : "");
  }

  /* What the step just did, in words: "West bids 7", "North plays 10♥", "deal over". */
  function lastAction(tab, s, step) {
    var deal = tab.entry.deal, kind = step.kind;
    if (kind === "bid") {
      var b = deal.bids[step.bids - 1];
      return K.SEAT_NAMES[b.seat] + " bids " + K.bidText(b.bid);
    }
    if (kind === "card") {
      var trick = deal.tricks[step.trick], seat = (trick.leader + step.cards - 1) % 4;
      return K.SEAT_NAMES[seat] + " plays " + K.cardText(trick.cards[step.cards - 1]);
    }
    if (kind === "contract" && deal.contract) {
      // A named suit is in the contract's words already ("7 \u2665 by South")
      return K.contractText(deal.contract, K.SEAT_NAMES[deal.contract.seat]) +
        (deal.contract.trump ? "" : ", trump: " + K.trumpText(deal.contract));
    }
    if (kind === "discard") { return K.SEAT_NAMES[deal.contract.seat] + " discards " + deal.discards.map(K.cardText).join(" "); }
    if (kind === "misdeal") { return K.SEAT_NAMES[deal.misdeal.seat] + " throws the hand in"; }
    if (kind === "won") { return K.SEAT_NAMES[deal.tricks[step.trick].winner] + " wins trick " + (step.trick + 1); }
    if (kind === "end") {
      return "deal over: points " + K.scoreText(deal.points) + ", score " + K.signed(deal.delta[0]) + " / " + K.signed(deal.delta[1]);
    }
    return "the deal";
  }

  function drawTable(tab) {
    var index = Math.min(view.step, tab.steps.length - 1), step = tab.steps[index];
    var s = K.stateAt(tab.entry, tab.steps, index), deal = tab.entry.deal;
    for (var seat = 0; seat < 4; seat++) {
      var box = tab.box.querySelector('.seat[data-seat="' + seat + '"]');
      box.innerHTML = "";
      box.className = "seat seat-" + seat + " team-" + tab.seats[seat];
      var head = el("div", "seat-head");
      head.appendChild(el("span", "seat-name", K.SEAT_NAMES[seat]));
      head.appendChild(el("span", "seat-player", who(tab, seat)));
      if (deal.dealer === seat) { head.appendChild(el("span", "badge dealer", "dealer")); }
      box.appendChild(head);
      var bid = K.lastBidOf(deal, seat, s.bids);
      if (bid && !s.trick && !s.ended) { box.appendChild(el("div", "bubble", K.bidText(bid))); }
      var hand = el("div", "hand");
      K.handAt(tab.entry, seat, s).forEach(function (c) { hand.appendChild(K.cardNode(c)); });
      box.appendChild(hand);
    }
    var trickBox = tab.box.querySelector(".trick");
    trickBox.innerHTML = "";
    if (s.trick) {
      s.trick.cards.forEach(function (c, i) {
        var seatOf = (s.trick.leader + i) % 4, slot = el("div", "played played-" + seatOf);
        if (s.trickWinner === seatOf) { slot.classList.add("winner"); }
        slot.appendChild(K.cardNode(c));
        trickBox.appendChild(slot);
      });
    }
    var last = tab.box.querySelector(".board-last");
    last.textContent = lastAction(tab, s, step);
    last.classList.toggle("differs", view.step === view.difference && view.hasDifference);
    tab.box.querySelector(".board-contract").textContent = deal.contract && s.contract ?
      "Contract: " + K.contractText(deal.contract, K.SEAT_NAMES[deal.contract.seat] + " (" + tab.seats[deal.contract.seat] + ")") +
      " \u00b7 tricks " + s.taken[0] + "\u2013" + s.taken[1] : "";
    tab.box.setAttribute("data-step", String(index));
  }

  function draw() {
    view.tables.forEach(function (tab) { if (tab) { drawTable(tab); } });
    $("b-slider").max = String(view.steps - 1);
    $("b-slider").value = String(view.step);
    $("b-step").textContent = "step " + view.step + " of " + (view.steps - 1) +
      (view.step === view.difference && view.hasDifference ? " \u00b7 the first difference" : "");
    root.setAttribute("data-step", String(view.step));
    if (history.replaceState) { history.replaceState(null, "", "#s" + view.step); }
  }

  function go(step) {
    view.step = Math.max(0, Math.min(step, view.steps - 1));
    draw();
  }

  function show(data) {
    view.players = data.players || {};
    view.tables = [table(data, 0), table(data, 1)];
    view.steps = Math.max.apply(null, view.tables.map(function (t) { return t ? t.steps.length : 1; }));
    view.hasDifference = !!(data.board && data.board.difference);
    view.difference = view.hasDifference ? data.board.difference.step : 0;
    $("b-message").hidden = true;
    root.classList.add("loaded");
    var m = /^#s(\d+)$/.exec(location.hash);
    go(m ? +m[1] : +(root.getAttribute("data-step") || 0));
  }

  $("b-next").addEventListener("click", function () { go(view.step + 1); });
  $("b-prev").addEventListener("click", function () { go(view.step - 1); });
  $("b-first").addEventListener("click", function () { go(0); });
  $("b-last").addEventListener("click", function () { go(view.steps - 1); });
  $("b-diff").addEventListener("click", function () { go(view.difference); });
  $("b-slider").addEventListener("input", function () { go(+this.value); });
  document.addEventListener("keydown", function (event) {
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "select" || tag === "textarea") { return; }
    var keys = { ArrowRight: 1, ArrowLeft: -1 };
    if (keys[event.key]) { event.preventDefault(); go(view.step + keys[event.key]); }
    if (event.key === "Home") { event.preventDefault(); go(0); }
    if (event.key === "End") { event.preventDefault(); go(view.steps - 1); }
  });

  fetch(root.getAttribute("data-api"), { headers: { Accept: "application/json" }, credentials: "same-origin" })
    .then(function (response) {
      if (!response.ok) { throw new Error("the server answered " + response.status); }
      return response.json();
    })
    .then(show)
    .catch(function (error) {
      $("b-message").textContent = "Could not load the board: " + error.message;
      $("b-message").classList.add("errors");
    });
  window.kaiserBoard = view; // for the browser tests
})();
