/* Sergeant Major (9-5-2) on the site's tables, its whole browser side in one registration
   with the replay viewer (viewers.js, for the format "sergeant-major-replay"): the words for
   its hands (targets, ups and downs, the exchange, results; `cards`), the steps of a hand and
   the table at a step for the replay viewer, and a person's table (`table`, drawn by play.js
   with its tools). Cards are the registry's standard deck (viewers.js, loaded first).
   Seats: 0 South, 1 West (seat 0's left), 2 East. No other dependencies. */
(function () {
  "use strict";

  var FORMAT = "sergeant-major-replay";
  var SEAT_NAMES = ["South", "West", "East"];
  var REGISTRY = window.KaiserArenaReplay, DECK = REGISTRY.cards;
  var number = DECK.number, signed = DECK.signed, cardNode = DECK.cardNode;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }

  /* --- Words ------------------------------------------------------------------------------ */

  function cardsText(cards) { return cards.map(DECK.cardText).join(" "); }

  /* A hand's result for one seat: "up 3", "down 2", "on target". */
  function upText(delta) {
    return delta > 0 ? "up " + delta : delta < 0 ? "down " + (-delta) : "on target";
  }

  /* "South 2, West 9, East 5" from targets by seat; `who` names the seats. */
  function targetsText(targets, who) {
    return targets.map(function (t, seat) { return who[seat] + " " + t; }).join(", ");
  }

  /* One exchange in words, as far as it has gone and as far as the reader may see it (a
     person sees the cards of an exchange only if it is theirs): "West gives 2 to South:
     6♠ 5♥; gets back A♠ 5♥". */
  function exchangeText(x, who, progress) {
    var gave = progress ? progress.given : x.given !== null;
    var back = progress ? progress.returned : x.returned !== null;
    var you = who[x.giver] === "you";  // at a person's table: "you give", "you get back"
    var text = who[x.giver] + (you ? " give " : " gives ") + x.count + " to " + who[x.receiver];
    if (!gave) { return text + " (to come)"; }
    text += x.given ? ": " + cardsText(x.given) : " (face down)";
    if (!back) { return text + "; the return is to come"; }
    var gets = you ? "; get back " : "; gets back ";
    return text + (x.returned ? gets + cardsText(x.returned) : gets + "cards");
  }

  /* A game's end: "South (A) wins the game: 12 tricks or more in a hand.", "... on the
     totals.", "No outright winner: South and West share the point."; then the scores.
     `who` names the seats; `inHand`: the winner took win_tricks in the last hand. */
  function gameResultText(result, who, rules, inHand) {
    var score = " Score: " + result.score.map(function (s, seat) {
      return who[seat] + " " + number(s);
    }).join(", ") + ".";
    if (result.winner === null || result.winner === undefined) {
      var sharing = (result.points || []).map(function (p, seat) { return p > 0 ? who[seat] : null; })
        .filter(function (n) { return n; });
      return (result.forfeit ? "Ended by a fault" : "No outright winner") +
        (sharing.length ? ": " + sharing.join(" and ") + " share the point." : ".") + score;
    }
    var how = inHand ? ": " + rules.win_tricks + " tricks or more in a hand" : " on the totals";
    return who[result.winner] + " wins the game" + how + "." + score;
  }

  /* --- The steps of one hand ------------------------------------------------------------ */

  function handSteps(entry, rules) {
    var deal = entry.deal, steps = [{ kind: "deal" }];
    (deal.exchanges || []).forEach(function (x, i) {
      if (x.given) { steps.push({ kind: "give", x: i }); }
      if (x.returned) { steps.push({ kind: "return", x: i }); }
    });
    if (rules.kitty_first && deal.trump) { steps.push({ kind: "kitty" }); }
    if (deal.trump) { steps.push({ kind: "trump" }); }
    if ((deal.discards || []).length) { steps.push({ kind: "discard" }); }
    (deal.tricks || []).forEach(function (trick, t) {
      trick.cards.forEach(function (_, c) { steps.push({ kind: "card", trick: t, cards: c + 1 }); });
      if (trick.cards.length === 3) { steps.push({ kind: "won", trick: t }); }
    });
    if (deal.taken) { steps.push({ kind: "end" }); }
    if (entry.last && entry.game.result && entry.game.result.forfeit) { steps.push({ kind: "fault" }); }
    return steps;
  }

  function stepLabel(step) {
    return { deal: "the deal", give: "exchange: a gift", "return": "exchange: the return",
      kitty: "the dealer takes the kitty", trump: "trump", discard: "the discard",
      card: "play", won: "trick won", end: "hand over", fault: "fault" }[step.kind];
  }

  /* The table after steps 0..index. */
  function stateAt(entry, steps, index) {
    var deal = entry.deal, s = {
      exchanges: (deal.exchanges || []).map(function () { return { given: false, returned: false }; }),
      kitty: false, trump: false, discarded: false, played: [], trick: null, trickWinner: null,
      taken: [0, 0, 0], ended: false, fault: false,
    };
    for (var i = 0; i <= index; i++) {
      var step = steps[i];
      if (step.kind === "give") { s.exchanges[step.x].given = true; }
      if (step.kind === "return") { s.exchanges[step.x].returned = true; }
      if (step.kind === "kitty") { s.kitty = true; }
      if (step.kind === "trump") { s.trump = true; }
      if (step.kind === "discard") { s.discarded = true; }
      if (step.kind === "card") {
        var trick = deal.tricks[step.trick];
        s.trick = { leader: trick.leader, cards: trick.cards.slice(0, step.cards), t: step.trick };
        s.trickWinner = null;
        s.played.push(trick.cards[step.cards - 1]);
      }
      if (step.kind === "won") {
        s.trickWinner = deal.tricks[step.trick].winner;
        s.taken[s.trickWinner] += 1;
      }
      if (step.kind === "end") { s.ended = true; s.trick = null; }
      if (step.kind === "fault") { s.fault = true; }
    }
    return s;
  }

  function without(cards, gone) { return cards.filter(function (c) { return gone.indexOf(c) < 0; }); }

  /* A seat's cards at a step: as dealt, through the exchanges so far, the dealer's kitty and
     discard, less the cards played. */
  function handAt(entry, seat, s, rules) {
    var deal = entry.deal, hand = deal.hands[seat].slice();
    (deal.exchanges || []).forEach(function (x, i) {
      var p = s.exchanges[i];
      if (p.given && x.given) {
        if (x.giver === seat) { hand = without(hand, x.given); }
        if (x.receiver === seat) { hand = hand.concat(x.given); }
      }
      if (p.returned && x.returned) {
        if (x.receiver === seat) { hand = without(hand, x.returned); }
        if (x.giver === seat) { hand = hand.concat(x.returned); }
      }
    });
    if (deal.dealer === seat) {
      if (rules.kitty_first && s.kitty) { hand = hand.concat(deal.kitty); }
      if (s.discarded) {
        hand = without(hand, deal.discards);
        if (!rules.kitty_first) { hand = hand.concat(deal.kitty); }
      }
    }
    return without(hand, s.played).sort(DECK.cardOrder);
  }

  /* --- The viewer: drawing one step ------------------------------------------------------- */

  /* Each seat's player at a game: "A · greedy v1", or the person's name in a game with one. */
  function seatPlayers(replay, game) {
    var people = replay.seat_players, players = replay.players || {};
    return [0, 1, 2].map(function (seat) {
      var side = game.seats[seat], p = people ? people[seat] : players[side];
      if (!p) { return side; }
      if (p.human) { return p.name + " (person)"; }
      return sideName(p, side);
    });
  }

  function drawSeat(root, entry, seat, s, replay) {
    var box = root.querySelector('.seat[data-seat="' + seat + '"]');
    var deal = entry.deal, forfeit = entry.game.result && entry.game.result.forfeit;
    box.innerHTML = "";
    box.className = "seat seat-" + seat + " sm-side-" + entry.game.seats[seat];
    var head = el("div", "seat-head");
    head.appendChild(el("span", "seat-name", SEAT_NAMES[seat]));
    head.appendChild(el("span", "seat-player", seatPlayers(replay, entry.game)[seat]));
    if (deal.dealer === seat) { head.appendChild(el("span", "badge dealer", "dealer")); }
    var target = el("span", "badge target", "target " + deal.targets[seat]);
    target.setAttribute("data-target", String(deal.targets[seat]));
    head.appendChild(target);
    box.appendChild(head);
    var count = el("div", "sm-count", s.ended && deal.taken ?
      "took " + deal.taken[seat] + ": " + upText(deal.delta[seat]) :
      s.taken[seat] + (s.taken[seat] === 1 ? " trick" : " tricks") + " taken, target " +
      deal.targets[seat]);
    count.setAttribute("data-taken", String(s.ended && deal.taken ? deal.taken[seat] : s.taken[seat]));
    box.appendChild(count);
    var hand = el("div", "hand");
    handAt(entry, seat, s, replay.rules).forEach(function (c) { hand.appendChild(cardNode(c)); });
    if (!hand.childNodes.length) { hand.appendChild(el("span", "muted", "no cards")); }
    box.appendChild(hand);
    if (s.fault && forfeit && forfeit.seat === seat) {
      box.classList.add("at-fault");
      box.appendChild(el("div", "fault-note", "fault: " + forfeit.reason));
    }
  }

  function drawTrick(root, entry, s) {
    var box = root.querySelector("#v-trick"), deal = entry.deal;
    box.innerHTML = "";
    if (s.ended) {
      var note = el("div", "trick-note deal-over");
      note.appendChild(el("strong", null, "Hand over"));
      deal.taken.forEach(function (t, seat) {
        note.appendChild(el("div", null, SEAT_NAMES[seat] + " took " + t + " (" + upText(deal.delta[seat]) + ")"));
      });
      box.appendChild(note);
      return;
    }
    if (!s.trick) {
      var note = s.discarded ? "lead to the first trick" : s.trump ? "the dealer discards" :
        (deal.exchanges || []).length && !s.exchanges.every(function (p) { return p.returned; }) ?
        "the exchange" : "the dealer names trump";
      box.appendChild(el("div", "trick-note muted", note));
      return;
    }
    s.trick.cards.forEach(function (c, i) {
      var seat = (s.trick.leader + i) % 3, slot = el("div", "played played-" + seat);
      var node = cardNode(c);
      node.setAttribute("data-seat", String(seat));
      if (s.trickWinner === seat) { slot.classList.add("winner"); }
      slot.appendChild(node);
      box.appendChild(slot);
    });
    box.appendChild(el("div", "trick-note", "trick " + (s.trick.t + 1) + " of 16" +
      (s.trickWinner !== null ? ": " + SEAT_NAMES[s.trickWinner] + " wins" : "")));
  }

  function suitLine(cls, label, suit) {
    var line = el("div", cls, label);
    if (suit) {
      var words = DECK.SUIT_WORDS[suit];
      line.appendChild(el("span", "suit-" + suit, DECK.SUIT[suit] + " " + words));
    } else {
      line.appendChild(document.createTextNode("not named yet"));
    }
    return line;
  }

  function drawHandBox(root, entry, s, replay) {
    var box = root.querySelector("#v-contract"), deal = entry.deal, rules = replay.rules;
    box.innerHTML = "";
    box.appendChild(el("div", "sm-dealer", "Dealer: " + SEAT_NAMES[deal.dealer] + " (" +
      entry.game.seats[deal.dealer] + ")"));
    box.appendChild(el("div", "sm-targets", "Targets: " + targetsText(deal.targets, SEAT_NAMES)));
    box.appendChild(suitLine("trump", "Trump: ", s.trump ? deal.trump : null));
    var kitty = el("div", "sm-kitty", "Kitty: " + cardsText(deal.kitty) + (rules.kitty_first ?
      (s.kitty ? " (in the dealer's hand)" : " (the dealer takes it before naming trump)") :
      (s.discarded ? " (taken unseen after the discard)" : " (taken unseen after the discard, to come)")));
    box.appendChild(kitty);
    var discard = el("div", "sm-discard", "Discard: " + (s.discarded ? cardsText(deal.discards) : "\u2014"));
    box.appendChild(discard);
    box.appendChild(el("div", "taken", "Tricks: " + s.taken.map(function (t, seat) {
      return SEAT_NAMES[seat] + " " + t + "/" + deal.targets[seat];
    }).join(" \u00b7 ")));
  }

  function drawExchanges(root, entry, s) {
    var box = root.querySelector("#v-bids"), list = el("ol", "bid-list sm-exchanges");
    box.innerHTML = "";
    box.appendChild(el("strong", null, "Exchange"));
    var exchanges = entry.deal.exchanges || [];
    exchanges.forEach(function (x, i) {
      var item = el("li", s.exchanges[i].given ? null : "muted", exchangeText(x, SEAT_NAMES, s.exchanges[i]));
      item.setAttribute("data-giver", String(x.giver));
      list.appendChild(item);
    });
    if (!exchanges.length) {
      list.appendChild(el("li", "muted", entry.d === 0 ? "none: the first hand of a game" :
        "none: everyone made their target"));
    }
    box.appendChild(list);
  }

  function drawScores(root, entry, s, replay) {
    var box = root.querySelector("#v-scores"), game = entry.game;
    box.innerHTML = "";
    box.appendChild(el("strong", null, "Game " + (entry.g + 1) + ": ups and downs"));
    var table = el("table", "score-table sm-scores"), head = el("tr");
    ["hand", "S", "W", "E"].forEach(function (h, i) {
      var th = el("th", null, h);
      if (i) { th.title = SEAT_NAMES[i - 1]; }
      head.appendChild(th);
    });
    table.appendChild(head);
    game.deals.forEach(function (deal, d) {
      if (d > entry.d || (d === entry.d && !s.ended) || !deal.score) { return; }
      var row = el("tr");
      row.appendChild(el("td", null, String(d + 1)));
      for (var seat = 0; seat < 3; seat++) {
        var cell = el("td", null, number(deal.score[seat]) + " (" + signed(deal.delta[seat]) + ")");
        cell.title = SEAT_NAMES[seat] + " took " + deal.taken[seat] + " tricks, target " + deal.targets[seat];
        row.appendChild(cell);
      }
      if (d === entry.d) { row.className = "current"; }
      table.appendChild(row);
    });
    if (table.rows.length === 1) {
      var none = el("tr"), cell = el("td", "muted", "no hand of this game is over yet");
      cell.colSpan = 4;
      none.appendChild(cell);
      table.appendChild(none);
    }
    box.appendChild(table);
    var names = seatPlayers(replay, game);
    var who = game.seats.map(function (side, seat) { return names[seat] + " (" + SEAT_NAMES[seat] + ")"; });
    if (entry.last && (s.ended || s.fault) && game.result) {
      box.appendChild(el("p", "game-result", gameResultText(game.result, who, replay.rules,
        wonInHand(game, replay.rules))));
      if (entry.g === replay.games.length - 1) {
        box.appendChild(el("p", "match-result", matchText(replay)));
      }
    }
    if (s.fault && game.result && game.result.forfeit) {
      var f = game.result.forfeit;
      box.appendChild(el("p", "fault-note", "Fault: " + names[f.seat] + " (" + SEAT_NAMES[f.seat] + ") " + f.reason +
        (f.message_id !== undefined && f.message_id !== null ? " at message " + f.message_id : "") +
        (f.detail ? ": " + f.detail : "")));
    }
  }

  /* Whether the game's last hand gave its winner the tricks that win outright. */
  function wonInHand(game, rules) {
    var last = game.deals[game.deals.length - 1], w = game.result.winner;
    return !!(last && last.taken && w !== null && w !== undefined && rules.win_tricks !== null &&
      last.taken[w] >= rules.win_tricks);
  }

  function draw(root, entry, s, replay) {
    for (var seat = 0; seat < 3; seat++) { drawSeat(root, entry, seat, s, replay); }
    drawTrick(root, entry, s);
    drawHandBox(root, entry, s, replay);
    drawExchanges(root, entry, s);
    drawScores(root, entry, s, replay);
  }

  /* --- The whole match --------------------------------------------------------------------- */

  /* "greedy v1"; a person (a game of the play app keeps the person's version as "person")
     "walker (person)", as engine/words.py player_name writes it. */
  function sideName(p, side) {
    if (!p) { return side; }
    if (p.human || p.version === "person") { return p.name + " (person)"; }
    return p.name + (p.version ? " v" + p.version : "");
  }

  function players(replay) {
    var p = replay.players || {};
    return ["A", "B", "C"].map(function (side) { return sideName(p[side], side); }).join(", ");
  }

  /* "Match: A 3 games won (3 points, ups +50) · B 0 (0, −18) · C 0 (0, −32)". */
  function matchText(replay) {
    var r = replay.result || {}, games = r.games || {}, points = r.points || {}, ups = r.ups || {};
    return "Match: " + ["A", "B", "C"].map(function (side) {
      return side + " " + (games[side] || 0) + " won (" + (points[side] || 0) + " points, ups " +
        signed(ups[side] || 0) + ")";
    }).join(" \u00b7 ") + (r.forfeit ? " \u00b7 fault: " + r.forfeit.player + " " + r.forfeit.reason : "");
  }

  function summary(replay) {
    var r = replay.result || {}, games = r.games || {};
    return players(replay) + " \u00b7 Sergeant Major, rules " + ((replay.rules || {}).preset || "?") +
      " \u00b7 games won " + ["A", "B", "C"].map(function (k) { return games[k] || 0; }).join("\u2013") +
      (r.forfeit ? " \u00b7 fault: " + sideName((replay.players || {})[r.forfeit.player], r.forfeit.player) +
        " " + r.forfeit.reason : "");
  }

  /* --- A person's table (play.js) ------------------------------------------------------- */

  /* Each seat by name at a person's table: "you", "random (West)", "greedy (East)". */
  function tableWho(names) {
    return names.map(function (name, seat) { return seat === 0 ? "you" : name + " (" + SEAT_NAMES[seat] + ")"; });
  }

  /* How far each exchange of the person's view has gone: the view lists an exchange from its
     gift's turn on, and shows the cards of the person's own only. */
  function exchangeProgress(v) {
    var n = v.exchanges.length;
    return v.exchanges.map(function (_, i) {
      var current = i === n - 1 && (v.waiting_for === "give" || v.waiting_for === "return");
      return { given: !current || v.waiting_for === "return", returned: !current };
    });
  }

  /* What the table says while no card is on it. */
  function tableNote(v, who) {
    if (v.over) { return "game over"; }
    var you = v.seat === 0, name = who[v.seat];
    var doing = { give: you ? "you give cards" : name + " is giving cards",
      "return": you ? "you return cards" : name + " is returning cards",
      trump: you ? "you name trump" : name + " is naming trump",
      discard: you ? "you discard" : name + " is discarding",
      play: you ? "your lead" : name + " leads" };
    return doing[v.waiting_for] || "";
  }

  /* The end of a person's game: "You win the game: 12 tricks or more in a hand. Score: you
     12, random (West) −5, greedy (East) −7." and who resigned or forfeited. */
  function personResultText(v) {
    var r = v.result, who = tableWho(v.names), rules = v.rules || {}, text;
    var last = v.deals[v.deals.length - 1];
    var inHand = r.winner !== null && rules.win_tricks !== null && !!last && !!last.taken &&
      last.taken[r.winner] >= rules.win_tricks;
    if (r.winner === null) { text = noWinnerText(r, who); }
    else { text = (r.winner === 0 ? "You win" : who[r.winner] + " wins") + " the game" +
      (inHand ? ": " + rules.win_tricks + " tricks or more in a hand" : " on the totals"); }
    text += ". Score: " + r.score.map(function (n, seat) { return who[seat] + " " + number(n); }).join(", ") + ".";
    if (r.forfeit) {
      var f = r.forfeit;
      text += f.seat === 0 ? (f.reason === "resign" ? " You resigned." : " You forfeited (" + f.reason + ").") :
        " " + who[f.seat] + " forfeited (" + f.reason + ").";
    }
    return text;
  }

  /* A game without a winner, saying who leads if one seat does (issue 43): "The game ended
     with no winner: East leads with 7", not "No outright winner" beside East's 7. */
  function noWinnerText(r, who) {
    var top = Math.max.apply(null, r.score);
    var leaders = r.score.map(function (n, seat) { return n === top ? seat : null; })
      .filter(function (seat) { return seat !== null; });
    if (leaders.length !== 1) { return "No outright winner"; }
    var lead = leaders[0] === 0 ? "you lead" : who[leaders[0]] + " leads";
    return "The game ended with no winner: " + lead + " with " + number(top);
  }

  /* The person's table, drawn by play.js with its tools (`t`). */
  var DOING = { give: "giving cards", "return": "returning cards", trump: "naming trump",
                discard: "discarding", play: "to play" };

  function tableSeat(t, v, seat) {
    var drawn = t.seat(v, seat, SEAT_NAMES[seat] + (seat === 0 ? " (you)" : ""));
    var target = el("span", "badge target", "target " + v.targets[seat]);
    target.setAttribute("data-target", String(v.targets[seat]));
    drawn.head.appendChild(target);
    // the tricks the seat took against its target: "7 tricks taken, target 5" (issue 43)
    var took = v.taken[seat];
    drawn.box.appendChild(el("div", "sm-count", took + (took === 1 ? " trick" : " tricks") +
      " taken, target " + v.targets[seat]));
    drawn.box.appendChild(t.hand(v, seat));
  }

  function tableActions(t, v) {
    var box = t.actions(v, SEAT_NAMES, DOING), who = tableWho(v.names);
    if (!box) { return; }
    var x = v.exchanges[v.exchanges.length - 1], n = t.needed(v);
    var prompt = {
      trump: "Name trump:",
      discard: "Choose " + n + " cards to discard" + (v.rules.kitty_first ? " (the kitty is in your hand):" :
        " (then you take the kitty, unseen):"),
      give: x ? "Choose " + n + " card" + (n === 1 ? "" : "s") + " to give to " + who[x.receiver] + ":" : "",
      "return": x ? who[x.giver] + " gave you " + cardsText(x.given || []) + "; the rules send back " +
        cardsText(v.legal) + ":" : "",
      play: "Your turn: play a raised card (click it, or \u2190 \u2192 and Enter).",
    }[v.decision];
    box.appendChild(el("p", "prompt", prompt));
    if (v.decision === "trump") {
      t.suitButtons(box, v.legal);
    } else if (v.decision === "return") {
      var back = t.button("Return " + cardsText(v.legal), { "return": v.legal.join(" ") }, v.legal.slice());
      back.id = "p-return";
      box.appendChild(back);
    } else if (v.decision === "discard" || v.decision === "give") {
      if (v.kitty_cards) { box.appendChild(el("span", "muted", "The kitty held " + cardsText(v.kitty_cards) + ". ")); }
      var word = v.decision === "give" ? "Give " : "Discard ";
      box.appendChild(t.sendChosen(word + (cardsText(t.game.chosen) || "\u2026"),
                                   v.decision === "give" ? "p-give" : "p-discard", n));
    }
  }

  function tableSide(t, v) {
    var who = tableWho(v.names);
    t.turn(v, "Hand");
    var info = t.$("p-contract");
    info.innerHTML = "";
    info.appendChild(el("div", "sm-targets", "Targets: " + targetsText(v.targets, who)));
    var trump = el("div", "trump", "Trump: ");
    trump.appendChild(el("span", v.trump ? "suit-" + v.trump : null, v.trump ?
      DECK.SUIT[v.trump] + " " + DECK.SUIT_WORDS[v.trump] : "not named yet"));
    info.appendChild(trump);
    if (v.discards && v.discards.length) {
      info.appendChild(el("div", "sm-discard", "Your discard: " + cardsText(v.discards)));
    }
    info.appendChild(el("div", "taken", "Tricks: " + v.taken.map(function (n, seat) {
      return who[seat] + " " + n + "/" + v.targets[seat];
    }).join(" \u00b7 ")));
    var ex = t.$("p-bids"), list = el("ol", "bid-list sm-exchanges"), progress = exchangeProgress(v);
    ex.innerHTML = "";
    ex.appendChild(el("strong", null, "Exchange"));
    v.exchanges.forEach(function (x, i) { list.appendChild(el("li", null, exchangeText(x, who, progress[i]))); });
    if (!v.exchanges.length) {
      list.appendChild(el("li", "muted", v.last ? "none this hand" : "none: the first hand"));
    }
    ex.appendChild(list);
    t.lastTrick(v, who);
    tableScores(t, v, who);
  }

  function tableScores(t, v, who) {
    var box = t.$("p-scores");
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
        row.appendChild(el("td", null, number(d.score[seat]) + " (" + signed(d.delta[seat]) + ")"));
      }
      table.appendChild(row);
    });
    box.appendChild(table);
    var now = el("div", "running", "Now: " + v.score.map(function (n, seat) {
      return who[seat] + " " + number(n);
    }).join(", "));
    now.id = "p-now";
    box.appendChild(now);
  }

  var TABLE = {
    resignWords: "You give the game up.",  // no teams in Sergeant Major (issue 43)
    draw: function (t, v) {
      for (var seat = 0; seat < 3; seat++) { tableSeat(t, v, seat); }
      t.trick(v, tableWho(v.names), tableNote(v, tableWho(v.names)));
      tableActions(t, v);
      tableSide(t, v);
    },
    resultText: personResultText,
  };

  /* --- The registration: the whole of Sergeant Major's browser side ----------------------- */

  REGISTRY.register(FORMAT, {
    game: "sergeant-major", className: "game-sm", hand: "hand", table: TABLE,
    cards: {
      SEAT_NAMES: SEAT_NAMES, upText: upText, targetsText: targetsText, exchangeText: exchangeText,
      gameResultText: gameResultText, cardNode: cardNode, cardOrder: DECK.cardOrder,
      cardText: DECK.cardText, tableWho: tableWho, exchangeProgress: exchangeProgress,
      tableNote: tableNote, personResultText: personResultText, wonInHand: wonInHand,
      cardsText: cardsText, number: number, signed: signed,
    },
    steps: function (entry, replay) { return handSteps(entry, replay.rules || {}); },
    state: stateAt, draw: draw, label: stepLabel, summary: summary,
    handAt: function (entry, seat, s, replay) { return handAt(entry, seat, s, replay.rules || {}); },
  });
})();
