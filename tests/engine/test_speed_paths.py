"""The fast paths of the match runner give the same games as the plain legal_actions()/apply()
loop: four built-in random players (GameState.play_uniform), and the second game of a
duplicate pair taking the first game's deals instead of shuffling them again."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from engine.builtin import BuiltinFactory, RandomPlayer, resolve_player
from engine.kaiser.game import GameState, pair_deals
from engine.kaiser.match import run_match
from engine.kaiser.rules import PRESETS
from engine.runner import replay_json
from engine.validate import validate_replay

# RandomPlayer's choices through the runner's other paths: the checked one (one act() per
# decision, checked against legal_actions()) and the trusted loop (not play_uniform). Same class
# name, because a SeededPlayer's generator is seeded with it.
CheckedRandom = type("RandomPlayer", (RandomPlayer,), {"trusted": False})
TrustedRandom = type("RandomPlayer", (RandomPlayer,), {})


def factory(cls: type[RandomPlayer]) -> BuiltinFactory:
    return BuiltinFactory("random", "1", cls, {})


def replay_of(cls: type[RandomPlayer], preset: str, seed: str, games: int = 6) -> dict[str, Any]:
    return run_match(factory(cls), factory(cls), games=games, seed=seed, rules=PRESETS[preset])


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("seed", ["1", "speed"])
def test_random_players_play_the_same_games_on_every_path(preset: str, seed: str) -> None:
    fast = replay_json(replay_of(RandomPlayer, preset, seed))
    # Compared as booleans: pytest's diff of two long replays takes minutes.
    assert (fast == replay_json(replay_of(TrustedRandom, preset, seed))) is True
    assert (fast == replay_json(replay_of(CheckedRandom, preset, seed))) is True


@pytest.mark.parametrize("preset", list(PRESETS))
def test_fast_random_replays_revalidate(preset: str) -> None:
    assert validate_replay(replay_of(RandomPlayer, preset, "v", games=4)) == []


def test_second_game_of_a_pair_gets_the_deals_of_a_fresh_source() -> None:
    rules = PRESETS["pagat"]
    _, first = pair_deals(rules, "p", 0)
    drawn = [first() for _ in range(3)]
    again = first.again()
    _, fresh = pair_deals(rules, "p", 0)
    # Beyond the deals the first game drew, the same generator goes on where a fresh one would.
    assert [again() for _ in range(6)] == [fresh() for _ in range(6)]
    assert drawn == first.drawn[:3]


def test_play_uniform_matches_apply_from_the_middle_of_a_trick() -> None:
    rules = PRESETS["official"]
    states = [GameState(rules, dealer=0, deals=pair_deals(rules, "m", 0)[1]) for _ in range(2)]
    players = [[RandomPlayer() for _ in range(4)] for _ in range(2)]
    for state, seats in zip(states, players, strict=True):
        for seat, player in enumerate(seats):
            player.start(seat=seat, rules=rules, games=2, time=None, seed=f"m{seat}")  # type: ignore[arg-type]
        while not (state.decision == "play" and len(state.trick) == 2):
            state.apply(seats[state.seat].act(state, state.legal_actions()))
    states[0].play_uniform([p.random for p in players[0]])
    while not states[1].is_terminal():
        states[1].apply(players[1][states[1].seat].act(states[1], states[1].legal_actions()))
    assert states[0].records() == states[1].records()
    assert (states[0].winner, states[0].score) == (states[1].winner, states[1].score)


# --- the cyclic garbage collector, paused for matches of built-in players ---------------------
class _CollectorWatch(RandomPlayer):
    """A random player noting, at each decision, whether the cyclic collector is running."""

    seen: list[bool] = []

    def act(self, state: GameState, legal: Any) -> Any:
        self.seen.append(gc.isenabled())
        return super().act(state, legal)


class _Broken(RandomPlayer):
    """A built-in player with a bug: it raises on its first decision."""

    def act(self, state: GameState, legal: Any) -> Any:
        raise RuntimeError("a bug in a built-in player")


@pytest.mark.parametrize("makes_cycles", [False, True])
def test_collector_pauses_only_when_no_player_makes_cycles(makes_cycles: bool) -> None:
    watcher = type("RandomPlayer", (_CollectorWatch,), {"makes_cycles": makes_cycles, "seen": []})
    assert gc.isenabled()
    run_match(factory(watcher), factory(RandomPlayer), games=2, seed="gc",
              rules=PRESETS["official"])
    assert watcher.seen and set(watcher.seen) == {makes_cycles}
    assert gc.isenabled()  # on again after the match


def test_collector_runs_again_when_a_match_raises() -> None:
    with pytest.raises(RuntimeError, match="a bug"):
        run_match(factory(_Broken), factory(RandomPlayer), games=2, seed="gc",
                  rules=PRESETS["official"])
    assert gc.isenabled()


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize(("a", "b", "games"), [("random", "random", 20), ("greedy", "random", 6),
                                                ("mc", "greedy", 2)])
def test_matches_of_built_in_players_make_no_reference_cycles(preset: str, a: str, b: str,
                                                              games: int) -> None:
    # The reason the collector may wait (engine.runner.collector_paused): whatever such a
    # match allocates, reference counting alone frees.
    rules = PRESETS[preset]
    run_match(resolve_player(f"builtin:{a}"), resolve_player(f"builtin:{b}"), games=2,
              seed="warm", rules=rules)
    gc.collect()
    gc.disable()
    try:
        replay = run_match(resolve_player(f"builtin:{a}"), resolve_player(f"builtin:{b}"),
                           games=games, seed="cycles", rules=rules)
        del replay
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0


def test_a_match_of_built_in_players_leaves_its_objects_out_of_the_young_generation() -> None:
    gc.collect()
    assert gc.get_freeze_count() == 0
    collections: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(note)
    try:
        replay = run_match(factory(RandomPlayer), factory(RandomPlayer), games=200,
                           seed="young", rules=PRESETS["official"])
    finally:
        gc.callbacks.remove(note)
    # Tens of thousands of lists and dicts in the replay (gc's young threshold is 700), moved
    # to the oldest generation at the end of the match: no collection scanned them.
    assert len(replay["games"]) == 200
    assert collections == []
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert id(replay["games"][0]["deals"][0]["hands"]) in oldest
    assert gc.get_freeze_count() == 0


def test_a_match_leaves_a_callers_frozen_objects_frozen() -> None:
    # Compared by an object of the caller's, not by gc.get_freeze_count(): frozen objects of
    # the test session may be freed meanwhile, which lowers the count by itself.
    mine = [[]]  # a container the collector tracks
    gc.collect()
    gc.freeze()
    try:
        assert id(mine) not in {id(o) for o in gc.get_objects()}  # frozen: in no generation
        run_match(factory(RandomPlayer), factory(RandomPlayer), games=20, seed="frozen",
                  rules=PRESETS["official"])
        assert id(mine) not in {id(o) for o in gc.get_objects()}  # still frozen
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert id(mine) in {id(o) for o in gc.get_objects()}  # thawed by the test itself
