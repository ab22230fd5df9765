"""manage.py replays_to_store: the replays of a site from before the store, moved out of the
database; stopped halfway (--limit, a write cut short, a kill) and run again, it loses none and
moves none twice."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from matches.models import Match, MatchSide
from matches.replay_store import replay_key, replay_put, sha256_hex
from tests.factories import games_of, sides_of
from tests.processes import ROOT, LoggedProcess, database_url_of_this_test


def _back_in_the_rows(matches: list[Match], store: Path) -> dict[int, bytes]:
    """The matches as a site from before the store holds them: replay_gz, no key, no object.
    Returns each match's replay bytes."""
    blobs = {}
    for match in matches:
        blob = match.replay_stored()
        assert blob is not None
        blobs[match.pk] = blob
        (store / match.replay_key).unlink()
        Match.objects.filter(pk=match.pk).update(replay_gz=blob, replay_key="", replay_sha256="")
    return blobs


def _as_stored(store: Path, *, orphans: int = 0) -> dict[int, bytes]:
    """What each match reads now (from the store or its row); every key a row names is an
    object of its own, and at most `orphans` objects are named by no row."""
    rows = Match.objects.filter(status=Match.Status.FINISHED).order_by("pk")
    replays = {m.pk: m.replay_stored() for m in rows}
    keys = [m.replay_key for m in rows if m.replay_key]
    on_disk = {p.relative_to(store).as_posix() for p in store.rglob("*") if p.is_file()}
    assert len(set(keys)) == len(keys) and set(keys) <= on_disk
    assert len(on_disk - set(keys)) <= orphans, on_disk - set(keys)
    return replays  # type: ignore[return-value]


@pytest.fixture
def old_site(play_match: Callable[[], Match], _replay_store: Path) -> dict[int, bytes]:
    """Seven finished matches whose replays are still in the database."""
    return _back_in_the_rows([play_match() for _ in range(7)], _replay_store)


def _move(*args: str) -> str:
    out = StringIO()
    call_command("replays_to_store", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_stopped_halfway_and_run_again_every_replay_is_moved_once(
    old_site: dict[int, bytes], _replay_store: Path,
) -> None:
    first = _move("--limit", "3", "--batch", "2")

    assert "2 of 3 replays moved" in first and "done: 3 replays moved" in first
    assert Match.objects.filter(replay_gz__isnull=False).count() == 4
    assert _as_stored(_replay_store) == old_site  # moved or not, every one reads the same

    second = _move("--batch", "2")
    assert "4 of 4 replays moved" in second and "done: 4 replays moved" in second
    assert not Match.objects.filter(replay_gz__isnull=False).exists()
    assert _as_stored(_replay_store) == old_site
    for match in Match.objects.filter(status=Match.Status.FINISHED):
        assert sha256_hex(old_site[match.pk]) == match.replay_sha256
    assert "done: 0 replays moved" in _move()


@pytest.mark.django_db
def test_a_run_cut_short_after_writing_an_object_is_finished_by_the_next(
    old_site: dict[int, bytes], _replay_store: Path,
) -> None:
    written, cut = sorted(old_site)[:2]
    # Killed after writing the object of `written`, before its row was updated; killed while
    # writing the object of `cut` (half its bytes at the key).
    replay_put(match_id=written, blob=old_site[written])
    half = replay_key(match_id=cut, sha256=sha256_hex(old_site[cut]))
    (_replay_store / half).parent.mkdir(parents=True, exist_ok=True)
    (_replay_store / half).write_bytes(old_site[cut][: len(old_site[cut]) // 2])

    assert "done: 7 replays moved" in _move()

    assert Match.objects.get(pk=written).replay_key == replay_key(
        match_id=written, sha256=sha256_hex(old_site[written]))  # the object already there
    objects = {p.relative_to(_replay_store).as_posix() for p in _replay_store.rglob("*")
               if p.is_file()}
    named = set(Match.objects.exclude(replay_key="").values_list("replay_key", flat=True))
    assert objects - named == {half}  # the broken write: an orphan, no row names it
    assert all(Match.objects.get(pk=pk).replay_stored() == blob for pk, blob in old_site.items())


@pytest.mark.django_db(transaction=True)
def test_killed_mid_run_and_run_again_none_is_lost_or_doubled(
    play_match: Callable[[], Match], _replay_store: Path, tmp_path: Path,
) -> None:
    model = play_match()
    blob = _back_in_the_rows([model], _replay_store)[model.pk]
    copies = Match.objects.bulk_create(Match(
        kind=model.kind, ladder=model.ladder, rated=False, seed=str(n),
        status=Match.Status.FINISHED, score=model.score, replay_gz=blob,
        replay_size=model.replay_size, finished=model.finished) for n in range(300))
    MatchSide.objects.bulk_create(side for match in copies for side in sides_of(
        match, model.version_ids, games=games_of(model)))
    env = {**os.environ, "DATABASE_URL": database_url_of_this_test(), "PYTHONUNBUFFERED": "1"}
    log = tmp_path / "move.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, "manage.py", "replays_to_store", "--batch", "1"],
                                cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                start_new_session=True)
    moving = LoggedProcess(proc, log)
    try:
        moving.wait_for_log(r"\b5 of 301 replays moved")
        moving.kill()
    finally:
        moving.stop()
    assert "done:" not in moving.text()
    left = Match.objects.filter(replay_gz__isnull=False).count()
    assert 0 < left < 301

    assert f"done: {left} replays moved" in _move()

    # (a kill in the middle of writing an object leaves that partial object, named by no row)
    finished = Match.objects.filter(status=Match.Status.FINISHED)
    assert _as_stored(_replay_store, orphans=1) == dict.fromkeys(
        finished.values_list("pk", flat=True), blob)
    assert finished.exclude(replay_key="").count() == 301
