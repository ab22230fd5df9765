"""The error a replay validator reports (the first thing the rules do not allow, and where),
and the checks every game's validator (engine.<game>.validate) makes alike: a replay's cards,
its actions replayed through the game's state, its tricks, its forfeits, the sets of games
over the same deals, and the deals its seed gives."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from engine.faults import FORFEIT_REASONS


class Violation(Exception):
    """The first thing in a replay that the rules do not allow, with where it happened."""

    def __init__(self, message: str, *, game: int | None = None, deal: int | None = None,
                 trick: int | None = None, seat: int | None = None) -> None:
        where = [f"{k} {v}" for k, v in
                 (("game", game), ("deal", deal), ("trick", trick), ("seat", seat))
                 if v is not None]
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


def first_violation(check: Callable[[Any], None], replay: Any) -> list[str]:
    """[] when check(replay) finds nothing, else [the first violation] (a replay too malformed
    to read says so)."""
    try:
        check(replay)
    except Violation as violation:
        return [str(violation)]
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        return [f"malformed replay: {type(error).__name__}: {error}"]
    return []


def replay_rules(replay: Any, *, header: Mapping[str, Any], wrong_header: str,
                 rules_from_dict: Callable[[Any], Any]) -> Any:
    """A replay's rules, once it is a JSON object whose `header` fields (format, version...)
    are those given (else `wrong_header`) and its rules read."""
    if not isinstance(replay, dict):
        raise Violation("a replay must be a JSON object")
    if any(replay.get(key) != value for key, value in header.items()):
        raise Violation(wrong_header)
    try:
        return rules_from_dict(replay["rules"])
    except (ValueError, TypeError) as error:
        raise Violation(f"bad rules: {error}") from None


def listed_games(replay: dict[str, Any], sides: tuple[str, ...]
                 ) -> Iterator[tuple[int, dict[str, Any]]]:
    """The games a replay lists (at least one, only the last ended by a forfeit), with their
    numbers, each once the games before it are checked; its players are the game's sides."""
    games = replay["games"]
    if not isinstance(games, list) or not games:
        raise Violation("a replay must hold at least one game")
    if set(replay["players"]) != set(sides):
        raise Violation(f"players must be {', '.join(sides[:-1])} and {sides[-1]}")
    for number, game in enumerate(games):
        if game["result"]["forfeit"] is not None and number != len(games) - 1:
            raise Violation("only the last game listed may end in a forfeit", game=number)
        yield number, game


def cards_mask(names: list[str], card_of: Mapping[str, int], game: int, deal: int) -> int:
    """The bitmask of a replay's list of card names."""
    mask = 0
    for name in names:
        if not isinstance(name, str) or name not in card_of:
            raise Violation(f"not a card: {name!r}", game=game, deal=deal)
        mask |= 1 << card_of[name]
    return mask


def act(state: Any, from_wire: Callable[[Any, Any], Any], value: Any, game: int, deal: int,
        trick: int | None = None) -> None:
    """Apply the recorded action `value` (the protocol's JSON), which must be legal now."""
    seat = state.seat
    try:
        state.apply(from_wire(state, value))
    except ValueError as error:
        raise Violation(str(error), game=game, deal=deal, trick=trick, seat=seat) from None


def check_tricks(state: Any, from_wire: Callable[[Any, Any], Any], game: int, index: int,
                 record: dict[str, Any], *, tricks: int, seats: int, partial: bool, play: int,
                 deal_word: str = "deal") -> None:
    """Replay a deal's `tricks` tricks: each led by the seat on lead, of one card a seat, and
    won by the seat the rules say (`play`: the state's phase of play)."""
    recorded = record["tricks"]
    if len(recorded) > tricks or (len(recorded) < tricks and not partial):
        raise Violation(f"a {deal_word} has {tricks} tricks", game=game, deal=index)
    for number, trick in enumerate(recorded):
        if trick["leader"] != state.seat or state.phase != play:
            raise Violation(f"seat {state.seat} should lead", game=game, deal=index,
                            trick=number, seat=trick["leader"])
        if len(trick["cards"]) != seats:
            raise Violation(f"a trick has {seats} cards", game=game, deal=index, trick=number)
        for card in trick["cards"]:
            act(state, from_wire, card, game, index, number)
        winner = state.log[index].tricks[number][2] if state.deal_index > index \
            else state.tricks[number][2]
        if trick["winner"] != winner:
            raise Violation(f"the trick is won by seat {winner}", game=game, deal=index,
                            trick=number, seat=trick["winner"])


