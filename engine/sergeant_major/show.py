"""A Sergeant Major replay as text: `show` (hand by hand) and the local runner's summary."""

from __future__ import annotations

from typing import Any

from engine import words

SEATS = ("South", "West", "East")  # as the viewer and the play table name them


def _cards(cards: list[str]) -> str:
    return words.cards_text(cards)


def _names(replay: dict[str, Any]) -> dict[str, str]:
    """Each side's player: "greedy v3", or in a game with a person (whose `seat_players`
    name each seat; a side is a seat) "walker (person)"."""
    seat_players, games = replay.get("seat_players"), replay.get("games") or []
    if seat_players and games:
        return {side: words.player_name(seat_players[seat])
                for seat, side in enumerate(games[0]["seats"])}
    return {side: words.player_name(p) for side, p in replay["players"].items()}


def _seat(seat: int) -> str:
    return f"{seat} ({SEATS[seat]})"


def _each(values: list[Any], form: Any = words.number) -> str:
    """Numbers by seat: "17, −6, −11"."""
    return ", ".join(form(v) for v in values)


def render(replay: dict[str, Any], only_game: int | None = None) -> str:
    names = _names(replay)
    out = [", ".join(f"{names[s]} ({s})" for s in sorted(names)) +
           f": Sergeant Major, rules {replay['rules']['preset']}, seed {replay['seed']}"]
    for number, game in enumerate(replay["games"]):
        if only_game is not None and number != only_game:
            continue
        seats = game["seats"]
        out.append(f"\n=== Game {number}: " +
                   ", ".join(f"seat {s} {side}" for s, side in enumerate(seats)) + " ===")
        for index, deal in enumerate(game["deals"]):
            out.extend(_render_hand(index, deal, seats))
        result = game["result"]
        winner = "no winner" if result["winner"] is None else \
            f"seat {_seat(result['winner'])}, {seats[result['winner']]}, wins"
        out.append(f"Game {number}: {winner}; score {_each(result['score'])}; "
                   f"points {_each(result['points'])}")
        if result["forfeit"]:
            f = result["forfeit"]
            out.append(f"  forfeit by seat {f['seat']} ({f['player']}): {f['reason']}, "
                       f"message {f['message_id']}: {f['detail']}")
    result = replay["result"]
    out.append("\nMatch: " + ", ".join(
        f"{side} {result['games'][side]} won, {words.number(result['points'][side])} points"
        for side in sorted(result["games"])))
    return "\n".join(out)


def _render_hand(index: int, deal: dict[str, Any], seats: list[str]) -> list[str]:
    lines = [f"-- Hand {index}, dealer seat {_seat(deal['dealer'])}, targets "
             f"{_each(deal['targets'])}"]
    for seat, hand in enumerate(deal["hands"]):
        lines.append(f"   seat {_seat(seat)}, {seats[seat]}: {_cards(hand)}")
    lines.append(f"   kitty: {_cards(deal['kitty'])}")
    for x in deal["exchanges"]:
        lines.append(f"   exchange: seat {x['giver']} gives {_cards(x['given'] or [])} to seat "
                     f"{x['receiver']}, gets back {_cards(x['returned'] or [])}")
    if deal["trump"]:
        lines.append(f"   trump: {words.trump_text(deal['trump'])}")
    if deal["discards"]:
        lines.append(f"   discards: {_cards(deal['discards'])}")
    lines += words.trick_lines(deal["tricks"], 3)
    if deal.get("taken") is not None:
        lines.append(f"   taken {_each(deal['taken'])}; up/down "
                     f"{_each(deal['delta'], words.signed)}; score {_each(deal['score'])}")
    return lines


def summary(replay: dict[str, Any], seconds: float) -> str:
    names, result = _names(replay), replay["result"]
    sides = sorted(names)
    hands = sum(len(g["deals"]) for g in replay["games"])
    lines = [
        ", ".join(f"{s} = {names[s]}" for s in sides) +
        f", Sergeant Major, rules {replay['rules']['preset']}, seed {replay['seed']}, "
        f"{seconds:.2f} s",
        "games won: " + ", ".join(f"{s} {result['games'][s]}" for s in sides) +
        "; points: " + ", ".join(f"{s} {words.number(result['points'][s])}" for s in sides) +
        "; score: " + ", ".join(f"{s} {result['score'][s]:.3f}" for s in sides),
        "ups and downs: " + ", ".join(f"{s} {words.signed(result['ups'][s])}" for s in sides) +
        f" ({hands} hands)",
    ]
    lines.append(words.faults_text(result["forfeit"]))
    return "\n".join(lines)
