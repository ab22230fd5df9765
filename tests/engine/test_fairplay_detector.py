"""engine.fairplay without a sandbox: each game's walk of a replay (Game.fairplay_decisions)
finds every decision a side made, in the engine's order; the detector, which knows no game,
tells think times that follow the public situation (plus a loaded host's noise) from times
that carry the hand, scrambled or plain, slept, burnt, or burnt and then slept.

The times here are made up from each decision (the real ones, from sandboxed bots, are in
test_fairplay_channel.py); the matches are real, played by the built-in players, in Kaiser,
Sergeant Major and every test game."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.builtin import resolve_player
from engine.fairplay import (
    SPREAD_BITS,
    PublicDecision,
    SideTimes,
    Verdict,
    engine_order,
    fairplay_check,
    main,
)
from engine.faults import BotFault
from engine.games import GAMES, Game, get_game
from engine.kaiser.fairplay import Decision, side_decisions
from engine.kaiser.match import run_match
from engine.kaiser.rules import PRESETS
from engine.players import Player, PlayerFactory, TimeControl
from engine.sergeant_major import fairplay as sm_fairplay
from tests.games.registry import registered_test_games

RULES = dataclasses.replace(PRESETS["official"], max_deals=3)


class Counted:
    """A side's factory that counts the decisions its players are asked for."""

    def __init__(self, factory: PlayerFactory) -> None:
        self.factory, self.name, self.version = factory, factory.name, factory.version
        self.asked = 0

    def __call__(self, slot: int) -> Player:
        player = self.factory(slot)
        inner = player.act

        def act(state: Any, legal: Any) -> Any:
            self.asked += 1
            return inner(state, legal)

        player.act = act  # type: ignore[method-assign]
        return player


def played(rules: Any = RULES, seeds: range = range(2), a: str = "builtin:greedy",
           b: str = "builtin:random") -> list[tuple[dict[str, Any], Counted, Counted]]:
    out = []
    for seed in seeds:
        side_a, side_b = Counted(resolve_player(a)), Counted(resolve_player(b))
        out.append((run_match(side_a, side_b, games=2, seed=str(seed), rules=rules),
                    side_a, side_b))
    return out


@pytest.mark.parametrize("preset", ["official", "pagat", "saskatchewan"])
def test_the_kaiser_walk_finds_every_decision_each_side_made_in_order(preset: str) -> None:
    for replay, side_a, side_b in played(PRESETS[preset], range(3)):
        for side, counted in (("A", side_a), ("B", side_b)):
            decisions = side_decisions(replay, side)

            assert len(decisions) == counted.asked
            seats = {0, 2} if side == "A" else {1, 3}
            assert {d.seat for d in decisions if d.game == 0} == seats
            assert [(d.game, d.deal) for d in decisions] == sorted(
                (d.game, d.deal) for d in decisions)


def test_the_kaiser_walk_sees_the_public_situation_of_each_decision() -> None:
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


def test_a_sergeant_major_walk_finds_every_decision_with_its_hand() -> None:
    game = get_game("sergeant-major")
    sides = [Counted(resolve_player(spec, game=game.name))
             for spec in ("builtin:greedy", "builtin:random", "builtin:mc")]
    replay = game.run_match(sides, games=3, seed="walk", rules=game.get_rules("952"),
                            time=TimeControl())

    for side, counted in zip(game.sides, sides, strict=True):
        decisions = sm_fairplay.side_decisions(replay, side)
        assert len(decisions) == counted.asked == len(game.fairplay_decisions(replay, side) or [])
        kinds = {d.kind for d in decisions}
        assert {"play", "trump", "discard"} <= kinds
        # One seat a game (rotated), 16 cards a hand: a seat's plays of a hand are 16.
        for key in {(d.game, d.deal) for d in decisions}:
            hand = [d for d in decisions if (d.game, d.deal) == key]
            assert len({d.seat for d in hand}) == 1
            assert sum(d.kind == "play" for d in hand) == 16
            assert {d.dealt.bit_count() for d in hand} == {16}
    exchanged = [d for side in game.sides for d in sm_fairplay.side_decisions(replay, side)
                 if d.kind in ("give", "return")]
    assert exchanged and all(d.legal == 1 for d in exchanged if d.kind == "return")


