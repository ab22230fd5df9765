"""Tournaments as organisers and authors use them on the site and the API: the staff's "New
tournament" form and its errors, open entry until a deadline and the beat task that starts
it, cancel before the start, an entrant retired midway, the results downloads, and the
tournaments shown on the home page and a bot's page."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bots.models import Bot
from bots.services import bot_retire
from ladder.models import Ladder, LadderEntry
from matches import services as match_services
from matches.models import Match
from tests.tournaments import sides
from tournaments import selectors, services, tasks
from tournaments.models import OrganiserRequest, Tournament, TournamentEntrant

pytestmark = pytest.mark.sandbox


@pytest.fixture
def staff_browser(staff: User) -> Client:
    client = Client()
    client.force_login(staff)
    return client


@pytest.fixture
def author(db: None) -> User:
    return User.objects.create_user("author")


@pytest.fixture
def author_browser(author: User) -> Client:
    client = Client()
    client.force_login(author)
    return client


def _form(**overrides: Any) -> dict[str, Any]:
    data = {"name": "Winter cup", "format": "round_robin", "rounds": 1, "rules": "official",
            "games_per_match": 2, "move_ms": 1000, "bank_ms": 10000, "seeding": "hand",
            "entry": "chosen", "entrants": "", "entry_deadline": ""}
    return {**data, **overrides}


def _later(minutes: int = 30) -> str:
    return (timezone.now() + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M")


# --- The form --------------------------------------------------------------------------------


@pytest.mark.parametrize(("overrides", "error"), [
    ({"name": ""}, "This field is required."),
    ({"games_per_match": 3}, "An even number of games"),
    ({"entrants": "alpha\nnobody-here"}, "No bot named nobody-here."),
    ({"entrants": "alpha\nALPHA\nbeta"}, "Listed twice: ALPHA, alpha."),
    ({"entrants": "alpha"}, "Choose at least two bots (or open the entry)."),
    ({"entrants": "alpha\nretiree"}, "No active version to play (retired, or none passed its "
                                     "check): retiree."),
    ({"entry": "open"}, "Open entry needs a deadline."),
    ({"entry": "open", "entry_deadline": "2001-01-01T10:00"},
     "The deadline must be in the future."),
    ({"rules": "house-rules", "entrants": "alpha\nbeta"},
     "Select a valid choice. house-rules is not one of the available choices."),
    ({"format": "single_elimination", "entrants": "alpha\nbeta"},
     "Select a valid choice. single_elimination is not one of the available choices."),
])
def test_the_form_says_what_is_wrong_and_creates_nothing(
    staff_browser: Client, make_builtin: Any, overrides: dict[str, Any], error: str
) -> None:
    make_builtin("alpha")
    make_builtin("beta")
    bot_retire(bot=make_builtin("retiree").bot)
    response = staff_browser.post(reverse("tournament-new"), _form(**overrides))
    assert response.status_code == 200
    assert error in response.content.decode()
    assert Tournament.objects.count() == 0


def test_an_author_is_told_how_to_become_an_organiser_and_becomes_one(
        author_browser: Client, staff_browser: Client, make_builtin: Any) -> None:
    """Issue 43: a new account could not run a tournament and the site never said how. The
    list says who organises and how to ask; the form's 403 speaks to the case; staff grant
    the request from the site; the author then makes a tournament and may cancel it."""
    make_builtin("alpha")
    make_builtin("beta")
    listing = author_browser.get(reverse("tournament-list")).content.decode()
    assert "New tournament" not in listing and "Ask to organise tournaments" in listing
    assert "Organisers" in listing and "createsuperuser" in listing  # the admin's way
    page = author_browser.get(reverse("tournament-new"))
    text = page.content.decode()
    assert page.status_code == 403 and "Only organisers create tournaments" in text
    assert "Ask to organise on the Tournaments page" in text
    assert "sign in with the account that owns it" not in text
    posted = author_browser.post(reverse("tournament-new"), _form(entrants="alpha\nbeta"))
    assert posted.status_code == 403 and Tournament.objects.count() == 0

    assert author_browser.post(reverse("organise-ask"), {"reason": " "}).status_code == 400
    assert not OrganiserRequest.objects.exists()  # no reason: refused in words, nothing made
    author_browser.post(reverse("organise-ask"), {"reason": "A club round robin"})
    again = author_browser.post(reverse("organise-ask"), {"reason": "Again"}, follow=True)
    assert "waiting for staff already" in again.content.decode()
    listing = author_browser.get(reverse("tournament-list")).content.decode()
    assert 'id="organiser-state"' in listing and "waiting for staff" in listing

    assert author_browser.get(reverse("organiser-requests")).status_code == 403
    staff_page = staff_browser.get(reverse("organiser-requests")).content.decode()
    assert "A club round robin" in staff_page and "author" in staff_page
    request_id = OrganiserRequest.objects.get().pk
    done = staff_browser.post(reverse("organiser-requests"),
                              {"request": request_id, "decision": "grant"}, follow=True)
    assert "author can now organise tournaments" in done.content.decode()
    assert "New tournament" in author_browser.get(reverse("tournament-list")).content.decode()
    made = author_browser.post(reverse("tournament-new"), _form(
        entry="open", entry_deadline=_later()))
    tournament = Tournament.objects.get()
    assert made.status_code == 302 and tournament.created_by.username == "author"
    detail = author_browser.get(reverse("tournament-detail", args=[tournament.pk]))
    assert 'id="cancel-form"' in detail.content.decode()


def test_an_organiser_cancels_only_the_tournaments_they_made(
        staff_browser: Client, make_builtin: Any, author: User, staff: User) -> None:
    from tournaments import organisers

    other = User.objects.create_user("other-organiser")
    for user in (author, other):
        made = organisers.request_make(user=user, reason="cups")
        organisers.request_decide(request_id=made.pk, staff=staff, grant=True)
    staff_browser.post(reverse("tournament-new"), _form(entry="open", entry_deadline=_later()))
    tournament = Tournament.objects.get()
    client = Client()
    client.force_login(other)
    assert 'id="cancel-form"' not in client.get(
        reverse("tournament-detail", args=[tournament.pk])).content.decode()
    refused = client.post(reverse("tournament-cancel", args=[tournament.pk]))
    assert refused.status_code == 403
    assert "Only the organiser who made this tournament" in refused.content.decode()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.OPEN


def test_the_api_asks_to_organise_and_staff_answer(author: User, make_builtin: Any) -> None:
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(author)
    assert api.get("/api/v1/organiser-request/").json() == {"organiser": False, "request": None}
    refused = api.post("/api/v1/tournaments/", {"name": "x"}, format="json")
    assert refused.status_code == 403 and "Only organisers" in refused.json()["detail"]
    asked = api.post("/api/v1/organiser-request/", {"reason": "Swiss nights"}, format="json")
    assert asked.status_code == 201 and asked.json()["status"] == "pending"
    assert api.post(f"/api/v1/organiser-requests/{asked.json()['id']}/grant/").status_code == 403
    staff = APIClient()
    staff.force_authenticate(User.objects.create_user("boss", is_staff=True))
    assert staff.post(f"/api/v1/organiser-requests/{asked.json()['id']}/maybe/").status_code \
        == 404
    granted = staff.post(f"/api/v1/organiser-requests/{asked.json()['id']}/grant/",
                         {"answer": "welcome"}, format="json")
    assert granted.status_code == 200 and granted.json()["status"] == "granted"
    state = api.get("/api/v1/organiser-request/").json()
    assert state["organiser"] is True and state["request"]["answer"] == "welcome"
    twice = staff.post(f"/api/v1/organiser-requests/{asked.json()['id']}/refuse/")
    assert twice.status_code == 400 and "granted already" in str(twice.json())


def test_staff_create_a_knockout_seeded_by_hand_and_it_starts(
    staff_browser: Client, make_builtin: Any
) -> None:
    names = ["delta", "alpha", "charlie", "bravo", "echo"]
    versions = {n: make_builtin(n) for n in names}
    assert "New tournament" in staff_browser.get(reverse("tournament-list")).content.decode()
    form = staff_browser.get(reverse("tournament-new")).content.decode()
    assert '<option value="alpha">' in form  # the search's list of bot names
    response = staff_browser.post(reverse("tournament-new"), _form(
        name="Cup", format="knockout", entrants="\n".join(names).replace("alpha", "ALPHA")))
    tournament = Tournament.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("tournament-detail", args=[tournament.pk])
    assert tournament.status == Tournament.Status.RUNNING
    assert tournament.format == "knockout" and tournament.created_by is not None
    seeds = dict(tournament.entrants.values_list("version_id", "seed"))
    assert seeds == {versions[n].pk: i for i, n in enumerate(names, start=1)}
    # Five in a bracket of eight: the top three seeds have byes, 4 and 5 play.
    assert sorted(tournament.byes.values_list("version__bot__name", flat=True)) == [
        "alpha", "charlie", "delta"]
    (match,) = tournament.matches.all()
    assert {side.version.bot.name for side in sides.sides(match)} == {"bravo", "echo"}


def test_seeding_from_a_ladder_puts_the_best_rated_first(
    staff_browser: Client, make_builtin: Any
) -> None:
    ladder = Ladder.objects.create(name="Fast", slug="fast")
    versions = [make_builtin(n) for n in ("low", "high", "mid")]
    for version, elo in zip(versions, (1400, 1700, 1500), strict=True):
        LadderEntry.objects.create(ladder=ladder, version=version, elo=elo)
    staff_browser.post(reverse("tournament-new"), _form(
        format="swiss", rounds=2, seeding="fast", entrants="low\nhigh\nmid"))
    tournament = Tournament.objects.get()
    assert tournament.ladder == ladder
    order = list(tournament.entrants.order_by("seed").values_list("version__bot__name",
                                                                  flat=True))
    assert order == ["high", "mid", "low"]


# --- Open entry, the deadline, cancel --------------------------------------------------------


def _open(staff_browser: Client, **overrides: Any) -> Tournament:
    response = staff_browser.post(reverse("tournament-new"), _form(
        entry="open", entry_deadline=_later(), **overrides))
    assert response.status_code == 302, response.content.decode()[-2000:]
    return Tournament.objects.order_by("-pk").first()  # type: ignore[return-value]


def _my_bot(user: User, name: str, make_builtin: Any) -> Bot:
    version = make_builtin(name)
    Bot.objects.filter(pk=version.bot_id).update(owner=user)
    return Bot.objects.get(pk=version.bot_id)


def test_authors_enter_from_the_home_page_until_the_deadline_then_the_beat_starts_it(
    staff_browser: Client, author_browser: Client, author: User, make_builtin: Any,
    play_queued: Any,
) -> None:
    tournament = _open(staff_browser, name="Open swiss", format="swiss", rounds=2)
    assert tournament.status == Tournament.Status.OPEN and tournament.entrants.count() == 0
    mine = _my_bot(author, "mine", make_builtin)
    theirs = make_builtin("theirs")  # the house's
    home = author_browser.get("/").content.decode()
    assert 'id="open-tournaments"' in home and "Open swiss" in home
    assert f'<option value="{mine.pk}">mine v1</option>' in home
    entered = author_browser.post(reverse("tournament-enter", args=[tournament.pk]),
                                  {"bot": mine.pk, "next": "/"})
    assert entered.status_code == 302 and entered["Location"] == "/"
    assert list(tournament.entrants.values_list("version__bot__name", flat=True)) == ["mine"]
    # Twice: refused, with the reason shown; someone else's bot: not found (as a challenge).
    again = author_browser.post(reverse("tournament-enter", args=[tournament.pk]),
                                {"bot": mine.pk}, follow=True)
    assert "mine has already entered" in again.content.decode()
    other = author_browser.post(reverse("tournament-enter", args=[tournament.pk]),
                                {"bot": theirs.bot_id}, follow=True)
    assert other.status_code == 404
    assert tournament.entrants.count() == 1
    services.tournament_enter(tournament=tournament, version=theirs,
                              user=theirs.bot.owner)
    services.tournament_enter(tournament=tournament, version=make_builtin("third"),
                              user=User.objects.get(username="house-test"))
    # Before the deadline the beat's task leaves it open.
    assert tasks.tournaments_start_due() == {"started": 0, "cancelled": 0}
    Tournament.objects.filter(pk=tournament.pk).update(
        entry_deadline=timezone.now() - timedelta(seconds=1))
    late = author_browser.post(reverse("tournament-enter", args=[tournament.pk]),
                               {"bot": mine.pk}, follow=True)
    assert "the entry deadline has passed" in late.content.decode()
    assert tasks.tournaments_start_due() == {"started": 1, "cancelled": 0}
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert sorted(tournament.entrants.values_list("seed", flat=True)) == [1, 2, 3]
    assert tournament.matches.count() == 1 and tournament.byes.count() == 1
    play_queued()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert 'id="open-tournaments"' not in author_browser.get("/").content.decode()


def test_an_open_tournament_with_one_entrant_at_the_deadline_is_cancelled(
    staff_browser: Client, make_builtin: Any
) -> None:
    tournament = _open(staff_browser)
    lone = make_builtin("lone")
    services.tournament_enter(tournament=tournament, version=lone, user=lone.bot.owner)
    Tournament.objects.filter(pk=tournament.pk).update(
        entry_deadline=timezone.now() - timedelta(seconds=1))
    assert services.tournaments_start_due() == {"started": 0, "cancelled": 1}
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert tournament.cancel_reason == "fewer than two entrants by the deadline"
    assert not Match.objects.exists()


def test_staff_cancel_before_the_start_and_not_after(
    staff_browser: Client, author_browser: Client, make_builtin: Any
) -> None:
    tournament = _open(staff_browser)
    page = staff_browser.get(reverse("tournament-detail", args=[tournament.pk])).content.decode()
    assert 'id="cancel-form"' in page
    refused = author_browser.post(reverse("tournament-cancel", args=[tournament.pk]))
    # A signed-in author gets the 403 page (issue 20), no longer a redirect to the login form.
    assert refused.status_code == 403
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.OPEN
    done = staff_browser.post(reverse("tournament-cancel", args=[tournament.pk]), follow=True)
    assert "Winter cup is cancelled." in done.content.decode()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert tournament.cancel_reason == "cancelled by stella"
    running = services.tournament_create(name="Started", format="round_robin",
                                         versions=[make_builtin("a"), make_builtin("b")])
    late = staff_browser.post(reverse("tournament-cancel", args=[running.pk]), follow=True)
    assert "Started has started: it can no longer be cancelled." in late.content.decode()
    running.refresh_from_db()
    assert running.status == Tournament.Status.RUNNING


def test_the_api_opens_entry_enters_and_cancels(
    clients: dict[str, Any], owner: User, make_builtin: Any
) -> None:
    deadline = (timezone.now() + timedelta(hours=1)).isoformat()
    request = {"name": "API open", "format": "knockout", "entry_deadline": deadline,
               "games_per_match": 2}
    assert clients["owner"].post("/api/v1/tournaments/", request, format="json"
                                 ).status_code == 403
    created = clients["staff"].post("/api/v1/tournaments/", request, format="json")
    assert created.status_code == 201, created.json()
    body = created.json()
    assert body["status"] == "open" and body["entry_deadline"] is not None
    url = f"/api/v1/tournaments/{body['id']}/"
    mine = _my_bot(owner, "owners-bot", make_builtin)
    assert clients["anon"].post(url + "enter/", {"bot": mine.pk}).status_code in (401, 403)
    entered = clients["owner"].post(url + "enter/", {"bot": mine.pk}, format="json")
    assert entered.status_code == 201 and entered.json()["name"] == "owners-bot"
    twice = clients["owner"].post(url + "enter/", {"bot": mine.pk}, format="json")
    assert twice.status_code == 400
    assert twice.json()["fields"]["bot"] == ["owners-bot has already entered"]
    assert clients["owner"].post(url + "cancel/").status_code == 403
    cancelled = clients["staff"].post(url + "cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert clients["staff"].post(url + "cancel/").status_code == 409
    neither = clients["staff"].post("/api/v1/tournaments/", {
        "name": "x", "format": "swiss", "bots": [mine.pk]}, format="json")
    assert neither.status_code == 400
    assert "entry_deadline" in neither.json()["fields"]["bots"][0]
    bad_rules = clients["staff"].post("/api/v1/tournaments/", {
        "name": "x", "format": "swiss", "entry_deadline": deadline, "rules": "nope"},
        format="json")
    assert bad_rules.status_code == 400 and "official" in bad_rules.json()["fields"]["rules"][0]


# --- An entrant retired midway ---------------------------------------------------------------


def test_a_bot_retired_midway_loses_its_remaining_matches_by_walkover(
    make_builtin: Any, play_queued: Any
) -> None:
    field = [make_builtin(n) for n in ("a", "b", "c", "d")]
    tournament = services.tournament_create(name="RR", format="round_robin", versions=field)
    first = tournament.matches.order_by("id").first()
    assert match_services.match_play(match_id=first.pk, worker="test") == "finished"
    quitter = field[3]
    bot_retire(bot=quitter.bot)
    walkovers = tournament.matches.filter(status=Match.Status.WALKOVER)
    quitter_open = [m for m in tournament.matches.exclude(pk=first.pk)
                    if quitter.pk in sides.versions(m)]
    assert {m.pk for m in walkovers} == {m.pk for m in quitter_open}
    assert all(sides.fault(m)[1] == "withdrawn" for m in walkovers)
    play_queued()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    table = {r.version_id: r for r in selectors.tournament_table(tournament=tournament)}
    assert table[quitter.pk].withdrawn
    assert table[quitter.pk].wins + table[quitter.pk].draws <= (
        1 if quitter.pk in sides.versions(first) else 0)
    for match in walkovers:  # the other side won each walkover
        (winner,) = [v for v in sides.versions(match) if v != quitter.pk]
        assert table[winner].wins >= 1
    assert sum(r.points for r in table.values()) == 6  # six pairs, a point each
    page = Client().get(reverse("tournament-detail", args=[tournament.pk])).content.decode()
    assert "withdrawn" in page and "w/o" in page


def test_a_knockout_entrant_retired_before_its_next_round_gives_a_walkover(
    make_builtin: Any, play_queued: Any
) -> None:
    field = [make_builtin(n, "builtin:greedy") for n in ("s1", "s2", "s3")]
    tournament = services.tournament_create(name="KO", format="knockout", versions=field)
    # Seed 1 has a bye; it is retired before the final it would play.
    bot_retire(bot=field[0].bot)
    play_queued()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    final = tournament.matches.get(round=2)
    assert final.status == Match.Status.WALKOVER and sides.fault(final) == ("A", "withdrawn")
    champion = tournament.entrants.get(final_rank=1)
    assert champion.version_id != field[0].pk
    assert champion.version_id in sides.versions(final)
    assert TournamentEntrant.objects.get(tournament=tournament, version=field[0]
                                         ).eliminated_round == 2


def test_a_bot_retired_before_the_start_leaves_the_entry_list(
    staff_browser: Client, make_builtin: Any
) -> None:
    tournament = _open(staff_browser)
    version = make_builtin("leaver")
    services.tournament_enter(tournament=tournament, version=version, user=version.bot.owner)
    bot_retire(bot=version.bot)
    assert tournament.entrants.count() == 0


# --- Results and the authors' pages ----------------------------------------------------------


def test_results_download_as_json_and_csv_agree_with_the_database(
    make_builtin: Any, play_queued: Any
) -> None:
    field = [make_builtin(n) for n in ("=evil", "plain", "third")]
    tournament = services.tournament_create(name="Dl", format="round_robin", versions=field)
    play_queued()
    tournament.refresh_from_db()
    data = Client().get(reverse("tournament-results-json", args=[tournament.pk])).json()
    assert data["tournament"]["status"] == "finished"
    ranks = dict(tournament.entrants.values_list("version__bot__name", "final_rank"))
    assert {r["bot"]: r["rank"] for r in data["standings"]} == ranks
    assert data["tournament"]["champion"] == min(ranks, key=ranks.get)  # type: ignore[arg-type]
    stored = {m.pk: (sides.games(m), m.score) for m in tournament.matches.all()}
    assert {m["id"]: ([s["games"] for s in m["sides"]], m["score"])
            for m in data["matches"]} == stored
    names = dict(tournament.entrants.values_list("version_id", "version__bot__name"))
    assert all([s["bot"] for s in m["sides"]] == [names[v] for v in sides.versions(m["id"])]
               for m in data["matches"])
    text = Client().get(reverse("tournament-results-csv", args=[tournament.pk])
                        ).content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["bot"] for r in rows] == [
        ("'" + r["bot"]) if r["bot"].startswith("=") else r["bot"] for r in data["standings"]]
    assert [float(r["points"]) for r in rows] == [r["points"] for r in data["standings"]]
    api = Client().get(f"/api/v1/tournaments/{tournament.pk}/results/").json()
    assert api["standings"] == data["standings"]


def test_a_bots_page_offers_entry_to_its_owner_and_lists_its_tournaments(
    staff_browser: Client, author_browser: Client, author: User, make_builtin: Any,
    play_queued: Any,
) -> None:
    mine = _my_bot(author, "mine", make_builtin)
    open_ = _open(staff_browser, name="Spring open")
    page = author_browser.get(reverse("bot-detail", args=[mine.pk])).content.decode()
    assert "Spring open" in page
    assert f'action="{reverse("tournament-enter", args=[open_.pk])}"' in page
    stranger = Client().get(reverse("bot-detail", args=[mine.pk])).content.decode()
    assert "Spring open" in stranger
    assert f'action="{reverse("tournament-enter", args=[open_.pk])}"' not in stranger
    author_browser.post(reverse("tournament-enter", args=[open_.pk]), {"bot": mine.pk})
    played = services.tournament_create(
        name="Played cup", format="round_robin",
        versions=[mine.versions.get(), make_builtin("rival")])
    play_queued()
    rank = played.entrants.get(version__bot=mine).final_rank
    page = author_browser.get(reverse("bot-detail", args=[mine.pk])).content.decode()
    history = page.split('id="tournament-history"')[1].split("</table>")[0]
    assert "Played cup" in history and f"{rank} of 2" in history
    assert "Spring open" in history  # entered, not started yet
    assert "<small class=\"badge\">entered</small>" in page


# --- The admin, for repairs -------------------------------------------------------------------


def test_the_admin_takes_entrants_without_seeds_and_offers_the_rule_presets(
    staff: User, make_builtin: Any
) -> None:
    staff.is_superuser = True
    staff.save(update_fields=["is_superuser"])
    client = Client()
    client.force_login(staff)
    form = client.get("/admin/tournaments/tournament/add/").content.decode()
    assert '<option value="pagat">pagat</option>' in form
    assert '<option value="knockout">knockout</option>' in form
    assert "single elimination" not in form
    versions = [make_builtin(n) for n in ("p1", "p2", "p3")]
    data = {"name": "Admin cup", "format": "knockout", "rounds": 1, "rules": "official",
            "games_per_match": 2, "move_ms": 1000, "bank_ms": 10000, "startup_ms": 5000,
            "strict_ms": 0, "current_round": 0, "entrants-TOTAL_FORMS": 3,
            "entrants-INITIAL_FORMS": 0,
            "entrants-MIN_NUM_FORMS": 0, "entrants-MAX_NUM_FORMS": 1000,
            "byes-TOTAL_FORMS": 0, "byes-INITIAL_FORMS": 0}
    for i, version in enumerate(versions):
        data[f"entrants-{i}-version"] = version.pk
        data[f"entrants-{i}-seed"] = ""
    saved = client.post("/admin/tournaments/tournament/add/", data)
    assert saved.status_code == 302, saved.content.decode()[-3000:]
    tournament = Tournament.objects.get(name="Admin cup")
    assert tournament.status == Tournament.Status.DRAFT
    client.post("/admin/tournaments/tournament/", {"action": "start",
                                                   "_selected_action": [tournament.pk]})
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert sorted(tournament.entrants.values_list("seed", flat=True)) == [1, 2, 3]


def test_the_live_poll_and_the_live_part_of_a_running_tournament(make_builtin: Any) -> None:
    field = [make_builtin(n) for n in ("a", "b", "c")]
    tournament = services.tournament_create(name="Live", format="round_robin", versions=field)
    first = tournament.matches.order_by("id").first()
    assert match_services.match_play(match_id=first.pk, worker="test") == "finished"
    url = reverse("tournament-detail", args=[tournament.pk])
    poll = Client().get(url + "?part=progress").json()
    assert poll == {"status": "running", "progress": {"done": 1, "total": 3}}
    page = Client().get(url).content.decode()
    assert f'data-poll="{url}?part=progress"' in page and 'id="t-body"' in page
    part = Client().get(url + "?part=live").content.decode()
    assert "<html" not in part and 'id="crosstable"' in part
    a, b = sides.games(first)
    assert f'data-match="{first.pk}">{a}–{b}</a>' in part
    # The body is cached per state of the tournament: the next result shows at once.
    second = tournament.matches.filter(status=Match.Status.QUEUED).order_by("id").first()
    assert f'data-match="{second.pk}">…</a>' in part
    assert match_services.match_play(match_id=second.pk, worker="test") == "finished"
    a, b = sides.games(second)
    part = Client().get(url + "?part=live").content.decode()
    assert f'data-match="{second.pk}">{a}–{b}</a>' in part
    assert Client().get(url + "?part=progress").json()["progress"] == {"done": 2, "total": 3}


def test_a_swiss_pairs_a_withdrawn_bot_no_more(make_builtin: Any, play_queued: Any) -> None:
    field = [make_builtin(n) for n in ("w1", "w2", "w3", "w4")]
    tournament = services.tournament_create(name="Swiss", format="swiss", versions=field,
                                            rounds=3)
    for match in tournament.matches.filter(round=1):
        match_services.match_play(match_id=match.pk, worker="test")
    quitter = field[0]
    tournament.refresh_from_db()
    paired = tournament.current_round  # round 2 is paired already, the quitter in it
    assert paired == 2
    bot_retire(bot=quitter.bot)
    (walkover,) = [m for m in tournament.matches.filter(round=2)
                   if quitter.pk in sides.versions(m)]
    assert walkover.status == Match.Status.WALKOVER
    assert sides.by_version(walkover)[quitter.pk].fault == "withdrawn"
    play_queued()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    later = tournament.matches.filter(round__gt=paired)
    assert later.count() == 1  # three left: one match and one bye
    assert not later.filter(sides__version=quitter).exists()
    (bye,) = tournament.byes.filter(round__gt=paired)
    assert bye.version_id != quitter.pk


def test_the_form_shows_every_error_of_a_submit_at_once(
    staff_browser: Client, make_builtin: Any, make_sm_builtin: Any
) -> None:
    """A wrong game's bot is said with the other mistakes on the first submit (issue 34),
    never only on the next one."""
    make_builtin("alpha")
    bot_retire(bot=make_builtin("retiree").bot)
    make_sm_builtin("sm-one", "builtin:random")
    response = staff_browser.post(reverse("tournament-new"), _form(
        name="", games_per_match=3, entrants="alpha\nsm-one\nnobody-here\nretiree"))
    body = response.content.decode().replace("&#x27;", "'")
    assert response.status_code == 200 and Tournament.objects.count() == 0
    for error in ("This field is required.", "An even number of games",
                  "No bot named nobody-here.",
                  "No active version to play (retired, or none passed its check): retiree.",
                  "Not Kaiser bots: sm-one."):
        assert error in body, error


def test_a_three_player_round_robin_too_large_is_said_with_the_entrants_errors(
    staff_browser: Client, make_builtin: Any, make_sm_builtin: Any
) -> None:
    make_builtin("alpha")  # a Kaiser bot among Sergeant Major ones
    names = [f"sm-{n}" for n in range(20)]
    for name in names:
        make_sm_builtin(name, "builtin:random")
    response = staff_browser.post(reverse("tournament-new"), _form(
        game="sergeant-major", rules="952", games_per_match=3,
        entrants="\n".join(["alpha", *names])))
    body = response.content.decode().replace("&#x27;", "'")
    assert "Not Sergeant Major (9-5-2) bots: alpha." in body
    assert "A round robin of 20 entrants in matches of three needs 1140 matches" in body
    assert Tournament.objects.count() == 0
