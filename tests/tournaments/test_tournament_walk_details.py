"""Details of the tournament walk (issue 20): the results name each bot's version as its
author does ("v2"), a knockout's byes show in its standings and its results, and an author
takes an entry back before the tournament starts (on its page and through the API)."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bots.models import Bot, BotVersion
from tournaments import services
from tournaments.models import Tournament


def _browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _csv(tournament: Tournament) -> list[dict[str, str]]:
    response = Client().get(reverse("tournament-results-csv", args=[tournament.pk]))
    assert response.status_code == 200
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def _json(tournament: Tournament) -> dict[str, Any]:
    response = Client().get(reverse("tournament-results-json", args=[tournament.pk]))
    assert response.status_code == 200
    return response.json()  # type: ignore[no-any-return]


def _standings_row(page: str, version_id: int) -> dict[str, str]:
    """The standings table's row of one version, as {column heading: cell text}."""
    table = page[page.index('id="standings"'):]
    table = table[:table.index("</table>")]
    head = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table)]
    row = re.search(rf'<tr data-version="{version_id}">(.*?)</tr>', table, re.S)
    assert row is not None, f"no standings row for version {version_id}"
    cells = [re.sub(r"<[^>]+>", "", c).strip()
             for c in re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)]
    return dict(zip(head, cells, strict=True))


# --- 1. The version as its author names it ----------------------------------------------------


def test_the_results_name_the_bot_and_its_version_number_not_an_internal_id(
    make_builtin: Any, builtin_version: Any,
) -> None:
    first = make_builtin("alpha")
    second = builtin_version(bot=first.bot)  # alpha v2
    beta = make_builtin("beta")
    tournament = services.tournament_create(name="Versions", format="round_robin",
                                            versions=[second, beta])
    rows = {r["bot"]: r for r in _csv(tournament)}
    assert (rows["alpha"]["version"], rows["beta"]["version"]) == ("v2", "v1")
    assert list(_csv(tournament)[0]) == [
        "rank", "bot", "bot_id", "version", "seed", "played", "wins", "draws", "losses",
        "byes", "points", "buchholz", "games_won", "eliminated_round", "withdrawn"]
    standings = {r["bot"]: r for r in _json(tournament)["standings"]}
    assert {k: standings["alpha"][k] for k in ("version", "version_number", "version_id")} == {
        "version": "v2", "version_number": 2, "version_id": second.pk}
    assert standings["beta"]["version_id"] == beta.pk
    api = Client().get(f"/api/v1/tournaments/{tournament.pk}/results/").json()
    assert api["standings"] == _json(tournament)["standings"]
    detail = Client().get(f"/api/v1/tournaments/{tournament.pk}/").json()
    alpha = next(r for r in detail["standings"] if r["name"] == "alpha")
    # The API's standings keep "version" (the id) and add the clearly named keys.
    assert (alpha["version"], alpha["version_id"], alpha["version_number"]) == (
        second.pk, second.pk, 2)


# --- 2. A knockout's byes ---------------------------------------------------------------------


def test_a_knockout_shows_its_first_round_byes_in_the_standings_and_the_results(
    make_builtin: Any,
) -> None:
    field = [make_builtin(n) for n in ("s1", "s2", "s3")]
    tournament = services.tournament_create(name="Three", format="knockout", versions=field)
    (bye,) = tournament.byes.all()
    assert (bye.round, bye.version_id) == (1, field[0].pk)  # the top seed goes through
    page = Client().get(reverse("tournament-detail", args=[tournament.pk])).content.decode()
    top = _standings_row(page, field[0].pk)
    assert (top["Bot"], top["Played"], top["Byes"], top["Points"]) == ("s1", "0", "1", "1.0")
    assert _standings_row(page, field[1].pk)["Byes"] == "0"
    assert 'class=\\"' not in page  # the cells' classes are attributes, not text
    assert "the top seeds have a bye in round 1" in page
    rows = {r["bot"]: r for r in _csv(tournament)}
    assert (rows["s1"]["byes"], rows["s2"]["byes"], rows["s3"]["byes"]) == ("1", "0", "0")
    data = _json(tournament)
    assert data["byes"] == [{"round": 1, "position": bye.position, "bot": "s1",
                             "version_id": field[0].pk}]
    assert {r["bot"]: r["byes"] for r in data["standings"]} == {"s1": 1, "s2": 0, "s3": 0}


# --- 3. Withdrawing an entry --------------------------------------------------------------------


def _open_tournament(name: str = "Spring open") -> Tournament:
    return services.tournament_create(name=name, format="swiss", rounds=2,
                                      entry_deadline=timezone.now() + timedelta(hours=1))


def _bot_of(user: User, name: str, make_builtin: Any) -> BotVersion:
    version: BotVersion = make_builtin(name)
    Bot.objects.filter(pk=version.bot_id).update(owner=user)
    return BotVersion.objects.select_related("bot").get(pk=version.pk)