def test_times_that_do_not_match_the_replay_are_refused() -> None:
    replay, side_a, _ = played(seeds=range(1))[0]
    times = [1.0] * side_a.asked

    with pytest.raises(ValueError, match="decisions in the replay"):
        fairplay_check([SideTimes(replay, "A", times[:-1], None)])
    assert fairplay_check([SideTimes(replay, "A", times, None)],
                          permutations=9).decisions == side_a.asked


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
    faulty = dataclasses.replace(resolve_player("builtin:greedy"), player_class=FaultsLate)  # type: ignore[type-var]
    side_a, side_b = Counted(faulty), Counted(resolve_player("builtin:random"))
    replay = run_match(side_a, side_b, games=2, seed="3", rules=RULES)
    assert replay["result"]["forfeit"] is not None

    for side, counted in (("A", side_a), ("B", side_b)):
        decisions = side_decisions(replay, side)  # the unfinished trick's cards left out
        assert 0 <= counted.asked - len(decisions) <= 3
        if len(decisions) >= 20:
            found = fairplay_check([SideTimes(replay, side, [1.0] * counted.asked, None)],
                                   permutations=9)
            assert found.decisions == len(decisions)


def test_times_listed_process_by_process_go_back_in_the_engines_order() -> None:
    replay = played(seeds=range(1))[0][0]
    decisions = side_decisions(replay, "A")
    engine = list(range(len(decisions)))  # each decision's number in the engine's order
    groups: dict[tuple[int, int], list[int]] = {}
    for number, d in zip(engine, decisions, strict=True):
        groups.setdefault((d.game, d.seat), []).append(number)
    by_process = [n for key in sorted(groups) for n in groups[key]]

    assert by_process != engine
    assert engine_order(replay, "A", [float(n) for n in by_process]) == [float(n) for n in engine]


# --- the detector on made-up times -----------------------------------------------------------

Times = Callable[[Decision, random.Random], tuple[float, float, float]]  # wall, counted, sleep


def verdict(times: Times, seeds: range = range(2)) -> Verdict:
    rng = random.Random(5)
    matches = []
    for replay, _, _ in played(seeds=seeds):
        rows = [times(d, rng) for d in side_decisions(replay, "A")]
        matches.append(SideTimes(replay, "A", [w for w, _, _ in rows], [c for _, c, _ in rows],
                                 [s for _, _, s in rows]))
    return fairplay_check(matches)


def loaded(cpu: float, rng: random.Random, slept: float = 0.0) -> tuple[float, float, float]:
    """A loaded host: mostly a round trip, sometimes a spell in which the seat waits for
    a core several times its CPU time, now and then a long hiccup; `slept` ms on purpose.
    The sleep figure: what was slept, less what the host's pressure hid of it, and the
    round trip's share the engine cannot tell from sleeping (under a ms)."""
    stretch = 1.0 if rng.random() < 0.7 else rng.uniform(1.0, 3.0)
    hiccup = rng.expovariate(1 / 20) if rng.random() < 0.05 else 0.0
    trip = 0.5 + rng.expovariate(2.0)
    aux = random.Random(hash((stretch, hiccup, trip)))  # the wall's noise as it always was
    seen = slept * aux.uniform(0.7, 1.0) if aux.random() < 0.8 else 0.0  # pressure hid some
    return trip + cpu * stretch + hiccup + slept, cpu, seen + aux.uniform(0.0, 1.0)


def searching(d: Decision, rng: random.Random) -> tuple[float, float, float]:
    """An honest search: CPU time grows with the legal actions and the cards left."""
    cards_left = 8 - max(d.trick, 0)
    return loaded(2.0 * d.legal * cards_left * rng.uniform(0.9, 1.1), rng)


