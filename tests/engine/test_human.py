"""engine.human: a single game with a person's seat (a scripted MoveSource here) is a replay
that validates, deal by deal, whatever ends it."""

from __future__ import annotations

import copy
import random
import time
from typing import Any

import pytest

from engine.builtin import RandomPlayer
from engine.human import HumanPlayer, Resigned, SeatName, SingleGame
from engine.kaiser.protocol import legal_to_wire
from engine.kaiser.rules import PRESETS, replace
from engine.players import TimeControl
from engine.validate import validate_replay

NAMES = [SeatName("ada", "person", human=True), SeatName("random", "1"),
         SeatName("greedy", "1"), SeatName("random", "1")]


class Script:
    """Answers with a seeded random legal move; `stop_at`: resign or fall silent there."""

    def __init__(self, seed: int, stop_at: int | None = None, resign: bool = False) -> None:
        self.rng = random.Random(seed)
        self.game: SingleGame | None = None
        self.stop_at, self.resign = stop_at, resign
        self.answered: list[Any] = []

    def wait_move(self, *, seq: int, deadline: float) -> Any:
        assert self.game is not None and seq == len(self.game.moves)
        if self.stop_at is not None and seq >= self.stop_at:
            if self.resign:
                raise Resigned()
            return None
        state = self.game.state
        legal = legal_to_wire(state, state.legal_actions())
        move = legal[: state.rules.kitty] if state.decision == "discard" else \
            self.rng.choice(legal)
        self.answered.append(move)
        return move


def _game(rules_name: str, script: Script, *, practice: bool) -> SingleGame:
    rules = PRESETS[rules_name]
    if practice:
        rules = replace(rules, max_deals=1)
    from engine.kaiser.greedy import GreedyPlayer

    game = SingleGame([], NAMES, rules=rules, seed="11", time=TimeControl())
    human = HumanPlayer(script, move_seconds=0.01, moves_made=lambda: len(game.moves),
                        clock=time.monotonic)
    game.players = [human, RandomPlayer(), GreedyPlayer(), RandomPlayer()]
    script.game = game
    return game


@pytest.mark.parametrize("rules", list(PRESETS))
@pytest.mark.parametrize("practice", [True, False])
def test_a_single_game_with_a_person_is_a_valid_replay_of_the_persons_moves(
    rules: str, practice: bool
) -> None:
    script = Script(seed=3)
    game = _game(rules, script, practice=practice)
    replay = game.run()
    assert validate_replay(replay) == []
    def same(move: Any) -> Any:  # a discard's cards in any order
        return sorted(move) if isinstance(move, list) else move

    assert [same(m["action"]) for m in game.moves if m["seat"] == 0] == \
        [same(m) for m in script.answered]
    assert replay["seat_players"][0] == {"name": "ada", "version": "person", "human": True}
    assert replay["players"]["A"] == {"name": "ada & greedy", "version": ""}
    assert replay["players"]["B"] == {"name": "random", "version": "1"}
    if practice:
        scored = [d for d in replay["games"][0]["deals"] if "points" in d]
        assert len(scored) == 1


@pytest.mark.parametrize(("resign", "reason"), [(True, "resign"), (False, "timeout")])
def test_a_person_who_resigns_or_falls_silent_forfeits_in_a_valid_replay(
    resign: bool, reason: str
) -> None:
    replay = _game("official", Script(seed=5, stop_at=6, resign=resign), practice=False).run()
    forfeit = replay["result"]["forfeit"]
    assert (forfeit["seat"], forfeit["player"], forfeit["reason"]) == (0, "A", reason)
    assert replay["result"]["games"] == {"A": 0, "B": 1}
    assert validate_replay(replay) == []


def test_a_single_game_counted_as_two_is_refused() -> None:
    replay = _game("official", Script(seed=1), practice=True).run()
    wrong = copy.deepcopy(replay)
    winner = wrong["games"][0]["result"]["winner"]
    side = "A" if winner in (0, None) else "B"
    wrong["result"]["games"][side] += 1
    assert validate_replay(wrong) != []
