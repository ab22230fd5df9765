"""Sergeant Major played out: random legal play always ends (a property test over seeds and
presets) with the pack conserved and every hand adding up; matches rotate the seats over the
same deals; greedy beats random; replays re-validate, and tampered ones do not."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.builtin import BuiltinFactory, RandomPlayer, resolve_player
from engine.games import get_game
from engine.kaiser.mc import MCPlayer
from engine.players import TimeControl
from engine.runner import replay_json
from engine.sergeant_major.game import SMState, set_deals
from engine.sergeant_major.match import run_match, seat_sides
from engine.sergeant_major.mc import SMMCPlayer
from engine.sergeant_major.players import SMGreedyPlayer
from engine.sergeant_major.rules import PRESETS
from engine.validate import validate_replay

RANDOM = BuiltinFactory("random", "1", RandomPlayer, {})
GREEDY = BuiltinFactory("greedy", "1", SMGreedyPlayer, {})
PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def held(state: SMState) -> int:
    """Every card accounted for: hands, the kitty until the dealer holds it, discards, play."""
    cards = [h.bit_count() for h in state.hands]
    played = 3 * len(state.tricks) + len(state.trick)
    kitty_out = state.decision in ("give", "return") or (
        state.decision in ("trump", "discard") and not state.rules.kitty_first)
    return sum(cards) + played + len(state.discards) + 4 * kitty_out


@PROPERTY
@given(seed=st.integers(0, 2**32), preset=st.sampled_from(sorted(PRESETS)))
def test_random_legal_play_always_ends(seed: int, preset: str) -> None:
    rules = PRESETS[preset]
    dealer, deals = set_deals(str(seed), 0)
    state = SMState(rules, dealer=dealer, deals=deals.source())
    rng = random.Random(seed)
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        assert len(legal) > 0, state.decision
        action = legal[rng.randrange(len(legal))]
        assert action in legal
        state.apply(action)
        steps += 1
        assert held(state) == 52 or state.is_terminal() or state.decision is None
        assert steps < 60 * 16 * 3 * 4 + 2000, "a game that does not end"
    assert len(state.log) <= (rules.hands or rules.max_hands)
    for hand in state.log:
        assert sum(hand.taken) == 16 and sum(hand.delta) == 0 and sum(hand.score) == 0
    assert sum(state.points or []) == pytest.approx(1.0)


@PROPERTY
@given(seed=st.integers(0, 2**32), preset=st.sampled_from(sorted(PRESETS)),
       kinds=st.lists(st.sampled_from(["random", "greedy"]), min_size=3, max_size=3))
def test_every_match_replay_revalidates(seed: int, preset: str, kinds: list[str]) -> None:
    players = [GREEDY if kind == "greedy" else RANDOM for kind in kinds]
    replay = run_match(players, games=3, seed=seed, rules=PRESETS[preset])
    assert validate_replay(json.loads(replay_json(replay))) == []


def test_a_match_rotates_the_seats_over_the_same_deals() -> None:
    replay = run_match([GREEDY, RANDOM, RANDOM], games=6, seed="rotate")
    games = replay["games"]
    assert [g["seats"] for g in games[:3]] == [["A", "B", "C"], ["C", "A", "B"],
                                              ["B", "C", "A"]]
    assert games[3]["seats"] == ["A", "B", "C"]
    for first, others in ((0, (1, 2)), (3, (4, 5))):
        for other in others:
            a, b = games[first]["deals"], games[other]["deals"]
            assert a[0]["dealer"] == b[0]["dealer"]
            shared = min(len(a), len(b))
            assert [d["hands"] for d in a[:shared]] == [d["hands"] for d in b[:shared]]
    assert games[0]["deals"][0]["hands"] != games[3]["deals"][0]["hands"]


def test_three_equal_players_share_every_set_exactly() -> None:
    # greedy decides without chance: over one set each player holds each seat of the same
    # deals once, so the three share the set's points exactly.
    replay = run_match([GREEDY, GREEDY, GREEDY], games=9, seed="fair")
    assert replay["result"]["points"] == {"A": 3.0, "B": 3.0, "C": 3.0}


def test_the_same_seed_gives_the_same_bytes() -> None:
    one = replay_json(run_match([GREEDY, RANDOM, RANDOM], games=3, seed=4))
    two = replay_json(run_match([GREEDY, RANDOM, RANDOM], games=3, seed=4))
    assert one == two


def test_a_match_is_whole_sets_of_three() -> None:
    with pytest.raises(ValueError, match="multiple of 3"):
        run_match([RANDOM, RANDOM, RANDOM], games=4)


@pytest.mark.parametrize("preset", ["952", "952-six-hands"])
def test_greedy_wins_at_least_80_percent_of_200_seeded_games_versus_random(
        preset: str) -> None:
    won = 0
    for number in range(200):
        seat = number % 3  # greedy sits at each seat in turn
        players = [GREEDY(0) if s == seat else RandomPlayer() for s in range(3)]
        for s, player in enumerate(players):
            player.start(seat=s, rules=PRESETS[preset], games=1,  # type: ignore[arg-type]
                         time=TimeControl(), seed=f"greedy-{number}/{s}")
        dealer, deals = set_deals(f"greedy-{number}", 0)
        state = SMState(PRESETS[preset], dealer=dealer, deals=deals.source())
        while not state.is_terminal():
            state.apply(players[state.seat].act(state, state.legal_actions()))  # type: ignore
        won += state.winner == seat
    assert won >= 160, f"greedy won {won} of 200"


def test_builtin_names_resolve_to_the_games_own_players() -> None:
    assert resolve_player("builtin:greedy", game="sergeant-major")(0).__class__ is SMGreedyPlayer
    assert resolve_player("builtin:random", game="sergeant-major")(0).__class__ is RandomPlayer
    assert resolve_player("builtin:mc", game="sergeant-major")(0).__class__ is SMMCPlayer
    assert resolve_player("builtin:mc")(0).__class__ is MCPlayer  # Kaiser's
    with pytest.raises(ValueError, match="unknown built-in player 'oracle' of sergeant-major"):
        resolve_player("builtin:oracle", game="sergeant-major")


def test_the_game_interface_plays_both_games() -> None:
    for name in ("kaiser", "sergeant-major"):
        game = get_game(name)
        rules = game.get_rules(game.default_preset)
        players = [BuiltinFactory("random", "1", RandomPlayer, {})] * len(game.sides)
        replay = game.run_match(players, games=game.games_per_set, seed="both", rules=rules,
                                time=TimeControl())
        assert replay["format"] == game.replay_format
        assert game.validate_replay(replay) == [] == validate_replay(replay)
        state = game.new_state(rules, seed="both", game=0)
        legal = state.legal_actions()
        wire = game.legal_to_wire(state, legal)
        assert wire and game.action_from_wire(state, game.action_to_wire(
            state.decision, legal[0])) == legal[0]


# --- the validator -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def replay() -> dict[str, Any]:
    made = run_match([GREEDY, RANDOM, RANDOM], games=3, seed="tamper")
    return json.loads(replay_json(made))


def first_hand_with_exchange(replay: dict[str, Any]) -> tuple[int, int]:
    for g, game in enumerate(replay["games"]):
        for d, deal in enumerate(game["deals"]):
            if deal["exchanges"]:
                return g, d
    raise AssertionError("no exchange in the replay")


def tamper_return(r: dict[str, Any]) -> None:
    g, d = first_hand_with_exchange(r)
    exchange = r["games"][g]["deals"][d]["exchanges"][0]
    exchange["returned"] = exchange["given"]  # keeps what it should have answered
    if exchange["returned"] == r["games"][g]["deals"][d]["exchanges"][0]["given"]:
        hand = r["games"][g]["deals"][d]["hands"][exchange["receiver"]]
        exchange["returned"] = [c for c in hand if c not in exchange["given"]][:exchange["count"]]


def tamper_giver(r: dict[str, Any]) -> None:
    g, d = first_hand_with_exchange(r)
    exchange = r["games"][g]["deals"][d]["exchanges"][0]
    exchange["giver"], exchange["receiver"] = exchange["receiver"], exchange["giver"]


def tamper_swap_cards(r: dict[str, Any]) -> None:
    hands = r["games"][0]["deals"][0]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]


TAMPERINGS = {
    "a card dealt twice": (lambda r: r["games"][0]["deals"][0]["hands"][0].__setitem__(
        0, r["games"][0]["deals"][0]["hands"][1][0]), "exactly the pack"),
    "hands not those of the seed": (tamper_swap_cards, ""),
    "a trick's winner": (lambda r: r["games"][0]["deals"][0]["tricks"][0].__setitem__(
        "winner", (r["games"][0]["deals"][0]["tricks"][0]["winner"] + 1) % 3), "won by seat"),
    "the targets": (lambda r: r["games"][0]["deals"][0].__setitem__("targets", [5, 5, 6]),
                    "targets should be"),
    "the dealer": (lambda r: r["games"][0]["deals"][1].__setitem__(
        "dealer", (r["games"][0]["deals"][1]["dealer"] + 1) % 3), "dealer should be"),
    "the tricks taken": (lambda r: r["games"][0]["deals"][0]["taken"].reverse(),
                         ""),
    "a score": (lambda r: r["games"][0]["deals"][0].__setitem__("score", [0, 0, 0]),
                "score should be"),
    "a return that is not the forced one": (tamper_return, "to return"),
    "the wrong giver": (tamper_giver, "should be seat"),
    "the trump named": (lambda r: r["games"][0]["deals"][0].__setitem__("trump", "X"),
                        "not a suit"),
    "a game's winner": (lambda r: r["games"][1]["result"].__setitem__(
        "points", [1.0, 0.0, 0.0] if r["games"][1]["result"]["points"] != [1.0, 0.0, 0.0]
        else [0.0, 1.0, 0.0]), "result should be"),
    "the match result": (lambda r: r["result"]["points"].__setitem__("A", 0.0),
                         "points"),
    "the seats": (lambda r: r["games"][1].__setitem__("seats", ["A", "B", "C"]),
                  "seats must be"),
    "a deal of the set": (lambda r: r["games"][2]["deals"].__setitem__(
        0, r["games"][0]["deals"][1]), ""),
    "a fourth card in a trick": (lambda r: r["games"][0]["deals"][0]["tricks"][0]["cards"]
                                 .append("2C"), "3 cards"),
    "the discards": (lambda r: r["games"][0]["deals"][0].__setitem__(
        "discards", r["games"][0]["deals"][0]["discards"][:3]), "list of 4 cards"),
}


@pytest.mark.parametrize("what", sorted(TAMPERINGS))
def test_the_validator_rejects_a_tampered_replay(replay: dict[str, Any], what: str) -> None:
    assert validate_replay(replay) == []
    tampered = copy.deepcopy(replay)
    change, message = TAMPERINGS[what]
    change(tampered)
    problems = validate_replay(tampered)
    assert len(problems) == 1, what
    assert message in problems[0], problems


def test_a_replay_of_either_game_goes_to_its_own_validator(replay: dict[str, Any]) -> None:
    kaiser_like = {**copy.deepcopy(replay), "format": "kaiser-replay"}
    assert validate_replay(kaiser_like) != []
    assert validate_replay({**replay, "game": "kaiser"}) == [
        'not a sergeant-major-replay of version 1 (game "sergeant-major")']


def test_seat_sides_rotate_one_seat_a_game() -> None:
    assert [seat_sides(g) for g in range(4)] == [
        ["A", "B", "C"], ["C", "A", "B"], ["B", "C", "A"], ["A", "B", "C"]]
