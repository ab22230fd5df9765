"""A person's game against bots, through the site's endpoints, with the worker's side played in
a thread of this process (the real worker: tests/play/test_play_worker.py): moves posted by
hand, refused ones, twice-posted ones, time running out, resigning, a dead worker, the limit."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from engine.validate import validate_replay
from play import services
from play.models import Move, Table
from tests.hardening.hardening_support import processes_with, slow_bot_zip, wait_until_gone
from tests.play.conftest import wait_view

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]
RANDOMS = ["builtin:random"] * 3


def _open(client: Client, seats: list[str] = RANDOMS, **fields: str) -> Any:
    data = {"rules": "official", "length": "deal", **fields,
            **{f"seat{n}": v for n, v in zip((1, 2, 3), seats, strict=True)}}
    return client.post("/play/", data)


def _new_game(client: Client, seats: list[str] = RANDOMS, **fields: str) -> Table:
    response = _open(client, seats, **fields)
    assert response.status_code == 302, response.content.decode()[:500]
    return Table.objects.get(pk=int(response["Location"].strip("/").split("/")[-1]))


def _post(client: Client, game: Table, body: Any) -> Any:
    return client.post(f"/play/{game.pk}/move/", json.dumps(body),
                       content_type="application/json")


def _first_legal(view: dict[str, Any]) -> Any:
    return view["legal"][: view["kitty"]] if view["decision"] == "discard" else view["legal"][0]


def _play_out(client: Client, game: Table) -> list[tuple[int, Any]]:
    """Answer every decision with its first legal move until the game is over."""
    posted = []
    while True:
        game = wait_view(game)
        if not game.is_open:
            return posted
        action = _first_legal(game.view)
        response = _post(client, game, {"seq": game.seq, "action": action})
        assert response.status_code == 200, response.content
        posted.append((game.seq, action))
        wait_view(game, seq=game.seq + 1, turn=False)


def _person_moves(replay: dict[str, Any]) -> list[Any]:
    """Seat 0's moves in the replay, in the order made (bids, trump, discards, cards)."""
    moves: list[Any] = []
    for deal in replay["games"][0]["deals"]:
        moves += [b["bid"] for b in deal["bids"] if b["seat"] == 0]
        contract = deal["contract"]
        if contract and contract["seat"] == 0 and contract["trump"]:
            moves.append(contract["trump"])
        if contract and contract["seat"] == 0 and deal["discards"]:
            moves.append(sorted(deal["discards"]))
        for trick in deal["tricks"]:
            moves += [c for i, c in enumerate(trick["cards"]) if (trick["leader"] + i) % 4 == 0]
    return moves


@pytest.mark.parametrize(("rules", "length"), [("official", "deal"), ("saskatchewan", "deal"),
                                              ("official", "game")])
def test_a_game_played_by_posted_moves_is_a_valid_replay_of_those_moves(
    person_client: Client, play_game: Any, rules: str, length: str
) -> None:
    game = _new_game(person_client, rules=rules, length=length)
    worker = play_game(game)
    posted = _play_out(person_client, game)
    assert worker.join() == "finished"
    game.refresh_from_db()
    assert game.status == Table.Status.FINISHED and game.view["over"]
    assert validate_replay(game.replay) == []
    deals = game.replay["games"][0]["deals"]
    if length == "deal":
        assert len(deals) == 1
    else:  # to the end: a team reached 52 (or fell to -52), as the page's score says
        score = game.replay["games"][0]["result"]["score"]
        assert max(score) >= 52 or min(score) <= -52 or len(deals) == 100
        assert game.view["score"] == score and len(game.view["deals"]) == len(deals)
    assert _person_moves(game.replay) == [action for _, action in posted]
    assert [m.action for m in Move.objects.filter(game=game)] == [a for _, a in posted]
    replay = person_client.get(f"/play/{game.pk}/replay.json")
    assert replay.status_code == 200 and replay.json() == game.replay


