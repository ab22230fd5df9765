"""A person's game of Sergeant Major against two bots, through the site's endpoints, the
worker's side played in a thread of this process: moves posted by hand for every decision
(the exchange's gifts and forced returns, trump, the discard, the cards), what the person's
view shows and hides, refused moves, and the games' records on the pages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from bots.models import Bot
from bots.services import bot_builtin_add
from engine.games import get_game
from engine.sergeant_major import SERGEANT_MAJOR
from play import selectors
from play.models import Move, Table
from tests.play.conftest import wait_view

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]
RANDOMS = ["builtin:random", "builtin:random"]


def _new_game(client: Client, seats: list[str] = RANDOMS, **fields: str) -> Table:
    data = {"game": SERGEANT_MAJOR, "rules": "952", "length": "deal", **fields,
            **{f"seat{n}": v for n, v in zip((1, 2), seats, strict=True)}}
    response = client.post("/play/", data)
    assert response.status_code == 302, response.content.decode()[:500]
    return Table.objects.get(pk=int(response["Location"].strip("/").split("/")[-1]))


def _post(client: Client, game: Table, body: Any) -> Any:
    return client.post(f"/play/{game.pk}/move/", json.dumps(body),
                       content_type="application/json")


def _first_legal(view: dict[str, Any]) -> Any:
    if view["decision"] in ("give", "discard"):
        return view["legal"][:view["count"]]
    if view["decision"] == "return":
        return view["legal"]
    return view["legal"][0]


def _check_view(view: dict[str, Any]) -> None:
    """What the person may see: their own hand, every target; of the exchanges only their
    own's cards; the discards only when they dealt."""
    assert view["game"] == SERGEANT_MAJOR and len(view["names"]) == 3
    assert sorted(view["targets"]) in ([2, 5, 9], [3, 5, 8]) and len(view["hand_sizes"]) == 3
    assert view["hand_sizes"][0] == len(view["hand"])
    for x in view["exchanges"]:
        if 0 not in (x["giver"], x["receiver"]):
            assert x["given"] is None and x["returned"] is None
    assert (view["discards"] is None) == (view["dealer"] != 0)
    for move in view["recent"]:
        if move["seat"] != 0 and move["decision"] in ("give", "return", "discard"):
            assert move["action"] is None


def _play_out(client: Client, game: Table) -> tuple[list[Any], set[str]]:
    posted: list[Any] = []
    decisions: set[str] = set()
    while True:
        game = wait_view(game)
        if not game.is_open:
            return posted, decisions
        _check_view(game.view)
        action = _first_legal(game.view)
        decisions.add(game.view["decision"])
        response = _post(client, game, {"seq": game.seq, "action": action})
        assert response.status_code == 200, response.content
        posted.append(sorted(action) if isinstance(action, list) else action)
        wait_view(game, seq=game.seq + 1, turn=False)


def _person_moves(replay: dict[str, Any]) -> list[Any]:
    """Seat 0's moves in the replay, in order: its gifts and returns, trump and discard when
    it dealt, its cards."""
    moves: list[Any] = []
    for deal in replay["games"][0]["deals"]:
        for x in deal["exchanges"]:
            moves += [sorted(x["given"])] if x["giver"] == 0 else []
            moves += [sorted(x["returned"])] if x["receiver"] == 0 else []
        if deal["dealer"] == 0:
            moves += [deal["trump"], sorted(deal["discards"])]
        for trick in deal["tricks"]:
            moves += [c for i, c in enumerate(trick["cards"]) if (trick["leader"] + i) % 3 == 0]
    return moves


@pytest.mark.parametrize(("rules", "length"), [("952", "deal"), ("952-six-hands", "game"),
                                              ("952-kitty-first", "deal")])
def test_a_sergeant_major_game_played_by_posted_moves_is_a_valid_replay_of_those_moves(
    person_client: Client, play_game: Any, rules: str, length: str
) -> None:
    game = _new_game(person_client, rules=rules, length=length)
    assert game.game == SERGEANT_MAJOR and game.seats.count() == 2
    worker = play_game(game)
    posted, decisions = _play_out(person_client, game)
    assert worker.join() == "finished"
    game.refresh_from_db()
    assert game.status == Table.Status.FINISHED and game.view["over"]
    replay = game.replay
    assert replay["format"] == "sergeant-major-replay"
    assert get_game(SERGEANT_MAJOR).validate_replay(replay) == []
    hands = replay["games"][0]["deals"]
    assert len(hands) == (1 if length == "deal" else 6)
    assert "play" in decisions
    if length == "game":  # six hands: the person deals twice and, up or down, exchanges
        assert {"trump", "discard"} <= decisions
        assert any(0 in (x["giver"], x["receiver"]) for h in hands for x in h["exchanges"])
        assert decisions & {"give", "return"}
    assert _person_moves(replay) == posted
    assert [m.action for m in Move.objects.filter(game=game)] == posted
    result = replay["games"][0]["result"]
    assert game.winner == result["winner"] and game.score == result["score"]
    assert game.view["score"] == result["score"] and len(game.view["deals"]) == len(hands)
    page = person_client.get("/play/?game=sergeant-major").content.decode()
    title = get_game("sergeant-major").preset_title(rules)
    assert f'data-game="{game.pk}"' in page and title in page
    replay_page = person_client.get(f"/play/{game.pk}/replay/").content.decode()
    assert "js/sm.js" in replay_page and "Sergeant Major" in replay_page


