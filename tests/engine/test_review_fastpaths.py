"""Adversarial checks of the engine's fast paths: replies read before polling (engine.botproc),
act messages from cached fragments (engine.kaiser.wire), the collector paused for built-in matches
(engine.kaiser.match)."""

from __future__ import annotations

import gc
import random
from pathlib import Path
from typing import Any

import pytest

from engine.builtin import BuiltinFactory, RandomPlayer
from engine.kaiser.cards import bid_str
from engine.kaiser.game import GameState
from engine.kaiser.match import run_match
from engine.kaiser.rules import PRESETS, Rules
from engine.kaiser.wire import ActWriter, reference_message
from engine.players import Player
from tests.engine.sandbox_support import RELAXED, play, processes_in, program
from tests.engine.test_wire import rigged_deals

# --- standard error written just before a reply the engine reads without a poll ------------

# Seats of side A: each answers its first decision (passing when it may), then, while the
# slow side B thinks, logs its last words and writes, ahead of time, an illegal answer to its
# next decision. The engine finds that answer already in the pipe.
AHEAD_OF_TIME = """\
import json, sys, time
answered = False
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"id": 0, "type": "ready"}), flush=True)
    elif m["type"] == "act" and not answered:
        answered = True
        action = "pass" if "pass" in m["legal"] else m["legal"][0]
        print(json.dumps({"id": m["id"], "action": action}), flush=True)
        time.sleep(0.02)
        print("LAST WORDS of seat", m["state"]["seat"], file=sys.stderr, flush=True)
        print(json.dumps({"id": m["id"] + 1, "action": "XX"}), flush=True)
"""

# Side B: never passes (so side A always may), and takes 0.3 s a decision.
SLOW_BIDDER = """\
import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"id": 0, "type": "ready"}), flush=True)
    elif m["type"] == "act":
        time.sleep(0.3)
        print(json.dumps({"id": m["id"], "action": m["legal"][-1]}), flush=True)
    elif m["type"] == "match_end":
        break
"""


