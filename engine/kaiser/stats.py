"""Kaiser's statistics of play, a side's counts from a replay (the site keeps them: its
matches.stats adds them up; engine.games.Game.stats_*). Plain dicts of counts, so that
totals are sums:
- matches; games won, lost, drawn; faults by reason (the site counts these for every game);
- deals (finished ones), the points its team took and gave up in them, and the score;
- contracts it held, by bid ("7", "8N", ...): [held, made];
- the fate of the 5♥ and the 3♠: [taken by its team, taken by the other];
- hands it threw in (misdeals).
"""

from __future__ import annotations

from typing import Any

from engine.kaiser import words


def empty() -> dict[str, Any]:
    return {"matches": 0, "games": {"won": 0, "lost": 0, "drawn": 0}, "deals": 0,
            "points_for": 0, "points_against": 0, "score_for": 0, "score_against": 0,
            "contracts": {}, "five_hearts": [0, 0], "three_spades": [0, 0], "misdeals": 0,
            "faults": {}}


def count(out: dict[str, dict[str, Any]], replay: dict[str, Any]) -> None:
    """Add one replay's deals and games to each side's counts (`out`, by side)."""
    for game in replay["games"]:
        seats = game["seats"]
        for deal in game["deals"]:
            _deal(out, seats, deal)
        _game_result(out, seats, game["result"]["winner"])


def _deal(out: dict[str, dict[str, Any]], seats: list[str], deal: dict[str, Any]) -> None:
    if deal.get("misdeal"):
        out[seats[deal["misdeal"]["seat"]]]["misdeals"] += 1
        return
    points = deal.get("points")
    if points is None:  # cut short by a forfeit: not a finished deal
        return
    for team in (0, 1):
        side = out[seats[team]]
        side["deals"] += 1
        side["points_for"] += points[team]
        side["points_against"] += points[1 - team]
        side["score_for"] += deal["delta"][team]
        side["score_against"] += deal["delta"][1 - team]
    contract = deal["contract"]
    team = contract["seat"] % 2
    held = out[seats[team]]["contracts"].setdefault(contract["bid"], [0, 0])
    held[0] += 1
    held[1] += points[team] >= int(contract["bid"].rstrip("NL"))
    for card, key in (("5H", "five_hearts"), ("3S", "three_spades")):
        for trick in deal["tricks"]:
            if card in trick["cards"]:
                winner = trick["winner"] % 2
                out[seats[winner]][key][0] += 1
                out[seats[1 - winner]][key][1] += 1


def _game_result(out: dict[str, dict[str, Any]], seats: list[str], winner: int | None) -> None:
    for team in (0, 1):
        games = out[seats[team]]["games"]
        if winner is None:
            games["drawn"] += 1
        else:
            games["won" if winner == team else "lost"] += 1


def figures(data: dict[str, Any]) -> dict[str, Any]:
    """The figures a page shows, from stored totals: rates and averages."""
    deals = data["deals"] or 1
    held = sum(h for h, _ in data["contracts"].values())
    made = sum(m for _, m in data["contracts"].values())
    five, three = data["five_hearts"], data["three_spades"]
    return {
        "points_for": data["points_for"] / deals, "points_against": data["points_against"] / deals,
        "score_for": data["score_for"] / deals, "score_against": data["score_against"] / deals,
        "held": held / deals, "made": made / held if held else None,
        "five_hearts": five[0] / sum(five) if sum(five) else None,
        "three_spades": three[0] / sum(three) if sum(three) else None,
    }


def chart(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The bot page's chart: one bar per bid the side held, in bid order, with the contracts
    held and made ("key": the bid, "words": it in full, "label": in a bar's width)."""
    def order(bid: str) -> tuple[int, str]:
        return int(bid.rstrip("NL")), bid[-1] if bid[-1] in "NL" else ""

    return [{"key": bid, "words": words.bid_text(bid), "label": _bid_label(bid),
             "held": h, "made": m}
            for bid, (h, m) in sorted(data["contracts"].items(), key=lambda kv: order(kv[0]))]


def _bid_label(bid: str) -> str:
    """A bar's label under the chart, in a bar's width: "7", "7 NT", "7 low" (the bar's title
    says it in full: words.bid_text)."""
    return f"{bid[:-1]} NT" if bid.endswith("N") else f"{bid[:-1]} low" if bid.endswith("L") \
        else bid
