"""Trio in words, for the runner's show and match."""

from __future__ import annotations

from typing import Any


def render(replay: dict[str, Any], only_game: int | None = None) -> str:
    lines: list[str] = []
    for index, record in enumerate(replay["games"]):
        if only_game is not None and index != only_game:
            continue
        seats = record["seats"]
        lines.append(f"=== Game {index} (seats {', '.join(seats)}) ===")
        for number, picks in enumerate(record["picks"]):
            said = ", ".join(f"{seats[s]} picks {p}" for s, p in enumerate(picks))
            lines.append(f"Round {number + 1} (x{record['weights'][number]}): {said}")
        totals = record["result"]["totals"]
        lines.append("Totals: " + ", ".join(f"{side} {totals[side]}" for side in sorted(totals)))
        if record.get("forfeit"):
            lines.append(f"{record['forfeit']['player']} forfeits: {record['forfeit']['reason']}")
        else:
            lines.append(f"Winner: {record['result']['winner'] or 'nobody (a draw)'}")
    return "\n".join(lines) + "\n"


def summary(replay: dict[str, Any], seconds: float) -> str:
    result = replay["result"]
    names = {side: p["name"] for side, p in replay["players"].items()}
    won = ", ".join(f"{names[s]} ({s}) {n}" for s, n in sorted(result["games"].items()))
    return f"Trio: games won {won}; points {result['points']}; {seconds:.1f} s"
