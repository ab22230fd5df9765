"""The replay store: a finished match's replay is an object in Django's storage "replays" (a
folder, or an S3-compatible server), the row keeps its key and SHA-256, and the replay API,
the match page and the export serve it from there, checked against that hash."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from engine.faults import InfrastructureError
from engine.validate import validate_replay
from matches import services
from matches.models import Match, MatchAttempt
from matches.replay_store import ReplayUnavailable, replay_gzip, replay_put, replay_storage
from tests.factories import games_of

pytestmark = pytest.mark.django_db


def _served(client: Client, match: Match) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The replay as the API serves it, and the export's lines."""
    api = client.get(f"/api/v1/matches/{match.pk}/replay/")
    assert api.status_code == 200, api.content
    export = client.get("/api/v1/replays/export/")
    assert export.status_code == 200
    lines = b"".join(export.streaming_content).decode().splitlines()
    return api.json(), [json.loads(line) for line in lines]


def test_a_finished_match_keeps_its_replay_in_the_store_and_its_key_and_hash_in_the_row(
    play_match: Callable[[], Match], _replay_store: Path,
) -> None:
    match = play_match()

    assert match.replay_gz is None and match.replay_key and len(match.replay_sha256) == 64
    stored = (_replay_store / match.replay_key).read_bytes()
    assert hashlib.sha256(stored).hexdigest() == match.replay_sha256
    replay = json.loads(gzip.decompress(stored))
    assert validate_replay(replay) == []
    assert match.replay() == replay and match.replay_size == len(gzip.decompress(stored))
    assert games_of(match) == [replay["result"]["games"]["A"], replay["result"]["games"]["B"]]

    served, exported = _served(Client(), match)
    assert served["result"] == replay["result"] and exported == [served]
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert 'id="viewer"' in page and "Replay pruned" not in page


def test_a_replay_still_in_its_row_is_served_as_before(
    play_match: Callable[[], Match],
) -> None:
    match = play_match()
    blob = match.replay_stored()
    Match.objects.filter(pk=match.pk).update(replay_gz=blob, replay_key="", replay_sha256="")

    served, exported = _served(Client(), match)
    assert served == json.loads(gzip.decompress(blob)) and exported == [served]


def test_a_damaged_or_missing_object_is_refused_not_served(
    play_match: Callable[[], Match], _replay_store: Path,
) -> None:
    damaged, missing, good = play_match(), play_match(), play_match()
    path = _replay_store / damaged.replay_key
    path.write_bytes(replay_gzip(b'{"result": "forged"}'))
    (_replay_store / missing.replay_key).unlink()

    with pytest.raises(ReplayUnavailable, match="do not match the SHA-256"):
        damaged.replay()
    with pytest.raises(ReplayUnavailable, match="did not return it"):
        missing.replay()
    client = Client()
    for match in (damaged, missing):
        answer = client.get(f"/api/v1/matches/{match.pk}/replay/")
        assert answer.status_code == 503 and answer.json()["code"] == "replay_unavailable"
    export = client.get("/api/v1/replays/export/")
    lines = b"".join(export.streaming_content).decode().splitlines()
    assert [json.loads(line)["result"] for line in lines] == [good.replay()["result"]]


def test_an_attempt_that_lost_the_match_writes_no_replay_and_no_result(
    play_match: Callable[[], Match], _replay_store: Path,
) -> None:
    finished = play_match()
    objects = sorted(_replay_store.rglob("*.json.gz"))
    replay = finished.replay()
    assert replay is not None

    late = services.match_finish(match_id=finished.pk, token="a-lost-lease", replay=replay)

    assert late is False
    assert sorted(_replay_store.rglob("*.json.gz")) == objects
    again = Match.objects.get(pk=finished.pk)
    assert (again.replay_key, again.replay_sha256) == (finished.replay_key,
                                                       finished.replay_sha256)


