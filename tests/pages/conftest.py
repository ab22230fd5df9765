"""Fixtures for the page tests: the house bots, two authors' bots with built-in versions, matches
played by the real engine through the same services the worker uses, and bulk rows for the
query-count tests."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from bots.models import Bot, BotVersion
from bots.services import bot_builtin_add
from engine.builtin import resolve_player
from engine.faults import BotFault
from engine.kaiser.match import run_match
from engine.players import Player
from ladder import services as ladder_services
from ladder.models import Ladder, LadderEntry, RatingChange
from matches import services as match_services
from matches.models import Match, MatchSide
from tests.conftest import PASSWORD
from tests.factories import games_of, sides_of
from tournaments.models import Tournament


@dataclass
class Arena:
    ladder: Ladder
    mine: BotVersion  # owned by `owner` (olivia)
    theirs: BotVersion  # owned by `other` (oscar)
    greedy: BotVersion  # the house anchor
    random: BotVersion
    matches: list[Match]


def _builtin(owner: User, name: str, spec: str) -> BotVersion:
    bot = Bot.objects.create(owner=owner, name=name, description=f"{name} plays {spec}.")
    return bot_builtin_add(bot=bot, spec=spec)


def play(a: BotVersion, b: BotVersion, *, ladder: Ladder | None = None,
         tournament: Tournament | None = None, rated: bool = True) -> Match:
    """One match created and played the way the worker plays it (built-in players)."""
    kind = Match.Kind.TOURNAMENT if tournament else Match.Kind.LADDER
    match = match_services.match_create(
        versions=[a, b], kind=kind,
        conditions=tournament or ladder,  # type: ignore[arg-type]
        ladder=ladder, tournament=tournament, rated=rated and ladder is not None)
    assert match_services.match_play(match_id=match.pk, worker="page-tests") == "finished"
    match.refresh_from_db()
    return match


class _TimesOut(Player):
    """Plays the first legal action, then misses its clock on its 12th decision."""

    trusted = False

    def __init__(self) -> None:
        self.decisions = 0

    def act(self, state: Any, legal: list[Any]) -> Any:
        self.decisions += 1
        if self.decisions >= 12:
            raise BotFault("timeout", "no reply within 1000 ms", message_id=40)
        return legal[0]


class _TimesOutFactory:
    name = "sleepy"
    version = "1"

    def __call__(self, slot: int) -> Player:
        return _TimesOut()


def play_with_fault(a: BotVersion, b: BotVersion, *, ladder: Ladder) -> Match:
    """A ladder match whose B side times out mid-deal: a real engine replay with a forfeit,
    stored through the same start/finish services as any match."""
    match = match_services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                        conditions=ladder, ladder=ladder, rated=True)
    claim = match_services.match_start(match_id=match.pk, worker="page-tests")
    assert claim is not None
    replay = run_match(resolve_player("builtin:greedy"), _TimesOutFactory(), games=2, seed="11")
    assert replay["result"]["forfeit"] is not None
    assert match_services.match_finish(match_id=match.pk, token=claim[1], replay=replay,
                                       stderr=["", "B's secret log line"])
    match.refresh_from_db()
    return match


@pytest.fixture
def arena(owner: User, other: User) -> Arena:
    random, greedy = ladder_services.house_bots_ensure()
    ladder = Ladder.objects.get(slug="main")
    mine = _builtin(owner, "olivias-bot", "builtin:greedy")
    theirs = _builtin(other, "oscars-bot", "builtin:random")
    pairs = [(mine, theirs), (theirs, mine), (mine, greedy), (random, mine), (theirs, greedy)]
    matches = [play(a, b, ladder=ladder) for a, b in pairs]
    matches.append(play_with_fault(mine, theirs, ladder=ladder))
    return Arena(ladder, mine, theirs, greedy, random, matches)


@pytest.fixture
def logged_in(owner: User) -> Client:
    client = Client()
    assert client.login(username=owner.username, password=PASSWORD)
    return client


@pytest.fixture
def bulk_rows(arena: Arena) -> Callable[[int, int], None]:
    """Add `bots` more bots on the main ladder and `matches` more finished matches (copies of a
    real one, with rating changes), straight into the tables: for the query-count tests."""

    def add(bots: int, matches: int) -> None:
        owner = User.objects.get(username="oscar")
        new = Bot.objects.bulk_create(Bot(owner=owner, name=f"bulk-{i}") for i in range(bots))
        versions = BotVersion.objects.bulk_create(
            BotVersion(bot=b, number=1, kind=BotVersion.Kind.BUILTIN, builtin="builtin:random",
                       status=BotVersion.Status.ACTIVE) for b in new)
        LadderEntry.objects.bulk_create(
            LadderEntry(ladder=arena.ladder, version=v, elo=1400 + i, games=matches)
            for i, v in enumerate(versions))
        model = arena.matches[0]
        pool = versions + [arena.mine, arena.theirs]
        pairs = itertools.islice(itertools.cycle(itertools.permutations(pool, 2)), matches)
        now = timezone.now()
        pairs = list(pairs)
        rows = Match.objects.bulk_create(Match(
            kind=Match.Kind.LADDER, ladder=arena.ladder, rated=True, seed="1",
            status=Match.Status.FINISHED, score=model.score, replay_gz=model.replay_gz,
            replay_size=model.replay_size, replay_key=model.replay_key,
            replay_sha256=model.replay_sha256, finished=now) for _ in pairs)
        MatchSide.objects.bulk_create(side for m, pair in zip(rows, pairs, strict=True)
                                      for side in sides_of(m, pair, games=games_of(model)))
        entries = {e.version_id: e for e in LadderEntry.objects.filter(ladder=arena.ladder)}
        RatingChange.objects.bulk_create(
            RatingChange(match=m, entry=entries[v.pk], before=1500, after=1500 + k % 7)
            for k, (m, pair) in enumerate(zip(rows, pairs, strict=True)) for v in pair)

    return add
