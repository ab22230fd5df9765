"""Every registered game keeps the `Game` protocol of engine/games.py, as the runtime and the
site use it: the real games and the test games of tests/games/ (registered here), so that a
new game gets these checks for free. Each test runs once a game, and asserts what a player, a
page or the runtime would notice: a match's replay re-validates and its result reads as the
site reads it, a changed card or result is caught, a bot's illegal reply forfeits."""

from __future__ import annotations

import copy
import importlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.builtin import resolve_player
from engine.games import GAMES, Game, default_game, game_of_replay, game_of_rules
from engine.players import PlayerFactory, TimeControl
from engine.runner import replay_json
from engine.validate import validate_replay
from matches.stats import replay_stats
from tests.engine.sandbox_support import RELAXED, program
from tests.games.registry import TEST_GAME_MODULES, registered_test_games

ILLEGAL_BOT = Path(__file__).resolve().parents[1] / "games" / "programs" / "illegal_action.py"
SEED = "conformance"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One run of each test a game: the registry's names with the test games registered."""
    if "game_name" in metafunc.fixturenames:
        with registered_test_games() as names:
            metafunc.parametrize("game_name", names)


@pytest.fixture(scope="module", autouse=True)
def registry() -> Iterator[list[str]]:
    """The test games registered for this module's tests, and forgotten after them."""
    with registered_test_games() as names:
        yield names


@pytest.fixture
def game(game_name: str) -> Game:
    return GAMES[game_name]


def builtin_sides(game: Game) -> list[PlayerFactory]:
    """One built-in player a side: greedy where the game has one, then random, alternately."""
    known = game.builtin_players()
    names = ["greedy" if "greedy" in known else "random", "random"]
    return [resolve_player(f"builtin:{names[i % 2]}", game=game.name)
            for i in range(len(game.sides))]


_played: dict[str, dict[str, Any]] = {}


@pytest.fixture
def replay(game: Game) -> dict[str, Any]:
    """A match of built-in players, one set of the check preset, as JSON gives it back (a
    copy each test may change)."""
    if game.name not in _played:
        _played[game.name] = game.run_match(
            builtin_sides(game), games=game.games_per_set, seed=SEED,
            rules=game.get_rules(game.check_preset), time=TimeControl())
    return json.loads(replay_json(_played[game.name]))


def a_share(result: dict[str, Any]) -> float:
    """A's share of a match, as the site reads it (matches.services._result_fields)."""
    score = result["score"]
    return float(score["A"] if isinstance(score, dict) else score)


def test_the_test_games_join_the_real_ones(registry: list[str]) -> None:
    test_games = {importlib.import_module(m).GAME.name for m in TEST_GAME_MODULES}
    assert {"kaiser", "sergeant-major"} | test_games <= set(registry)
    assert len(test_games) == len(TEST_GAME_MODULES) >= 1
    assert default_game().name == "kaiser"  # a registered game comes after the built-in ones


def test_a_match_of_builtin_players_validates(game: Game, replay: dict[str, Any]) -> None:
    assert game_of_replay(replay) is game
    assert game.validate_replay(replay) == []
    assert validate_replay(replay) == []  # the runtime's, by the replay's format
    result = replay["result"]
    assert result["forfeit"] is None
    assert len(replay["games"]) == game.games_per_set
    assert set(result["games"]) == set(game.sides) == set(replay["players"])
    assert sum(result["games"].values()) <= len(replay["games"])
    assert 0.0 <= a_share(result) <= 1.0


def test_a_match_is_the_same_from_the_same_seed(game: Game, replay: dict[str, Any]) -> None:
    again = game.run_match(builtin_sides(game), games=game.games_per_set, seed=SEED,
                           rules=game.get_rules(game.check_preset), time=TimeControl())
    assert replay_json(again) == replay_json(replay)


def _first_trick(replay: dict[str, Any]) -> dict[str, Any] | None:
    """The first trick of a trick-taking game's replay (its games' `deals`); None for a game
    whose records hold no tricks (docs/games.md asks for none)."""
    return next((deal["tricks"][0] for game in replay["games"]
                 for deal in game.get("deals", ()) if deal.get("tricks")), None)