def test_moves_of_the_wrong_shape_are_refused_and_change_nothing(
    person_client: Client, play_game: Any
) -> None:
    game = _new_game(person_client, rules="952-kitty-first")
    play_game(game)
    game = wait_view(game)
    view = game.view
    wrong = {"play": [view["legal"][0]], "trump": "X",
             "discard": view["legal"][:3], "give": view["legal"][:view["count"] or 1] + ["ZZ"],
             "return": [c for c in view["hand"] if c not in view["legal"]][:view["count"] or 1]}
    for action in (wrong[view["decision"]], "8N", None):
        answer = _post(person_client, game, {"seq": game.seq, "action": action})
        assert answer.status_code == 400, (view["decision"], action, answer.content)
    assert not Move.objects.filter(game=game).exists()
    good = _post(person_client, game, {"seq": game.seq, "action": _first_legal(view)})
    assert good.status_code == 200


def test_a_seat_takes_only_a_player_of_the_game(person_client: Client, house: Any) -> None:
    kaiser_bot = bot_builtin_add(bot=Bot.objects.create(owner=house, name="k-bot"),
                                         spec="builtin:greedy")
    for seats, words in ((["builtin:nonesuch", "builtin:random"], "no house player"),
                         ([str(kaiser_bot.pk), "builtin:random"], "plays Kaiser"),
                         (["builtin:random"], "choose a player for each seat")):
        data = {"game": SERGEANT_MAJOR, "rules": "952", "length": "deal",
                **{f"seat{n}": v for n, v in zip((1, 2), seats, strict=False)}}
        answer = person_client.post("/play/", data)
        assert answer.status_code == 400 and words in answer.content.decode(), seats
    answer = person_client.post("/play/", {"game": SERGEANT_MAJOR, "rules": "official",
                                           "length": "deal", "seat1": "builtin:random",
                                           "seat2": "builtin:random"})
    assert answer.status_code == 400 and "unknown rule set" in answer.content.decode()
    assert not Table.objects.exists()
    form = person_client.get("/play/?game=sergeant-major").content.decode()
    assert 'name="seat3"' not in form and "builtin:mc" in form and "k-bot" not in form


def test_a_bots_record_with_people_counts_the_winning_seat(house: Any, owner: Any) -> None:
    version = bot_builtin_add(
        bot=Bot.objects.create(owner=house, name="sm-house", game=SERGEANT_MAJOR),
        spec="builtin:greedy")
    for winner in (1, 2, 0, None):
        game = Table.objects.create(owner=owner, game=SERGEANT_MAJOR, rules="952", seed="1",
                                   move_seconds=60, status=Table.Status.FINISHED,
                                   winner=winner, score=[0, 0, 0])
        game.seats.create(seat=1, version=version, builtin="builtin:greedy")
        game.seats.create(seat=2, builtin="builtin:random")
    [record] = selectors.people_records(version_ids=[version.pk])
    assert (record.won, record.lost, record.drawn) == (1, 2, 1)


def test_a_kaiser_bots_record_with_people_counts_its_team(house: Any, owner: Any) -> None:
    """Kaiser: the person sits at seat 0, so a bot at seat 2 is their partner (team 0) and a
    bot at seats 1 and 3 their opponent (team 1, counted once a game). Void and unfinished
    games count for nobody; a game without a winner is drawn; another version's games are
    its own."""
    version, other = (bot_builtin_add(
        bot=Bot.objects.create(owner=house, name=name), spec="builtin:greedy")
        for name in ("k-house", "k-other"))

    def game(seats: tuple[int, ...], winner: int | None, status: str = "finished",
             who: Any = version) -> None:
        played = Table.objects.create(owner=owner, rules="official", seed="1", move_seconds=60,
                                     status=status, winner=winner, score=[0, 0])
        for seat in (1, 2, 3):
            played.seats.create(seat=seat, version=who if seat in seats else None,
                                builtin="builtin:greedy" if seat in seats else "builtin:random")

    game((2,), 0)  # partner, the person's team won: won
    game((2,), 1)  # partner, lost
    game((1, 3), 1)  # both opponents' seats, their team won: one game won
    game((1, 3), 0)  # lost
    game((3,), 0)  # lost
    game((1,), None)  # drawn
    game((2,), 0, status="void")
    game((1, 3), 1, status="running")
    game((2,), 0, who=other)
    [record] = selectors.people_records(version_ids=[version.pk])
    assert (record.version, record.won, record.lost, record.drawn) == (version, 2, 3, 1)
    records = selectors.people_records(version_ids=[version.pk, other.pk])
    assert {(r.version, r.games) for r in records} == {(version, 6), (other, 1)}
    assert selectors.people_records(version_ids=[]) == []


@pytest.mark.sandbox
def test_an_uploaded_sergeant_major_bot_takes_a_seat_in_the_sandbox(
        person_client: Client, play_game: Any, make_program: Any) -> None:
    """The starter kit, as an uploaded program, at a person's table beside a house player:
    it plays its seat in the sandbox, and the replay names it."""
    from pathlib import Path

    starter = Path(__file__).resolve().parents[2] / "bots" / "examples" / "sergeant_major_bot.py"
    version = make_program("sm-starter-seat", starter.read_bytes(), game=SERGEANT_MAJOR)
    game = _new_game(person_client, seats=[str(version.pk), "builtin:greedy"])
    worker = play_game(game)
    _play_out(person_client, game)
    assert worker.join() == "finished"
    game.refresh_from_db()
    replay = game.replay
    assert get_game(SERGEANT_MAJOR).validate_replay(replay) == []
    assert "sm-starter-seat" in {p["name"] for p in replay["players"].values()}
