"""engine.kaiser.think_time without a sandbox: its walk of a replay finds every decision a side
made, in the engine's order, and its detector tells think times that follow the public situation
(plus a loaded host's noise) from times that carry the hand, scrambled or plain.

The times here are made up from each decision (the real ones, from sandboxed bots, are in
test_think_time_channel.py); the matches are real, played by the built-in players."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest

from engine.builtin import resolve_player
from engine.faults import BotFault
from engine.kaiser.match import run_match
from engine.kaiser.rules import PRESETS
from engine.kaiser.think_time import (
    Decision,
    SideTimes,
    TimedSide,
    aligned,
    engine_order,
    side_decisions,
    think_time_check,
)
from engine.players import Player

RULES = dataclasses.replace(PRESETS["official"], max_deals=3)


def played(rules: Any = RULES, seeds: range = range(2), a: str = "builtin:greedy",
           b: str = "builtin:random") -> list[tuple[dict[str, Any], TimedSide, TimedSide]]:
    out = []
    for seed in seeds:
        side_a, side_b = TimedSide(resolve_player(a)), TimedSide(resolve_player(b))
        out.append((run_match(side_a, side_b, games=2, seed=str(seed), rules=rules),
                    side_a, side_b))
    return out


@pytest.mark.parametrize("preset", ["official", "pagat", "saskatchewan"])
def test_the_walk_finds_every_decision_each_side_made_in_order(preset: str) -> None:
    for replay, side_a, side_b in played(PRESETS[preset], range(3)):
        for side, timed in (("A", side_a), ("B", side_b)):
            decisions = side_decisions(replay, side)

            assert len(decisions) == len(timed.wall_ms)
            seats = {0, 2} if side == "A" else {1, 3}
            assert {d.seat for d in decisions if d.game == 0} == seats
            assert [(d.game, d.deal) for d in decisions] == sorted(
                (d.game, d.deal) for d in decisions)


def test_the_walk_sees_the_public_situation_of_each_decision() -> None:
    replay = played(seeds=range(1))[0][0]
    first_deal = [d for d in side_decisions(replay, "A") if d.game == 0 and d.deal == 0]
    record = replay["games"][0]["deals"][0]

    bids = [d for d in first_deal if d.kind == "bid"]
    assert [d.seat for d in bids] == [b["seat"] for b in record["bids"] if b["seat"] in (0, 2)]
    assert all(d.move == 0 and d.first for d in bids)
    plays = [d for d in first_deal if d.kind == "play"]
    assert len(plays) == 16  # two seats, eight tricks
    assert all(d.legal >= 1 and 0 <= d.place <= 3 for d in plays)
    for seat in (0, 2):
        dealt = {card for card in record["hands"][seat]}
        assert {d.dealt for d in first_deal if d.seat == seat} == {_mask(dealt)}


def _mask(cards: set[str]) -> int:
    from engine.kaiser.cards import CARD_OF

    return sum(1 << CARD_OF[card] for card in cards)


def test_times_that_do_not_match_the_replay_are_refused() -> None:
    replay, side_a, _ = played(seeds=range(1))[0]

    with pytest.raises(ValueError, match="decisions in the replay"):
        aligned(replay, "A", side_a.wall_ms[:-1])
    assert len(aligned(replay, "A", side_a.wall_ms)) == len(side_a.wall_ms)


class FaultsLate(Player):
    """A built-in greedy that faults on its 20th decision, in the middle of a trick."""

    def __init__(self) -> None:
        from engine.kaiser.greedy import GreedyPlayer

        self.inner, self.decisions = GreedyPlayer(), 0

    def act(self, state: Any, legal: Any) -> Any:
        self.decisions += 1
        if self.decisions == 20:
            raise BotFault("timeout", "made up")
        return self.inner.act(state, legal)


def test_a_match_cut_by_a_forfeit_keeps_its_times_up_to_the_fault() -> None:
    faulty = dataclasses.replace(resolve_player("builtin:greedy"), player_class=FaultsLate)
    side_a, side_b = TimedSide(faulty), TimedSide(resolve_player("builtin:random"))
    replay = run_match(side_a, side_b, games=2, seed="3", rules=RULES)
    assert replay["result"]["forfeit"] is not None

    for side, timed in (("A", side_a), ("B", side_b)):
        pairs = aligned(replay, side, timed.wall_ms)  # the unfinished trick's cards dropped
        assert 0 <= len(timed.wall_ms) - len(pairs) <= 3


@pytest.mark.parametrize("per_game", [False, True])
def test_times_listed_process_by_process_go_back_in_the_engines_order(per_game: bool) -> None:
    replay, side_a, _ = played(seeds=range(1))[0]
    decisions = side_decisions(replay, "A")
    engine = list(range(len(decisions)))  # each decision's number in the engine's order
    groups: dict[tuple[int, int], list[int]] = {}
    for number, d in zip(engine, decisions, strict=True):
        groups.setdefault((d.game if per_game else 0, d.seat // 2), []).append(number)
    by_process = [n for key in sorted(groups) for n in groups[key]]

    assert by_process != engine
    assert engine_order(replay, "A", [float(n) for n in by_process],
                        per_game=per_game) == [float(n) for n in engine]


# --- the detector on made-up times -----------------------------------------------------------

Times = Callable[[Decision, random.Random], tuple[float, float]]  # (wall, counted) ms


def verdict(times: Times, seeds: range = range(2)) -> Any:
    rng = random.Random(5)
    matches = []
    for replay, _, _ in played(seeds=seeds):
        pairs = [times(d, rng) for d in side_decisions(replay, "A")]
        matches.append(SideTimes(replay, "A", [w for w, _ in pairs], [c for _, c in pairs]))
    return think_time_check(matches)


def loaded(cpu: float, rng: random.Random) -> tuple[float, float]:
    """A loaded host: mostly a round trip, sometimes a spell in which the seat waits for
    a core several times its CPU time, now and then a long hiccup."""
    stretch = 1.0 if rng.random() < 0.7 else rng.uniform(1.0, 3.0)
    hiccup = rng.expovariate(1 / 20) if rng.random() < 0.05 else 0.0
    return 0.5 + cpu * stretch + rng.expovariate(2.0) + hiccup, cpu


def searching(d: Decision, rng: random.Random) -> tuple[float, float]:
    """An honest search: CPU time grows with the legal actions and the cards left."""
    cards_left = 8 - max(d.trick, 0)
    return loaded(2.0 * d.legal * cards_left * rng.uniform(0.9, 1.1), rng)


def sleeper(d: Decision, rng: random.Random) -> tuple[float, float]:
    """A scrambled 4-bit symbol a move, slept at 2 ms a step: no feature of the hand shows."""
    wall, cpu = loaded(0.5, rng)
    return wall + 2.0 * rng.randrange(16), cpu


def spinner(d: Decision, rng: random.Random) -> tuple[float, float]:
    """The same symbols, burnt as CPU time."""
    burn = 2.0 * rng.randrange(16)
    return loaded(0.5 + burn, rng)


def trumps(d: Decision, rng: random.Random) -> tuple[float, float]:
    """A plain encoding: on its first move, 2 ms more a spade held."""
    spades = bin(d.dealt >> 30 & 1023).count("1")
    return loaded(0.5 + (2.0 * spades if d.move == 0 else 0.0), rng)


def test_an_honest_search_on_a_loaded_host_passes() -> None:
    found = verdict(searching)

    assert not found.flagged, found.summary()
    assert found.cpu_bits is not None and found.cpu_bits < 1.5


def test_symbols_slept_or_burnt_are_flagged_by_their_spread() -> None:
    slept, burnt = verdict(sleeper), verdict(spinner)

    assert slept.flagged and slept.wait_bits is not None and slept.wait_bits >= 2.5, \
        slept.summary()
    assert burnt.flagged and burnt.cpu_bits is not None and burnt.cpu_bits >= 2.5, \
        burnt.summary()
    assert slept.hand_p > 0.001  # scrambled: no feature of the hand shows


def test_a_plain_encoding_of_the_hand_is_flagged_by_the_hand_test() -> None:
    found = verdict(trumps, seeds=range(6))

    assert found.flagged, found.summary()
    assert "S length, move 0" in found.hand_feature
    assert found.hand_p <= 0.001 and found.hand_bits >= 0.25


def test_counted_times_alone_still_show_a_bot_that_burns_them() -> None:
    rng = random.Random(1)
    matches = []
    for replay, _, _ in played():
        counted = [spinner(d, rng)[1] for d in side_decisions(replay, "A")]
        matches.append(SideTimes(replay, "A", None, counted))

    found = think_time_check(matches)

    assert found.flagged and found.wait_bits is None


def test_the_operators_command_reads_matches_in_the_sites_order_and_says_flagged(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from engine.kaiser.think_time import main

    rng = random.Random(2)
    lines = []
    for replay, _, _ in played():
        decisions = side_decisions(replay, "A")
        walls, counted = zip(*(sleeper(d, rng) for d in decisions), strict=True)
        order = sorted(range(len(decisions)),  # process by process: a game's slot 0, slot 1
                       key=lambda i: (decisions[i].game, decisions[i].seat // 2, i))
        lines.append(json.dumps({"replay": replay, "side": "A",
                                 "wall_ms": [walls[i] for i in order],
                                 "counted_ms": [counted[i] for i in order]}))
    path = tmp_path / "matches.jsonl"
    path.write_text("\n".join(lines) + "\n")

    assert main([str(path), "--per-process"]) == 1
    assert "FLAGGED (wait spread" in capsys.readouterr().out