def test_an_illegal_move_posted_by_hand_is_refused_and_changes_nothing(
    person_client: Client, play_game: Any
) -> None:
    game = _new_game(person_client)
    worker = play_game(game)
    game = wait_view(game)
    before = (game.seq, game.view["legal"], game.view["hand"])
    illegal = {"bid": "pass" if "pass" not in game.view["legal"] else "99",
               "play": next((c for c in game.view["hand"] if c not in game.view["legal"]), "ZZ"),
               }.get(game.view["decision"], "nonsense")
    for body, status in [({"seq": game.seq, "action": illegal}, 400),
                         ({"seq": game.seq, "action": "QS; DROP TABLE"}, 400),
                         ({"seq": game.seq, "action": ["AS"] * 3}, 400),
                         ({"seq": game.seq + 5, "action": game.view["legal"][0]}, 409),
                         ({"seq": "0", "action": game.view["legal"][0]}, 400),
                         ({"action": game.view["legal"][0]}, 400)]:
        response = _post(person_client, game, body)
        assert response.status_code == status, (body, response.content)
        assert "error" in response.json()
    assert person_client.post(f"/play/{game.pk}/move/", "not json",
                              content_type="application/json").status_code == 400
    game.refresh_from_db()
    assert (game.seq, game.view["legal"], game.view["hand"]) == before
    assert not Move.objects.filter(game=game).exists()
    # The game goes on from there as if nothing had been posted.
    _play_out(person_client, game)
    assert worker.join() == "finished"


def test_a_move_is_stored_in_five_queries_and_one_transaction(
        person_client: Client, play_game: Any) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = _new_game(person_client)
    worker = play_game(game)
    game = wait_view(game)
    with CaptureQueriesContext(connection) as queries:
        assert _post(person_client, game, {"seq": game.seq, "action": _first_legal(game.view)}
                     ).status_code == 200
    # The session, its user, the game (whose it is), the game as it is now with the move if
    # already stored (one query), the move written.
    # A transaction's start as each backend logs it ("BEGIN", or SQLite's "BEGIN DEFERRED").
    tables = [found.group(1).upper() if (found := re.match(r"\s*(BEGIN|COMMIT)\b", q["sql"], re.I))
              else " ".join(sorted(set(re.findall(r'(?:FROM|INTO) "(\w+)"', q["sql"]))))
              for q in queries.captured_queries]
    assert tables == ["django_session", "auth_user", "play_table", "play_move play_table",
                      "BEGIN", "play_move", "COMMIT"], tables
    assert Move.objects.filter(game=game, seq=game.seq).exists()
    Table.objects.filter(pk=game.pk).update(resign_requested=True)
    assert worker.join() == "finished"


def test_a_move_posted_twice_counts_once(person_client: Client, play_game: Any) -> None:
    game = _new_game(person_client)
    worker = play_game(game)
    game = wait_view(game)
    seq, action = game.seq, _first_legal(game.view)
    first = _post(person_client, game, {"seq": seq, "action": action})
    second = _post(person_client, game, {"seq": seq, "action": action})
    assert first.status_code == second.status_code == 200
    assert first.json().get("duplicate") is None and second.json()["duplicate"] is True
    assert Move.objects.filter(game=game).count() == 1
    game = wait_view(game, seq=seq + 1, turn=False)
    # Again after the worker took it: still once; another move for the same number: refused.
    assert _post(person_client, game, {"seq": seq, "action": action}).json()["duplicate"]
    other = [a for a in game.view["legal"] if a != action] if game.view["your_turn"] else []
    if other:
        assert _post(person_client, game, {"seq": seq, "action": other[0]}).status_code == 409
    assert Move.objects.filter(game=game, seq=seq).count() == 1
    _play_out(person_client, game)
    assert worker.join() == "finished"
    game.refresh_from_db()
    assert _person_moves(game.replay)[0] == action
    assert validate_replay(game.replay) == []


# Its bots' processes are found by the command lines of their gVisor seats
# (tests/hardening/hardening_support.processes_with).
@pytest.mark.production_kernel
@pytest.mark.sandbox
def test_a_person_who_stops_answering_forfeits_on_time_and_the_bots_processes_are_gone(
    person_client: Client, play_game: Any, make_program: Any, settings: Any
) -> None:
    settings.KAISER_PLAY_MOVE_SECONDS = 3
    marker = "play-timeout-marker-7f3a"
    bot = make_program("sleepy", slow_bot_zip(marker), kind="zip")
    game = _new_game(person_client, seats=[str(bot.pk)] * 3)
    worker = play_game(game)
    game = wait_view(game)
    assert game.status == Table.Status.RUNNING and game.view["your_turn"]
    assert len({pid for pid, _ in processes_with(marker)}) >= 3  # the three bots, waiting
    assert worker.join() == "finished"
    game.refresh_from_db()
    assert (game.status, game.forfeit_reason, game.forfeit_seat, game.winner) == \
        (Table.Status.FINISHED, "timeout", 0, 1)
    assert game.replay["result"]["forfeit"]["detail"] == "no move within 3 s"
    assert validate_replay(game.replay) == []
    assert wait_until_gone(marker) == []


