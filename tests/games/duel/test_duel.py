"""Duel's own rules (the test game of tests/games/duel): who leads, following suit, who wins a
trick and a game, the duplicate deals of a set, the validator's re-dealing, the built-in
greedy player, and its bot programs through the sandbox and the local runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.builtin import resolve_player
from engine.runner import replay_json
from tests.engine.sandbox_support import RELAXED, program
from tests.games.duel.cards import CARD_OF, mask_names
from tests.games.duel.game import DuelState, set_deals, trick_winner
from tests.games.duel.match import run_match, seat_sides
from tests.games.duel.players import greedy_card
from tests.games.duel.rules import PRESETS, DuelRules
from tests.games.duel.validate import validate_replay
from tests.games.registry import registered_test_games

ROOT = Path(__file__).resolve().parents[3]
PROGRAMS = Path(__file__).parent / "programs"


def cards(text: str) -> list[int]:
    return [CARD_OF[name] for name in text.split()]


def mask(text: str) -> int:
    return sum(1 << c for c in cards(text))


def fixed(*deals: tuple[str, str]) -> Any:
    """A deal source handing out the given hands (seat 0's, seat 1's), deal after deal."""
    masks = iter([(mask(a), mask(b)) for a, b in deals])
    return lambda: next(masks)


def builtin(name: str) -> Any:
    with registered_test_games():
        return resolve_player(f"builtin:{name}", game="duel")


@pytest.fixture
def registered() -> Iterator[None]:
    with registered_test_games():
        yield


def test_the_dealer_s_opponent_leads_and_the_dealer_alternates() -> None:
    state = DuelState(PRESETS["standard"], dealer=1,
                      deals=fixed(("1S 2S 3S 4S", "1H 2H 3H 4H"),
                                  ("5S 6S 5H 6H", "1S 2S 1H 2H"),
                                  ("1S 2S 3S 4S", "1H 2H 3H 4H")))
    assert state.seat == 0 and state.decision == "play"
    for _ in range(4):  # seat 0 leads spades, seat 1 has none: seat 0 takes every trick
        state.apply(state.legal_actions()[0])
        state.apply(state.legal_actions()[0])
    assert state.log[0].taken == (4, 0) and state.deal_index == 1
    assert state.dealer == 0 and state.seat == 1  # the new dealer's opponent leads


def test_a_player_follows_suit_when_able() -> None:
    state = DuelState(PRESETS["short"], dealer=0,
                      deals=fixed(("1S 2H 3H 4H", "5S 6S 5H 6H")))
    state.apply(CARD_OF["5H"])  # seat 1 leads a heart
    assert mask_names(sum(1 << c for c in state.legal_actions())) == ["2H", "3H", "4H"]
    state.apply(CARD_OF["2H"])
    state.apply(CARD_OF["5S"])  # seat 1 won and leads a spade
    assert state.legal_actions() == (CARD_OF["1S"],)


@pytest.mark.parametrize(("led", "second", "winner"), [
    ("3S", "5S", 1), ("5S", "3S", 0), ("3S", "6H", 0), ("1H", "2H", 1)])
def test_the_higher_card_of_the_suit_led_wins(led: str, second: str, winner: int) -> None:
    assert trick_winner(0, [CARD_OF[led], CARD_OF[second]]) == winner
    assert trick_winner(1, [CARD_OF[led], CARD_OF[second]]) == 1 - winner


def test_more_tricks_win_the_game_and_equal_tricks_draw() -> None:
    won = DuelState(PRESETS["short"], dealer=1, deals=fixed(("3S 4S 5S 6S", "1S 2S 1H 2H")))
    while not won.is_terminal():
        won.apply(won.legal_actions()[-1])
    assert won.score == [4, 0] and won.winner == 0
    drawn = DuelState(PRESETS["short"], dealer=1, deals=fixed(("5S 6S 1H 2H", "1S 2S 5H 6H")))
    for card in cards("6S 1S 5S 2S 1H 6H 5H 2H"):
        drawn.apply(card)
    assert drawn.is_terminal() and drawn.score == [2, 2] and drawn.winner is None
    assert drawn.decision is None and drawn.legal_actions() == ()


def test_a_set_deals_the_same_cards_to_the_same_seats_with_the_players_swapped() -> None:
    replay = run_match([builtin("greedy"), builtin("random")], games=4, seed="pairs")
    games = replay["games"]
    assert [g["seats"] for g in games] == [["A", "B"], ["B", "A"], ["A", "B"], ["B", "A"]]
    assert [d["hands"] for d in games[0]["deals"]] == [d["hands"] for d in games[1]["deals"]]
    assert [d["hands"] for d in games[0]["deals"]] != [d["hands"] for d in games[2]["deals"]]
    for game in games:
        assert len(game["deals"]) == 3
        assert sum(game["result"]["score"]) == 12  # 3 deals of 4 tricks
        for deal in game["deals"]:
            dealt = deal["hands"][0] + deal["hands"][1]
            assert len(dealt) == len(set(dealt)) == 8  # 4 of the 12 cards stay undealt
    assert seat_sides(5) == ["B", "A"]


def test_deals_come_from_the_seed_alone() -> None:
    dealer, deals = set_deals("s", 0)
    again_dealer, again = set_deals("s", 0)
    first, second = deals.source(), again.source()
    assert dealer == again_dealer and [first() for _ in range(3)] == [second() for _ in range(3)]
    assert set_deals("s", 1)[1].source()() != set_deals("s", 0)[1].source()()


def test_the_validator_deals_again_and_checks_every_count() -> None:
    replay = json.loads(replay_json(
        run_match([builtin("greedy"), builtin("random")], games=2, seed="check")))
    assert validate_replay(replay) == []
    for change, found in [
        (lambda r: r["games"][1]["deals"][0]["hands"].reverse(), "seed deals"),
        (lambda r: r["games"][0]["deals"][1].update(taken=[9, 9]), "taken should be"),
        (lambda r: r["games"][0]["result"].update(score=[13, 0]), "result should be"),
        (lambda r: r["games"][0]["deals"][2]["tricks"][0].update(winner=9), "won by seat"),
        (lambda r: r["result"].update(score=0.3), "score should be"),
        (lambda r: r.update(seed="other"), "game 0, deal 0"),
        (lambda r: r["rules"].update(deals=0), "bad rules"),
    ]:
        changed = json.loads(json.dumps(replay))
        change(changed)
        errors = validate_replay(changed)
        assert len(errors) == 1 and found in errors[0], (found, errors)


def test_rules_refuse_unknown_or_missing_fields() -> None:
    assert DuelRules.from_dict({"preset": "x", "deals": 5}) == DuelRules("x", 5)
    for data in ({"preset": "x"}, {"preset": "x", "deals": 2, "more": 1},
                 {"preset": "x", "deals": True}, []):
        with pytest.raises(ValueError):
            DuelRules.from_dict(data)


def test_greedy_wins_with_its_highest_card_else_throws_its_lowest() -> None:
    assert greedy_card([], cards("2S 5H 3H")) == CARD_OF["5H"]
    assert greedy_card(cards("3S"), cards("4S 6S")) == CARD_OF["6S"]
    assert greedy_card(cards("5S"), cards("2S 4S")) == CARD_OF["2S"]
    assert greedy_card(cards("5S"), cards("3H 2H 6H")) == CARD_OF["2H"]


def test_greedy_beats_random_over_a_match() -> None:
    replay = run_match([builtin("greedy"), builtin("random")], games=20, seed="strength")
    assert replay["result"]["score"] > 0.5 and replay["result"]["winner"] == "A"


@pytest.fixture
def host_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot programs' seats share the host's kernel: these tests are about the game."""
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", "host")
    monkeypatch.setenv("KAISER_SANDBOX_ALLOW_SHARED_KERNEL", "1")


