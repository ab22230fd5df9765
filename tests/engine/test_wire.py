"""The act message built from fragments (engine.kaiser.wire) equals the reference encoding, byte for
byte, and a reply's action is read as engine.kaiser.protocol.action_from_wire reads it."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable

import pytest

from engine.kaiser.cards import deck
from engine.kaiser.game import Deal, GameState, pair_deals
from engine.kaiser.protocol import action_from_wire, action_to_wire
from engine.kaiser.rules import PRESETS, Rules
from engine.kaiser.wire import ActWriter, action_from_reply, reference_message
from engine.wire import parse_line

DECISIONS = {"misdeal", "bid", "trump", "discard", "play"}
STATE_KEYS = ["game", "deal", "seat", "dealer", "score", "hand", "bids", "contract", "tricks",
              "trick", "bank_ms"]


def rigged_deals(rules: Rules, rng: random.Random) -> Callable[[], Deal]:
    """Shuffled deals; every third one gives a random seat a hand without J, Q, K, A, 5H or 3S,
    so that presets with the misdeal rule ask the misdeal question often."""
    pack = deck(rules)
    plain = [c for c in pack if c % 10 in (2, 3, 4, 5)]  # 7 8 9 T

    def deal() -> Deal:
        cards = pack[:]
        rng.shuffle(cards)
        if rng.random() < 1 / 3:
            weak = rng.sample(plain, 8)
            rest = [c for c in cards if c not in weak]
            seat = rng.randrange(4)
            hands = [rest[8 * i:8 * i + 8] for i in range(3)]
            hands.insert(seat, weak)
            kitty = rest[24:]
        else:
            hands = [cards[8 * i:8 * i + 8] for i in range(4)]
            kitty = cards[32:]
        masks = [sum(1 << c for c in hand) for hand in hands]
        return (masks[0], masks[1], masks[2], masks[3]), sum(1 << c for c in kitty)

    return deal


def wrong_values(state: GameState, rng: random.Random) -> list[object]:
    """Replies a bot might send that are not (or not always) legal now."""
    return ["AS", "3S", "5H", "7H", "pass", "7", "7N", "7L", "12", "13", "07", "C", "X", "",
            True, False, None, 7, 1.5, ["AS"], ["AS", "KS"], {"card": "AS"},
            rng.choice(["TC", "9D", "QH", "KS", "8C", "JD", "6N"])]


def play_games(rules: Rules, seed: int, decisions: int) -> Counter[str]:
    """Games with random choices until `decisions` decisions are made. At every decision,
    every writer's message is compared with the reference, and every legal reply is read both
    ways; at one in five, some wrong replies as well."""
    rng = random.Random(f"wire/{rules.preset}/{seed}")
    seats = [ActWriter() for _ in range(4)]  # one per seat, kept across deals and games
    shared = ActWriter()  # sees every seat's decisions in turn
    seen: Counter[str] = Counter()
    mid = 0
    game = 0
    while sum(seen.values()) < decisions:
        if rules.misdeal or rng.random() < 0.5:
            dealer, deals = rng.randrange(4), rigged_deals(rules, rng)
        else:
            dealer, shuffled = pair_deals(rules, str(seed), game)
            deals = shuffled
        state = GameState(rules, dealer=dealer, deals=deals, game=game)
        while not state.is_terminal():
            legal = state.legal_actions()
            mid += 1
            bank_ms = rng.choice([0, 1, 999, 10000, rng.randrange(10**6)])
            expected = reference_message(state, legal, mid, bank_ms)
            assert seats[state.seat].message(state, legal, mid, bank_ms) == expected
            assert shared.message(state, legal, mid, bank_ms) == expected
            assert ActWriter().message(state, legal, mid, bank_ms) == expected
            decision = state.decision
            assert decision is not None
            seen[decision] += 1
            if seen[decision] % 50 == 1:  # now and then, the parsed form as well
                parsed = json.loads(expected)
                assert list(parsed["state"]) == STATE_KEYS and expected.endswith(b"}\n")
            for action in legal:
                value = json.loads(json.dumps(action_to_wire(decision, action)))
                assert action_from_reply(state, legal, value) == action_from_wire(state, value)
            for value in wrong_values(state, rng) if rng.random() < 0.2 else ():
                try:
                    expected_action = action_from_wire(state, value)
                except (ValueError, TypeError, KeyError) as exc:
                    with pytest.raises(type(exc)) as raised:
                        action_from_reply(state, legal, value)
                    assert str(raised.value) == str(exc)
                else:
                    assert action_from_reply(state, legal, value) == expected_action
            state.apply(rng.choice(legal))
        game += 1
    return seen


def kinds_asked(rules: Rules) -> set[str]:
    """The decisions a preset asks for: misdeal and discard only where its rules have them."""
    return ({"bid", "trump", "play"} | ({"discard"} if rules.kitty else set())
            | ({"misdeal"} if rules.misdeal else set()))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_act_messages_equal_the_reference_in_every_decision_of_random_games(
        preset: str) -> None:
    rules = PRESETS[preset]
    seen: Counter[str] = Counter()
    for seed in range(12):
        seen += play_games(rules, seed, decisions=1500)

    assert set(seen) == kinds_asked(rules)
    assert min(seen.values()) >= 20, seen


def test_the_presets_between_them_ask_every_kind_of_decision() -> None:
    assert set().union(*map(kinds_asked, PRESETS.values())) == DECISIONS


def test_one_writer_across_states_that_go_back_and_forth() -> None:
    """A writer that sees unrelated states in turn (its remembered tricks never apply)."""
    rng = random.Random(7)
    states = []
    for preset in sorted(PRESETS):
        dealer, deals = pair_deals(PRESETS[preset], "x", 0)
        state = GameState(PRESETS[preset], dealer=dealer, deals=deals)
        for _ in range(rng.randrange(20, 40)):
            state.apply(rng.choice(state.legal_actions()))
        states.append(state)
    writer = ActWriter()
    for _ in range(300):
        state = rng.choice(states)
        legal = state.legal_actions()
        assert writer.message(state, legal, 3, 5) == reference_message(state, legal, 3, 5)
        if rng.random() < 0.3 and not state.is_terminal():
            state.apply(rng.choice(legal))


def test_tricks_that_change_in_place_are_encoded_again() -> None:
    writer = ActWriter()
    tricks = [[0, [1, 2, 3, 4], 2]]
    first = writer._tricks_json(tricks)  # type: ignore[arg-type]
    tricks[0][1][0] = 9  # type: ignore[index]
    tricks.append([2, [5, 6, 7, 8], 1])
    again = writer._tricks_json(tricks)  # type: ignore[arg-type]
    assert json.loads(f"[{first}]")[0]["cards"][0] == "5C"
    assert json.loads(f"[{again}]") == [
        {"leader": 0, "cards": ["AC", "7C", "8C", "9C"], "winner": 2},
        {"leader": 2, "cards": ["TC", "JC", "QC", "KC"], "winner": 1}]


REPLY_LINES = [
    b'{"id": 57, "action": "AH"}', b'{"id":1,"action":["3S","5H"]}', b'{"action": true, "id": 2}',
    b'{"id": 3, "action": "\\u00e9\\ud800"}', '{"id": 4, "name": "été"}'.encode(),
    b'{"id": 5, "action": "\xff"}', b'{"id": 6, "action": "\xed\xa0\x80"}', b"{", b"{}", b"{x",
    b'{"id": 7} trailing', b'{"a": ' * 2000 + b"1" + b"}" * 2000, b"", b" ", b"[1, 2]", b"57",
    b'"AH"', b"null", b"\xef\xbb\xbf{\"id\": 8}", '{"id": 9}'.encode("utf-16"),
    '{"id": 10}'.encode("utf-16-le"), '{"id": 11}'.encode("utf-16-be"),
    '{"id": 12}'.encode("utf-32"), '{"id": 13}'.encode("utf-32-le"), b"{\x00", b"{\x00\x00\x00",
    b'{"id": NaN, "action": Infinity}', b'{"id": 1e400}', b'{"id": 14, "id": 15}',
]


@pytest.mark.parametrize("line", REPLY_LINES)
def test_a_reply_line_parses_exactly_as_json_loads_parses_it(line: bytes) -> None:
    try:
        expected = json.loads(line)
    except (ValueError, RecursionError) as exc:
        with pytest.raises(type(exc)) as raised:
            parse_line(line)
        assert str(raised.value) == str(exc)
    else:
        got = parse_line(line)
        assert repr(got) == repr(expected)  # NaN == NaN is false; their reprs agree
