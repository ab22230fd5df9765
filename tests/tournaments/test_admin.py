"""The admin: staff see every model of matches, the ladder and tournaments, start a draft
tournament, void a match."""

from __future__ import annotations

import pytest
from django.test import Client

from ladder.models import Ladder
from matches import services
from matches.models import Match
from tournaments.models import Tournament, TournamentEntrant


@pytest.fixture
def admin_client(staff) -> Client:
    staff.is_superuser = True
    staff.save(update_fields=["is_superuser"])
    client = Client()
    client.force_login(staff)
    return client


@pytest.mark.parametrize("path", ["ladder/ladder", "ladder/ladderentry",
                                  "tournaments/tournament", "matches/match"])
def test_staff_see_each_changelist(admin_client, ladder, path):
    response = admin_client.get(f"/admin/{path}/")
    assert response.status_code == 200


@pytest.mark.parametrize("old, new", [
    ("/admin/tournaments/ladder/", "/admin/ladder/ladder/"),
    ("/admin/tournaments/match/7/change/?x=1", "/admin/matches/match/7/change/?x=1"),
])
def test_the_old_admin_addresses_of_moved_models_redirect(admin_client, old, new):
    response = admin_client.get(old)
    assert response.status_code == 301 and response["Location"] == new


def test_a_draft_tournament_starts_from_the_admin_action(admin_client, make_builtin):
    t = Tournament.objects.create(name="admin cup", format="round_robin")
    for seed, name in enumerate(["p1", "p2", "p3"], start=1):
        TournamentEntrant.objects.create(tournament=t, version=make_builtin(name), seed=seed)
    response = admin_client.post("/admin/tournaments/tournament/",
                                 {"action": "start", "_selected_action": [t.pk]})
    assert response.status_code == 302
    t.refresh_from_db()
    assert t.status == "running" and t.matches.count() == 3


def test_staff_void_a_queued_match_from_the_admin(admin_client, make_builtin):
    ladder = Ladder.objects.create(name="l", slug="l")
    match = services.match_create(versions=[make_builtin("a"), make_builtin("b")],
                                  kind="ladder", conditions=ladder, ladder=ladder)
    admin_client.post("/admin/matches/match/", {"action": "void",
                                                    "_selected_action": [match.pk]})
    match.refresh_from_db()
    assert match.status == Match.Status.VOID and "voided by stella" in match.error
    assert admin_client.get(f"/admin/matches/match/{match.pk}/change/").status_code == 200