@pytest.mark.sandbox
@pytest.mark.timeout(120)
def test_the_bot_programs_play_a_match_and_the_better_one_wins(registered: None,
                                                               host_kernel: None) -> None:
    bot = program(PROGRAMS / "duel_bot.py", time=RELAXED)
    randoms = program(PROGRAMS / "duel_random_bot.py", time=RELAXED)
    replay = run_match([bot, randoms], games=4, seed="programs", time=RELAXED)
    assert replay["result"]["forfeit"] is None
    assert validate_replay(json.loads(replay_json(replay))) == []
    assert replay["players"] == {"A": {"name": "duel_bot", "version": "1"},
                                 "B": {"name": "duel_random_bot", "version": "1"}}
    assert [p.game for p in bot.players] == [0, 1, 2, 3]  # a process of its own a game
    assert replay["result"]["games"]["A"] > replay["result"]["games"]["B"]


@pytest.mark.sandbox
@pytest.mark.timeout(120)
def test_a_bot_of_another_game_at_a_duel_table_is_told_why(registered: None,
                                                           host_kernel: None) -> None:
    bot = program(ROOT / "bots" / "examples" / "sergeant_major_bot.py", time=RELAXED)
    replay = run_match([bot, builtin("greedy")], games=2, seed="wrong", time=RELAXED)
    forfeit = replay["result"]["forfeit"]
    assert forfeit["reason"] == "protocol" and forfeit["player"] == "A"
    assert "this match is duel" in forfeit["detail"]
    assert replay["result"] == {"winner": "B", "score": 0.0, "games": {"A": 0, "B": 2},
                                "forfeit": forfeit}
    assert validate_replay(json.loads(replay_json(replay))) == []


