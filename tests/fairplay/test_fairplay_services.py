"""fairplay.services on real recorded times: the repository's signalling pair
(tests/engine/fairplay/think_time.py, a zip as an author uploads it) plays two ladder matches
in the sandbox against the greedy example, through matches.services.match_play, so each
decision's times are the worker's own, kept beside the replay. The check flags the pair and
passes the honest bot; it writes nothing when a version has no new match (the beat's task may
run twice); times that do not fit the replay give a check that says so, not a verdict; built-in
players, which keep no times, are never checked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bots.models import BotVersion
from engine.clock import DecisionTime
from fairplay import services
from fairplay.models import FairPlayCheck
from fairplay.selectors import spread_bits
from ladder.models import Ladder
from matches import services as match_services
from matches.models import Match
from matches.times_store import match_times, times_encode, times_put
from tests.fairplay.test_fairplay_stack import GREEDY, pair_zip

pytestmark = [pytest.mark.django_db, pytest.mark.timeout(600)]


@pytest.fixture
def played(make_program: Callable[..., Any], django_user_model: Any
           ) -> tuple[BotVersion, BotVersion, list[Match]]:
    """The pair and the greedy example, two ladder matches played (sides swapped)."""
    pair = make_program("pair", pair_zip(), owner=django_user_model.objects.create_user("p"),
                        kind=BotVersion.Kind.ZIP)
    honest = make_program("greedy", GREEDY.read_bytes(),
                          owner=django_user_model.objects.create_user("g"),
                          kind=BotVersion.Kind.ZIP)
    ladder = Ladder.objects.create(name="Fair", slug="fair", games_per_match=2)
    matches = []
    for a, b in ((pair, honest), (honest, pair)):
        match = match_services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                            conditions=ladder, ladder=ladder, rated=True)
        assert match_services.match_play(match_id=match.pk, worker="test") == "finished"
        matches.append(Match.objects.get(pk=match.pk))
    return pair, honest, matches


@pytest.mark.sandbox
def test_the_pair_is_flagged_and_the_honest_bot_passes_once_until_new_matches(
        played: tuple[BotVersion, BotVersion, list[Match]]) -> None:
    pair, honest, matches = played

    assert services.fairplay_check_recent() == 2  # the beat's run: both versions
    flagged = FairPlayCheck.objects.get(version=pair)
    passed = FairPlayCheck.objects.get(version=honest)

    newest_first = [m.pk for m in reversed(matches)]
    assert flagged.flagged and flagged.figures["flagged"], flagged.figures
    assert flagged.bits is not None and flagged.bits >= spread_bits()
    assert flagged.figures["reasons"] and flagged.match_ids == newest_first
    assert not passed.flagged and not passed.error, (passed.figures["reasons"], passed.figures)
    assert passed.bits is not None and passed.bits < spread_bits()
    assert passed.matches == 2 and passed.figures["decisions"] > 200
    # Nothing new: the version and the beat's run write nothing more.
    assert services.fairplay_check_version(version_id=pair.pk) is None
    assert services.fairplay_check_recent() == 0
    assert FairPlayCheck.objects.count() == 2

    # Times that do not fit their replay (a side's list cut short) give no verdict, but a
    # check that says why.
    newest = matches[-1]
    times = match_times(newest)
    assert times is not None
    cut = {side: [DecisionTime(i, c, w, None) for i, (c, w) in enumerate(
        zip(clock.counted_ms, clock.wall_ms, strict=True))][:-5]
        for side, clock in times.items()}
    stored = times_put(match_id=newest.pk, blob=times_encode(cut) or b"")
    Match.objects.filter(pk=newest.pk).update(times_key=stored.key, times_sha256=stored.sha256)
    broken = services.fairplay_check_version(version_id=pair.pk, matches=1)
    assert broken is not None and broken.error and not broken.flagged
    assert broken.match_ids == [newest.pk]


def test_built_in_players_and_matches_without_times_are_not_checked(
        make_builtin: Callable[..., Any]) -> None:
    ladder = Ladder.objects.create(name="Built-in", slug="built-in", games_per_match=2)
    a, b = make_builtin("b-greedy", own=True), make_builtin("b-random", "builtin:random",
                                                           own=True)
    match = match_services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                        conditions=ladder, ladder=ladder, rated=True)
    assert match_services.match_play(match_id=match.pk, worker="test") == "finished"

    assert Match.objects.get(pk=match.pk).times_key == ""
    assert services.fairplay_check_recent() == 0
    assert services.fairplay_check_version(version_id=a.pk) is None
    assert not FairPlayCheck.objects.exists()