def check_forfeit_fault(number: int, game: dict[str, Any], seats: int) -> int:
    """A game's forfeit names a seat of the player at fault and a known reason: its seat."""
    forfeit = game["result"]["forfeit"]
    seat: int = forfeit["seat"]
    if seat not in range(seats) or forfeit["player"] != game["seats"][seat]:
        raise Violation("the forfeit names a seat its player does not hold", game=number)
    if forfeit["reason"] not in FORFEIT_REASONS:
        raise Violation(f"unknown fault reason {forfeit['reason']!r}", game=number)
    return seat


def check_sets(games: list[dict[str, Any]], size: int, dealer_message: str, *,
               dealt: tuple[str, ...] = ("hands",)) -> None:
    """The games of a set (size j .. size j + size - 1) share their first dealer and deals,
    deal after deal: each deal record's `dealt` keys (the cards dealt: "hands", and "kitty"
    in a game that deals one) are the same."""
    for number, game in enumerate(games):
        first_number = number - number % size
        first = games[first_number]
        if number % size == 0 or not first["deals"] or not game["deals"]:
            continue
        if first["deals"][0]["dealer"] != game["deals"][0]["dealer"]:
            raise Violation(dealer_message, game=number)
        for index, (x, y) in enumerate(zip(first["deals"], game["deals"], strict=False)):
            if any(x[key] != y[key] for key in dealt):
                raise Violation(f"deal {index} differs from deal {index} of game "
                                f"{first_number}", game=number, deal=index)


def check_seeded_deals(seed: str, games: list[dict[str, Any]], card_of: Mapping[str, int],
                       deals_of: Callable[[int], tuple[int, Callable[[], Any]]], *,
                       dealt: tuple[str, ...] = ("hands",)) -> None:
    """Replays from this engine: the deals are exactly those the seed gives (`deals_of(game)`:
    the game's first dealer and its source of deals, each a tuple of masks in the order of
    `dealt`: the hands' masks for "hands", then one mask for each other key, as "kitty")."""
    for number, game in enumerate(games):
        dealer, source = deals_of(number)
        deals = game["deals"]
        if deals and deals[0]["dealer"] != dealer:
            raise Violation(f"seed {seed!r} gives first dealer {dealer}", game=number)
        for index, record in enumerate(deals):
            got = tuple(
                tuple(cards_mask(h, card_of, number, index) for h in record[key])
                if key == "hands" else cards_mask(record[key], card_of, number, index)
                for key in dealt)
            if got != tuple(source()):
                raise Violation(f"the hands are not those seed {seed!r} deals", game=number,
                                deal=index)


def check_scored(state: Any, game: int, index: int, record: dict[str, Any], *,
                 keys: tuple[str, ...], last_trick: str, deal_word: str = "deal") -> None:
    """A finished deal reaches its last trick, and its record's `keys` (points or tricks
    taken, delta, score) are those the rules give."""
    if state.deal_index != index + 1:
        raise Violation(f"the {deal_word} does not reach its {last_trick} trick", game=game,
                        deal=index)
    entry = state.log[index]
    for key in keys:
        if list(record[key]) != list(getattr(entry, key)):
            raise Violation(f"{key} should be {list(getattr(entry, key))}", game=game,
                            deal=index)
