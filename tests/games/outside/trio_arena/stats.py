"""A Trio bot's statistics of play: points scored and picks made."""

from __future__ import annotations

from typing import Any


def empty() -> dict[str, Any]:
    # matches, games and faults: every game keeps them (the site fills matches and faults).
    return {"matches": 0, "games": {"won": 0, "lost": 0, "drawn": 0}, "faults": {},
            "points": 0, "picks": 0, "wasted": 0}


def count(out: dict[str, dict[str, Any]], replay: dict[str, Any]) -> None:
    for record in replay["games"]:
        seats = record["seats"]
        for picks in record["picks"]:
            for seat, pick in enumerate(picks):
                side = out.setdefault(seats[seat], empty())
                side["picks"] = side.get("picks", 0) + 1
                if picks.count(pick) > 1:
                    side["wasted"] = side.get("wasted", 0) + 1
        for side, total in record["result"]["totals"].items():
            mine = out.setdefault(side, empty())
            mine["points"] = mine.get("points", 0) + total
        winner = record["result"]["winner"]
        for side in seats:
            games = out[side]["games"]
            games["drawn" if winner is None else "won" if winner == side else "lost"] += 1


def figures(data: dict[str, Any]) -> dict[str, Any]:
    picks = data.get("picks", 0)
    return {"points": data.get("points", 0),
            "wasted_share": round(data.get("wasted", 0) / picks, 3) if picks else None}