def test_a_changed_card_or_game_is_reported(game: Game, replay: dict[str, Any]) -> None:
    # A set holds two games or more (each side sits at each seat over it, below): the first
    # game's record put second is at the wrong seats, whatever the game records of its play.
    swapped = copy.deepcopy(replay)
    swapped["games"][0], swapped["games"][1] = swapped["games"][1], swapped["games"][0]
    assert len(game.validate_replay(swapped)) == 1
    trick = _first_trick(replay)
    if trick is None:  # a game of no tricks: the swap above is its check
        return
    trick["cards"][0] = trick["cards"][1]  # the next seat's card, led by the leader
    errors = game.validate_replay(replay)
    assert len(errors) == 1 and "trick 0" in errors[0]


def test_a_changed_result_is_reported(game: Game, replay: dict[str, Any]) -> None:
    changed = copy.deepcopy(replay)
    changed["result"]["games"]["A"] += 1
    assert game.validate_replay(changed) != []
    changed = copy.deepcopy(replay)
    changed["games"][0]["result"]["winner"] = None if \
        changed["games"][0]["result"]["winner"] is not None else 0
    assert game.validate_replay(changed) != []


def test_each_seat_is_greeted_with_its_game_and_seat(game: Game) -> None:
    rules = game.get_rules(game.check_preset)
    for seat in range(game.seats):
        hello = game.hello(seat=seat, rules=rules, games=game.games_per_set, game=1,
                           time=RELAXED)
        assert hello["type"] == "hello" and hello["id"] == 0
        # A hello that names no game is the default game's (the protocol's first version).
        assert hello.get("game", default_game().name) == game.name
        assert hello["seat"] == seat
        assert hello["match"] == {"games": game.games_per_set, "game": 1}
        assert game.rules_from_dict(json.loads(json.dumps(hello["rules"]))) == rules


def test_statistics_count_one_match_and_its_games(game: Game, replay: dict[str, Any]) -> None:
    stats = replay_stats(replay, game=game.name)
    assert set(stats) == set(game.sides)
    for side, counts in stats.items():
        assert counts["matches"] == 1
        games = counts["games"]
        assert games["won"] + games["lost"] + games["drawn"] == len(replay["games"])
        assert games["won"] == replay["result"]["games"][side]
        assert counts["faults"] == {}
        assert isinstance(game.stats_figures(counts), dict)
    assert set(game.stats_empty()) >= {"matches", "games", "faults"}


def test_render_and_summary_are_text(game: Game, replay: dict[str, Any]) -> None:
    text = game.render(replay)
    assert isinstance(text, str) and len(text.splitlines()) > len(replay["games"])
    one = game.render(replay, only_game=1)
    assert isinstance(one, str) and 0 < len(one) < len(text)
    summary = game.summary(replay, 1.5)
    assert isinstance(summary, str) and summary.strip()
    for player in replay["players"].values():
        assert player["name"] in summary


def test_every_preset_survives_its_dict(game: Game) -> None:
    assert game.default_preset in game.presets and game.check_preset in game.presets
    for name, rules in game.presets.items():
        assert game.get_rules(name) == rules
        data = json.loads(json.dumps(rules.to_dict()))
        assert game.rules_from_dict(data) == rules
        assert game_of_rules(rules) is game
    with pytest.raises(ValueError):
        game.get_rules("no such preset")


def test_actions_survive_the_wire_and_a_person_s_game_validates(game: Game) -> None:
    """One game played through the protocol's forms of its actions, as engine.human records
    it: every legal action read back from its JSON is itself, and the game's replay holds."""
    rules = game.get_rules(game.check_preset)
    state = game.new_state(rules, seed=SEED, game=0)
    rng = random.Random(SEED)
    writer = game.act_writer()
    while not state.is_terminal():
        legal = state.legal_actions()
        wire = game.legal_to_wire(state, legal)
        message = json.loads(writer.message(state, legal, 7, 1000))
        assert message["type"] == "act" and message["id"] == 7
        assert message["decision"] == state.decision and message["legal"] == wire
        assert message["state"]["seat"] == state.seat
        action = legal[int(rng.random() * len(legal))]
        sent = json.loads(json.dumps(game.action_to_wire(state.decision, action)))
        assert game.action_from_wire(state, sent) == action
        assert game.action_from_reply(state, legal, sent) == action
        state.apply(action)
    seat_players = [{"name": f"p{seat}", "version": "1", "human": seat == 0}
                    for seat in range(game.seats)]
    one = game.one_game_replay(state, rules=rules, seed=SEED, seat_players=seat_players,
                               forfeit=None)
    assert game.validate_replay(json.loads(replay_json(one))) == []
    assert 0.0 <= a_share(one["result"]) <= 1.0


