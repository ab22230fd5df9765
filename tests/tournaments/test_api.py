"""The API of ladders, matches, replays, tournaments and challenges, and the replay export."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.services import user_token
from engine.validate import validate_replay
from ladder.models import Ladder, LadderEntry
from matches import services
from matches.models import Match, MatchSide


@pytest.fixture
def played(ladder, make_builtin, make_program, owner, play_queued):
    """Three finished rated matches on the test ladder: mine vs g1, mine vs g2, g1 vs g2."""
    mine = make_program("mine", b"print('unused')\n", owner=owner)
    g1, g2 = make_builtin("g1"), make_builtin("g2", "builtin:random")
    made = []
    for a, b in ((g1, g2), (g1, g2), (g2, g1)):
        for v in (a, b):
            LadderEntry.objects.get_or_create(ladder=ladder, version=v)
        made.append(services.match_create(versions=[a, b], kind="ladder",
                                          conditions=ladder, ladder=ladder, rated=True))
    play_queued()
    for order, text in enumerate(("g1 thinking", "g2 log")):
        MatchSide.objects.filter(match=made[0], order=order).update(stderr=text)
    return {"mine": mine, "g1": g1, "g2": g2, "matches": made}


def test_a_ladder_shows_its_leaderboard_with_elo_and_fitted_intervals(anon_client, ladder,
                                                                      played):
    body = anon_client.get(f"/api/v1/ladders/{ladder.slug}/").json()
    assert body["slug"] == "test" and body["time"]["move_ms"] == 1000
    board = body["leaderboard"]
    assert [row["name"] for row in board][:2] and len(board) == 2
    assert board[0]["elo"] >= board[1]["elo"] and board[0]["rank"] == 1
    for row in board:
        assert row["games"] == 3 and row["provisional"] is True
        assert row["fitted_low"] < row["fitted"] < row["fitted_high"]
    assert board[0]["elo"] + board[1]["elo"] == pytest.approx(3000.0)


def test_the_api_leaderboard_comes_a_page_at_a_time(anon_client, ladder, played,
                                                    monkeypatch):
    from ladder import api

    monkeypatch.setattr(api, "LEADERBOARD_PAGE_ROWS", 1)
    first = anon_client.get(f"/api/v1/ladders/{ladder.slug}/").json()
    second = anon_client.get(f"/api/v1/ladders/{ladder.slug}/?page=2").json()
    assert first["leaderboard_count"] == second["leaderboard_count"] == 2
    assert [row["rank"] for row in first["leaderboard"]] == [1]
    assert [row["rank"] for row in second["leaderboard"]] == [2]
    assert first["leaderboard"][0]["elo"] >= second["leaderboard"][0]["elo"]
    assert anon_client.get(f"/api/v1/ladders/{ladder.slug}/?page=3").json()["leaderboard"] == []
    assert anon_client.get(f"/api/v1/ladders/{ladder.slug}/?page=x").status_code == 404


def test_the_rating_history_of_an_entry_lists_each_change(anon_client, ladder, played):
    g1 = played["g1"]
    history = anon_client.get(f"/api/v1/ladders/test/history/?version={g1.pk}").json()
    assert len(history) == 3
    assert history[0]["before"] == 1500.0
    assert history[1]["before"] == pytest.approx(history[0]["after"])
    entry = LadderEntry.objects.get(ladder=ladder, version=g1)
    assert history[-1]["after"] == pytest.approx(entry.elo)
    assert anon_client.get("/api/v1/ladders/test/history/").status_code == 400


def test_matches_filter_by_bot_opponent_and_status(anon_client, played):
    g1, mine = played["g1"], played["mine"]
    listed = anon_client.get(f"/api/v1/matches/?bot={g1.bot_id}&status=finished").json()
    assert listed["count"] == 3
    assert anon_client.get(f"/api/v1/matches/?bot={mine.bot_id}").json()["count"] == 0
    both = anon_client.get(f"/api/v1/matches/?bot={g1.bot_id}&opponent={played['g2'].bot_id}")
    assert both.json()["count"] == 3
    assert anon_client.get("/api/v1/matches/?status=queued").json()["count"] == 0
    assert anon_client.get("/api/v1/matches/?status=bogus").status_code == 400
    assert anon_client.get("/api/v1/matches/?since=yesterday").status_code == 400


def test_a_match_replay_is_served_decompressed_and_valid(anon_client, played):
    match = played["matches"][0]
    detail = anon_client.get(f"/api/v1/matches/{match.pk}/").json()
    assert detail["status"] == "finished" and detail["sides"][0]["name"] == "g1"
    replay = anon_client.get(f"/api/v1/matches/{match.pk}/replay/").json()
    assert validate_replay(replay) == []
    assert replay["result"]["score"] == detail["score"]
    assert replay["seed"] == detail["seed"]


def test_an_unfinished_match_has_no_replay(anon_client, ladder, make_builtin):
    match = services.match_create(versions=[make_builtin("x"), make_builtin("y")],
                                  kind="ladder", conditions=ladder, ladder=ladder)
    response = anon_client.get(f"/api/v1/matches/{match.pk}/replay/")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_a_bots_stderr_is_shown_only_to_its_owner_and_staff(clients, played, house):
    match = played["matches"][0]
    for who in ("anon", "other", "owner"):  # g1 and g2 belong to the house user
        body = clients[who].get(f"/api/v1/matches/{match.pk}/").json()
        assert [s["stderr"] for s in body["sides"]] == [None, None]
    staff = clients["staff"].get(f"/api/v1/matches/{match.pk}/").json()
    assert [s["stderr"] for s in staff["sides"]] == ["g1 thinking", "g2 log"]
    author = APIClient()
    author.credentials(HTTP_AUTHORIZATION=f"Token {user_token(user=house).key}")
    mine = author.get(f"/api/v1/matches/{match.pk}/").json()
    assert [s["stderr"] for s in mine["sides"]] == ["g1 thinking", "g2 log"]


def test_replays_export_as_json_lines_filtered_by_bot_and_date(anon_client, played):
    g1 = played["g1"]
    response = anon_client.get(f"/api/v1/replays/export/?bot={g1.bot_id}")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert len(lines) == 3
    assert all(validate_replay(json.loads(line)) == [] for line in lines)
    tomorrow = (timezone.now() + timedelta(days=1)).date().isoformat()
    later = anon_client.get(f"/api/v1/replays/export/?since={tomorrow}")
    assert b"".join(later.streaming_content) == b""


def test_the_export_command_writes_the_same_lines(played, tmp_path):
    out = tmp_path / "replays.jsonl"
    call_command("export_replays", "--bot", "g1", "--opponent", "g2", "-o", str(out),
                 stderr=io.StringIO())
    lines = out.read_text().splitlines()
    assert len(lines) == 3
    assert {json.loads(line)["seed"] for line in lines} == {
        m.seed for m in Match.objects.filter(pk__in=[m.pk for m in played["matches"]])}


def test_staff_create_a_tournament_that_runs_to_a_final_ranking(clients, make_builtin,
                                                                 play_queued):
    bots = [make_builtin(f"t{i}", "builtin:random" if i % 2 else "builtin:greedy")
            for i in range(3)]
    request = {"name": "cup", "format": "round_robin", "bots": [v.bot_id for v in bots]}
    assert clients["anon"].post("/api/v1/tournaments/", request).status_code in (401, 403)
    assert clients["owner"].post("/api/v1/tournaments/", request).status_code == 403
    created = clients["staff"].post("/api/v1/tournaments/", request)
    assert created.status_code == 201
    assert created.json()["progress"] == {"done": 0, "total": 3}
    play_queued()
    body = clients["anon"].get(f"/api/v1/tournaments/{created.json()['id']}/").json()
    assert body["status"] == "finished" and body["progress"] == {"done": 3, "total": 3}
    assert [row["final_rank"] for row in body["standings"]] == [1, 2, 3]


def test_a_tournament_with_a_bot_without_active_version_is_refused(clients, make_builtin):
    v = make_builtin("solo")
    response = clients["staff"].post("/api/v1/tournaments/",
                                     {"name": "x", "format": "swiss", "bots": [v.bot_id, 99999]})
    assert response.status_code == 400 and "99999" in response.json()["detail"]


def test_an_author_challenges_any_bot_until_the_hourly_limit(clients, make_builtin, make_program,
                                                             owner, settings, db):
    settings.KAISER_CHALLENGES_PER_HOUR = 1
    Ladder.objects.get_or_create(slug="main", defaults={"name": "Main"})
    mine = make_program("mine2", b"print('x')\n", owner=owner)
    target = make_builtin("target")
    request = {"bot": mine.bot_id, "opponent": target.bot_id, "rated": True}
    created = clients["owner"].post("/api/v1/challenges/", request)
    assert created.status_code == 201
    assert created.json()["kind"] == "challenge" and created.json()["ladder"] == "main"
    limited = clients["owner"].post("/api/v1/challenges/", request)
    assert limited.status_code == 429 and "at most 1 challenges" in limited.json()["detail"]
    assert clients["other"].post("/api/v1/challenges/", request).status_code == 400
    assert clients["anon"].post("/api/v1/challenges/", request).status_code in (401, 403)


def _tournament_of_five(clients, make_builtin, play_queued, form: str, programs: list[str]):
    """A tournament of five built-in bots made through the API (`form`: its format, or
    "knockout-running" for a knockout left unplayed), played to its end otherwise."""
    from tournaments.models import Tournament

    bots = [make_builtin(f"t{i}", programs[i % len(programs)]) for i in range(5)]
    request = {"name": form, "format": form.split("-")[0], "bots": [v.bot_id for v in bots],
               "rounds": 2}
    created = clients["staff"].post("/api/v1/tournaments/", request)
    assert created.status_code == 201, created.json()
    if form != "knockout-running":
        play_queued()
    return Tournament.objects.get(pk=created.json()["id"])


@pytest.mark.parametrize("form", ["round_robin", "swiss", "knockout", "knockout-running"])
def test_the_standings_answer_is_what_the_standing_serializer_gives(
        clients, make_builtin, play_queued, form):
    """The tournament's standings are built without DRF's per-field machinery
    (tournaments.api.standings_data): the same dicts as StandingSerializer, the schema's, for
    finished and running tournaments (nulls, floats, a withdrawn bot's flag)."""
    from tournaments import selectors
    from tournaments.api import StandingSerializer, standings_data

    tournament = _tournament_of_five(clients, make_builtin, play_queued, form,
                                     ["builtin:greedy", "builtin:random"])
    rows = selectors.tournament_table(tournament=tournament)
    expected = StandingSerializer(rows, many=True).data
    assert standings_data(rows) == expected
    assert [type(v) for row in standings_data(rows) for v in row.values()] == \
        [type(v) for row in expected for v in row.values()]
    body = clients["anon"].get(f"/api/v1/tournaments/{tournament.pk}/").json()
    assert len(body["standings"]) == 5 and set(body["standings"][0]) == set(expected[0])


@pytest.mark.parametrize("form", ["swiss", "knockout-running"])
def test_the_tournament_read_is_what_the_orm_reads(clients, make_builtin, play_queued, form):
    """tournaments.selectors.tournament_read reads the page's rows in plain SQL: the same
    entrants (a withdrawn one's flag), matches with their sides (MatchSide rows, their
    points) and byes, in the same order, as the ORM reads them."""
    from django.utils import timezone

    from matches.models import MatchSide
    from tournaments import selectors

    # Five, an odd number: a bot sits each Swiss round out, and the knockout has byes.
    tournament = _tournament_of_five(clients, make_builtin, play_queued, form, ["builtin:random"])
    tournament.entrants.filter(seed=2).update(withdrawn=timezone.now())
    first = tournament.matches.order_by("id").first()
    MatchSide.objects.filter(match=first, order=0).update(points=1.5)

    read = selectors.tournament_read(tournament=tournament)
    assert [(r.version_id, r.name, r.bot_id, r.version_number, r.seed, r.eliminated_round,
             r.final_rank, r.withdrawn) for r in read.entrants] == [
        (e["version_id"], e["version__bot__name"], e["version__bot_id"], e["version__number"],
         e["seed"], e["eliminated_round"], e["final_rank"], e["withdrawn"] is not None)
        for e in tournament.entrants.values(
            "version_id", "version__bot__name", "version__bot_id", "version__number", "seed",
            "eliminated_round", "final_rank", "withdrawn")]
    assert [r.withdrawn for r in read.entrants] == [False, True, False, False, False]
    assert [(m.id, m.round, m.position, m.status, m.score,
             [(s.version_id, s.games, s.points, s.fault) for s in m.sides])
            for m in read.matches] == [
        (m.pk, m.round, m.position, m.status, m.score,
         list(m.sides.order_by("order").values_list("version_id", "games", "points", "fault")))
        for m in tournament.matches.order_by("round", "position", "id")]
    assert next(m for m in read.matches if m.id == first.pk).sides[0].points == 1.5
    assert read.byes == list(tournament.byes.order_by("round", "position", "id")
                             .values_list("round", "position", "version_id"))
    assert read.byes, "five entrants: someone sits a round out"
