"""arena_backup and arena_restore, for real: a site with played and rated matches, an archived
replay and uploaded bot programs is backed up (pg_dump on PostgreSQL, SQLite's backup API on
SQLite: whichever DATABASE_URL names), restored by `manage.py arena_restore` in a process of
its own into a database made fresh for the test, and every row and byte is found again.

On PostgreSQL the fresh database is kaiser_restore_<random> on the same server, dropped after.
With KAISER_REQUIRE_SERVICES=1 the run stops before any test if PostgreSQL is unreachable
(tests/conftest.py), so this test never passes on SQLite by accident in CI."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import tarfile
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db(transaction=True)  # committed: pg_dump sees other sessions'
PROGRAMS = {"uploaded-one": b"print('hello')\n", "uploaded-two": b"# another bot\n" * 50}


class Restored:
    """A fresh database of the configured kind: its DATABASE_URL and a way to read it."""

    def __init__(self, url: str, query: Callable[[str], list[tuple[Any, ...]]]) -> None:
        self.url, self.query = url, query


def _postgres_fresh() -> Iterator[Restored]:
    import psycopg

    settings_dict = connection.settings_dict
    name = f"kaiser_restore_{uuid.uuid4().hex[:10]}"
    server = {"host": settings_dict["HOST"] or None, "port": settings_dict["PORT"] or None,
              "user": settings_dict["USER"] or None, "password": settings_dict["PASSWORD"] or None}
    with psycopg.connect(dbname="postgres", autocommit=True, **server) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    user = settings_dict["USER"] or ""
    auth = f"{user}:{settings_dict['PASSWORD']}@" if settings_dict["PASSWORD"] else f"{user}@"
    url = (f"postgres://{auth}{settings_dict['HOST'] or '127.0.0.1'}:"
           f"{settings_dict['PORT'] or 5432}/{name}")

    def query(sql: str) -> list[tuple[Any, ...]]:
        with psycopg.connect(dbname=name, **server) as conn:
            return [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)
                    for row in conn.execute(sql).fetchall()]

    try:
        yield Restored(url, query)
    finally:
        with psycopg.connect(dbname="postgres", autocommit=True, **server) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _sqlite_fresh(folder: Path) -> Iterator[Restored]:
    path = folder / "restored.sqlite3"

    def query(sql: str) -> list[tuple[Any, ...]]:
        with sqlite3.connect(path) as conn:
            return list(conn.execute(sql).fetchall())

    yield Restored(f"sqlite:///{path}", query)


@pytest.fixture
def fresh_database(tmp_path: Path) -> Iterator[Restored]:
    if connection.vendor == "postgresql":
        yield from _postgres_fresh()
    else:
        yield from _sqlite_fresh(tmp_path)


def _restore(archive: Path, restored: Restored, replay_dir: Path,
             *extra: str) -> subprocess.CompletedProcess[str]:
    """arena_restore in a process of its own: the archived replays into replay_dir, the
    replay store into a fresh folder beside it (restore-store)."""
    env = {**os.environ, "DATABASE_URL": restored.url, "KAISER_REPLAY_ARCHIVE_DIR": str(replay_dir),
           "KAISER_VAR_DIR": str(replay_dir.parent / "restore-var"),
           "KAISER_REPLAY_STORE": "file",
           "KAISER_REPLAY_DIR": str(replay_dir.parent / "restore-store")}
    return subprocess.run([sys.executable, "manage.py", "arena_restore", str(archive), *extra],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def _rows(model: Any, *columns: str) -> str:
    return f"SELECT {', '.join(columns)} FROM {model._meta.db_table} ORDER BY {columns[0]}"


def _here(sql: str) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)
                for row in cursor.fetchall()]


@pytest.fixture
def site(make_builtin: Callable[..., Any], make_program: Callable[..., Any], tmp_path: Path,
         settings: Any, private_broker: Path, replay_archive: Path) -> dict[str, Any]:
    """Rated ladder matches played with replays in the replay store (one of them pruned to
    the replay archive, one moved back into the database as if finished before the store),
    their rating changes and ladder entries, and bots with uploaded programs. Each finished
    match refills the ladder after commit: more matches wait, queued (on a private broker)."""
    from ladder.models import Ladder
    from matches import services
    from matches.models import Match

    settings.KAISER_REPLAY_RETENTION_DAYS = 1
    ladder = Ladder.objects.create(name="Backed up", slug="backed-up", games_per_match=2)
    greedy, rand = make_builtin("b-greedy", own=True), make_builtin("b-random", "builtin:random",
                                                                    own=True)
    for name, content in PROGRAMS.items():
        make_program(name, content)
    for a, b in ((greedy, rand), (rand, greedy), (greedy, rand)):
        match = services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                      conditions=ladder, ladder=ladder, rated=True)
        assert services.match_play(match_id=match.pk, worker="test") == "finished"
    first, second, third = Match.objects.filter(status=Match.Status.FINISHED).order_by("pk")
    archived = first.replay_stored()
    Match.objects.filter(pk=first.pk).update(finished=timezone.now() - timedelta(days=2))
    assert services.replays_prune() == 1  # the beat's task: written to the archive, dropped
    # A replay of the days before the store, still in its row (not moved by replays_to_store).
    Match.objects.filter(pk=third.pk).update(replay_gz=third.replay_stored(), replay_key="",
                                             replay_sha256="")
    return {"archived_id": first.pk, "archived": archived, "stored": second,
            "in_database": third}


def test_a_backup_restored_into_a_fresh_database_holds_every_row_replay_and_program(
    site: dict[str, Any], fresh_database: Restored, tmp_path: Path,
) -> None:
    from bots.models import Bot, BotProgram
    from ladder.models import LadderEntry, RatingChange
    from matches.models import Match, MatchSide

    call_command("arena_backup", str(tmp_path / "backups") + "/")
    (archive,) = (tmp_path / "backups").glob("kaiser-backup-*.tar")
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    database = "database.dump" if connection.vendor == "postgresql" else "database.sqlite3"
    stored = site["stored"]
    assert names == ["manifest.json", database, f"store/{stored.replay_key}",
                     f"replays/{site['archived_id']}.json.gz"]

    replay_dir = tmp_path / "restored-replays"
    done = _restore(archive, fresh_database, replay_dir)
    assert done.returncode == 0, done.stderr
    assert "as the manifest counts" in done.stdout and "1 archived replays" in done.stdout
    assert "1 replays in the store" in done.stdout

    checks = [
        _rows(Match, "id", "status", "score", "replay_gz", "replay_size", "replay_key",
              "replay_sha256"),
        _rows(RatingChange, "id", "match_id", "entry_id", "before", "after"),
        _rows(LadderEntry, "id", "ladder_id", "version_id", "elo", "games"),
        _rows(BotProgram, "sha256", "content", "size"),
        _rows(Bot, "id", "name", "owner_id"),
        _rows(MatchSide, "id", "match_id", "version_id", "games", "stderr", "fault"),
    ]
    for sql in checks:
        assert fresh_database.query(sql) == _here(sql), sql
    statuses = [row[1] for row in _here(checks[0])]
    assert statuses.count("finished") == 3 and len(_here(checks[1])) == 6
    programs = {bytes(content) for _, content, _ in fresh_database.query(checks[3])}
    assert set(PROGRAMS.values()) <= programs
    # Every replay the restored rows name is found again: in the restored store (its hash as
    # the row says), or in the row itself; the pruned one in the restored archive.
    restored_store = tmp_path / "restore-store"
    replays = {}
    for row in fresh_database.query(checks[0]):
        match_id, blob, key, digest = row[0], row[3], row[5], row[6]
        if key:
            replays[match_id] = (restored_store / key).read_bytes()
            assert hashlib.sha256(replays[match_id]).hexdigest() == digest
        elif blob is not None:
            replays[match_id] = blob
    assert replays == {stored.pk: stored.replay_stored(),
                       site["in_database"].pk: site["in_database"].replay_stored()}
    archived = replay_dir / f"{site['archived_id']}.json.gz"
    assert archived.read_bytes() == site["archived"]


def test_restore_refuses_a_database_with_data_and_a_damaged_archive(
    site: dict[str, Any], fresh_database: Restored, tmp_path: Path,
) -> None:
    archive = tmp_path / "site.tar"
    call_command("arena_backup", str(archive))
    replay_dir = tmp_path / "restored-replays"
    assert _restore(archive, fresh_database, replay_dir).returncode == 0

    again = _restore(archive, fresh_database, replay_dir)
    assert again.returncode != 0
    assert "already holds accounts, bots or matches" in again.stderr
    assert _restore(archive, fresh_database, replay_dir, "--force").returncode == 0

    damaged = tmp_path / "damaged.tar"
    with tarfile.open(archive) as tar:
        dump = next(m for m in tar.getmembers() if m.name.startswith("database."))
    data = bytearray(archive.read_bytes())
    data[dump.offset_data + dump.size // 2] ^= 0xFF  # one byte in the middle of the database
    damaged.write_bytes(bytes(data))
    refused = _restore(damaged, fresh_database, replay_dir, "--force")
    assert refused.returncode != 0
    assert "SHA-256 differs from the manifest" in refused.stderr
