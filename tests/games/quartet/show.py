"""A Quartet replay as text: `show` (deal by deal) and the local runner's summary."""

from __future__ import annotations

from typing import Any

from engine import words


def _names(replay: dict[str, Any]) -> dict[str, str]:
    """Each side's player ("greedy v1"; with a person, by the seats of its one game)."""
    seat_players, games = replay.get("seat_players"), replay.get("games") or []
    if seat_players and games:
        return {side: words.player_name(seat_players[seat])
                for seat, side in enumerate(games[0]["seats"])}
    return {side: words.player_name(p) for side, p in replay["players"].items()}


def _winner(seats: list[str], winner: int | None) -> str:
    return "a draw" if winner is None else f"seat {winner}, {seats[winner]}, wins"


def render(replay: dict[str, Any], only_game: int | None = None) -> str:
    names = _names(replay)
    out = [", ".join(f"{names[s]} ({s})" for s in sorted(names)) +
           f": Quartet, rules {replay['rules']['preset']}, seed {replay['seed']}"]
    for number, game in enumerate(replay["games"]):
        if only_game is not None and number != only_game:
            continue
        seats = game["seats"]
        out.append(f"\n=== Game {number}: " +
                   ", ".join(f"seat {s} {side}" for s, side in enumerate(seats)) + " ===")
        for index, deal in enumerate(game["deals"]):
            out.extend(_render_deal(index, deal, seats))
        result = game["result"]
        out.append(f"Game {number}: {_winner(seats, result['winner'])}; tricks "
                   f"{_each(result['score'])}")
        if result["forfeit"]:
            f = result["forfeit"]
            out.append(f"  forfeit by seat {f['seat']} ({f['player']}): {f['reason']}, "
                       f"message {f['message_id']}: {f['detail']}")
    result = replay["result"]
    out.append("\nMatch: " + ", ".join(f"{side} {result['games'][side]} won "
                                       f"({result['points'][side]:g} points)"
                                       for side in sorted(result["games"])))
    return "\n".join(out)


def _render_deal(index: int, deal: dict[str, Any], seats: list[str]) -> list[str]:
    lines = [f"-- Deal {index}, dealer seat {deal['dealer']}"]
    for seat, hand in enumerate(deal["hands"]):
        lines.append(f"   seat {seat}, {seats[seat]}: {words.cards_text(hand)}")
    lines += words.trick_lines(deal["tricks"], 4)
    if deal.get("taken") is not None:
        lines.append(f"   taken {_each(deal['taken'])}; game "
                     f"{_each(deal['score'])}")
    return lines


def summary(replay: dict[str, Any], seconds: float) -> str:
    names, result = _names(replay), replay["result"]
    sides = sorted(names)
    deals = sum(len(g["deals"]) for g in replay["games"])
    winner = "a draw" if result["winner"] is None else f"{result['winner']} wins"
    return "\n".join([
        ", ".join(f"{s} = {names[s]}" for s in sides) +
        f", Quartet, rules {replay['rules']['preset']}, seed {replay['seed']}, {seconds:.2f} s",
        "games won: " + ", ".join(f"{s} {result['games'][s]}" for s in sides) +
        f"; {winner} ({deals} deals)",
        words.faults_text(result["forfeit"]),
    ])


def _each(counts: list[int]) -> str:
    """Each seat's count: "1, 0, 2, 1"."""
    return ", ".join(str(n) for n in counts)
