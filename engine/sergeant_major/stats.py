"""Sergeant Major's statistics of play, a side's counts from a replay (the site keeps them:
its matches.stats adds them up; engine.games.Game.stats_*): Kaiser's counts that apply
(matches, games, faults; deals and contracts stay 0, so that totals of either game read
alike) and the hands it played, the hands whose target it made, its tricks and its ups and
downs."""

from __future__ import annotations

from typing import Any


def empty() -> dict[str, Any]:
    return {"matches": 0, "games": {"won": 0, "lost": 0, "drawn": 0}, "deals": 0,
            "points_for": 0, "points_against": 0, "score_for": 0, "score_against": 0,
            "contracts": {}, "five_hearts": [0, 0], "three_spades": [0, 0], "misdeals": 0,
            "faults": {}, "hands": 0, "targets_made": 0, "tricks": 0, "ups": 0}


def count(out: dict[str, dict[str, Any]], replay: dict[str, Any]) -> None:
    """Add one replay's hands and games to each side's counts (`out`, by side)."""
    for game in replay["games"]:
        seats = game["seats"]
        for deal in game["deals"]:
            if deal.get("taken") is None:  # cut short by a forfeit
                continue
            for seat, side in enumerate(seats):
                counts = out[side]
                counts["hands"] += 1
                counts["tricks"] += deal["taken"][seat]
                counts["targets_made"] += deal["taken"][seat] >= deal["targets"][seat]
                counts["ups"] += deal["delta"][seat]
        winner = game["result"]["winner"]
        for seat, side in enumerate(seats):
            games = out[side]["games"]
            games["drawn" if winner is None else "won" if winner == seat else "lost"] += 1


def figures(data: dict[str, Any]) -> dict[str, Any]:
    """A side's figures: targets made, tricks and ups a hand."""
    hands = data.get("hands") or 0
    return {
        "targets_made": data["targets_made"] / hands if hands else None,
        "tricks": data["tricks"] / hands if hands else None,
        "ups": data["ups"] / hands if hands else None,
    }
