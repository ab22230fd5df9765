"""Re-check a Sergeant Major replay against the rules alone, reporting the first violation.

Every hand is replayed through SMState from its recorded cards: each exchange (who gives to
whom, how many, and the forced return), trump, discard and card must be legal when made, and
every trick's winner, the tricks taken, the ups and downs, the scores, each game's result and
the match's must be what the rules give. Replays of this engine ("dealing": DEALING) must also
hold exactly the deals their seed produces, and the games of a set the same deals.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.sergeant_major.cards import CARD_OF, FULL, SUITS
from engine.sergeant_major.game import (
    DISCARD,
    GIVE,
    PLAY,
    RETURN,
    TRUMP,
    Deal,
    SMState,
    points_by_score,
    set_deals,
)
from engine.sergeant_major.match import (
    DEALING,
    FORMAT,
    SIDES,
    forfeit_points,
    match_result,
    seat_sides,
)
from engine.sergeant_major.protocol import action_from_wire
from engine.sergeant_major.rules import GAME, SMRules
from engine.violation import (
    Violation,
    act,
    cards_mask,
    check_forfeit_fault,
    check_scored,
    check_seeded_deals,
    check_sets,
    check_tricks,
    first_violation,
    listed_games,
    replay_rules,
)

# The cards a deal record holds, as check_sets and check_seeded_deals compare them.
DEALT = ("hands", "kitty")


def validate_replay(replay: Any) -> list[str]:
    """[] when the replay is valid, else [the first violation]."""
    return first_violation(_check_replay, replay)


def _check_replay(replay: Any) -> None:
    rules = replay_rules(replay, header={"format": FORMAT, "version": 1, "game": GAME},
                         wrong_header=f'not a {FORMAT} of version 1 (game "{GAME}")',
                         rules_from_dict=SMRules.from_dict)
    for number, game in listed_games(replay, SIDES):
        _check_game(rules, number, game)
    games = replay["games"]
    check_sets(games, 3, "the games of a set share their first dealer", dealt=DEALT)
    if replay.get("dealing") == DEALING:
        _check_seeded_deals(str(replay["seed"]), games)
    _check_result(replay)


def _recorded_deals(game: int, deals: list[dict[str, Any]]) -> Iterator[Deal]:
    for number, record in enumerate(deals):
        hands = record["hands"]
        if len(hands) != 3 or any(len(h) != 16 for h in hands) or len(record["kitty"]) != 4:
            raise Violation("every hand must hold 16 cards and the kitty 4", game=game,
                            deal=number)
        masks = [_mask(h, game, number) for h in hands]
        kitty = _mask(record["kitty"], game, number)
        if sum(m.bit_count() for m in [*masks, kitty]) != 52 or \
                (masks[0] | masks[1] | masks[2] | kitty) != FULL:
            raise Violation("the hands and kitty are not exactly the pack (a card is missing "
                            "or dealt twice)", game=game, deal=number)
        yield (masks[0], masks[1], masks[2]), kitty


def _mask(names: list[str], game: int, deal: int) -> int:
    return cards_mask(names, CARD_OF, game, deal)


def _check_game(rules: SMRules, number: int, game: dict[str, Any]) -> None:
    if game["seats"] != seat_sides(number):
        raise Violation(f"seats must be {seat_sides(number)}", game=number)
    deals, result = game["deals"], game["result"]
    forfeit = result["forfeit"]
    if not deals:
        if forfeit is None:
            raise Violation("a game without deals must end in a forfeit", game=number)
        _check_forfeit(number, game, [0, 0, 0])
        return
    source = _recorded_deals(number, deals)

    def next_deal() -> Deal:
        for deal in source:
            return deal
        raise Violation("the game ends before it is won", game=number)

    state = SMState(rules, dealer=deals[0]["dealer"], deals=next_deal, game=number)
    for index, record in enumerate(deals):
        last = index == len(deals) - 1
        _check_hand(state, number, index, record, partial=last and forfeit is not None)
    if forfeit is None:
        if not state.is_terminal():
            raise Violation("the game ends before it is won", game=number)
        if result["winner"] != state.winner or result["score"] != state.score or \
                result["points"] != state.points:
            raise Violation(f"result should be winner {state.winner}, score {state.score}, "
                            f"points {state.points}", game=number)
    else:
        record = deals[-1]
        if any(key in record for key in ("taken", "delta", "score")):
            raise Violation("the hand a forfeit interrupts has no taken, delta or score",
                            game=number, deal=len(deals) - 1)
        _check_forfeit(number, game, list(state.score))


def _check_forfeit(number: int, game: dict[str, Any], score: list[int]) -> None:
    result = game["result"]
    seat = check_forfeit_fault(number, game, 3)
    if result["winner"] is not None or result["score"] != score or \
            result["points"] != forfeit_points(seat):
        raise Violation(f"a forfeit by seat {seat} gives no winner, the score before the hand "
                        f"{score} and points {forfeit_points(seat)}", game=number)


def _check_hand(state: SMState, game: int, index: int, record: dict[str, Any],
                partial: bool) -> None:
    if state.is_terminal():
        raise Violation("a hand after the game was over", game=game, deal=index)
    if state.deal_index != index or record["dealer"] != state.dealer:
        raise Violation(f"the dealer should be seat {state.dealer}", game=game, deal=index)
    if record["targets"] != list(state.targets):
        raise Violation(f"the targets should be {list(state.targets)}", game=game, deal=index)
    if not _replay_exchanges(state, game, index, record, partial):
        return
    if not _replay_trump_and_discard(state, game, index, record, partial):
        return
    check_tricks(state, action_from_wire, game, index, record, tricks=16, seats=3,
                 partial=partial, play=PLAY, deal_word="hand")
    if partial:
        return
    check_scored(state, game, index, record, keys=("taken", "delta", "score"),
                 last_trick="16th", deal_word="hand")


def _act(state: SMState, value: Any, game: int, deal: int) -> None:
    act(state, action_from_wire, value, game, deal)


def _replay_exchanges(state: SMState, game: int, index: int, record: dict[str, Any],
                      partial: bool) -> bool:
    """False when a forfeit stopped the hand within its exchange."""
    exchanges = record["exchanges"]
    for number, exchange in enumerate(exchanges):
        if state.phase != GIVE:
            raise Violation("no exchange is due here (the ups and downs of the last hand "
                            "settle otherwise)", game=game, deal=index)
        giver, receiver, count = state.exchanges[-1][:3]
        if [exchange["giver"], exchange["receiver"], exchange["count"]] != \
                [giver, receiver, count]:
            raise Violation(f"exchange {number} should be seat {giver} giving {count} to seat "
                            f"{receiver}", game=game, deal=index)
        last = number == len(exchanges) - 1
        if exchange["given"] is None and partial and last:
            return False
        _act(state, exchange["given"], game, index)
        if exchange["returned"] is None and partial and last:
            return False
        _act(state, exchange["returned"], game, index)
    if state.phase in (GIVE, RETURN):
        if partial:
            return False
        raise Violation("an exchange is missing", game=game, deal=index)
    return True


def _replay_trump_and_discard(state: SMState, game: int, index: int, record: dict[str, Any],
                              partial: bool) -> bool:
    if state.phase == TRUMP:
        if record["trump"] is None:
            if partial:
                return False
            raise Violation("the dealer names no trump", game=game, deal=index)
        _act(state, record["trump"], game, index)
    if state.phase == DISCARD:
        if not record["discards"] and partial:
            return False
        _act(state, record["discards"], game, index)
    return True


def _check_seeded_deals(seed: str, games: list[dict[str, Any]]) -> None:
    def deals_of(number: int) -> tuple[int, Any]:
        dealer, deals = set_deals(seed, number // 3)
        return dealer, deals.source()

    check_seeded_deals(seed, games, CARD_OF, deals_of, dealt=DEALT)


def _check_result(replay: dict[str, Any]) -> None:
    games, result = replay["games"], replay["result"]
    forfeit = games[-1]["result"]["forfeit"]
    if result["forfeit"] != forfeit:
        raise Violation("the match's forfeit must repeat the last game's")
    total = round(sum(result["points"].values()))
    # A match is whole sets of three games; a person's game against bots is one game.
    single = total == len(games) == 1
    if (total % 3 and not single) or total < len(games) or \
            (forfeit is None and total != len(games)):
        raise Violation(f"result.points counts {total} games for {len(games)} listed")
    expected = match_result(games, total, forfeit)
    for key in ("games", "ups"):
        if result[key] != expected[key]:
            raise Violation(f"match result {key} should be {expected[key]}")
    for key in ("points", "score"):
        if any(abs(result[key][side] - expected[key][side]) > 1e-9 for side in SIDES):
            raise Violation(f"match result {key} should be {expected[key]}")


__all__ = ["validate_replay", "Violation", "SUITS", "points_by_score"]