def test_orphans_are_listed_then_deleted_and_the_replays_of_results_never(
    play_match: Callable[[], Match], _replay_store: Path,
) -> None:
    match = play_match()
    # What an attempt that played the match otherwise, then lost its lease, leaves behind.
    orphan = replay_put(match_id=match.pk, blob=replay_gzip(b'{"another": "replay"}'))
    assert orphan.key != match.replay_key

    assert services.replays_orphans() == []  # younger than an hour: perhaps about to be named
    assert services.replays_orphans(min_age=timedelta(0)) == [orphan.key]
    call_command("replays_orphans", "--delete", "--min-age-minutes", "0")

    assert not (_replay_store / orphan.key).exists()
    assert Match.objects.get(pk=match.pk).replay() == match.replay()


def test_a_store_that_refuses_the_replay_sends_the_match_back_to_the_queue(
    play_match: Callable[[], Match], settings: Any, s3_server: Any,
) -> None:
    first = play_match()
    settings.STORAGES = {**settings.STORAGES,
                         "replays": s3_server.storage_settings("no-such-bucket")}
    match = services.match_create(versions=[side.version for side in first.side_list],
                                  kind=Match.Kind.LADDER, conditions=first.ladder,
                                  ladder=first.ladder, rated=True)

    with pytest.raises(InfrastructureError, match="replay store"):
        services.match_play(match_id=match.pk, worker="test")

    match.refresh_from_db()
    assert (match.status, match.score, match.replay_key) == (Match.Status.QUEUED, None, "")
    attempt = MatchAttempt.objects.get(match=match)
    assert attempt.outcome == MatchAttempt.Outcome.INFRASTRUCTURE
    assert "replay store" in attempt.error and "NoSuchBucket" in attempt.error


def test_replays_go_to_an_s3_compatible_server_and_come_back(
    play_match: Callable[[], Match], settings: Any, s3_server: Any, s3_bucket: str,
) -> None:
    settings.STORAGES = {**settings.STORAGES, "replays": s3_server.storage_settings(s3_bucket)}
    assert type(replay_storage()).__name__ == "S3Storage"

    match = play_match()

    assert s3_server.keys(s3_bucket) == [f"replays/{match.replay_key}"]
    body = s3_server.client.get_object(Bucket=s3_bucket, Key=f"replays/{match.replay_key}")
    stored = body["Body"].read()
    assert hashlib.sha256(stored).hexdigest() == match.replay_sha256
    served, exported = _served(Client(), match)
    assert served == json.loads(gzip.decompress(stored)) and exported == [served]
    assert validate_replay(served) == []


def test_pruning_archives_to_s3_and_deletes_the_object(
    play_match: Callable[[], Match], settings: Any, s3_server: Any, s3_bucket: str,
) -> None:
    settings.STORAGES = {**settings.STORAGES,
                         "replays": s3_server.storage_settings(s3_bucket),
                         "replay_archive": s3_server.storage_settings(s3_bucket, "archive")}
    settings.KAISER_REPLAY_RETENTION_DAYS = 1
    match = play_match()
    stored = match.replay_stored()
    Match.objects.filter(pk=match.pk).update(finished=match.finished - timedelta(days=2))

    assert services.replays_prune() == 1

    assert s3_server.keys(s3_bucket) == [f"archive/{match.pk}.json.gz"]
    archived = s3_server.client.get_object(Bucket=s3_bucket, Key=f"archive/{match.pk}.json.gz")
    assert archived["Body"].read() == stored
    answer = Client().get(f"/api/v1/matches/{match.pk}/replay/")
    assert answer.status_code == 410 and answer.json()["code"] == "replay_pruned"


@pytest.mark.parametrize(("env", "said"), [
    ({"KAISER_REPLAY_STORE": "s3"}, "KAISER_REPLAY_STORE=s3 needs KAISER_REPLAY_S3_BUCKET"),
    ({"KAISER_REPLAY_STORE": "ftp"}, "KAISER_REPLAY_STORE='ftp': use file or s3"),
])
def test_a_replay_store_set_wrong_stops_the_site_with_the_reason(
    env: dict[str, str], said: str,
) -> None:
    import os
    import subprocess
    import sys

    from tests.processes import ROOT

    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and said in done.stderr
