"""Each tournament format end to end with built-in bots: odd numbers of entrants, byes, and
a sandboxed bot program that forfeits every game it plays."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from matches import services as match_services
from matches.models import Match
from tests.tournaments import sides
from tournaments import selectors, services
from tournaments.models import Tournament, TournamentBye

pytestmark = pytest.mark.sandbox
CRASHING_BOT = b"import sys\nsys.exit(3)\n"


@pytest.fixture
def field(make_builtin, make_program):
    """Four built-in bots and one that crashes at hello (so every game it plays is lost)."""
    bots = [make_builtin("greedy-a"), make_builtin("greedy-b"),
            make_builtin("random-a", "builtin:random"), make_builtin("random-b", "builtin:random")]
    crasher = make_program("crasher", CRASHING_BOT)
    return [*bots, crasher]


def _finished(t: Tournament) -> Tournament:
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    assert t.finished is not None
    return t


def _ranking(t: Tournament) -> list[str]:
    return [e.version.bot.name for e in t.entrants.order_by("final_rank")]


def test_round_robin_of_five_plays_every_pair_twice_and_ranks_the_forfeiter_last(
    field, play_queued
):
    t = services.tournament_create(name="rr", format="round_robin", versions=field, rounds=2)
    assert selectors.tournament_progress(tournament=t) == {"done": 0, "total": 20}
    play_queued()
    t = _finished(t)
    pairs = Counter(frozenset(sides.versions(m)) for m in t.matches.all())
    assert pairs == {frozenset((a.pk, b.pk)): 2 for a, b in combinations(field, 2)}
    assert selectors.tournament_progress(tournament=t) == {"done": 20, "total": 20}
    crasher = field[-1]
    crashed = t.matches.filter(sides__version=crasher)
    assert crashed.count() == 8
    assert all(sides.by_version(m)[crasher.pk].fault for m in crashed)
    table = selectors.tournament_table(tournament=t)
    assert table[-1].version_id == crasher.pk and table[-1].points == 0
    assert _ranking(t)[-1] == "crasher"
    assert sum(r.points for r in table) == 20  # one point per match, shared on a draw


def test_swiss_of_five_has_no_rematches_and_a_different_bye_each_round(field, play_queued):
    t = services.tournament_create(name="swiss", format="swiss", versions=field, rounds=3)
    play_queued()
    t = _finished(t)
    assert t.current_round == 3
    matches = list(t.matches.all())
    assert len(matches) == 6  # two matches a round, one entrant sits out
    assert len({frozenset(sides.versions(m)) for m in matches}) == 6
    byes = list(TournamentBye.objects.filter(tournament=t).values_list("version_id", flat=True))
    assert len(byes) == 3 and len(set(byes)) == 3
    table = selectors.tournament_table(tournament=t)
    assert [r.played + r.byes for r in table] == [3] * 5
    assert _ranking(t)[-1] == "crasher" or table[-1].points == 1  # the crasher scores byes only
    crasher_row = next(r for r in table if r.version_id == field[-1].pk)
    assert crasher_row.wins == 0 and crasher_row.points == crasher_row.byes


def test_knockout_of_five_gives_the_top_seeds_byes_and_crowns_one_champion(field, play_queued):
    t = services.tournament_create(name="ko", format="knockout", versions=field)
    first_round = TournamentBye.objects.filter(tournament=t, round=1)
    assert sorted(e.seed for e in t.entrants.filter(
        version_id__in=first_round.values("version_id"))) == [1, 2, 3]
    assert t.matches.filter(round=1).count() == 1  # seed 4 against seed 5, the crasher
    play_queued()
    t = _finished(t)
    assert t.matches.count() == 4  # n - 1 matches knock out n - 1 entrants
    assert selectors.tournament_progress(tournament=t) == {"done": 4, "total": 4}
    entrants = list(t.entrants.order_by("final_rank"))
    champion = entrants[0]
    assert champion.eliminated_round is None
    assert [e.eliminated_round for e in entrants[1:]].count(None) == 0
    assert entrants[-1].version.bot.name == "crasher"  # out in round one
    final = t.matches.get(round=3)
    assert champion.version_id in sides.versions(final)


def test_knockout_of_two_is_a_single_final(make_builtin, play_queued):
    a, b = make_builtin("one"), make_builtin("two", "builtin:random")
    t = services.tournament_create(name="final", format="knockout", versions=[a, b])
    play_queued()
    t = _finished(t)
    assert t.matches.count() == 1 and not t.byes.exists()
    assert sorted(t.entrants.values_list("final_rank", flat=True)) == [1, 2]


def test_a_void_match_counts_as_a_draw_and_the_tournament_still_ends(make_builtin, play_queued):
    versions = [make_builtin(f"v{i}") for i in range(3)]
    t = services.tournament_create(name="void", format="round_robin", versions=versions)
    first = t.matches.order_by("id").first()
    assert match_services.match_void(match=first, reason="cancelled by staff")
    play_queued()
    t = _finished(t)
    assert Match.objects.get(pk=first.pk).status == Match.Status.VOID
    assert sum(r.points for r in selectors.tournament_table(tournament=t)) == 3


def test_a_tournament_needs_two_distinct_bots(make_builtin):
    from django.core.exceptions import ValidationError

    v = make_builtin("lonely")
    with pytest.raises(ValidationError, match="at least two"):
        services.tournament_create(name="x", format="swiss", versions=[v])
