"""A match's row says where it was played in people's words (issue 43: tournament matches on bot
pages read "tournament r3 unrated" without the tournament's name)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from matches import services as match_services
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def test_a_tournament_match_row_names_its_tournament_and_round(
        make_builtin: Callable[..., Any], settings: Any) -> None:
    settings.KAISER_DISPATCH_DEPTH = 0  # nothing to a broker: this test plays the match
    versions = [make_builtin(f"cup-bot-{i}", own=True) for i in range(3)]
    cup = services.tournament_create(name="Spring Cup", format=Tournament.Format.ROUND_ROBIN,
                                     versions=versions)
    match = cup.matches.order_by("round", "id").first()
    assert match is not None
    assert match_services.match_play(match_id=match.pk, worker="words-test") == "finished"
    for url in (f"/bots/{versions[0].bot_id}/", "/matches/", f"/matches/?tournament={cup.pk}"):
        page = Client().get(url).content.decode()
        rounds = re.findall(rf'<a href="/tournaments/{cup.pk}/">Spring Cup</a>, round (\d+)', page)
        assert str(match.round) in rounds or url.startswith("/bots/") and rounds, (url, rounds)
        assert "tournament</a> r" not in page, url