@pytest.mark.timeout(120)
def test_the_local_runner_plays_it_when_named_in_the_plugins_variable(tmp_path: Path) -> None:
    env = {**os.environ, "KAISER_GAME_PLUGINS": "tests.games.duel.plugin"}
    path = tmp_path / "duel.json"

    def engine(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    out = engine("match", "--game", "duel", "builtin:greedy", "builtin:random", "--games", "4",
                 "--rules", "short", "--seed", "cli", "--replay", str(path), "--quiet")
    assert "A = greedy v1, B = random v1, Duel, rules short" in out
    replay = json.loads(path.read_text())
    assert replay["format"] == "duel-replay" and len(replay["games"]) == 4
    assert "valid" in engine("validate", str(path)).lower()
    assert "=== Game 3: seat 0 B, seat 1 A ===" in engine("show", str(path))


def test_a_person_s_practice_deal_plays_and_validates(registered: None) -> None:
    from engine.builtin import RandomPlayer
    from engine.games import get_game
    from engine.human import SeatName, SingleGame
    from tests.games.duel.players import DuelGreedyPlayer

    game = get_game("duel")
    rules = game.one_deal_rules(PRESETS["standard"])
    views: list[dict[str, Any]] = []

    def on_move(state: Any, move: dict[str, Any]) -> None:
        views.append(game.person_view(state, seq=len(views), move=move, move_seconds=30,
                                      names=["ada", "random"]))

    played = SingleGame([DuelGreedyPlayer(), RandomPlayer()],
                        [SeatName("ada", "person", human=True), SeatName("random", "1")],
                        rules=rules, seed="person", time=RELAXED, on_move=on_move, game="duel")
    replay = played.run()
    assert validate_replay(json.loads(replay_json(replay))) == []
    assert len(replay["games"][0]["deals"]) == 1 and len(views) == 8
    assert views[-1]["over"] and views[-1]["legal"] == [] and sum(views[-1]["score"]) == 4
    yours = next(v for v in views if v["your_turn"])
    assert yours["legal"] and set(yours["legal"]) <= set(yours["hand"])
    assert game.person_action(yours, yours["legal"][0]) == yours["legal"][0]
    with pytest.raises(ValueError, match="not a legal play"):
        game.person_action(yours, "9X")
    result = replay["games"][0]["result"]
    words = game.person_result(winner=result["winner"], score=result["score"],
                               names=["ada", "random"], listed=False)
    assert words.endswith(f"({result['score'][0]} to {result['score'][1]})")
    assert game.winner_of_seat(1) == 1
