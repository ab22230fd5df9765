"""Replay retention: the beat's task drops (or archives) replays past
KAISER_REPLAY_RETENTION_DAYS; the matches, their results and every rating stay, and the pages
and the API say "replay pruned" instead of failing."""

from __future__ import annotations

import gzip
import json
import random
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from ladder import selectors
from ladder import services as ladder_services
from ladder.models import LadderEntry, RatingChange
from matches import services as match_services
from matches import tasks
from matches.models import HAS_REPLAY, Match
from matches.replay_store import replay_storage
from tests.factories import games_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(ladder, make_builtin, play_queued) -> tuple[list[Match], list[Match]]:
    """(old, recent): six finished ladder matches, four of them finished 40 days ago."""
    for name in ("north", "east", "south"):
        make_builtin(name, "builtin:random" if name == "east" else "builtin:greedy", own=True)
    for seed in range(2):
        ladder_services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(seed))
        play_queued()
    matches = list(Match.objects.filter(status=Match.Status.FINISHED).order_by("pk"))
    assert len(matches) >= 6
    old, recent = matches[:4], matches[4:]
    Match.objects.filter(pk__in=[m.pk for m in old]).update(
        finished=timezone.now() - timedelta(days=40))
    return old, recent


def _ratings() -> tuple:
    return (tuple(LadderEntry.objects.order_by("pk").values_list("elo", "games")),
            tuple(RatingChange.objects.order_by("pk").values_list("match_id", "before", "after")))


def test_retention_is_off_by_default_and_keeps_every_replay(played) -> None:
    old, recent = played
    assert tasks.replays_prune() == 0
    finished = Match.objects.filter(status=Match.Status.FINISHED)
    assert finished.filter(HAS_REPLAY).count() == finished.count()


def test_pruning_drops_old_replays_and_keeps_matches_results_and_ratings(
    played, ladder, settings, replay_archive
) -> None:
    old, recent = played
    settings.KAISER_REPLAY_RETENTION_DAYS = 30
    keys = {m.pk: m.replay_key for m in old}
    texts = {m.pk: m.replay_text() for m in old}
    results = {m.pk: (m.score, games_of(m)) for m in old}
    ratings_before = _ratings()

    assert tasks.replays_prune() == len(old)
    assert tasks.replays_prune() == 0  # nothing left to prune: a second run changes nothing

    for match in Match.objects.filter(pk__in=texts):
        assert match.status == Match.Status.FINISHED and match.replay() is None
        assert (match.score, games_of(match)) == results[match.pk]
        archived = replay_archive / f"{match.pk}.json.gz"
        assert gzip.decompress(archived.read_bytes()).decode() == texts[match.pk]
        assert match.replay_key == "" and not replay_storage().exists(keys[match.pk])
    assert all(Match.objects.get(pk=m.pk).replay() is not None for m in recent)
    assert _ratings() == ratings_before
    recomputed = selectors.ratings_recomputed(ladder=ladder)
    stored = dict(LadderEntry.objects.values_list("version_id", "elo"))
    assert {k: round(v[0], 6) for k, v in recomputed.items()} == {
        k: round(v, 6) for k, v in stored.items()}


def test_pruning_without_an_archive_folder_just_drops(played, settings, tmp_path) -> None:
    old, _ = played
    settings.KAISER_REPLAY_RETENTION_DAYS = 30
    assert match_services.replays_prune() == len(old)
    assert Match.objects.exclude(HAS_REPLAY).count() == len(old)
    assert not any(tmp_path.iterdir())
    assert all(not replay_storage().exists(m.replay_key) for m in old)


def test_the_pages_and_the_api_of_a_pruned_match_say_so(played, settings) -> None:
    old, recent = played
    settings.KAISER_REPLAY_RETENTION_DAYS = 30
    match_services.replays_prune()
    client = Client()
    page = client.get(f"/matches/{old[0].pk}/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "Replay pruned: this site keeps the replays of the last 30 days" in body
    assert "Download the replay" not in body and 'id="viewer"' not in body
    assert " – ".join(map(str, games_of(old[0]))) in body  # the result still shows
    kept = client.get(f"/matches/{recent[0].pk}/").content.decode()
    assert 'id="viewer"' in kept and "Replay pruned" not in kept

    detail = client.get(f"/api/v1/matches/{old[0].pk}/")
    assert detail.status_code == 200 and detail.json()["score"] == old[0].score
    gone = client.get(f"/api/v1/matches/{old[0].pk}/replay/")
    assert gone.status_code == 410
    assert gone.json()["code"] == "replay_pruned"
    assert gone.json()["detail"].startswith("replay pruned")
    assert client.get(f"/api/v1/matches/{recent[0].pk}/replay/").status_code == 200

    export = client.get("/api/v1/replays/export/")
    assert export.status_code == 200
    lines = b"".join(export.streaming_content).decode().splitlines()
    assert len(lines) == len(recent)  # only the replays still kept
    assert all(json.loads(line)["result"] for line in lines)
    for url in ("/", "/matches/", f"/bots/{old[0].side_list[0].version.bot_id}/"):
        assert client.get(url).status_code == 200, url
