"""A walkover is a result of its own (issue 42): matches.services.match_walkover scores a
queued match that will never be played, the sides still in sharing it and those who left
getting nothing and their fault, on their MatchSide rows; and migration 0016 turns the
walkovers stored before as void matches into walkovers, and back."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest
from django.apps import apps as django_apps

from ladder.models import Ladder
from matches import services
from matches.models import Match, MatchSide
from tournaments.models import Tournament

MIGRATION = importlib.import_module("matches.migrations.0016_match_walkover")


def _sides(match: Match) -> list[tuple[int, float | None, str]]:
    return list(MatchSide.objects.filter(match=match).order_by("order").values_list(
        "version_id", "points", "fault"))


@pytest.mark.django_db
def test_the_side_left_in_wins_a_walkover_and_it_is_scored_once(
        make_builtin: Callable[..., Any]) -> None:
    a, b = make_builtin("stays"), make_builtin("leaves")
    ladder = Ladder.objects.create(name="W", slug="w", games_per_match=2)
    match = services.match_create(versions=[a, b], kind="tournament", conditions=ladder)
    assert services.match_walkover(match_id=match.pk, withdrawn={b.pk})
    match.refresh_from_db()
    assert (match.status, match.score) == (Match.Status.WALKOVER, 1.0)
    assert match.finished is not None and not match.replay_key
    assert _sides(match) == [(a.pk, 2.0, ""), (b.pk, 0.0, "withdrawn")]
    # Scored once: a walkover is no longer queued, and a match with no side gone is no walkover.
    assert not services.match_walkover(match_id=match.pk, withdrawn={a.pk})
    other = services.match_create(versions=[a, b], kind="tournament", conditions=ladder)
    assert not services.match_walkover(match_id=other.pk, withdrawn={999_999})
    assert Match.objects.get(pk=other.pk).status == Match.Status.QUEUED
    assert Match.Status.WALKOVER in services.DONE


@pytest.mark.django_db
def test_three_sides_share_a_walkover_among_those_left_or_all_if_all_left(
        make_sm_builtin: Callable[..., Any]) -> None:
    x, y, z = (make_sm_builtin(n) for n in ("sm-x", "sm-y", "sm-z"))
    ladder = Ladder.objects.create(name="S", slug="s", game="sergeant-major", rules="952",
                                   games_per_match=3)
    one = services.match_create(versions=[x, y, z], kind="tournament", conditions=ladder)
    assert services.match_walkover(match_id=one.pk, withdrawn={x.pk}, reason="retired")
    assert _sides(one) == [(x.pk, 0.0, "retired"), (y.pk, 1.5, ""), (z.pk, 1.5, "")]
    assert Match.objects.get(pk=one.pk).score == 0.0
    every = services.match_create(versions=[x, y, z], kind="tournament", conditions=ladder)
    assert services.match_walkover(match_id=every.pk, withdrawn={x.pk, y.pk, z.pk})
    assert [p for _, p, _ in _sides(every)] == [1.0, 1.0, 1.0]
    assert {f for _, _, f in _sides(every)} == {"withdrawn"}


@pytest.mark.django_db
def test_migration_0016_turns_void_walkovers_into_walkovers_and_back(
        make_builtin: Callable[..., Any]) -> None:
    a, b = make_builtin("m-a"), make_builtin("m-b")
    tournament = Tournament.objects.create(name="Old", format="round_robin")
    old = services.match_create(versions=[a, b], kind="tournament", conditions=tournament,
                                tournament=tournament)
    voided = services.match_create(versions=[b, a], kind="tournament", conditions=tournament,
                                   tournament=tournament)
    Match.objects.filter(pk=old.pk).update(
        status="void", score=1.0, error="walkover: the bot was retired during the tournament")
    Match.objects.filter(pk=voided.pk).update(status="void", error="cancelled by staff")
    MIGRATION.void_to_walkover(django_apps, None)
    assert Match.objects.get(pk=old.pk).status == Match.Status.WALKOVER
    assert Match.objects.get(pk=voided.pk).status == Match.Status.VOID
    MIGRATION.walkover_to_void(django_apps, None)
    assert Match.objects.get(pk=old.pk).status == Match.Status.VOID
