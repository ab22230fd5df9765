"""engine.human plays Sergeant Major too: a person's seat (a scripted MoveSource here) against
two bots is one game whose replay validates, whatever ends it."""

from __future__ import annotations

import copy
import random
import time
from typing import Any

import pytest

from engine.builtin import RandomPlayer
from engine.human import HumanPlayer, Resigned, SeatName, SingleGame
from engine.players import TimeControl
from engine.sergeant_major.players import SMGreedyPlayer
from engine.sergeant_major.protocol import decision_count, legal_to_wire
from engine.sergeant_major.rules import PRESETS
from engine.validate import validate_replay

NAMES = [SeatName("ada", "person", human=True), SeatName("greedy", "1"),
         SeatName("random", "1")]


class Script:
    """A seeded random legal move in wire form; `stop_at`: resign or fall silent there."""

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
        count = decision_count(state)
        if state.decision == "return":
            move = legal
        elif count is not None:
            move = self.rng.sample(legal, count)
        else:
            move = self.rng.choice(legal)
        self.answered.append(move)
        return move


def single(preset: str, script: Script) -> SingleGame:
    game = SingleGame([], NAMES, rules=PRESETS[preset], seed="21", time=TimeControl(),
                      game="sergeant-major")
    human = HumanPlayer(script, move_seconds=0.05, moves_made=lambda: len(game.moves),
                        clock=time.monotonic, game="sergeant-major")
    game.players = [human, SMGreedyPlayer(), RandomPlayer()]
    script.game = game
    return game


@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_persons_game_is_a_valid_replay_of_their_moves(preset: str) -> None:
    script = Script(seed=2)
    game = single(preset, script)
    replay = game.run()
    assert validate_replay(replay) == []
    assert replay["format"] == "sergeant-major-replay" and len(replay["games"]) == 1
    assert replay["seat_players"][0] == {"name": "ada", "version": "person", "human": True}
    assert replay["players"] == {"A": {"name": "ada", "version": "person"},
                                 "B": {"name": "greedy", "version": "1"},
                                 "C": {"name": "random", "version": "1"}}

    def same(move: Any) -> Any:
        return sorted(move) if isinstance(move, list) else move

    assert [same(m["action"]) for m in game.moves if m["seat"] == 0] == \
        [same(m) for m in script.answered]
    assert {m["decision"] for m in game.moves} >= {"trump", "discard", "play"}
    assert sum(replay["result"]["points"].values()) == pytest.approx(1.0)


@pytest.mark.parametrize(("resign", "reason"), [(True, "resign"), (False, "timeout")])
def test_a_person_who_resigns_or_falls_silent_forfeits_in_a_valid_replay(
        resign: bool, reason: str) -> None:
    replay = single("952", Script(seed=5, stop_at=30, resign=resign)).run()
    forfeit = replay["result"]["forfeit"]
    assert (forfeit["seat"], forfeit["player"], forfeit["reason"]) == (0, "A", reason)
    assert replay["games"][0]["result"]["points"] == [0.0, 0.5, 0.5]
    assert replay["result"]["points"] == {"A": 0.0, "B": 0.5, "C": 0.5}
    assert validate_replay(replay) == []


def test_a_single_game_counted_as_two_is_refused() -> None:
    replay = single("952-six-hands", Script(seed=1)).run()
    wrong = copy.deepcopy(replay)
    wrong["result"]["points"]["A"] += 1
    assert validate_replay(wrong) != []