def sleeper(d: Decision, rng: random.Random) -> tuple[float, float, float]:
    """A scrambled 4-bit symbol a move, slept at 2 ms a step: no feature of the hand shows."""
    return loaded(0.5, rng, 2.0 * rng.randrange(16))


def spinner(d: Decision, rng: random.Random) -> tuple[float, float, float]:
    """The same symbols, burnt as CPU time."""
    return loaded(0.5 + 2.0 * rng.randrange(16), rng)


def burn_then_sleep(d: Decision, rng: random.Random) -> tuple[float, float, float]:
    """Issue 41's pair: 70 ms of CPU a move, then a sleep to 130 ms + 2 ms x a 5-bit symbol,
    so that its wall time stays under three times its CPU time."""
    return loaded(70.0, rng, 60.0 + 2.0 * rng.randrange(32))


def trumps(d: Decision, rng: random.Random) -> tuple[float, float, float]:
    """A plain encoding: on its first move, 2 ms more a spade held."""
    spades = bin(d.dealt >> 30 & 1023).count("1")
    return loaded(0.5 + (2.0 * spades if d.move == 0 else 0.0), rng)


def flagged_for(found: Verdict, statistic: str) -> bool:
    return found.flagged and any(r.startswith(f"{statistic} spread") for r in found.reasons)


def test_an_honest_search_on_a_loaded_host_passes() -> None:
    found = verdict(searching)

    assert not found.flagged, found.summary()
    assert found.cpu_bits is not None and found.cpu_bits < 1.5
    assert found.sleep_bits is not None and found.sleep_bits < 1.0


def test_symbols_slept_or_burnt_are_flagged_by_their_spread() -> None:
    slept, burnt = verdict(sleeper), verdict(spinner)

    assert flagged_for(slept, "wait") and flagged_for(slept, "sleep"), slept.summary()
    assert flagged_for(burnt, "cpu"), burnt.summary()
    assert slept.hand_p > 0.001  # scrambled: no feature of the hand shows


def test_a_pair_that_burns_then_sleeps_passes_the_wait_and_is_flagged_by_the_sleep() -> None:
    found = verdict(burn_then_sleep)

    assert found.wait_bits is not None and found.wait_bits < SPREAD_BITS, found.summary()
    assert flagged_for(found, "sleep"), found.summary()
    assert found.bits == found.sleep_bits


def test_without_a_pressure_figure_the_sleep_spread_is_left_out() -> None:
    rng = random.Random(3)
    matches = []
    for number, (replay, _, _) in enumerate(played()):
        rows = [sleeper(d, rng) for d in side_decisions(replay, "A")]
        sleeps = None if number else [s for _, _, s in rows]  # one match without PSI
        matches.append(SideTimes(replay, "A", [w for w, _, _ in rows], [c for _, c, _ in rows],
                                 sleeps))

    found = fairplay_check(matches)

    assert found.sleep_bits is None and found.median_sleep_ms is None
    assert flagged_for(found, "wait")
    assert "sleep" not in found.summary()


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

    found = fairplay_check(matches)

    assert found.flagged and found.wait_bits is None and found.sleep_bits is None


def test_the_verdict_is_json_for_the_site_with_its_widest_spread() -> None:
    found = verdict(sleeper)

    stored = json.loads(json.dumps(found.to_dict()))

    assert stored["flagged"] is True and stored["reasons"] == found.reasons
    assert stored["bits"] == max(found.cpu_bits or 0, found.wait_bits or 0, found.sleep_bits or 0)
    for key in ("decisions", "deals", "cpu_bits", "wait_bits", "sleep_bits", "hand_r",
                "hand_feature", "hand_bits", "hand_p", "median_wall_ms", "median_wait_ms",
                "median_sleep_ms"):
        assert stored[key] == getattr(found, key)