@pytest.mark.sandbox
@pytest.mark.timeout(60)
def test_what_a_bot_logged_before_a_faulty_reply_read_without_a_poll_is_kept(
        tmp_path: Path) -> None:
    ahead, slow = tmp_path / "ahead.py", tmp_path / "slow.py"
    ahead.write_text(AHEAD_OF_TIME)
    slow.write_text(SLOW_BIDDER)
    a, b = program(ahead, time=RELAXED), program(slow, time=RELAXED)

    replay = play(a, b)

    forfeit = replay["result"]["forfeit"]
    assert (forfeit["player"], forfeit["reason"]) == ("A", "illegal"), forfeit
    assert "not a " in forfeit["detail"]
    seat = forfeit["seat"]
    # In game 0, side A's first player sits at seat 0, its second at seat 2.
    assert f"LAST WORDS of seat {seat}" in a.players[seat // 2].stderr_text()
    assert processes_in(a.namespaces + b.namespaces) == []



# Logs, then answers hello before it comes, wrongly, and waits.
EARLY_WRONG_READY = """\
import sys, time
print("BOOT LOG", file=sys.stderr, flush=True)
print('{"id": 0, "type": "steady"}', flush=True)
time.sleep(30)
"""


@pytest.mark.sandbox
@pytest.mark.timeout(60)
def test_what_a_bot_logged_before_a_faulty_hello_reply_is_kept(tmp_path: Path) -> None:
    source = tmp_path / "early.py"
    source.write_text(EARLY_WRONG_READY)
    bot = program(source, time=RELAXED)

    replay = play(bot)

    forfeit = replay["result"]["forfeit"]
    assert (forfeit["player"], forfeit["reason"], forfeit["message_id"]) == ("A", "protocol", 0)
    assert "BOOT LOG" in bot.players[0].stderr_text()
    assert processes_in(bot.namespaces) == []

# --- a reply begun ahead of time: the read before the poll finds part of a line ---------------

# After each answer, writes the start of the next one (ids count up), cut inside the two bytes
# of the "é" of a note: the engine finds it when it reads before polling. On the next act, the
# rest, padded with JSON blanks so that every line after the first is LINE bytes long.
BEGUN_AHEAD = """\
import json, sys, time
LINE = {line}
out = sys.stdout.buffer
for text in sys.stdin:
    m = json.loads(text)
    if m["type"] == "hello":
        out.write(b'{{"id": 0, "type": "ready"}}\\n')
    elif m["type"] == "act":
        action = json.dumps(m["legal"][0]).encode()
        if m["id"] == 1:
            out.write(b'{{"id": 1, "action": ' + action + b'}}\\n')
        else:
            head = f'{{{{"id": {{m["id"]}}, "note": "'.encode() + b"\\xc3"
            tail = b'\\xa9", "action": ' + action + b"}}"
            out.write(tail[:2] + b" " * (LINE - len(head) - len(tail)) + tail[2:] + b"\\n")
        out.flush()
        time.sleep(0.005)  # the engine has read this answer: the next one's start comes alone
        out.write(f'{{{{"id": {{m["id"] + 1}}, "note": "'.encode() + b"\\xc3")
    elif m["type"] == "match_end":
        break
    out.flush()
"""


@pytest.mark.sandbox
@pytest.mark.timeout(60)
@pytest.mark.parametrize("line", [64 * 1024, 64 * 1024 + 1])
def test_a_reply_begun_ahead_of_time_is_read_whole_up_to_64_kib(tmp_path: Path,
                                                                line: int) -> None:
    source = tmp_path / "ahead.py"
    source.write_text(BEGUN_AHEAD.format(line=line))
    bot = program(source, time=RELAXED)

    replay = play(bot)

    forfeit = replay["result"]["forfeit"]
    if line <= 64 * 1024:
        assert forfeit is None, forfeit
        assert len(replay["games"]) == 2
    else:
        assert (forfeit["player"], forfeit["reason"], forfeit["message_id"]) == (
            "A", "protocol", 2), forfeit
        assert "longer than 64 KiB" in forfeit["detail"]
    assert processes_in(bot.namespaces) == []


# --- the cyclic collector, paused for a match of built-in players ---------------------------
def builtin(cls: type[Player]) -> BuiltinFactory:
    return BuiltinFactory("random", "1", cls, {})


class _Cheat(RandomPlayer):
    """An in-process player, not trusted, that makes no cycles: the runner pauses the
    collector for its match, and checks its actions. Its third decision is a card it lacks."""

    trusted = False

    def __init__(self) -> None:
        super().__init__()
        self.decisions = 0

    def act(self, state: GameState, legal: Any) -> Any:
        self.decisions += 1
        if self.decisions == 3:
            return next(c for c in range(40) if c not in legal)
        return super().act(state, legal)


def test_a_forfeit_inside_the_pause_turns_the_collector_on_and_leaves_nothing_frozen() -> None:
    gc.collect()
    assert gc.isenabled() and gc.get_freeze_count() == 0

    replay = run_match(builtin(_Cheat), builtin(RandomPlayer), games=4, seed="gc",
                       rules=PRESETS["official"])

    forfeit = replay["result"]["forfeit"]
    assert (forfeit["player"], forfeit["reason"]) == ("A", "illegal")
    assert replay["result"]["games"]["B"] == 4
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert id(replay["games"][0]) in {id(o) for o in gc.get_objects(generation=2)}


def test_a_collector_the_caller_turned_off_stays_off_and_nothing_moves() -> None:
    gc.collect()
    gc.disable()
    try:
        replay = run_match(builtin(RandomPlayer), builtin(RandomPlayer), games=2, seed="off",
                           rules=PRESETS["official"])
        assert not gc.isenabled()
        assert gc.get_freeze_count() == 0
        # Not moved to the oldest generation: the runner left the collector alone.
        assert id(replay["games"][0]) not in {id(o) for o in gc.get_objects(generation=2)}
    finally:
        gc.enable()


class _Nesting(RandomPlayer):
    """A built-in player that, at its first decision, plays a whole match of its own (a
    simulation, say), then notes at each decision whether the collector runs."""

    running: list[bool] = []

    def act(self, state: GameState, legal: Any) -> Any:
        if not self.running:
            inner = run_match(builtin(RandomPlayer), builtin(RandomPlayer), games=2,
                              seed="inner", rules=PRESETS["official"])
            assert inner["result"]["forfeit"] is None
        self.running.append(gc.isenabled())
        return super().act(state, legal)


def test_a_match_played_inside_a_paused_match_keeps_it_paused() -> None:
    gc.collect()
    assert gc.isenabled()
    _Nesting.running = []

    run_match(builtin(_Nesting), builtin(RandomPlayer), games=2, seed="outer",
              rules=PRESETS["official"])

    assert len(_Nesting.running) > 20 and not any(_Nesting.running)
    assert gc.isenabled() and gc.get_freeze_count() == 0


# --- act messages under rules no preset has ---------------------------------------------------
def test_act_messages_equal_the_reference_under_rules_no_preset_has() -> None:
    """Bids from 1 to 12 of every kind, no-trump without low no-trump or neither, a kitty with
    the misdeal rule, lockouts and targets that end games at once: one writer a seat, kept
    from game to game and rules to rules, against the reference at every decision."""
    rng = random.Random("review")
    writers = [ActWriter() for _ in range(4)]
    asked: set[str | None] = set()
    mid = 0
    for _ in range(120):
        deck = rng.choice([32, 34])
        low, high = sorted(rng.sample(range(1, 13), 2))
        no_trump = rng.random() < 0.6
        rules = Rules(preset="custom", deck=deck, kitty=deck - 32, min_bid=low, max_bid=high,
                      no_trump=no_trump, low_no_trump=no_trump and rng.random() < 0.5,
                      lockout=rng.randint(-10, 60), target=rng.randint(1, 80),
                      lose_at=rng.choice([None, -rng.randint(0, 80)]),
                      target_after_no_trump=rng.choice([None, rng.randint(1, 90)]),
                      misdeal=rng.random() < 0.5, max_deals=rng.randint(1, 4))
        rules.check()
        state = GameState(rules, dealer=rng.randrange(4), deals=rigged_deals(rules, rng),
                          game=rng.randrange(3))
        while not state.is_terminal():
            legal = state.legal_actions()
            mid += 1
            bank_ms = rng.randrange(10**6)
            assert (writers[state.seat].message(state, legal, mid, bank_ms)
                    == reference_message(state, legal, mid, bank_ms))
            asked.update(map(bid_str, legal) if state.decision == "bid" else [state.decision])
            state.apply(rng.choice(legal))
    assert {"1", "1N", "1L", "5", "6N", "12", "12L", "pass", "trump", "misdeal", "discard",
            "play"} <= asked
