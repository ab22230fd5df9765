"""Sergeant Major over the bot protocol (docs/protocol.md, "Sergeant Major"), through real
sandboxed bot processes: the hello names the game, a bot declares it, the five decisions and
their lists, the forced return checked, and a bot of the wrong game stopped with a clear fault."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.builtin import resolve_player
from engine.sergeant_major.game import SMState, set_deals
from engine.sergeant_major.match import run_match
from engine.sergeant_major.protocol import act_message, action_from_wire
from engine.sergeant_major.rules import PRESETS
from engine.validate import validate_replay
from tests.engine.sandbox_support import EXAMPLES, RELAXED, program

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(120)]

PROGRAMS = Path(__file__).parent / "programs"


def received(stderr: str) -> list[dict[str, Any]]:
    return [json.loads(line)["message"] for line in stderr.splitlines() if line.startswith("{")]


def against_builtins(bot: Any, games: int = 3, preset: str = "952") -> dict[str, Any]:
    greedy = resolve_player("builtin:greedy", game="sergeant-major")
    randoms = resolve_player("builtin:random", game="sergeant-major")
    return run_match([bot, greedy, randoms], games=games, seed="protocol",
                     rules=PRESETS[preset], time=RELAXED)


@pytest.fixture(scope="module")
def recorded() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    bot = program(PROGRAMS / "sm_bot.py", time=RELAXED)
    replay = against_builtins(bot, games=6)
    assert [p.game for p in bot.players] == list(range(6))  # a process of its own a game
    return replay, [m for p in bot.players for m in received(p.stderr_text())]


def test_a_bot_plays_a_whole_match_without_fault(recorded) -> None:
    replay, _ = recorded
    assert replay["result"]["forfeit"] is None
    assert replay["players"]["A"]["name"] == "sm_bot"
    assert validate_replay(json.loads(json.dumps(replay))) == []


def test_hello_names_the_game_and_gives_its_rules(recorded) -> None:
    _, messages = recorded
    hellos = [m for m in messages if m["type"] == "hello"]
    assert [h["match"] for h in hellos] == [{"games": 6, "game": g} for g in range(6)]
    assert [h["seat"] for h in hellos] == [0, 1, 2, 0, 1, 2]  # A's seat rotates
    hello = hellos[0]
    assert hello["type"] == "hello" and hello["game"] == "sergeant-major"
    assert "team" not in hello
    assert hello["rules"] == PRESETS["952"].to_dict()


def test_the_bot_meets_every_decision_with_its_lists(recorded) -> None:
    _, messages = recorded
    acts = [m for m in messages if m["type"] == "act"]
    kinds = {m["decision"] for m in acts}
    assert kinds == {"give", "return", "trump", "discard", "play"}
    keys = None
    for act in acts:
        state = act["state"]  # the bot logs a summary of it, its keys when they change
        keys = state.get("keys", keys)
        assert keys == sorted([
            "game", "deal", "seat", "dealer", "targets", "score", "last", "hand", "exchanges",
            "trump", "discards", "tricks", "trick", "taken", "bank_ms"])
        if act["decision"] in ("give", "return", "discard"):
            assert act["count"] >= 1
        else:
            assert act["count"] is None  # absent
        if act["decision"] == "discard":
            assert act["count"] == 4 and state["seat"] == state["dealer"]
            assert len(act["legal"]) == state["hand"] == 16  # the kitty not yet taken
        if act["decision"] == "return":
            assert len(act["legal"]) == act["count"]
            exchange = state["exchange"]
            assert exchange["receiver"] == state["seat"] and exchange["given"] is not None
        if act["decision"] == "give":
            assert len(act["legal"]) == state["hand"]
            assert state["exchange"]["giver"] == state["seat"]


def test_notifications_close_each_hand_and_game(recorded) -> None:
    replay, messages = recorded
    ends = [m for m in messages if m["type"] == "game_end"]
    assert [m["game"] for m in ends] == list(range(6))
    for end, game in zip(ends, replay["games"], strict=True):
        assert end["points"] == game["result"]["points"]
    hands = [m for m in messages if m["type"] == "deal_end"]
    assert len(hands) == sum(len(g["deals"]) for g in replay["games"])
    assert all(m["hands"] == 3 for m in hands)


def test_a_kaiser_bot_at_a_sergeant_major_table_is_told_why(tmp_path: Path) -> None:
    bot = program(EXAMPLES / "minimal_bot.py", time=RELAXED)
    replay = against_builtins(bot)
    fault = replay["result"]["forfeit"]
    assert fault["reason"] == "protocol" and fault["player"] == "A"
    assert "this match is sergeant-major" in fault["detail"]
    assert '"game": "sergeant-major"' in fault["detail"]
    assert replay["result"]["points"] == {"A": 0.0, "B": 1.5, "C": 1.5}
    assert validate_replay(json.loads(json.dumps(replay))) == []


def test_a_sergeant_major_bot_at_a_kaiser_table_is_told_why() -> None:
    from engine.kaiser.match import run_match as kaiser_match

    bot = program(PROGRAMS / "sm_bot.py", time=RELAXED)
    replay = kaiser_match(bot, resolve_player("builtin:random"), games=2, seed="k",
                          time=RELAXED)
    fault = replay["result"]["forfeit"]
    assert fault["reason"] == "protocol"
    assert "this match is kaiser" in fault["detail"] and "sergeant-major" in fault["detail"]


def test_a_bot_that_keeps_the_cards_it_must_return_forfeits(tmp_path: Path) -> None:
    source = (PROGRAMS / "sm_bot.py").read_text().replace("WRONG_RETURN = False",
                                                          "WRONG_RETURN = True")
    path = tmp_path / "wrong_return.py"
    path.write_text(source)
    bot = program(path, time=RELAXED)
    replay = against_builtins(bot, games=6)
    fault = replay["result"]["forfeit"]
    assert fault is not None and fault["reason"] == "illegal" and fault["player"] == "A"
    assert "the cards to return are" in fault["detail"]
    assert validate_replay(json.loads(json.dumps(replay))) == []


# --- the wire, without a process -------------------------------------------------------------
def exchange_state() -> SMState:
    state = SMState(PRESETS["952"], dealer=0, deals=set_deals("wire", 0)[1].source(),
                    last=(2, 0, -2))
    assert state.decision == "give"
    return state


@pytest.mark.parametrize("value, message", [
    ("AS", "give must be a list of 2 cards"),
    (["AS"], "give must be a list of 2 cards"),
    (["XX", "AS"], "not a card: 'XX'"),
    ([7, 8], "not a card: 7"),
])
def test_a_malformed_gift_is_refused_with_a_reason(value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        action_from_wire(exchange_state(), value)


def test_a_gift_of_cards_not_held_or_named_twice_is_refused() -> None:
    state = exchange_state()
    hand = state.observation(0)["hand"]
    other = state.observation(1)["hand"][0]
    with pytest.raises(ValueError, match=f"{other} is not in the hand"):
        action_from_wire(state, [hand[0], other])
    with pytest.raises(ValueError, match="names a card twice"):
        action_from_wire(state, [hand[0], hand[0]])
    assert action_from_wire(state, hand[:2]) in state.legal_actions()


def test_the_act_message_carries_the_count_and_the_choices() -> None:
    state = exchange_state()
    message = json.loads(act_message(state, state.legal_actions(), 7, 900))
    assert message["decision"] == "give" and message["count"] == 2 and message["id"] == 7
    assert sorted(message["legal"]) == sorted(message["state"]["hand"])
    assert message["state"]["exchanges"] == [
        {"giver": 0, "receiver": 2, "count": 2, "given": None, "returned": None}]
    assert message["state"]["last"] == [2, 0, -2] and message["state"]["bank_ms"] == 900
