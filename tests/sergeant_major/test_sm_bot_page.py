"""A Sergeant Major bot's page: its head to head counts each match as two pairwise meetings
(the bot's share of the two players' points, as the ratings count it), whichever side it
played, and a match it played as C shows on its page at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from ladder import services as ladder_services
from ladder.models import Ladder
from matches import selectors as match_selectors
from matches.models import Match
from tests.factories import match_make

pytestmark = pytest.mark.django_db


def _finished(ladder: Ladder, a: Any, b: Any, c: Any, points: dict[str, float]) -> Match:
    """A finished match with these points (its sides as match_finish writes them; the
    engine's own results are tested in test_sm_matches)."""
    return match_make(
        versions=[a, b, c], kind=Match.Kind.LADDER, ladder=ladder, game="sergeant-major",
        rules=ladder.rules, games_per_match=3, seed="h2h", status=Match.Status.FINISHED,
        score=points["A"] / 3, points=[points[s] for s in "ABC"],
        games=[int(points[s]) for s in "ABC"])


def test_head_to_head_of_three_counts_pairwise_shares_from_every_side(
        make_sm_builtin: Callable[..., Any]) -> None:
    ladder = ladder_services.game_ladder_ensure("sergeant-major")
    me, x, y = (make_sm_builtin(n, "builtin:random") for n in ("me", "xavier", "yolanda"))
    _finished(ladder, me, x, y, {"A": 2.0, "B": 1.0, "C": 0.0})  # me first
    _finished(ladder, x, y, me, {"A": 1.5, "B": 1.5, "C": 0.0})  # me as C, no points
    _finished(ladder, y, me, x, {"A": 1.0, "B": 1.0, "C": 1.0})  # all equal

    rows, total = match_selectors.head_to_head_records(
        version_ids=[me.pk], limit=10, game="sergeant-major")
    assert total == 2
    by_name = {row["name"]: row for row in rows}
    assert by_name["xavier"]["matches"] == 3
    # Against xavier: 2 v 1 (a win, share 2/3), 0 v 1.5 (a loss, 0), 1 v 1 (a draw, 1/2).
    assert (by_name["xavier"]["wins"], by_name["xavier"]["draws"],
            by_name["xavier"]["losses"]) == (1, 1, 1)
    assert by_name["xavier"]["share"] == pytest.approx((2 / 3 + 0 + 0.5) / 3)
    # Against yolanda: 2 v 0 (a win, 1), 0 v 1.5 (a loss), 1 v 1 (a draw).
    assert by_name["yolanda"]["share"] == pytest.approx((1 + 0 + 0.5) / 3)


def test_a_match_played_as_c_shows_on_the_bot_page_at_once(
        make_sm_builtin: Callable[..., Any], other: Any) -> None:
    """Signed in, so no shared copy of the page answers: what is checked is the bot page's own
    fragment cache, whose key must change with a match the bot played as C."""
    ladder = ladder_services.game_ladder_ensure("sergeant-major")
    me, x, y = (make_sm_builtin(n, "builtin:random") for n in ("me", "xavier", "yolanda"))
    client = Client()
    client.force_login(other)
    page = client.get(f"/bots/{me.bot_id}/").content.decode()
    assert "xavier" not in page
    match = _finished(ladder, x, y, me, {"A": 1.0, "B": 0.0, "C": 2.0})
    page = client.get(f"/bots/{me.bot_id}/").content.decode()
    assert f"/matches/{match.pk}/" in page
    assert "xavier" in page and "yolanda" in page


def test_the_bot_page_shows_the_statistics_of_its_game(
        make_sm_builtin: Callable[..., Any]) -> None:
    """A played match's statistics, folded: hands, targets made, tricks and ups a hand, beside
    all Sergeant Major bots; none of Kaiser's contracts or deals."""
    from matches import services
    from matches.stats import play_stats_fold, version_stats

    ladder = ladder_services.game_ladder_ensure("sergeant-major")
    me, x, y = (make_sm_builtin(n, s) for n, s in (("me", "builtin:greedy"),
                                                    ("xavier", "builtin:random"),
                                                    ("yolanda", "builtin:random")))
    match = services.match_create(versions=[me, x, y],
                                  kind=Match.Kind.LADDER, conditions=ladder, ladder=ladder)
    assert services.match_play(match_id=match.pk, worker="test") == "finished"
    assert play_stats_fold() == 1
    mine = version_stats(version_id=me.pk)
    assert mine is not None and mine["hands"] == 18
    page = Client().get(f"/bots/{me.bot_id}/").content.decode()
    section = page[page.index('id="play-stats"'):]
    assert "Targets made" in section and "Ups a hand" in section
    assert "Contracts held" not in section and "5♥" not in section
    made = f"{100 * mine['targets_made'] / mine['hands']:.0f}%"
    assert f'data-stat="targets">{made}<' in section
    assert f'data-stat="tricks">{mine["tricks"] / mine["hands"]:.2f}<' in section
