"""Tournaments of Sergeant Major on the site: the game checked on entry, and each format run
to a winner through the real match service (built-in players), with the standings, the
crosstable, the bracket and the API showing three players a match."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from matches.models import Match
from tests.tournaments import sides
from tournaments import selectors, services
from tournaments.models import Tournament, TournamentBye

SM = {"game": "sergeant-major", "rules": "952-six-hands", "games_per_match": 3}


@pytest.fixture
def sm_bot(make_sm_builtin: Any) -> Any:
    def make(name: str, spec: str = "builtin:greedy") -> Any:
        return make_sm_builtin(name, spec, own=False)
    return make


@pytest.fixture
def field(sm_bot: Any) -> list[Any]:
    """Two greedy players, best seeds, and three random ones."""
    return [sm_bot("greedy-1"), sm_bot("greedy-2"), sm_bot("random-1", "builtin:random"),
            sm_bot("random-2", "builtin:random"), sm_bot("random-3", "builtin:random")]


def _finished(t: Tournament) -> Tournament:
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    return t


def _shares(match: Match) -> dict[int, float]:
    points = {side.version_id: side.points for side in sides.sides(match)}
    total = sum(points.values())
    return {v: p / total for v, p in points.items()}


def test_a_kaiser_bot_cannot_enter_a_sergeant_major_tournament(field, make_builtin, clients):
    kaiser = make_builtin("kaiser-bot")
    with pytest.raises(ValidationError) as refused:
        services.tournament_create(name="x", format="swiss", versions=[*field[:2], kaiser], **SM)
    assert ("kaiser-bot plays Kaiser, but this is a Sergeant Major (9-5-2) tournament"
            in str(refused.value))
    response = clients["staff"].post("/api/v1/tournaments/", {
        "name": "x", "format": "swiss", "game": "sergeant-major",
        "bots": [field[0].bot_id, field[1].bot_id, kaiser.bot_id]}, format="json")
    assert response.status_code == 400 and "plays Kaiser" in response.content.decode()
    assert not Tournament.objects.exists()


def test_sergeant_major_conditions_and_field_size_are_checked(field, clients):
    with pytest.raises(ValidationError) as refused:
        services.tournament_create(name="x", format="swiss", versions=field[:2], **SM)
    assert "at least three entrants" in str(refused.value)
    response = clients["staff"].post("/api/v1/tournaments/", {
        "name": "x", "format": "swiss", "game": "sergeant-major", "games_per_match": 4,
        "bots": [v.bot_id for v in field]}, format="json")
    assert response.status_code == 400
    assert "whole sets of 3 games" in str(response.json()), response.json()
    response = clients["staff"].post("/api/v1/tournaments/", {
        "name": "x", "format": "swiss", "game": "sergeant-major", "rules": "official",
        "bots": [v.bot_id for v in field]}, format="json")
    assert response.status_code == 400
    assert "not a Sergeant Major (9-5-2) preset" in str(response.json())


def test_the_staff_form_makes_a_sergeant_major_tournament(field, staff):
    browser = Client()
    browser.force_login(staff)
    data = {"name": "Nine-five-two cup", "format": "swiss", "game": "sergeant-major",
            "rounds": 2, "rules": "952", "games_per_match": 2, "move_ms": 1000,
            "bank_ms": 10000, "seeding": "hand", "entry": "chosen",
            "entrants": "\n".join(v.bot.name for v in field), "entry_deadline": ""}
    page = browser.post("/tournaments/new/", data)
    assert "A multiple of 3 games" in page.content.decode()
    page = browser.post("/tournaments/new/", {**data, "games_per_match": 3})
    t = Tournament.objects.get()
    assert page.status_code == 302 and (t.game, t.games_per_match) == ("sergeant-major", 3)
    assert all(len(sides.versions(m)) == 3 for m in t.matches.all()) and t.matches.count() == 1


def test_round_robin_of_five_every_pair_meets_equally_and_greedy_wins(field, play_queued,
                                                                       anon_client):
    t = services.tournament_create(name="rr", format="round_robin", versions=field, **SM)
    assert selectors.tournament_progress(tournament=t) == {"done": 0, "total": 10}
    play_queued()
    t = _finished(t)
    matches = list(t.matches.all())
    assert all(m.status == Match.Status.FINISHED and m.game == "sergeant-major"
               for m in matches)
    pairs = Counter(frozenset(p) for m in matches for p in combinations(sides.versions(m), 2))
    assert pairs == {frozenset((a.pk, b.pk)): 3 for a, b in combinations(field, 2)}
    # Standings: each match gives each side its share of the points.
    expected = Counter()
    for m in matches:
        expected.update(_shares(m))
    table = selectors.tournament_table(tournament=t)
    # The table rounds points to 6 decimals (tournaments.selectors): up to 5e-7 off the exact
    # shares, more than approx's relative 1e-6 of a share like 1/6.
    assert {r.version_id: r.points for r in table} == pytest.approx(dict(expected), abs=1e-6)
    assert sum(r.points for r in table) == pytest.approx(len(matches))
    assert [r.points for r in table] == sorted((r.points for r in table), reverse=True)
    assert table[0].name.startswith("greedy")
    assert [e.version.bot.name for e in t.entrants.order_by("final_rank")][0] == table[0].name
    # The page: crosstable pairwise, standings, each match with its three players.
    page = anon_client.get(f"/tournaments/{t.pk}/").content.decode()
    assert 'id="crosstable"' in page and 'id="standings"' in page and "1st" in page
    for m in matches[:3]:
        assert all(f'data-version="{v}"' in page for v in sides.versions(m))
        a, b, _ = (side.points for side in sides.sides(m))
        assert f'data-match="{m.pk}">{a:g}–{b:g}</a>' in page
    results = anon_client.get(f"/api/v1/tournaments/{t.pk}/results/").json()
    assert results["tournament"]["game"] == "sergeant-major"
    assert all([s["side"] for s in row["sides"]] == ["A", "B", "C"]
               and all(s["points"] is not None for s in row["sides"])
               for row in results["matches"])
    assert results["tournament"]["champion"] == table[0].name


def test_swiss_of_five_two_byes_a_round_worth_two_thirds_and_no_repeated_triple(
        field, play_queued):
    t = services.tournament_create(name="sw", format="swiss", versions=field, rounds=3, **SM)
    play_queued()
    t = _finished(t)
    matches = list(t.matches.all())
    assert len(matches) == 3 and len({frozenset(sides.versions(m)) for m in matches}) == 3
    byes = Counter(TournamentBye.objects.filter(tournament=t).values_list("round", flat=True))
    assert byes == {1: 2, 2: 2, 3: 2}
    table = selectors.tournament_table(tournament=t)
    assert [r.played + r.byes for r in table] == [3] * 5
    for row in table:
        shares = sum(_shares(m).get(row.version_id, 0.0) for m in matches)
        assert row.points == pytest.approx(shares + row.byes * 2 / 3)


def test_knockout_of_five_byes_to_the_top_seeds_and_the_group_winner_goes_through(
        field, play_queued, anon_client):
    t = services.tournament_create(name="ko", format="knockout", versions=field, **SM)
    first = TournamentBye.objects.filter(tournament=t, round=1)
    assert sorted(first.values_list("version_id", flat=True)) == [field[0].pk, field[1].pk]
    group = t.matches.get(round=1)
    assert set(sides.versions(group)) == {v.pk for v in field[2:]}
    play_queued()
    t = _finished(t)
    group.refresh_from_db()
    shares = _shares(group)
    out = set(t.entrants.filter(eliminated_round=1).values_list("version_id", flat=True))
    through = set(sides.versions(group)) - out
    assert len(out) == 2 and len(through) == 1
    assert shares[through.pop()] == max(shares.values())
    final = t.matches.get(round=2)
    champion = t.entrants.get(final_rank=1)
    assert champion.eliminated_round is None and champion.version_id in sides.versions(final)
    assert max(_shares(final).items(), key=lambda kv: kv[1])[1] == _shares(final)[
        champion.version_id]
    page = anon_client.get(f"/tournaments/{t.pk}/").content.decode()
    assert 'id="bracket"' in page and "Final" in page and 'id="winner"' in page
    assert page.count('class="bout bye"') == 2
