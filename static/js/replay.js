/* Kaiser on the site's tables, its whole browser side in one registration with the replay
   viewer (viewers.js: window.KaiserArenaReplay.register): its cards and words (`cards`, which
   its board view, board.js, takes from there), its drawing of a replay step, and a person's
   table (`table`, drawn by play.js with its tools). Every step is drawn from scratch from the
   replay (hands as dealt minus the cards played so far), so stepping back is as exact as
   stepping forward. Needs viewers.js loaded first; no other dependencies. */
(function () {
  "use strict";

  var REGISTRY = window.KaiserArenaReplay, DECK = REGISTRY.cards;
  var SUIT = DECK.SUIT, SUIT_WORDS = DECK.SUIT_WORDS, cardText = DECK.cardText;
  var cardOrder = DECK.cardOrder, number = DECK.number, signed = DECK.signed;
  var SEAT_NAMES = ["South", "West", "North", "East"];

  var $ = function (id) { return document.getElementById(id); };
  var root = null, current = null;  // the viewer's root and replay, as the viewer draws

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }

  /* --- Words ------------------------------------------------------------------------------ */

  /* A card as the deck draws it, the two that count marked: 5\u2665 +5, 3\u2660 \u22123. */
  function cardNode(code) {
    var node = DECK.cardNode(code);
    if (code === "5H") { node.title = "5\u2665: +5 points"; node.classList.add("special"); }
    if (code === "3S") { node.title = "3\u2660: \u22123 points"; node.classList.add("special"); }
    return node;
  }

  /* A bid in words: "pass", "7" (trump named by the contractor), "7 no trump",
     "7 no trump, low" (the protocol's "7L"). */
  function bidText(bid) {
    if (bid === "pass") { return "pass"; }
    if (/N$/.test(bid)) { return bid.slice(0, -1) + " no trump"; }
    if (/L$/.test(bid)) { return bid.slice(0, -1) + " no trump, low"; }
    return bid;
  }

  /* The trump of a contract: the suit, or that there is none (no trump, low or not), or that
     the contractor has still to name it. */
  function trumpText(contract) {
    if (contract.trump) { return SUIT[contract.trump] + " " + SUIT_WORDS[contract.trump]; }
    if (/N$/.test(contract.bid)) { return "none (no trump)"; }
    if (/L$/.test(contract.bid)) { return "none (no trump, low: low cards win)"; }
    return "not named yet";
  }

  /* "7 no trump by North", "7 \u2665 by greedy (West)" once the suit is named: `who` names the
     contractor (a seat name, a player, or both). engine/words.py contract_text, the same. */
  function contractText(contract, who) {
    return bidText(contract.bid) + (contract.trump ? " " + SUIT[contract.trump] : "") + " by " + who;
  }

  function scoreText(pair) { return number(pair[0]) + " to " + number(pair[1]); }
  function pointsText(n) { return number(n) + (Math.abs(n) === 1 ? " pt" : " pts"); }

  /* How a scored deal changed the score (docs/rules.md, "Scoring a deal"), `teams` naming
     the two teams ["you and North", "West and East"]: "West and East bid 12 and took 8 pts:
     set, −12 (they lose their bid). You and North took 2 pts: +2." */
  function dealOutcomeText(deal, teams) {
    var c = deal.contract;
    if (!c || !deal.points || !deal.delta) { return "thrown in: no score"; }
    var t = c.seat % 2, o = 1 - t, n = parseInt(c.bid, 10), doubled = /[NL]$/.test(c.bid);
    var made = deal.points[t] >= n;
    var cap = function (words) { return words.charAt(0).toUpperCase() + words.slice(1); };
    var text = cap(teams[t]) + " bid " + bidText(c.bid) + " and took " + pointsText(deal.points[t]) + ": " +
      (made ? "made, " + signed(deal.delta[t]) + (doubled ? " (all they took, doubled at no trump)" : " (all they took)")
            : "set, " + signed(deal.delta[t]) + (doubled ? " (their bid, doubled at no trump)" : " (they lose their bid)")) +
      ". " + cap(teams[o]) + " took " + pointsText(deal.points[o]) + ": " +
      signed(deal.delta[o]) + (deal.delta[o] !== deal.points[o] ? " (locked out: a defending team this high gains nothing)" : "") + ".";
    return text;
  }

  /* Who played what in a trick: [{seat, name, card}] in play order; `names` by seat. */
  function trickPlays(trick, names) {
    return trick.cards.map(function (card, i) {
      var seat = (trick.leader + i) % 4;
      return { seat: seat, name: names[seat] || SEAT_NAMES[seat], card: card };
    });
  }

  /* "Ada: 9♦, north-bot: A♥, east-bot: K♥, west-bot: 7♣; won by north-bot" */
  function trickText(trick, names) {
    var text = trickPlays(trick, names).map(function (p) { return p.name + ": " + cardText(p.card); }).join(", ");
    return trick.winner === undefined || trick.winner === null ? text :
      text + "; won by " + (names[trick.winner] || SEAT_NAMES[trick.winner]);
  }

  /* Each seat's player, by seat: from `seat_players` in a game with a person ("ada (person)",
     "greedy v3"), else the side's player of the first game. */
  function seatLabels(replay) {
    var seatPlayers = replay.seat_players, seats = ((replay.games || [])[0] || {}).seats || ["A", "B", "A", "B"];
    return [0, 1, 2, 3].map(function (seat) {
      var p = seatPlayers ? seatPlayers[seat] : (replay.players || {})[seats[seat]];
      if (!p) { return "?"; }
      if (p.human) { return p.name + " (person)"; }
      return p.name + (p.version ? " v" + p.version : "");
    });
  }

  /* The two sides: "ada & greedy v. random & random" in a game with a person (its team first);
     "A = greedy v3, B = random v1" in a match, whose players change seats from game to game. */
  function teamsText(replay) {
    var p = replay.players || {};
    if (replay.seat_players) {
      var names = replay.seat_players.map(function (s) { return s.name; });
      return names[0] + " & " + names[2] + " v. " + names[1] + " & " + names[3];
    }
    var side = function (k) { return p[k] ? p[k].name + (p[k].version ? " v" + p[k].version : "") : k; };
    return side("A") + " v. " + side("B");
  }

  /* At a person's table (play.js): each seat's player by name, with the seat where two seats
     have the same name ("random (West)"); `names` by seat, the person's username first. */
  function tableNames(names) {
    return names.map(function (name, seat) {
      var twice = names.filter(function (n) { return n === name; }).length > 1;
      return twice ? name + " (" + SEAT_NAMES[seat] + ")" : name;
    });
  }

  /* What a person's table says while no card is on it, from the person's view (play.js) and
     the table's names: who is naming trump, discarding, or to lead. */
  function tableNoteText(v, who) {
    if (v.over) { return "game over"; }
    var you = v.seat === 0;
    if (v.waiting_for === "trump") { return you ? "you name trump" : who[v.seat] + " is naming trump"; }
    if (v.waiting_for === "discard") { return you ? "you discard" : who[v.seat] + " is discarding"; }
    if (v.waiting_for === "play") { return you ? "your lead" : who[v.seat] + " leads"; }
    return "bidding";
  }

  /* The end of a person's game, from its result and the table's names: "Your team (you and
     north-bot) wins, 52 to 30." The winner's score first. */
  function personResultText(r, names) {
    var who = tableNames(names), text;
    if (r.winner === null) { text = "A draw, " + scoreText(r.score) + "."; }
    else {
      var team = r.winner === 0 ? "Your team (you and " + who[2] + ")" :
        "The other team (" + who[1] + " and " + who[3] + ")";
      text = team + " wins, " + scoreText([r.score[r.winner], r.score[1 - r.winner]]) + ".";
    }
    if (r.forfeit) {
      var f = r.forfeit;
      text += f.seat === 0 ? (f.reason === "resign" ? " You resigned." : " You forfeited (" + f.reason + ").") :
        " " + who[f.seat] + " forfeited (" + f.reason + ").";
    }
    return text;
  }

  /* --- The steps of one deal ------------------------------------------------------------ */

  function dealSteps(entry) {
    var deal = entry.deal, steps = [{ kind: "deal" }];
    if (deal.misdeal) { steps.push({ kind: "misdeal" }); }
    (deal.bids || []).forEach(function (_, i) { steps.push({ kind: "bid", bids: i + 1 }); });
    if (deal.contract) { steps.push({ kind: "contract" }); }
    if ((deal.discards || []).length) { steps.push({ kind: "discard" }); }
    (deal.tricks || []).forEach(function (trick, t) {
      trick.cards.forEach(function (_, c) { steps.push({ kind: "card", trick: t, cards: c + 1 }); });
      if (trick.cards.length === 4) { steps.push({ kind: "won", trick: t }); }
    });
    if (deal.points) { steps.push({ kind: "end" }); }
    if (entry.last && entry.game.result && entry.game.result.forfeit) { steps.push({ kind: "fault" }); }
    return steps;
  }


  /* --- What the table looks like at a step ------------------------------------------------ */

  function stateAt(entry, steps, index) {
    var deal = entry.deal, s = {
      bids: 0, contract: false, discarded: false, played: [], trick: null, trickWinner: null,
      taken: [0, 0], points: [0, 0], ended: false, fault: false, misdeal: false,
    };
    for (var i = 0; i <= index; i++) {
      var step = steps[i];
      if (step.kind === "bid") { s.bids = step.bids; }
      if (step.kind === "misdeal") { s.misdeal = true; }
      if (step.kind === "contract") { s.contract = true; }
      if (step.kind === "discard") { s.discarded = true; }
      if (step.kind === "card") {
        var trick = deal.tricks[step.trick];
        s.trick = { leader: trick.leader, cards: trick.cards.slice(0, step.cards), t: step.trick };
        s.trickWinner = null;
        s.played.push(trick.cards[step.cards - 1]);
      }
      if (step.kind === "won") {
        var won = deal.tricks[step.trick], team = won.winner % 2;
        s.trickWinner = won.winner;
        s.taken[team] += 1;
        s.points[team] += 1 + (won.cards.indexOf("5H") >= 0 ? 5 : 0) - (won.cards.indexOf("3S") >= 0 ? 3 : 0);
      }
      if (step.kind === "end") { s.ended = true; s.trick = null; }
      if (step.kind === "fault") { s.fault = true; }
    }
    return s;
  }

  function handAt(entry, seat, s) {
    var deal = entry.deal, hand = deal.hands[seat].slice();
    var contract = deal.contract;
    if (s.discarded && contract && contract.seat === seat) {
      hand = hand.concat(deal.kitty || []).filter(function (c) { return deal.discards.indexOf(c) < 0; });
    }
    return hand.filter(function (c) { return s.played.indexOf(c) < 0; }).sort(cardOrder);
  }

  /* --- Drawing ------------------------------------------------------------------------------ */

  /* The player at a seat of this game, as people read it: its bot's name and version (the
     sides change seats from game to game), or the person's name at a person's table. */
  function playerName(entry, seat) {
    var replay = current, p;
    if (replay.seat_players) {
      p = replay.seat_players[seat];
      return p ? (p.human ? p.name + " (person)" : p.name) : "?";
    }
    p = (replay.players || {})[entry.game.seats[seat]];
    return p ? p.name + (p.version ? " v" + p.version : "") : "?";
  }

  /* A team in words: "South and North (greedy v3)", its seats and who plays them. */
  function teamText(entry, t) {
    var names = [playerName(entry, t), playerName(entry, t + 2)];
    var who = names[0] === names[1] ? names[0] : names[0] + " & " + names[1];
    return SEAT_NAMES[t] + " and " + SEAT_NAMES[t + 2] + " (" + who + ")";
  }

  function drawSeat(entry, seat, s) {
    var box = root.querySelector('.seat[data-seat="' + seat + '"]');
    var deal = entry.deal, forfeit = entry.game.result && entry.game.result.forfeit;
    box.innerHTML = "";
    box.className = "seat seat-" + seat + " team-" + entry.game.seats[seat];
    var head = el("div", "seat-head");
    head.appendChild(el("span", "seat-name", SEAT_NAMES[seat]));
    head.appendChild(el("span", "seat-player", playerName(entry, seat)));
    if (deal.dealer === seat) { head.appendChild(el("span", "badge dealer", "dealer")); }
    if (s.contract && deal.contract && deal.contract.seat === seat) {
      head.appendChild(el("span", "badge contract-badge", "bid " + bidText(deal.contract.bid)));
    }
    box.appendChild(head);
    var bid = lastBidOf(deal, seat, s.bids);
    if (bid && !s.trick && !s.ended) { box.appendChild(el("div", "bubble", bidText(bid))); }
    var hand = el("div", "hand");
    handAt(entry, seat, s).forEach(function (c) { hand.appendChild(cardNode(c)); });
    if (!hand.childNodes.length) { hand.appendChild(el("span", "muted", "no cards")); }
    box.appendChild(hand);
    if (s.fault && forfeit && forfeit.seat === seat) {
      box.classList.add("at-fault");
      box.appendChild(el("div", "fault-note", "fault: " + forfeit.reason));
    }
    if (s.misdeal && deal.misdeal && deal.misdeal.seat === seat) {
      box.appendChild(el("div", "bubble", "throws the hand in (misdeal)"));
    }
  }

  function lastBidOf(deal, seat, count) {
    var bid = null;
    (deal.bids || []).slice(0, count).forEach(function (b) { if (b.seat === seat) { bid = b.bid; } });
    return bid;
  }

  /* The end of a deal across the whole of the table's middle, a line a side (issue 43: in the
     trick's middle cell it was a column a word wide on a phone). */
  function dealOver(title, lines) {
    var note = el("div", "trick-note deal-over");
    note.appendChild(el("strong", null, title));
    lines.forEach(function (line) { note.appendChild(el("div", null, line)); });
    return note;
  }

  function drawTrick(entry, s) {
    var box = $("v-trick");
    box.innerHTML = "";
    if (s.ended) {
      /* Points, not tricks: say both, and what they did to the score. */
      var p = entry.deal.points, d = entry.deal.delta || [0, 0];
      var team = function (t) {
        return teamText(entry, t) + ": " + s.taken[t] + (s.taken[t] === 1 ? " trick, " : " tricks, ") +
          number(p[t]) + (Math.abs(p[t]) === 1 ? " point" : " points") + ", score " +
          (d[t] >= 0 ? "+" : "\u2212") + Math.abs(d[t]);
      };
      box.appendChild(dealOver("Deal over", [team(0), team(1)]));
      return;
    }
    if (!s.trick) {
      box.appendChild(el("div", "trick-note muted", s.contract ? "lead to the first trick" : "bidding"));
      return;
    }
    s.trick.cards.forEach(function (c, i) {
      var seat = (s.trick.leader + i) % 4, slot = el("div", "played played-" + seat);
      var node = cardNode(c);
      node.setAttribute("data-seat", String(seat));
      if (s.trickWinner === seat) { slot.classList.add("winner"); }
      slot.appendChild(node);
      box.appendChild(slot);
    });
    box.appendChild(el("div", "trick-note", "trick " + (s.trick.t + 1) +
      (s.trickWinner !== null ? ": " + SEAT_NAMES[s.trickWinner] + " wins" : "")));
  }

  function drawSide(entry, s) {
    var deal = entry.deal, contract = $("v-contract"), bids = $("v-bids");
    contract.innerHTML = "";
    if (s.contract && deal.contract) {
      var c = deal.contract;
      contract.appendChild(el("div", null, "Contract: " + SEAT_NAMES[c.seat] + " (" + playerName(entry, c.seat) +
        ") bid " + bidText(c.bid)));
      var trump = el("div", "trump", "Trump: ");
      if (c.trump) { trump.appendChild(el("span", "suit-" + c.trump, trumpText(c))); }
      else { trump.appendChild(document.createTextNode(trumpText(c))); }
      contract.appendChild(trump);
    } else {
      contract.appendChild(el("div", "muted", deal.misdeal ? "Misdeal: thrown in, redealt" : "No contract yet"));
    }
    contract.appendChild(el("div", "taken", "Tricks taken: " + SEAT_NAMES[0] + " and " + SEAT_NAMES[2] + " " +
      s.taken[0] + " (" + pointsText(s.points[0]) + ") \u00b7 " + SEAT_NAMES[1] + " and " + SEAT_NAMES[3] + " " +
      s.taken[1] + " (" + pointsText(s.points[1]) + ")"));
    bids.innerHTML = "";
    bids.appendChild(el("strong", null, "Bidding"));
    var list = el("ol", "bid-list");
    (deal.bids || []).slice(0, s.bids).forEach(function (b) {
      list.appendChild(el("li", null, SEAT_NAMES[b.seat] + ": " + bidText(b.bid)));
    });
    if (!s.bids) { list.appendChild(el("li", "muted", "\u2014")); }
    bids.appendChild(list);
    drawScores(entry, s);
  }

  function drawScores(entry, s) {
    var box = $("v-scores"), game = entry.game;
    box.innerHTML = "";
    box.appendChild(el("strong", null, "Game " + (entry.g + 1) + " score"));
    box.appendChild(el("div", "muted", teamText(entry, 0) + " \u00b7 " + teamText(entry, 1)));
    var table = el("table", "score-table"), head = el("tr");
    ["deal", "contract", "points", "S–N", "W–E"].forEach(function (h) {
      var th = el("th", null, h);
      if (h.length === 3) { th.title = h === "S–N" ? "South and North" : "West and East"; }
      head.appendChild(th);
    });
    table.appendChild(head);
    game.deals.forEach(function (deal, d) {
      if (d > entry.d || (d === entry.d && !s.ended) || !deal.score) { return; }
      var row = el("tr");
      row.appendChild(el("td", null, String(d + 1)));
      row.appendChild(el("td", null, deal.contract ? contractText(deal.contract, SEAT_NAMES[deal.contract.seat]) : "misdeal"));
      row.appendChild(el("td", null, scoreText(deal.points)));
      row.appendChild(el("td", null, number(deal.score[0]) + " (" + signed(deal.delta[0]) + ")"));
      row.appendChild(el("td", null, number(deal.score[1]) + " (" + signed(deal.delta[1]) + ")"));
      if (d === entry.d) { row.className = "current"; }
      table.appendChild(row);
    });
    if (table.rows.length === 1) {
      var none = el("tr"), cell = el("td", "muted", "no deal of this game is over yet");
      cell.colSpan = 5;
      none.appendChild(cell);
      table.appendChild(none);
    }
    box.appendChild(table);
    if (entry.last && (s.ended || s.fault) && game.result) {
      var r = game.result, text = r.winner === null ? "Game drawn" : "Team " + r.winner + " (" +
        game.seats[r.winner] + ") wins the game";
      box.appendChild(el("p", "game-result", text + ", " + scoreText(r.score) + "."));
    }
    if (s.fault && game.result && game.result.forfeit) {
      var f = game.result.forfeit;
      box.appendChild(el("p", "fault-note", "Fault: seat " + f.seat + " (" + f.player + ") " + f.reason +
        (f.message_id !== undefined ? " at message " + f.message_id : "") + (f.detail ? ": " + f.detail : "")));
    }
  }

  function stepLabel(step) {
    return { deal: "the deal", misdeal: "misdeal", bid: "bidding", contract: "contract",
      discard: "discards", card: "play", won: "trick won", end: "deal over", fault: "fault" }[step.kind];
  }

  function drawTable(box, entry, s, replay) {
    root = box;
    current = replay;
    for (var seat = 0; seat < 4; seat++) { drawSeat(entry, seat, s); }
    drawTrick(entry, s);
    drawSide(entry, s);
  }

  function summary(replay) {
    var r = replay.result || {}, games = r.games || {};
    var p = replay.players || {}, name = function (k) { return p[k] ? p[k].name : k; };
    return teamsText(replay) + " \u00b7 games won " + (games.A || 0) + "\u2013" +
      (games.B || 0) + " \u00b7 rules " + ((replay.rules || {}).preset || "?") +
      (r.forfeit ? " \u00b7 fault: " + name(r.forfeit.player) + " " + r.forfeit.reason : "");
  }

  /* --- A person's table (play.js draws it with its tools) --------------------------------- */

  var TEAMS = ["you and North", "West and East"];  // the person's team first, as the table says them
  var DOING = { bid: "to bid", trump: "naming trump", discard: "discarding", play: "to play",
                misdeal: "deciding whether to throw the hand in" };

  /* Each seat by name, the person's own as "you": "you won it", never their username. */
  function tableWho(v) {
    var who = tableNames(v.names);
    who[0] = "you";
    return who;
  }

  /* "North (north-bot)", or "you". */
  function seatWho(v, seat) {
    return seat === 0 ? "you" : SEAT_NAMES[seat] + " (" + (v.names[seat] || "a bot") + ")";
  }

  function tableSeat(t, v, seat) {
    var drawn = t.seat(v, seat, SEAT_NAMES[seat] + (seat === 0 ? " (you)" : seat === 2 ? " (partner)" : ""),
                       "team-" + (seat % 2 ? "B" : "A"));
    if (v.contract && v.contract.seat === seat) {
      drawn.head.appendChild(el("span", "badge contract-badge", "bid " + bidText(v.contract.bid)));
    }
    var bid = lastBidOf(v, seat, v.bids.length);
    if (bid && !v.contract) { drawn.box.appendChild(el("div", "bubble", bidText(bid))); }
    drawn.box.appendChild(t.hand(v, seat));
  }

  function tableActions(t, v) {
    var box = t.actions(v, SEAT_NAMES, DOING);
    if (!box) { return; }
    var prompt = { bid: "Your bid:", trump: "Name trump:", discard: "Choose " + v.kitty + " cards to discard:",
      play: "Your turn: play a raised card (click it, or \u2190 \u2192 and Enter).", misdeal: "Throw this hand in?" }[v.decision];
    box.appendChild(el("p", "prompt", prompt));
    if (v.decision === "bid") {
      v.legal.forEach(function (b) { box.appendChild(t.button(bidText(b), { bid: b }, b)); });
    } else if (v.decision === "trump") {
      t.suitButtons(box, v.legal);
    } else if (v.decision === "misdeal") {
      box.appendChild(t.button("Throw it in", { misdeal: "true" }, true));
      box.appendChild(t.button("Keep it", { misdeal: "false" }, false));
    } else if (v.decision === "discard") {
      if (v.kitty_cards) { box.appendChild(el("span", "muted", "The kitty held " + v.kitty_cards.join(", ") + ". ")); }
      box.appendChild(t.sendChosen("Discard " + (t.game.chosen.join(", ") || "\u2026"), "p-discard", v.kitty));
    }
  }

  function tableSide(t, v) {
    t.turn(v, "Deal");
    var contract = $("p-contract");
    contract.innerHTML = "";
    if (v.contract) {
      contract.appendChild(el("div", null, "Contract: " + contractText(v.contract, seatWho(v, v.contract.seat))));
      var trump = el("div", "trump", "Trump: ");
      trump.appendChild(el("span", v.contract.trump ? "suit-" + v.contract.trump : null, trumpText(v.contract)));
      contract.appendChild(trump);
    } else {
      contract.appendChild(el("div", "muted", "No contract yet"));
    }
    contract.appendChild(el("div", "taken", "Tricks: you and North " + v.taken[0] + " (" + pointsText(v.points[0]) +
      ") \u00b7 West and East " + v.taken[1] + " (" + pointsText(v.points[1]) + ")"));
    var bids = $("p-bids");
    bids.innerHTML = "";
    bids.appendChild(el("strong", null, "Bidding"));
    var list = el("ol", "bid-list");
    v.bids.forEach(function (b) { list.appendChild(el("li", null, SEAT_NAMES[b.seat] + ": " + bidText(b.bid))); });
    if (!v.bids.length) { list.appendChild(el("li", "muted", "\u2014")); }
    bids.appendChild(list);
    t.lastTrick(v, tableWho(v));
    tableScores(v);
  }

  function tableScores(v) {
    var box = $("p-scores");
    box.innerHTML = "";
    box.appendChild(el("strong", null, "Score (to " + v.target + ")"));
    var table = el("table", "score-table"), head = el("tr");
    ["deal", "contract", "you+N", "W+E"].forEach(function (h) { head.appendChild(el("th", null, h)); });
    table.appendChild(head);
    var last = null;
    v.deals.forEach(function (d, i) {
      if (!d.score) { return; }
      var row = el("tr"), outcome = dealOutcomeText(d, TEAMS);
      row.title = outcome;
      row.appendChild(el("td", null, String(i + 1)));
      row.appendChild(el("td", null, d.contract ? contractText(d.contract, d.contract.seat === 0 ? "you" : SEAT_NAMES[d.contract.seat]) +
        (d.points ? (d.points[d.contract.seat % 2] >= parseInt(d.contract.bid, 10) ? ", made" : ", set") : "") : "misdeal"));
      row.appendChild(el("td", null, number(d.score[0]) + " (" + signed(d.delta[0]) + ")"));
      row.appendChild(el("td", null, number(d.score[1]) + " (" + signed(d.delta[1]) + ")"));
      table.appendChild(row);
      last = { number: i + 1, text: outcome };
    });
    box.appendChild(table);
    box.appendChild(el("div", "running", "Now: you and North " + number(v.score[0]) + ", West and East " + number(v.score[1])));
    if (last) {  // where the last change of score came from: the numbers above explained
      var why = el("p", "deal-outcome muted", "Deal " + last.number + ": " + last.text);
      why.id = "p-deal-outcome";
      box.appendChild(why);
    }
  }

  var TABLE = {
    resignWords: "You and North lose it.",
    draw: function (t, v) {
      for (var seat = 0; seat < 4; seat++) { tableSeat(t, v, seat); }
      t.trick(v, tableWho(v), tableNoteText(v, tableWho(v)));
      tableActions(t, v);
      tableSide(t, v);
    },
    resultText: function (v) { return personResultText(v.result, v.names); },
  };

  /* --- The registration: the whole of Kaiser's browser side --------------------------------- */

  // Its cards and words: shared by its replay drawing, its person's table and its board view
  // (board.js); tests/play/test_play_text.py runs them under Node.
  var CARDS = {
    cardNode: cardNode, cardOrder: cardOrder, cardText: cardText, bidText: bidText,
    trumpText: trumpText, contractText: contractText, signed: signed, number: number,
    scoreText: scoreText, pointsText: pointsText, dealOutcomeText: dealOutcomeText,
    trickPlays: trickPlays, trickText: trickText, seatLabels: seatLabels,
    teamsText: teamsText, tableNames: tableNames, personResultText: personResultText,
    tableNoteText: tableNoteText,
    // the steps of a deal and the table at a step, shared with the board view (board.js)
    dealSteps: dealSteps, stateAt: stateAt, handAt: handAt, lastBidOf: lastBidOf,
    stepLabel: stepLabel,
    SEAT_NAMES: SEAT_NAMES, SUIT: SUIT, SUIT_WORDS: SUIT_WORDS,
  };

  REGISTRY.register("kaiser-replay", {
    game: "kaiser", cards: CARDS, table: TABLE, className: null, hand: "deal",
    steps: function (entry) { return dealSteps(entry); }, state: stateAt,
    draw: drawTable, label: stepLabel, summary: summary,
  });
})();
