"""The admin: staff see every tournaments model, start a draft tournament, void a match."""

from __future__ import annotations

import pytest
from django.test import Client

from tournaments import services
from tournaments.models import Ladder, Match, Tournament, TournamentEntrant


@pytest.fixture
def admin_client(staff) -> Client:
    staff.is_superuser = True
    staff.save(update_fields=["is_superuser"])
    client = Client()
    client.force_login(staff)
    return client


@pytest.mark.parametrize("model", ["ladder", "ladderentry", "tournament", "match"])
def test_staff_see_each_changelist(admin_client, ladder, model):
    response = admin_client.get(f"/admin/tournaments/{model}/")
    assert response.status_code == 200


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
    match = services.match_create(version_a=make_builtin("a"), version_b=make_builtin("b"),
                                  kind="ladder", conditions=ladder, ladder=ladder)
    admin_client.post("/admin/tournaments/match/", {"action": "void",
                                                    "_selected_action": [match.pk]})
    match.refresh_from_db()
    assert match.status == Match.Status.VOID and "voided by stella" in match.error
    assert admin_client.get(f"/admin/tournaments/match/{match.pk}/change/").status_code == 200