def test_seat_sides_put_each_side_at_each_seat_over_a_set(game: Game) -> None:
    held: dict[str, set[int]] = {side: set() for side in game.sides}
    for number in range(game.games_per_set):
        sides = game.seat_sides(number)
        assert len(sides) == game.seats and set(sides) == set(game.sides)
        for seat, side in enumerate(sides):
            held[side].add(seat)
    assert all(seats == set(range(game.seats)) for seats in held.values())


def test_a_game_without_boards_has_no_board_files(game: Game, replay: dict[str, Any]) -> None:
    if game.has_boards:
        assert game.board_comparison(replay)
        return
    assert game.board_comparison(replay) is None
    with pytest.raises(ValueError):
        game.deal_file(replay, 0, 0)
    with pytest.raises(ValueError):
        game.deal_file_load("{}")


@pytest.mark.sandbox
@pytest.mark.timeout(60)
def test_a_bot_s_illegal_reply_forfeits_the_match(game: Game,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # The game's handling of the fault is what is checked, not the sandbox: the seats share
    # the host's kernel, as the site's flow tests do (tests/conftest.py).
    monkeypatch.setenv("KAISER_SANDBOX_KERNEL", "host")
    monkeypatch.setenv("KAISER_SANDBOX_ALLOW_SHARED_KERNEL", "1")
    others = builtin_sides(game)[1:]
    replay = game.run_match([program(ILLEGAL_BOT, time=RELAXED), *others],
                            games=game.games_per_set, seed=SEED,
                            rules=game.get_rules(game.check_preset), time=RELAXED)
    forfeit = replay["result"]["forfeit"]
    assert forfeit is not None
    assert forfeit["player"] == "A" and forfeit["reason"] == "illegal"
    assert "ZZ" in forfeit["detail"]
    assert replay["games"][-1]["seats"][forfeit["seat"]] == "A"
    assert a_share(replay["result"]) == 0.0
    assert game.validate_replay(json.loads(replay_json(replay))) == []
    assert replay_stats(replay, game=game.name)["A"]["faults"] == {"illegal": 1}


def test_a_person_s_practice_deal_plays_validates_and_reads(game: Game) -> None:
    """A game that offers a person a table (Game: a person at the table) plays a one-deal game
    with the person at seat 0 (played here by a random player), the view after each move,
    the person's moves accepted as they were made and nonsense refused, the result in words."""
    from engine.builtin import RandomPlayer
    from engine.human import SeatName, SingleGame

    if not game.has_person_table:  # a game may offer none: then it says so, with no seats
        assert game.person_seat_labels == ()
        return
    assert len(game.person_seat_labels) == game.seats - 1
    rules = game.one_deal_rules(game.get_rules(game.default_preset))
    names = ["ada", *(f"bot-{seat}" for seat in range(1, game.seats))]
    views: list[dict[str, Any]] = []

    def on_move(state: Any, move: dict[str, Any]) -> None:
        views.append(game.person_view(state, seq=len(views), move=move, move_seconds=30,
                                      names=names))

    played = SingleGame([RandomPlayer() for _ in range(game.seats)],
                        [SeatName("ada", "person", human=True),
                         *(SeatName(name, "1") for name in names[1:])],
                        rules=rules, seed="person", time=RELAXED, on_move=on_move,
                        game=game.name)
    replay = played.run()
    assert game.validate_replay(json.loads(replay_json(replay))) == []
    assert len(replay["games"][0]["deals"]) == 1 and views[-1]["over"]
    moves = played.moves
    turns = [(view, moves[i + 1]) for i, view in enumerate(views[:-1]) if view["your_turn"]]
    assert turns, "the person never had a move"
    for view, move in turns:
        assert move["seat"] == 0
        taken = game.person_action(view, move["action"])
        assert taken == (sorted(move["action"]) if isinstance(move["action"], list)
                         else move["action"])
        with pytest.raises(ValueError):
            game.person_action(view, "no such move")
    result = replay["games"][0]["result"]
    words = game.person_result(winner=result["winner"], score=result["score"], names=names,
                               listed=False)
    assert isinstance(words, str) and words
    assert {game.winner_of_seat(seat) for seat in range(game.seats)} <= set(range(game.seats))