def test_a_person_who_resigns_loses_the_game_in_a_valid_replay(
    person_client: Client, play_game: Any
) -> None:
    game = _new_game(person_client)
    worker = play_game(game)
    game = wait_view(game)
    response = person_client.post(f"/play/{game.pk}/resign/")
    assert response.status_code == 302
    assert worker.join() == "finished"
    game.refresh_from_db()
    assert (game.forfeit_reason, game.forfeit_seat, game.winner) == ("resign", 0, 1)
    assert validate_replay(game.replay) == []
    state = person_client.get(f"/play/{game.pk}/state/").json()
    assert state["status"] == "finished" and state["view"]["result"]["forfeit"]["reason"] == \
        "resign"


def test_a_second_game_beyond_the_limit_is_refused(
    person_client: Client, private_broker: Any, settings: Any, owner: Any
) -> None:
    settings.KAISER_PLAY_OPEN_GAMES = 1
    first = _open(person_client)
    assert first.status_code == 302
    second = _open(person_client, ["builtin:greedy"] * 3)
    assert second.status_code == 409
    assert "1 open game already" in second.content.decode()
    assert Table.objects.filter(owner=owner).count() == 1
    # Once the first is over, a new one may start.
    Table.objects.filter(owner=owner).update(status=Table.Status.VOID)
    assert _open(person_client).status_code == 302


def test_a_game_whose_worker_died_is_void_and_says_so(
    person_client: Client, private_broker: Any, settings: Any
) -> None:
    game = _new_game(person_client)
    stale = timezone.now() - timedelta(seconds=settings.KAISER_PLAY_STALE_SECONDS + 1)
    Table.objects.filter(pk=game.pk).update(status=Table.Status.RUNNING, alive=stale,
                                           started=stale, view={"your_turn": True})
    state = person_client.get(f"/play/{game.pk}/state/").json()
    assert state["status"] == "void"
    assert state["void_reason"] == "the server playing it stopped; the game is void"
    page = person_client.get("/accounts/").content.decode()
    assert "the server playing it stopped" in page
    # The task delivered again to another worker finds it void and plays nothing.
    assert services.game_play(game_id=game.pk, worker="again") == "skipped"


def test_a_running_game_met_again_by_its_task_is_void(
    person_client: Client, private_broker: Any
) -> None:
    game = _new_game(person_client)
    Table.objects.filter(pk=game.pk).update(status=Table.Status.RUNNING, alive=timezone.now())
    assert services.game_play(game_id=game.pk, worker="redelivered") == "void"
    game.refresh_from_db()
    assert game.status == Table.Status.VOID and "stopped" in game.void_reason


def test_bad_seat_choices_are_refused_with_a_reason(
    person_client: Client, private_broker: Any
) -> None:
    for seats, reason in [(["builtin:nobody"] * 3, "no house player"),
                          (["12345"] * 3, "is not active"),
                          (["", "", ""], "choose a player"),
                          (["x;y"] * 3, "not a seat choice")]:
        response = _open(person_client, seats)
        assert response.status_code == 400 and reason in response.content.decode()
    assert _open(person_client, rules="nope").status_code == 400
    assert not Table.objects.exists()


def test_someone_elses_game_is_not_found_and_takes_no_move(
    person_client: Client, other: Any, password: str, private_broker: Any
) -> None:
    game = _new_game(person_client)
    stranger = Client()
    stranger.login(username=other.username, password=password)
    assert stranger.get(f"/play/{game.pk}/").status_code == 404
    assert stranger.get(f"/play/{game.pk}/state/").status_code == 404
    assert _post(stranger, game, {"seq": 0, "action": "pass"}).status_code == 404
    assert Client().get(f"/play/{game.pk}/state/").status_code == 403


