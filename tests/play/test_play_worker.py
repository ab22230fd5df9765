"""Games against people on a real Celery worker of their own queue: while they wait for their
people, the ladder's worker goes on playing matches; a game whose worker dies is void, says
so, and leaves no bot running."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.db import transaction
from django.test import Client

from engine.validate import validate_replay
from ladder.models import Ladder, LadderEntry
from matches import services as match_services
from matches.models import Match
from play.models import Table
from tests.hardening.hardening_support import processes_with, slow_bot_zip, wait_until_gone
from tests.play.conftest import wait_view

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(240)]


def _open(client: Client) -> Table:
    response = client.post("/play/", {"rules": "official", "length": "deal",
                                      "seat1": "builtin:random", "seat2": "builtin:greedy",
                                      "seat3": "builtin:random"})
    assert response.status_code == 302, response.content.decode()[:300]
    return Table.objects.latest("pk")


def test_the_ladder_keeps_playing_while_games_wait_for_their_people(
    person_client: Client, real_workers: Any, make_builtin: Any, settings: Any
) -> None:
    settings.KAISER_PLAY_OPEN_GAMES = 2
    real_workers("KAISER_PLAY_QUEUE", pool="threads", concurrency=2)
    real_workers("KAISER_MATCH_QUEUE", pool="solo", concurrency=1)
    games = [_open(person_client), _open(person_client)]
    for game in games:
        assert wait_view(game).view["your_turn"]  # both wait for the person now
    board = Ladder.objects.create(name="while waiting", slug="while-waiting", active=False)
    a, b = make_builtin("ladder-a", "builtin:random"), make_builtin("ladder-b", "builtin:greedy")
    with transaction.atomic():
        for v in (a, b):
            LadderEntry.objects.create(ladder=board, version=v)
        matches = [match_services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                       conditions=board, ladder=board, rated=True)
                   for _ in range(2)]
    deadline = time.monotonic() + 90
    while Match.objects.filter(pk__in=[m.pk for m in matches],
                               status=Match.Status.FINISHED).count() < 2:
        assert time.monotonic() < deadline, "the ladder stopped while the games waited"
        time.sleep(0.2)
    for game in games:
        game.refresh_from_db()
        assert game.status == Table.Status.RUNNING and game.view["your_turn"]
    # The people come back: their games go on and end as usual.
    for game in games:
        assert person_client.post(f"/play/{game.pk}/resign/").status_code == 302
    for game in games:
        deadline = time.monotonic() + 30
        while game.is_open:
            assert time.monotonic() < deadline
            time.sleep(0.1)
            game.refresh_from_db()
        assert game.forfeit_reason == "resign" and validate_replay(game.replay) == []


# Its bots' processes are found by the command lines of their gVisor seats
# (tests/hardening/hardening_support.processes_with).
@pytest.mark.production_kernel
@pytest.mark.sandbox
def test_a_game_whose_worker_dies_is_void_says_so_and_leaves_no_bot_running(
    person_client: Client, real_workers: Any, make_program: Any, settings: Any
) -> None:
    settings.KAISER_PLAY_STALE_SECONDS = 3  # the page's side decides when a game is lost
    marker = "play-worker-dies-marker-41c2"
    bot = make_program("orphan", slow_bot_zip(marker), kind="zip")
    worker = real_workers("KAISER_PLAY_QUEUE", pool="threads", concurrency=1,
                          KAISER_PLAY_HEARTBEAT_SECONDS="1")
    response = person_client.post("/play/", {"rules": "official", "length": "game",
                                             **{f"seat{n}": str(bot.pk) for n in (1, 2, 3)}})
    assert response.status_code == 302
    game = wait_view(Table.objects.latest("pk"))
    assert game.status == Table.Status.RUNNING and processes_with(marker)
    worker.kill()  # SIGKILL, the worker process alone: no goodbye
    deadline = time.monotonic() + 30
    while (state := person_client.get(f"/play/{game.pk}/state/").json())["status"] != "void":
        assert time.monotonic() < deadline, state
        time.sleep(0.2)
    assert state["void_reason"] == "the server playing it stopped; the game is void"
    assert wait_until_gone(marker) == []
    page = person_client.get("/play/").content.decode()
    assert "the server playing it stopped" in page
