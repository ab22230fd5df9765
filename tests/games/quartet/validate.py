"""Re-check a Quartet replay against the rules alone, reporting the first violation.

Every game is dealt again from the replay's seed (so the two games of a set hold the same
deals), and every card is replayed through QuartetState: each must be legal when played, and
each trick's winner, each deal's tricks taken and running score, each game's result and the
match's must be what the rules give."""

from __future__ import annotations

from typing import Any

from engine.violation import (
    Violation,
    cards_mask,
    check_forfeit_fault,
    check_scored,
    check_tricks,
    first_violation,
    listed_games,
    replay_rules,
)
from tests.games.quartet.cards import CARD_OF
from tests.games.quartet.game import HAND, PLAY, SEATS, QuartetState, set_deals
from tests.games.quartet.match import FORMAT, GAMES_PER_SET, SIDES, match_result, seat_sides
from tests.games.quartet.protocol import action_from_wire
from tests.games.quartet.rules import GAME, QuartetRules


def validate_replay(replay: Any) -> list[str]:
    """[] when the replay is valid, else [the first violation]."""
    return first_violation(_check_replay, replay)


def _check_replay(replay: Any) -> None:
    rules = replay_rules(replay, header={"format": FORMAT, "version": 1, "game": GAME},
                         wrong_header=f'not a {FORMAT} of version 1 (game "{GAME}")',
                         rules_from_dict=QuartetRules.from_dict)
    seed = str(replay["seed"])
    for number, game in listed_games(replay, SIDES):
        _check_game(rules, seed, number, game)
    _check_result(replay)


def _check_game(rules: QuartetRules, seed: str, number: int, game: dict[str, Any]) -> None:
    if game["seats"] != seat_sides(number):
        raise Violation(f"seats must be {seat_sides(number)}", game=number)
    deals, result = game["deals"], game["result"]
    forfeit = result["forfeit"]
    dealer, dealt = set_deals(seed, number // GAMES_PER_SET)
    state = QuartetState(rules, dealer=dealer, deals=dealt.source(), game=number)
    for index, record in enumerate(deals):
        partial = forfeit is not None and index == len(deals) - 1
        _check_deal(state, number, index, record, partial)
    if forfeit is None:
        if not state.is_terminal():
            raise Violation(f"a game has {rules.deals} deals", game=number)
        if result["winner"] != state.winner or result["score"] != state.score:
            raise Violation(f"result should be winner {state.winner}, score {state.score}",
                            game=number)
        return
    if deals and any(key in deals[-1] for key in ("taken", "score")):
        raise Violation("the deal a forfeit interrupts has no taken or score", game=number,
                        deal=len(deals) - 1)
    seat = check_forfeit_fault(number, game, SEATS)
    if result["winner"] is not None or result["score"] != state.score:
        raise Violation(f"a forfeit by seat {seat} gives the game to no one, the score as it "
                        f"stood {state.score}", game=number)


def _check_deal(state: QuartetState, game: int, index: int, record: dict[str, Any],
                partial: bool) -> None:
    if state.is_terminal():
        raise Violation("a deal after the game was over", game=game, deal=index)
    if record["dealer"] != state.dealer:
        raise Violation(f"the dealer should be seat {state.dealer}", game=game, deal=index)
    hands = record["hands"]
    if len(hands) != SEATS or any(len(h) != HAND for h in hands) or \
            tuple(cards_mask(h, CARD_OF, game, index) for h in hands) != state.dealt:
        raise Violation("the hands are not those the seed deals", game=game, deal=index)
    check_tricks(state, action_from_wire, game, index, record, tricks=HAND, seats=SEATS,
                 partial=partial, play=PLAY)
    if not partial:
        check_scored(state, game, index, record, keys=("taken", "score"), last_trick="4th")


def _check_result(replay: dict[str, Any]) -> None:
    games, result = replay["games"], replay["result"]
    forfeit = games[-1]["result"]["forfeit"]
    if result["forfeit"] != forfeit:
        raise Violation("the match's forfeit must repeat the last game's")
    total = round(sum(result["points"].values()))  # every game's point is given out once
    single = total == len(games) == 1  # a person's game against bots
    if (total % GAMES_PER_SET and not single) or total < len(games) or \
            (forfeit is None and total != len(games)):
        raise Violation(f"result.points counts {total} games for {len(games)} listed")
    expected = match_result(games, total, forfeit)
    for key in ("games", "winner"):
        if result[key] != expected[key]:
            raise Violation(f"match result {key} should be {expected[key]}")
    for key in ("points", "score"):
        if any(abs(result[key][side] - expected[key][side]) > 1e-9 for side in SIDES):
            raise Violation(f"match result {key} should be {expected[key]}")
