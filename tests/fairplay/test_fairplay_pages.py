"""Who sees the fair-play check: staff, the report page (linked in their navigation) and its
API twin, flagged versions first with their figures and the matches behind them, then every
checked version; others get 403 with the reason (anonymous visitors are sent to log in). An
owner reads one sentence about their own bot on its page; nobody else does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from fairplay.models import FairPlayCheck
from fairplay.views import STAFF_ONLY

pytestmark = pytest.mark.django_db

FLAGGED = {"decisions": 612, "deals": 33, "cpu_bits": 0.41, "wait_bits": 3.47,
           "sleep_bits": 3.12, "hand_r": 0.08, "hand_feature": "trumps", "hand_bits": 0.01,
           "hand_p": 0.412, "median_wall_ms": 31.0, "median_wait_ms": 24.0,
           "median_sleep_ms": 22.0, "flagged": True, "reasons": ["wait spread 3.47 bits a move"]}
PASSING = {**FLAGGED, "cpu_bits": 0.83, "wait_bits": 0.12, "sleep_bits": 0.05,
           "hand_p": 0.77, "flagged": False, "reasons": []}


@pytest.fixture
def checks(make_builtin: Callable[..., Any]) -> dict[str, FairPlayCheck]:
    signaller = make_builtin("signaller", own=True)
    honest = make_builtin("honest-one", own=True)
    return {
        "flagged": FairPlayCheck.objects.create(version=signaller, matches=2,
                                                match_ids=[912, 907], figures=FLAGGED,
                                                flagged=True),
        "passing": FairPlayCheck.objects.create(version=honest, matches=20,
                                                match_ids=list(range(20)), figures=PASSING),
    }


def _client(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _staff() -> User:
    return User.objects.create_user(username="referee", is_staff=True)


def test_staff_see_flagged_versions_with_their_figures_and_matches_then_every_check(
        checks: dict[str, FairPlayCheck]) -> None:
    page = _client(_staff()).get("/fairplay/")

    assert page.status_code == 200
    text = page.content.decode()
    flagged = text.partition('id="flagged"')[2].partition("</table>")[0]
    assert "signaller" in flagged and "honest-one" not in flagged
    assert "3.47" in flagged and "wait" in flagged and "0.4120" in flagged  # bits, spread, p
    assert 'href="/matches/912/"' in flagged and 'href="/matches/907/"' in flagged
    everyone = text.partition('id="checked"')[2]
    assert "signaller" in everyone and "honest-one" in everyone and "passes" in everyone
    assert "it does not punish" in text and "Staff decide" in text
    assert 'id="nav-fairplay"' in text


def test_an_author_gets_403_with_the_reason_and_no_link(
        checks: dict[str, FairPlayCheck]) -> None:
    author = checks["flagged"].version.bot.owner
    page = _client(author).get("/fairplay/")

    assert page.status_code == 403
    assert "for staff only" in page.content.decode()
    assert 'id="nav-fairplay"' not in _client(author).get("/bots/").content.decode()


def test_an_anonymous_visitor_is_sent_to_log_in() -> None:
    page = Client().get("/fairplay/")

    assert page.status_code == 302 and "/accounts/login/" in page["Location"]


def test_the_api_gives_staff_the_report_and_others_403_with_the_reason(
        checks: dict[str, FairPlayCheck]) -> None:
    staff = APIClient()
    staff.force_authenticate(_staff())
    author = APIClient()
    author.force_authenticate(checks["passing"].version.bot.owner)

    report = staff.get("/api/v1/fairplay/")
    refused = author.get("/api/v1/fairplay/")
    anonymous = APIClient().get("/api/v1/fairplay/")

    assert report.status_code == 200
    body = report.json()
    assert [(row["name"], row["bits"], row["spread"], row["match_ids"])
            for row in body["flagged"]] == [("signaller", 3.47, "wait", [912, 907])]
    assert {row["name"]: row["flagged"] for row in body["checked"]} == {
        "signaller": True, "honest-one": False}
    assert body["checked"][0]["figures"]["hand_p"] in (0.412, 0.77)
    assert refused.status_code == 403 and refused.json()["detail"] == STAFF_ONLY
    assert anonymous.status_code in (401, 403)
    assert "credentials" in anonymous.json()["detail"]


def test_an_owner_reads_one_sentence_about_their_bot_and_nobody_else_does(
        checks: dict[str, FairPlayCheck]) -> None:
    from engine.fairplay import SPREAD_BITS

    passing, flagged = checks["passing"], checks["flagged"]
    owner = passing.version.bot.owner
    bot_page = f"/bots/{passing.version.bot_id}/"

    mine = _client(owner).get(bot_page).content.decode()
    theirs = _client(flagged.version.bot.owner).get(bot_page).content.decode()
    anonymous = Client().get(bot_page).content.decode()
    staff = _client(_staff()).get(bot_page).content.decode()

    assert (f"Think-time check of v1 over its last 20 matches: passes (at most 0.8 bits a "
            f"move; {SPREAD_BITS:.1f} flags).") in " ".join(mine.split())
    assert all("Think-time check" not in text for text in (theirs, anonymous, staff))
    signaller = _client(flagged.version.bot.owner).get(
        f"/bots/{flagged.version.bot_id}/").content.decode()
    assert "flagged for staff to look at (3.5 bits a move in its wait time" in signaller
    assert "staff decide" in signaller