def test_the_operators_command_reads_matches_in_process_order_and_says_flagged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(2)
    lines = []
    for replay, _, _ in played():
        decisions = side_decisions(replay, "A")
        walls, counted, sleeps = zip(*(burn_then_sleep(d, rng) for d in decisions), strict=True)
        order = sorted(range(len(decisions)),  # process by process: a game's seats in turn
                       key=lambda i: (decisions[i].game, decisions[i].seat, i))
        lines.append(json.dumps({"replay": replay, "side": "A",
                                 "wall_ms": [walls[i] for i in order],
                                 "counted_ms": [counted[i] for i in order],
                                 "sleep_ms": [sleeps[i] for i in order]}))
    path = tmp_path / "matches.jsonl"
    path.write_text("\n".join(lines) + "\n")

    assert main([str(path), "--per-process"]) == 1
    assert "FLAGGED (sleep spread" in capsys.readouterr().out


# --- every registered game --------------------------------------------------------------------


@pytest.fixture(scope="module")
def test_games() -> Iterator[list[str]]:
    with registered_test_games() as names:
        yield names


def game_match(game: Game, seed: str) -> tuple[dict[str, Any], list[Counted]]:
    known = game.builtin_players()
    names = ["greedy" if "greedy" in known else "random", "random"]
    sides = [Counted(resolve_player(f"builtin:{names[i % 2]}", game=game.name))
             for i in range(len(game.sides))]
    replay = game.run_match(sides, games=game.games_per_set * 2, seed=seed,
                            rules=game.get_rules(game.check_preset), time=TimeControl())
    return replay, sides


def made_up(game: Game, replay: dict[str, Any], side: str, asked: int, rng: random.Random,
            signal: bool) -> SideTimes:
    """A side's times: an honest search's, with a 4-bit slept symbol a move if `signal`."""
    found = game.fairplay_decisions(replay, side)
    rows = []
    for index in range(asked):
        decision = found[index] if found is not None else None
        cpu = 1.0 + 3.0 * (decision.features[0] if decision else 0.0)
        rows.append(loaded(cpu * rng.uniform(0.9, 1.1), rng,
                           2.0 * rng.randrange(16) if signal else 0.0))
    return SideTimes(replay, side, [w for w, _, _ in rows], [c for _, c, _ in rows],
                     [s for _, _, s in rows])


def test_every_game_gives_its_decisions_or_says_it_offers_none(test_games: list[str]) -> None:
    for name in test_games:
        game = GAMES[name]
        replay, sides = game_match(game, "fairplay-games")
        for side, counted in zip(game.sides, sides, strict=True):
            found = game.fairplay_decisions(replay, side)
            if found is None:  # a game without engine/<game>/fairplay.py (the test game)
                continue
            assert len(found) == counted.asked, (name, side)
            assert all(isinstance(d, PublicDecision) for d in found)
            assert len({len(d.features) for d in found}) == 1
            assert all(d.hand is None or len(d.hand) == len(d.hand_names) for d in found)
    offered = {name for name in test_games if GAMES[name].fairplay_decisions(
        game_match(GAMES[name], "offered")[0], GAMES[name].sides[0]) is not None}
    assert {"kaiser", "sergeant-major"} <= offered


@pytest.mark.parametrize("signal", [False, True])
def test_every_game_s_matches_are_checked_and_a_sleeping_signaller_flagged(
        test_games: list[str], signal: bool) -> None:
    for name in test_games:
        game = GAMES[name]
        rng = random.Random(7)
        matches = []
        for seed in range(2):
            replay, sides = game_match(game, f"made-up/{seed}")
            matches.append(made_up(game, replay, "A", sides[0].asked, rng, signal))

        found = fairplay_check(matches, permutations=199)

        assert found.flagged == signal, (name, found.summary())
        assert (found.wait_bits or 0) >= SPREAD_BITS if signal else found.bits is not None
        offers = game.fairplay_decisions(matches[0].replay, "A") is not None
        assert (found.cpu_bits is not None) == offers, (name, found.summary())
        assert (found.hand_feature == "not offered by the game") == (not offers)
