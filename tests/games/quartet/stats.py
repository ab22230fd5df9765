"""Quartet's statistics of play, a side's counts from a replay (engine.games.Game.stats_*): the
counts every game keeps (matches, games won, lost and drawn, faults: the site adds matches and
faults) and the deals it finished and the tricks it took in them."""

from __future__ import annotations

from typing import Any


def empty() -> dict[str, Any]:
    return {"matches": 0, "games": {"won": 0, "lost": 0, "drawn": 0}, "faults": {},
            "deals": 0, "tricks": 0}


def count(out: dict[str, dict[str, Any]], replay: dict[str, Any]) -> None:
    """Add one replay's deals and games to each side's counts (`out`, by side)."""
    for game in replay["games"]:
        seats = game["seats"]
        for deal in game["deals"]:
            if deal.get("taken") is None:  # cut short by a forfeit
                continue
            for seat, side in enumerate(seats):
                out[side]["deals"] += 1
                out[side]["tricks"] += deal["taken"][seat]
        winner = game["result"]["winner"]
        for seat, side in enumerate(seats):
            games = out[side]["games"]
            games["drawn" if winner is None else "won" if winner == seat else "lost"] += 1


def figures(data: dict[str, Any]) -> dict[str, Any]:
    """A side's figures: the tricks it takes a deal (of 4)."""
    deals = data.get("deals") or 0
    return {"tricks": data["tricks"] / deals if deals else None}
