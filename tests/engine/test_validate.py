"""validate_replay: valid replays pass; every kind of tampering is caught and located."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from helpers import PACK_32, ScriptedDeals, faulty_b, play_random_game

from engine.builtin import resolve_player
from engine.kaiser.game import GameState, pair_deals
from engine.kaiser.match import run_match, seat_sides
from engine.kaiser.rules import PRESETS, Rules
from engine.runner import replay_json
from engine.validate import iter_replays, validate_replay

RANDOM = resolve_player("builtin:random")
GREEDY = resolve_player("builtin:greedy")
OFFICIAL = PRESETS["official"]
WEAK = ["TC", "9C", "8C", "7C", "TD", "9D", "8D", "7D"]


@pytest.fixture(scope="module")
def base() -> dict[str, Any]:
    return run_match(GREEDY, RANDOM, games=4, seed="validate")


@pytest.fixture
def replay(base: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(base)


def only_error(replay: dict[str, Any]) -> str:
    errors = validate_replay(replay)
    assert len(errors) == 1, errors
    assert "\n" not in errors[0]
    return errors[0]


def replay_of(rules: Rules, games: list[GameState], seed: str = "hand-made") -> dict[str, Any]:
    """A replay built from finished game states (no seeded-dealing marker)."""
    records = []
    won = {"A": 0, "B": 0}
    draws = 0
    for number, state in enumerate(games):
        seats = seat_sides(number)
        records.append({"seats": seats, "deals": state.records(),
                        "result": {"winner": state.winner, "score": list(state.score),
                                   "forfeit": None}})
        if state.winner is None:
            draws += 1
        else:
            won[seats[state.winner]] += 1
    return {"format": "kaiser-replay", "version": 1, "rules": rules.to_dict(), "seed": seed,
            "players": {"A": {"name": "x", "version": "1"}, "B": {"name": "y", "version": "1"}},
            "games": records,
            "result": {"games": won, "score": (won["A"] + draws / 2) / len(games),
                       "forfeit": None}}


# --- valid replays ----------------------------------------------------------------------------
@pytest.mark.parametrize("preset", list(PRESETS))
def test_replays_of_every_preset_are_valid(preset: str) -> None:
    replay = run_match(RANDOM, GREEDY, games=4, seed=preset, rules=PRESETS[preset])
    assert validate_replay(replay) == []
    assert validate_replay(json.loads(replay_json(replay))) == []


def test_hand_made_replay_without_the_dealing_marker_is_valid() -> None:
    games = []
    for _ in range(2):
        state = GameState(OFFICIAL, dealer=1, deals=pair_deals(OFFICIAL, "h", 0)[1])
        play_random_game(state, random.Random(len(games)))
        games.append(state)
    assert validate_replay(replay_of(OFFICIAL, games)) == []


# --- tampering ----------------------------------------------------------------------------------
def a_trick(replay: dict[str, Any], game: int, deal: int, trick: int) -> dict[str, Any]:
    return replay["games"][game]["deals"][deal]["tricks"][trick]  # type: ignore[no-any-return]


def test_changed_card_is_caught_with_game_deal_trick_and_seat(replay: dict[str, Any]) -> None:
    deal = replay["games"][1]["deals"][0]
    trick = deal["tricks"][2]
    seat = (trick["leader"] + 1) % 4
    stranger = next(c for c in deal["hands"][(seat + 1) % 4])
    trick["cards"][1] = stranger
    error = only_error(replay)
    assert error.startswith(f"game 1, deal 0, trick 2, seat {seat}:")
    assert stranger in error


def test_card_against_follow_suit_is_caught(replay: dict[str, Any]) -> None:
    # A seat that followed suit plays, instead, a card of another suit from its own hand.
    for number, deal in enumerate(replay["games"][0]["deals"]):
        trick = deal["tricks"][0]
        seat = (trick["leader"] + 1) % 4
        led = trick["cards"][0][1]
        other = [c for c in deal["hands"][seat] if c[1] != led]
        if trick["cards"][1][1] == led and other:
            trick["cards"][1] = other[0]
            error = only_error(replay)
            assert error == f"game 0, deal {number}, trick 0, seat {seat}: {other[0]} may " \
                "not be played now"
            return
    pytest.fail("no trick to tamper with")  # the seeded replay always has one


def test_changed_trick_winner_is_caught(replay: dict[str, Any]) -> None:
    trick = a_trick(replay, 0, 1, 3)
    real = trick["winner"]
    trick["winner"] = (real + 1) % 4
    error = only_error(replay)
    assert error == (f"game 0, deal 1, trick 3, seat {(real + 1) % 4}: "
                     f"the trick is won by seat {real}")


@pytest.mark.parametrize("key", ["score", "points", "delta"])
def test_changed_score_points_or_delta_is_caught(replay: dict[str, Any], key: str) -> None:
    deal = replay["games"][2]["deals"][1]
    right = list(deal[key])
    deal[key] = [right[0] + 1, right[1] - 1]
    assert only_error(replay) == f"game 2, deal 1: {key} should be {right}"


def test_bid_below_the_minimum_is_caught(replay: dict[str, Any]) -> None:
    deal = replay["games"][3]["deals"][0]
    seat = deal["bids"][0]["seat"]
    deal["bids"][0]["bid"] = "5"
    assert only_error(replay) == f"game 3, deal 0, seat {seat}: bid 5 is not allowed now"


def test_changed_bid_that_stays_legal_breaks_the_contract(replay: dict[str, Any]) -> None:
    deal = next(d for d in replay["games"][0]["deals"] if d["contract"]["bid"] != "12N")
    index = replay["games"][0]["deals"].index(deal)
    last = deal["bids"][-1]  # the dealer may always bid 12N
    last["bid"] = "12N"
    error = only_error(replay)
    assert error.startswith(f"game 0, deal {index}")
    assert "12N" in error


def test_bid_out_of_turn_is_caught(replay: dict[str, Any]) -> None:
    deal = replay["games"][1]["deals"][1]
    deal["bids"][0]["seat"] = (deal["bids"][0]["seat"] + 2) % 4
    assert only_error(replay).startswith("game 1, deal 1, seat")


def test_changed_trump_is_caught(replay: dict[str, Any]) -> None:
    game = replay["games"][0]
    index, deal = next((i, d) for i, d in enumerate(game["deals"])
                       if d["contract"]["trump"] is not None)
    deal["contract"]["trump"] = "CDHS"[("CDHS".index(deal["contract"]["trump"]) + 1) % 4]
    assert only_error(replay).startswith(f"game 0, deal {index}")


def test_changed_dealer_is_caught(replay: dict[str, Any]) -> None:
    deal = replay["games"][0]["deals"][1]
    deal["dealer"] = (deal["dealer"] + 1) % 4
    assert only_error(replay).startswith("game 0, deal 1: the dealer should be seat")


def test_changed_game_winner_is_caught(replay: dict[str, Any]) -> None:
    result = replay["games"][1]["result"]
    result["winner"] = 1 - result["winner"]
    assert only_error(replay).startswith("game 1: result should be winner")


def test_changed_game_score_is_caught(replay: dict[str, Any]) -> None:
    replay["games"][2]["result"]["score"][0] += 10
    assert only_error(replay).startswith("game 2: result should be")


def test_changed_match_result_is_caught(replay: dict[str, Any]) -> None:
    games = replay["result"]["games"]
    games["A"], games["B"] = games["A"] - 1, games["B"] + 1
    assert only_error(replay).startswith("match result should be")


def test_changed_match_score_is_caught(replay: dict[str, Any]) -> None:
    replay["result"]["score"] = 0.25 if replay["result"]["score"] != 0.25 else 0.5
    assert only_error(replay).startswith("match result should be")


def test_missing_deal_is_caught(replay: dict[str, Any]) -> None:
    replay["games"][0]["deals"].pop()
    assert "game 0" in only_error(replay)


def test_deal_after_the_end_is_caught(replay: dict[str, Any]) -> None:
    deals = replay["games"][0]["deals"]
    deals.append(copy.deepcopy(deals[-1]))
    assert only_error(replay).startswith(f"game 0, deal {len(deals) - 1}")


def test_hands_that_are_not_the_pack_are_caught(replay: dict[str, Any]) -> None:
    hands = replay["games"][0]["deals"][0]["hands"]
    hands[0][0] = hands[1][0]
    assert only_error(replay).startswith("game 0, deal 0: the hands and kitty are not")


def test_hands_the_seed_does_not_deal_are_caught(replay: dict[str, Any]) -> None:
    replay["seed"] = "another seed"
    error = only_error(replay)
    assert error.startswith("game 0") and "another seed" in error


def test_duplicate_game_with_different_deals_is_caught() -> None:
    first = GameState(OFFICIAL, dealer=2, deals=pair_deals(OFFICIAL, "one", 0)[1])
    second = GameState(OFFICIAL, dealer=2, deals=pair_deals(OFFICIAL, "two", 0)[1])
    play_random_game(first, random.Random(1))
    play_random_game(second, random.Random(2))
    error = only_error(replay_of(OFFICIAL, [first, second]))
    assert error == "game 1, deal 0: deal 0 differs from deal 0 of game 0"


def test_duplicate_game_with_another_first_dealer_is_caught() -> None:
    games = []
    for dealer in (2, 3):
        state = GameState(OFFICIAL, dealer=dealer, deals=pair_deals(OFFICIAL, "one", 0)[1])
        play_random_game(state, random.Random(dealer))
        games.append(state)
    assert only_error(replay_of(OFFICIAL, games)) == \
        "game 1: a duplicate pair must share its first dealer"


def misdeal_games() -> list[GameState]:
    """Two pagat games whose first deal gives seat 2 a hand that may be thrown in."""
    rules = PRESETS["pagat"]
    rest = [c for c in PACK_32 if c not in WEAK]
    random.Random(9).shuffle(rest)
    hands = [rest[0:8], rest[8:16], WEAK, rest[16:24]]
    games = []
    for seed in (3, 4):
        state = GameState(rules, dealer=1, deals=ScriptedDeals(rules, [(hands, [])]))
        assert state.decision == "misdeal" and state.seat == 2
        state.apply(True)
        play_random_game(state, random.Random(seed))
        games.append(state)
    return games


def test_recorded_misdeal_is_valid() -> None:
    replay = replay_of(PRESETS["pagat"], misdeal_games())
    assert replay["games"][0]["deals"][0]["misdeal"] == {"seat": 2}
    assert replay["games"][0]["deals"][1]["dealer"] == 1
    assert validate_replay(replay) == []


@pytest.mark.parametrize("seat", [0, 1, 3])
def test_misdeal_by_a_seat_that_does_not_qualify_is_caught(seat: int) -> None:
    replay = replay_of(PRESETS["pagat"], misdeal_games())
    replay["games"][0]["deals"][0]["misdeal"] = {"seat": seat}
    assert only_error(replay) == f"game 0, deal 0, seat {seat}: seat {seat} may not throw " \
        "this hand in"


def test_misdeal_in_a_preset_without_it_is_caught() -> None:
    replay = replay_of(PRESETS["pagat"], misdeal_games())
    replay["rules"] = PRESETS["bga"].to_dict()
    assert only_error(replay).startswith("game 0, deal 0, seat 2:")


def test_unrecorded_misdeal_answer_is_a_decline() -> None:
    # A thrown-in deal must say so; without the record the hand was kept and bidding follows.
    replay = replay_of(PRESETS["pagat"], misdeal_games())
    replay["games"][0]["deals"][0]["misdeal"] = None
    assert only_error(replay).startswith("game 0, deal 0")


@pytest.fixture
def forfeited() -> dict[str, Any]:
    replay = run_match(RANDOM, faulty_b(40), games=2, seed="ff")
    assert validate_replay(replay) == [] and replay["result"]["forfeit"] is not None
    return replay


def test_forfeit_by_a_seat_of_the_other_player_is_caught(forfeited: dict[str, Any]) -> None:
    forfeit = forfeited["games"][-1]["result"]["forfeit"]
    forfeit["seat"] = (forfeit["seat"] + 1) % 4
    forfeited["result"]["forfeit"] = forfeit
    assert only_error(forfeited).startswith("game 0: the forfeit names a seat")


def test_forfeit_interrupted_deal_with_a_score_is_caught(forfeited: dict[str, Any]) -> None:
    deals = forfeited["games"][-1]["deals"]
    deals[-1]["points"], deals[-1]["delta"], deals[-1]["score"] = [5, 5], [5, 5], [5, 5]
    assert only_error(forfeited) == (f"game 0, deal {len(deals) - 1}: the deal a forfeit "
                                     "interrupts has no points, delta or score")


def test_forfeit_with_a_wrong_winner_is_caught(forfeited: dict[str, Any]) -> None:
    result = forfeited["games"][-1]["result"]
    result["winner"] = 1 - result["winner"]
    assert "gives winner" in only_error(forfeited)


def test_match_forfeit_must_repeat_the_games(forfeited: dict[str, Any]) -> None:
    forfeited["result"]["forfeit"] = None
    assert only_error(forfeited) == "the match's forfeit must repeat the last game's"


# --- malformed input ----------------------------------------------------------------------------
@pytest.mark.parametrize("value,start", [
    ([], "a replay must be a JSON object"),
    ({"format": "chess"}, "not a replay of a game known here: its format is 'chess'"),
    ({"format": "kaiser-replay", "version": 2}, "not a kaiser-replay"),
    ({"format": "kaiser-replay", "version": 1}, "malformed replay"),
])
def test_malformed_replays_get_one_message(value: Any, start: str) -> None:
    assert only_error(value).startswith(start)


def test_bad_rules_are_reported(replay: dict[str, Any]) -> None:
    replay["rules"]["deck"] = 52
    assert only_error(replay).startswith("bad rules:")


def test_unknown_card_name_is_reported(replay: dict[str, Any]) -> None:
    replay["games"][0]["deals"][0]["hands"][0][0] = "ZZ"
    assert only_error(replay).startswith("game 0, deal 0: not a card")


# --- JSON Lines ---------------------------------------------------------------------------------
def test_json_lines_give_one_replay_a_line(base: dict[str, Any]) -> None:
    text = replay_json(base) + "\n\n" + replay_json(base) + "\n"
    replays = list(iter_replays(text))
    assert len(replays) == 2 and all(validate_replay(r) == [] for r in replays)


def test_pretty_printed_single_replay_is_one_replay(base: dict[str, Any]) -> None:
    assert list(iter_replays(json.dumps(base, indent=2))) == [base]


@pytest.mark.parametrize("text,message", [("", "empty"), ("{}\n{oops", "line 2"),
                                          ("  \n ", "empty")])
def test_malformed_json_lines_name_the_line(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        list(iter_replays(text))


@pytest.mark.parametrize("key,value", [("contract", {"seat": 2, "bid": "7", "trump": "H"}),
                                       ("points", [5, 5]), ("score", [0, 0]),
                                       ("discards", ["AC", "KC"])])
def test_thrown_in_deal_with_play_in_it_is_caught(key: str, value: Any) -> None:
    replay = replay_of(PRESETS["pagat"], misdeal_games())
    replay["games"][0]["deals"][0][key] = value
    assert only_error(replay) == ("game 0, deal 0: a thrown-in deal has no bids, contract, "
                                  "discards, tricks or points")


def test_extra_fields_are_allowed(replay: dict[str, Any]) -> None:
    replay["rules"]["comment"] = "house rules"
    replay["games"][0]["deals"][0]["viewer_note"] = "a nice deal"
    replay["produced_by"] = "a test"
    assert validate_replay(replay) == []