def test_the_owner_withdraws_an_entry_from_the_page_before_the_start(
    owner: User, other: User, make_builtin: Any,
) -> None:
    tournament = _open_tournament()
    mine = _bot_of(owner, "mine", make_builtin)
    services.tournament_enter(tournament=tournament, version=mine, user=owner)
    url = reverse("tournament-withdraw", args=[tournament.pk])
    assert url == f"/tournaments/{tournament.pk}/withdraw/"
    page = _browser(owner).get(reverse("tournament-detail", args=[tournament.pk])
                               ).content.decode()
    assert "mine v1 is entered." in page
    assert f'action="{url}"' in page and f'name="bot" value="{mine.bot_id}"' in page
    # Someone else sees no button, and posting anyway is refused.
    assert f'action="{url}"' not in _browser(other).get(
        reverse("tournament-detail", args=[tournament.pk])).content.decode()
    assert _browser(other).post(url, {"bot": mine.bot_id}).status_code == 403
    assert Client().post(url, {"bot": mine.bot_id}).status_code == 302  # to the login page
    assert tournament.entrants.count() == 1
    done = _browser(owner).post(url, {"bot": mine.bot_id}, follow=True)
    assert done.redirect_chain[-1][0] == reverse("tournament-detail", args=[tournament.pk])
    body = done.content.decode()
    assert "mine withdrew from Spring open." in body
    assert "mine v1 is entered." not in body
    assert f'<option value="{mine.bot_id}">mine v1</option>' in body  # it may enter again
    assert tournament.entrants.count() == 0
    again = _browser(owner).post(url, {"bot": mine.bot_id}, follow=True)
    assert "mine is not entered in Spring open" in again.content.decode()


def test_once_running_the_page_refuses_a_withdrawal_and_points_to_retiring(
    owner: User, make_builtin: Any,
) -> None:
    mine = _bot_of(owner, "mine", make_builtin)
    tournament = services.tournament_create(name="Started", format="round_robin",
                                            versions=[mine, make_builtin("house-bot")])
    response = _browser(owner).post(reverse("tournament-withdraw", args=[tournament.pk]),
                                    {"bot": mine.bot_id}, follow=True)
    assert "Started has started: an entry can no longer be withdrawn (retiring the bot " \
           "withdraws it" in response.content.decode()
    assert tournament.entrants.filter(version=mine, withdrawn__isnull=True).exists()


def test_the_api_withdraws_an_entry_for_its_owner_or_staff_and_409_once_running(
    clients: dict[str, Any], owner: User, make_builtin: Any,
) -> None:
    tournament = _open_tournament("API open")
    mine = _bot_of(owner, "owners-bot", make_builtin)
    url = f"/api/v1/tournaments/{tournament.pk}/"
    assert clients["owner"].post(url + "enter/", {"bot": mine.bot_id},
                                 format="json").status_code == 201
    assert clients["anon"].post(url + "withdraw/", {"bot": mine.bot_id},
                                format="json").status_code in (401, 403)
    refused = clients["other"].post(url + "withdraw/", {"bot": mine.bot_id}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    assert tournament.entrants.count() == 1
    withdrawn = clients["owner"].post(url + "withdraw/", {"bot": mine.bot_id}, format="json")
    assert withdrawn.status_code == 204
    assert tournament.entrants.count() == 0
    twice = clients["owner"].post(url + "withdraw/", {"bot": mine.bot_id}, format="json")
    assert twice.status_code == 400
    assert twice.json()["fields"]["bot"] == ["owners-bot is not entered in API open"]
    assert clients["owner"].post(url + "withdraw/", {"bot": 999999},
                                 format="json").status_code == 404
    # Staff may take anyone's entry back.
    services.tournament_enter(tournament=tournament, version=mine, user=owner)
    assert clients["staff"].post(url + "withdraw/", {"bot": mine.bot_id},
                                 format="json").status_code == 204
    assert tournament.entrants.count() == 0
    # Once running: 409, and the entry stays.
    running = services.tournament_create(name="Running", format="round_robin",
                                         versions=[mine, make_builtin("house-bot")])
    late = clients["owner"].post(f"/api/v1/tournaments/{running.pk}/withdraw/",
                                 {"bot": mine.bot_id}, format="json")
    assert late.status_code == 409
    assert late.json()["code"] == "entry_closed"
    assert late.json()["detail"].startswith("Running has started: an entry can no longer be "
                                            "withdrawn")
    assert running.entrants.filter(version=mine).exists()


@pytest.mark.parametrize("state", [Tournament.Status.FINISHED, Tournament.Status.CANCELLED])
def test_an_ended_tournament_keeps_its_entries(
    clients: dict[str, Any], owner: User, make_builtin: Any, state: str,
) -> None:
    tournament = _open_tournament("Over")
    mine = _bot_of(owner, "mine", make_builtin)
    services.tournament_enter(tournament=tournament, version=mine, user=owner)
    Tournament.objects.filter(pk=tournament.pk).update(status=state)
    response = clients["owner"].post(f"/api/v1/tournaments/{tournament.pk}/withdraw/",
                                     {"bot": mine.bot_id}, format="json")
    assert response.status_code == 409
    assert response.json()["detail"] == f"Over is {state}: its entries stay as they are."
    assert tournament.entrants.count() == 1
