"""The play pages without a game running: the new-game form and its seat choices, sign-in,
and the docs page."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from bots.models import BotVersion

pytestmark = pytest.mark.django_db


def test_the_play_page_needs_a_sign_in(client: Client) -> None:
    response = client.get("/play/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_seats_offer_the_house_players_and_every_playing_bot(
    person_client: Client, make_program: Any, owner: Any
) -> None:
    mine = make_program("my-bot", b"print('hi')\n", owner=owner)
    theirs = make_program("their-bot", b"print('yo')\n")
    rejected = make_program("broken-bot", b"x\n")
    BotVersion.objects.filter(pk=rejected.pk).update(status=BotVersion.Status.REJECTED)
    page = person_client.get("/play/").content.decode()
    for seat in ("seat1", "seat2", "seat3"):
        assert f'name="{seat}"' in page
    for value in ("builtin:random", "builtin:greedy", "builtin:mc", str(mine.pk),
                  str(theirs.pk)):
        assert f'<option value="{value}"' in page
    assert f'<option value="{rejected.pk}"' not in page
    assert "my-bot v1 by olivia" in page and "North (your partner)" in page
    assert 'id="start"' in page and "No games yet." in page


def test_the_play_docs_page_renders_and_the_replay_format_links_to_it(client: Client) -> None:
    page = client.get("/docs/play/").content.decode()
    assert ">Playing against the bots" in page and "<table>" in page
    assert 'href="/docs/play/"' in client.get("/docs/replay-format/").content.decode()


def test_a_finished_game_names_the_winning_team_and_writes_negative_scores_with_a_minus(
    person_client: Client, make_program: Any, owner: Any
) -> None:
    from play.models import Seat, Table

    partner = make_program("north-bot", b"print('hi')\n", owner=owner)
    game = Table.objects.create(owner=owner, seed="1", move_seconds=60,
                               status=Table.Status.FINISHED, winner=0, score=[53, -24])
    Seat.objects.bulk_create([Seat(game=game, seat=1, builtin="builtin:random"),
                              Seat(game=game, seat=2, version=partner),
                              Seat(game=game, seat=3, builtin="builtin:greedy")])
    page = person_client.get(f"/play/{game.pk}/replay/").content.decode()
    assert (f'<span id="game-result">{owner.username} and north-bot v1 won, '
            "53 to \u221224</span>") in page
    assert "bots&#x27; team" not in page and "bots' team" not in page
    listed = person_client.get("/accounts/").content.decode()
    assert f"{owner.username}&#x27;s team won, 53 to \u221224" in listed
