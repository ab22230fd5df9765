"""Strict time as organisers and staff set it on the site (issue 41): the new-tournament form's
field and its sentence, the API's strict_ms, each refusing what engine.players.strict_ms_error
refuses in words; the tournament page, the match page and the match API saying it; the ladder
admin; and where a strict match is sent (its queue and time limits)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from kaiser_site.worker_cores import match_send_options
from ladder.models import Ladder
from matches.models import Match
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

SENTENCE = ("Every decision gets exactly this many ms of wall time and the next message goes out "
            "when the slot ends, so partners cannot signal through how long they think; 0 keeps "
            "the normal clock.")


@pytest.fixture
def staff_browser(staff: User) -> Client:
    client = Client()
    client.force_login(staff)
    return client


def _form(**overrides: Any) -> dict[str, Any]:
    data = {"name": "Quiet cup", "format": "round_robin", "rounds": 1, "rules": "official",
            "games_per_match": 2, "move_ms": 1000, "bank_ms": 10000, "seeding": "hand",
            "entry": "chosen", "entrants": "alpha\nbeta\ngamma", "entry_deadline": ""}
    return {**data, **overrides}


def test_the_form_offers_strict_time_off_by_default_with_its_sentence(
    staff_browser: Client, make_builtin: Any
) -> None:
    page = staff_browser.get(reverse("tournament-new")).content.decode()
    assert "Strict time (ms a decision)" in page
    assert SENTENCE in page
    assert 'name="strict_ms" value="0"' in page
    for name in ("alpha", "beta"):
        make_builtin(name)
    response = staff_browser.post(reverse("tournament-new"), _form(entrants="alpha\nbeta"))
    assert response.status_code == 302
    tournament = Tournament.objects.get()
    assert tournament.strict_ms == 0
    assert "strict time" not in staff_browser.get(response["Location"]).content.decode()


@pytest.mark.parametrize("value", [5, 9, 60001, -20])
def test_the_form_refuses_a_strict_time_it_cannot_play_and_says_why(
    staff_browser: Client, make_builtin: Any, value: int
) -> None:
    for name in ("alpha", "beta", "gamma"):
        make_builtin(name)
    response = staff_browser.post(reverse("tournament-new"), _form(strict_ms=value))
    assert response.status_code == 200
    assert (f"Strict time is 0 (off) or 10 to 60000 ms a decision, not {value}."
            in response.content.decode())
    assert Tournament.objects.count() == 0


def test_a_strict_tournament_from_the_form_says_so_on_its_page_its_matches_and_the_apis(
    staff_browser: Client, make_builtin: Any, anon_client: Any
) -> None:
    for name in ("alpha", "beta", "gamma"):
        make_builtin(name)
    response = staff_browser.post(reverse("tournament-new"), _form(strict_ms=25))
    assert response.status_code == 302
    tournament = Tournament.objects.get()
    assert tournament.strict_ms == 25
    page = staff_browser.get(response["Location"]).content.decode()
    assert "strict time: 25 ms a decision" in page
    matches = list(tournament.matches.all())
    assert len(matches) == 3 and {m.strict_ms for m in matches} == {25}
    match_page = Client().get(reverse("match-detail", args=[matches[0].pk])).content.decode()
    assert "strict time: 25 ms a decision" in match_page
    body = anon_client.get(f"/api/v1/matches/{matches[0].pk}/").json()
    assert body["time"]["strict_ms"] == 25
    assert anon_client.get(f"/api/v1/tournaments/{tournament.pk}/").json()["strict_ms"] == 25


def test_a_normal_match_says_nothing_of_strict_time_and_its_api_says_zero(
    make_builtin: Any, anon_client: Any
) -> None:
    from matches import services

    match = services.match_create(versions=[make_builtin("alpha"), make_builtin("beta")],
                                  kind=Match.Kind.CHALLENGE,
                                  conditions=Ladder.objects.get(slug="main"), rated=False)
    assert "strict time" not in Client().get(
        reverse("match-detail", args=[match.pk])).content.decode()
    assert anon_client.get(f"/api/v1/matches/{match.pk}/").json()["time"]["strict_ms"] == 0


@pytest.mark.parametrize(("value", "status"), [(0, 201), (10, 201), (40, 201), (60000, 201),
                                               (9, 400), (60001, 400), (-1, 400)])
def test_the_api_takes_strict_ms_within_its_limits_and_says_why_not(
    staff_client: Any, make_builtin: Any, value: int, status: int
) -> None:
    bots = [make_builtin(name).bot_id for name in ("alpha", "beta")]
    created = staff_client.post("/api/v1/tournaments/", {
        "name": "API strict", "format": "round_robin", "bots": bots, "strict_ms": value},
        format="json")
    assert created.status_code == status, created.json()
    if status == 201:
        assert created.json()["strict_ms"] == value
        assert {m.strict_ms for m in Tournament.objects.get().matches.all()} == {value}
    else:
        assert created.json()["fields"]["strict_ms"] == [
            f"strict time is 0 (off) or 10 to 60000 ms a decision, not {value}"]
        assert Tournament.objects.count() == 0


def test_staff_set_a_ladder_to_strict_time_in_the_admin(staff: User) -> None:
    ladder = Ladder.objects.create(name="Quiet", slug="quiet")
    staff.is_superuser = True  # the admin's staff (tests/tournaments/test_admin.py)
    staff.save(update_fields=["is_superuser"])
    browser = Client()
    browser.force_login(staff)
    url = reverse("admin:ladder_ladder_change", args=[ladder.pk])
    form = browser.get(url).content.decode()
    assert 'name="strict_ms"' in form
    fields = {"name": "Quiet", "slug": "quiet", "game": "kaiser", "rules": "official",
              "games_per_match": 2, "move_ms": 1000, "bank_ms": 10000, "startup_ms": 5000,
              "queue_depth": ladder.queue_depth, "active": "on",
              "entries-TOTAL_FORMS": 0, "entries-INITIAL_FORMS": 0}
    refused = browser.post(url, {**fields, "strict_ms": 3})
    assert refused.status_code == 200
    assert "strict time is 0 (off) or 10 to 60000 ms a decision, not 3" in refused.content.decode()
    saved = browser.post(url, {**fields, "strict_ms": 30})
    assert saved.status_code == 302, saved.content.decode()[:2000]
    ladder.refresh_from_db()
    assert ladder.strict_ms == 30
    listing = browser.get(reverse("admin:ladder_ladder_changelist")).content.decode()
    assert "field-strict_ms" in listing


def test_a_strict_match_goes_to_the_strict_queue_with_limits_that_fit_its_slots(
    settings: Any
) -> None:
    settings.KAISER_MATCH_QUEUE, settings.KAISER_STRICT_QUEUE = "matches", "strict"
    settings.CELERY_TASK_SOFT_TIME_LIMIT, settings.CELERY_TASK_TIME_LIMIT = 300, 360
    settings.KAISER_STRICT_SLOTS_A_GAME = 5000
    assert match_send_options(strict_ms=0, games=2) == {"queue": "matches"}
    # 2 games x 5000 slots x 20 ms = 200 s on top of the task's own limits.
    assert match_send_options(strict_ms=20, games=2) == {
        "queue": "strict", "soft_time_limit": 500, "time_limit": 560}
    settings.KAISER_STRICT_QUEUE = None  # no strict worker: with the others, limits its own
    assert match_send_options(strict_ms=1000, games=4) == {
        "queue": "matches", "soft_time_limit": 20300, "time_limit": 20360}