def test_a_finished_game_is_on_the_persons_page_and_on_each_bots_page_unrated(
    person_client: Client, play_game: Any, make_builtin: Any, owner: Any
) -> None:
    partner = make_builtin("partner-bot", "builtin:greedy")
    house = make_builtin("house-random", "builtin:random")  # what "builtin:random" seats are
    game = _new_game(person_client, seats=["builtin:random", str(partner.pk), "builtin:random"])
    assert [s.version for s in game.seats.order_by("seat")] == [house, partner, house]
    worker = play_game(game)
    wait_view(game)
    person_client.post(f"/play/{game.pk}/resign/")
    assert worker.join() == "finished"  # the person resigned: the bots' team won
    account = person_client.get("/accounts/").content.decode()
    assert f'data-game="{game.pk}"' in account and "resign" in account
    partner_page = Client().get(f"/bots/{partner.bot_id}/").content.decode()
    assert "Games against people" in partner_page and f'data-game="{game.pk}"' in partner_page
    row = partner_page.split('<tr data-version="1">')[1].split("</tr>")[0]
    assert [cell.split(">")[-1] for cell in row.split("</td>")[1:5]] == ["1", "0", "1", "0"]
    house_page = Client().get(f"/bots/{house.bot_id}/").content.decode()
    row = house_page.split('<tr data-version="1">')[1].split("</tr>")[0]
    assert [cell.split(">")[-1] for cell in row.split("</td>")[1:5]] == ["1", "1", "0", "0"]
    replay_page = Client().get(f"/play/{game.pk}/replay/").content.decode()
    assert f'data-replay-url="/play/{game.pk}/replay.json"' in replay_page
    assert owner.username in replay_page and "unrated" in replay_page


def test_the_persons_view_never_shows_a_bots_discards(owner: Any) -> None:
    from engine.kaiser.game import GameState, pair_deals
    from engine.kaiser.rules import get_rules

    game = Table.objects.create(owner=owner, rules="saskatchewan", seed="1", move_seconds=60,
                               status=Table.Status.RUNNING)
    rules = get_rules("saskatchewan")
    dealer, deals = pair_deals(rules, "1", 0)
    channel = services.Channel(game)
    state = GameState(rules, dealer=dealer, deals=deals)
    channel.publish(state, {"seat": 1, "decision": "discard", "action": ["AS", "KD"]})
    channel.publish(state, {"seat": 0, "decision": "discard", "action": ["QS", "JD"]})
    game.refresh_from_db()
    assert [m["action"] for m in game.view["recent"]] == [None, ["QS", "JD"]]
    assert "AS" not in json.dumps(game.view["recent"]) and "KD" not in json.dumps(
        game.view["last_move"]) + json.dumps(game.view["recent"])
    assert set(game.view) >= {"hand", "hand_sizes", "bids", "trick", "legal"}
    assert "hands" not in game.view and "kitty_cards" not in game.view


@pytest.mark.sandbox
def test_a_bots_fault_ends_the_game_as_it_would_a_match(
    person_client: Client, play_game: Any, make_program: Any
) -> None:
    crashing = make_program("crasher", b"import sys\nsys.exit(3)\n")
    game = _new_game(person_client, seats=["builtin:random", "builtin:random", str(crashing.pk)])
    assert play_game(game).join() == "finished"
    game.refresh_from_db()
    assert (game.forfeit_seat, game.forfeit_reason, game.winner) == (3, "crash", 0)
    assert validate_replay(game.replay) == []


def test_a_hand_without_honours_may_be_thrown_in_under_the_misdeal_rule(
    person_client: Client, play_game: Any
) -> None:
    game = _new_game(person_client, rules="pagat")
    # Seed m6142 deals seat 0 a hand with no J, Q, K, A, 5H or 3S first (seat 0 is asked).
    Table.objects.filter(pk=game.pk).update(seed="m6142")
    worker = play_game(game)
    game = wait_view(game)
    assert (game.view["decision"], game.view["legal"]) == ("misdeal", [True, False])
    assert _post(person_client, game, {"seq": game.seq, "action": "true"}).status_code == 400
    assert _post(person_client, game, {"seq": game.seq, "action": True}).status_code == 200
    _play_out(person_client, game)
    assert worker.join() == "finished"
    game.refresh_from_db()
    deals = game.replay["games"][0]["deals"]
    assert deals[0]["misdeal"] == {"seat": 0} and deals[1]["dealer"] == deals[0]["dealer"]
    assert validate_replay(game.replay) == []
