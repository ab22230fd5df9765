"""Backup and restore of the whole site's state: one tar archive (docs/operations.md).

What the site keeps:
- the database: every account, bot, bot program (their bytes are rows, BotProgram), match
  (with its replay's key and hash, or replay_gz not moved to the store yet), rating and
  tournament. PostgreSQL: `pg_dump --format=custom`; SQLite: a copy made with SQLite's online
  backup API;
- the replay store (matches.replay_store: files under KAISER_REPLAY_DIR, or S3): the objects
  the dumped rows name, read through the storage API and checked against their hashes
  (left out with include_store=False, for a store backed up by its own means);
- the archive of pruned replays (STORAGES["replay_archive"]), and MEDIA_ROOT (empty today:
  uploads are stored in the database). KAISER_PROGRAM_DIR is only the workers' cache of
  unpacked programs, made again from the database, and is left out.

The archive holds manifest.json first (row counts of every table, and the size and SHA-256 of
every other member), then database.dump or database.sqlite3, store/<key>, replays/<id>.json.gz
and media/... The counts and the replay keys are read in the same snapshot the dump is made
from (PostgreSQL: pg_dump --snapshot; SQLite: read in the copy), so a backup of a running site
is consistent; objects are never rewritten under a key, so reading them afterwards is too.
A restore checks every member's SHA-256 before touching anything, refuses a database that
already holds accounts, bots or matches (unless forced), and checks the counts afterwards.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings
from django.core.files.base import File
from django.core.files.storage import Storage
from django.db import connection, transaction

from matches.replay_store import (
    ReplayUnavailable,
    archive_storage,
    replay_get,
    replay_storage,
    sha256_hex,
    storage_walk,
)

FORMAT = 2  # 2: the replay store's objects (store/...); a format 1 archive restores as well
FORMATS = (1, 2)
MANIFEST = "manifest.json"
PG_DUMP = "database.dump"
SQLITE_COPY = "database.sqlite3"
CHUNK = 1024 * 1024


class BackupError(Exception):
    """A backup or a restore that cannot go on; the message says why."""


# --- Shared ------------------------------------------------------------------------------------


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _tables() -> list[str]:
    """Every table of the installed models (many-to-many tables included), sorted."""
    from django.apps import apps

    return sorted({m._meta.db_table for m in apps.get_models(include_auto_created=True)
                   if m._meta.managed and not m._meta.proxy})


def _counts(cursor: Any, tables: list[str]) -> dict[str, int]:
    quote = connection.ops.quote_name
    counts = {}
    for table in tables:
        cursor.execute(f"SELECT COUNT(*) FROM {quote(table)}")  # noqa: S608 - our own names
        counts[table] = int(cursor.fetchone()[0])
    return counts


def _pg_command(program: str, settings_dict: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    args = [program, "--no-password"]
    for flag, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
        if settings_dict.get(key):
            args += [flag, str(settings_dict[key])]
    env = dict(os.environ)
    if settings_dict.get("PASSWORD"):
        env["PGPASSWORD"] = str(settings_dict["PASSWORD"])
    return args, env


def _run(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackupError(f"{args[0]} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done.stdout


def pg_versions() -> dict[str, str]:
    """pg_dump's version and the server's ("15.20"), to tell a mismatch early."""
    if not shutil.which("pg_dump"):
        raise BackupError("pg_dump is not installed (Debian: apt-get install postgresql-client)")
    tool = _run(["pg_dump", "--version"], dict(os.environ)).split()[-1]
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        server = str(cursor.fetchone()[0]).split()[0]
    return {"pg_dump": tool, "server": server}


def _major(version: str) -> int:
    return int(version.split(".")[0]) if version else 0


# --- Backup ------------------------------------------------------------------------------------


def _files_outside(root: Path | None, prefix: str) -> dict[str, Path]:
    """Archive name -> file, for every regular file below `root` (none if it is unset)."""
    if root is None or not root.is_dir():
        return {}
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[f"{prefix}/{path.relative_to(root).as_posix()}"] = path
    return found


def _replay_keys(cursor: Any) -> list[tuple[str, str]]:
    """(key, SHA-256) of every replay in the replay store, as the dumped rows name them."""
    from matches.models import Match

    table = connection.ops.quote_name(Match._meta.db_table)
    cursor.execute(f"SELECT replay_key, replay_sha256 FROM {table} "  # noqa: S608 - ours
                   "WHERE replay_key <> '' ORDER BY id")
    return [(str(key), str(digest)) for key, digest in cursor.fetchall()]


def _store_copy(keys: list[tuple[str, str]], folder: Path) -> tuple[dict[str, Path], list[str]]:
    """The named objects, each checked against its hash, copied under folder/store/; and the
    keys the store did not give back (a prune that dropped one after the snapshot)."""
    copied, missing = {}, []
    for key, digest in keys:
        try:
            blob = replay_get(key=key, sha256=digest)
        except ReplayUnavailable:
            missing.append(key)
            continue
        target = folder / "store" / key
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob)
        copied[f"store/{key}"] = target
    return copied, missing


def _archive_copy(folder: Path) -> dict[str, Path]:
    """The archive of pruned replays, copied under folder/replays/ through its storage."""
    archive = archive_storage()
    if archive is None:
        return {}
    copied = {}
    for name in storage_walk(archive):
        target = folder / "replays" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(name, "rb") as source, target.open("wb") as sink:
            shutil.copyfileobj(source, sink, CHUNK)
        copied[f"replays/{name}"] = target
    return copied


Dumped = tuple[str, dict[str, int], dict[str, str], list[tuple[str, str]]]


def _dump_postgresql(folder: Path) -> Dumped:
    versions = pg_versions()
    if _major(versions["pg_dump"]) < _major(versions["server"]):
        raise BackupError(f"pg_dump {versions['pg_dump']} is older than the server "
                          f"{versions['server']}: install the server's major version of pg_dump")
    dump = folder / PG_DUMP
    args, env = _pg_command("pg_dump", connection.settings_dict)
    # One REPEATABLE READ transaction exports its snapshot: pg_dump dumps exactly what the
    # counts below see, whatever the running site writes meanwhile.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        cursor.execute("SELECT pg_export_snapshot()")
        snapshot = cursor.fetchone()[0]
        counts = _counts(cursor, _tables())
        keys = _replay_keys(cursor)
        _run([*args, "--format=custom", f"--snapshot={snapshot}", f"--file={dump}",
              "--dbname", connection.settings_dict["NAME"]], env)
    return PG_DUMP, counts, versions, keys


def _copy_sqlite(folder: Path) -> Dumped:
    copy = folder / SQLITE_COPY
    source = sqlite3.connect(connection.settings_dict["NAME"])
    target = sqlite3.connect(copy)
    try:
        source.backup(target)  # a consistent copy, even while the site writes
        counts = _counts(target.cursor(), _tables())
        keys = _replay_keys(target.cursor())
    finally:
        target.close()
        source.close()
    return SQLITE_COPY, counts, {"sqlite": sqlite3.sqlite_version}, keys


def _archive_path(target: Path) -> Path:
    if target.is_dir():
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        return target / f"kaiser-backup-{stamp}.tar"
    target.parent.mkdir(parents=True, exist_ok=True)
    return target


def backup_create(*, target: Path, include_store: bool = True) -> tuple[Path, dict[str, Any]]:
    """Write the archive to `target` (a file, or a folder to put a dated file in); returns its
    path and its manifest. Written to a .partial file first: a failed backup leaves none.
    `include_store`: the replay store's objects too (False: a store backed up by its own means,
    such as a versioned S3 bucket; the manifest says so)."""
    vendor = connection.vendor
    if vendor not in ("postgresql", "sqlite"):
        raise BackupError(f"cannot back up a {vendor} database")
    path = _archive_path(target)
    with tempfile.TemporaryDirectory(prefix="kaiser-backup-") as scratch:
        dump = _dump_postgresql if vendor == "postgresql" else _copy_sqlite
        name, counts, versions, keys = dump(Path(scratch))
        members = {name: Path(scratch) / name}
        stored, missing = _store_copy(keys, Path(scratch)) if include_store else ({}, [])
        members |= stored | _archive_copy(Path(scratch))
        members |= _files_outside(Path(settings.MEDIA_ROOT), "media")
        manifest = {
            "format": FORMAT, "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "vendor": vendor, "database": name, "versions": versions, "counts": counts,
            "store": {"backend": _backend(replay_storage()), "included": include_store,
                      "objects": len(keys), "missing": missing},
            "files": {n: {"size": p.stat().st_size, "sha256": _sha256(p)}
                      for n, p in members.items()},
        }
        _write_tar(path, manifest, members)
    return path, manifest


def _backend(storage: Storage) -> str:
    return f"{type(storage).__module__}.{type(storage).__qualname__}"


def _write_tar(path: Path, manifest: dict[str, Any], members: dict[str, Path]) -> None:
    partial = path.with_name(path.name + ".partial")
    body = json.dumps(manifest, indent=1, sort_keys=True).encode()
    try:
        with tarfile.open(partial, "w") as tar:
            info = tarfile.TarInfo(MANIFEST)
            info.size, info.mtime, info.mode = len(body), int(datetime.now(UTC).timestamp()), 0o600
            tar.addfile(info, _BytesReader(body))
            for name, source in members.items():
                tar.add(source, arcname=name, recursive=False)
        os.chmod(partial, 0o600)  # it holds every account's password hash and token
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


class _BytesReader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def read(self, size: int = -1) -> bytes:
        end = len(self.data) if size < 0 else self.at + size
        chunk, self.at = self.data[self.at:end], min(end, len(self.data))
        return chunk


# --- Restore -----------------------------------------------------------------------------------


def _safe_name(name: str) -> bool:
    parts = PurePosixPath(name).parts
    return bool(parts) and not name.startswith("/") and ".." not in parts


@contextmanager
def _unpacked(archive: Path) -> Iterator[tuple[dict[str, Any], Path]]:
    """The manifest, and a scratch folder holding every member, each checked against it."""
    with tempfile.TemporaryDirectory(prefix="kaiser-restore-") as scratch, \
            tarfile.open(archive, "r") as tar:
        first = tar.next()
        if first is None or first.name != MANIFEST or not first.isfile():
            raise BackupError(f"{archive} is not a Kaiser Arena backup (no {MANIFEST} first)")
        manifest = json.loads(tar.extractfile(first).read())  # type: ignore[union-attr]
        if manifest.get("format") not in FORMATS:
            raise BackupError(f"backup format {manifest.get('format')!r}, expected one of "
                              f"{FORMATS}")
        expected: dict[str, dict[str, Any]] = manifest["files"]
        seen = set()
        for member in tar:  # from the first member again
            if member is first:
                continue
            if member.name not in expected or not member.isfile() or not _safe_name(member.name):
                raise BackupError(f"unexpected member in the archive: {member.name!r}")
            target = Path(scratch) / member.name
            target.parent.mkdir(parents=True, exist_ok=True)
            with tar.extractfile(member) as source, target.open("wb") as sink:  # type: ignore[union-attr]
                shutil.copyfileobj(source, sink, CHUNK)
            if _sha256(target) != expected[member.name]["sha256"]:
                raise BackupError(f"{member.name}: SHA-256 differs from the manifest (damaged)")
            seen.add(member.name)
        if missing := sorted(set(expected) - seen):
            raise BackupError(f"members missing from the archive: {', '.join(missing[:5])}")
        yield manifest, Path(scratch)


def database_holds_data() -> bool:
    """Whether the site's database has accounts, bots or matches (a migrated, never used
    database holds only Django's bookkeeping and the main ladder: that is empty)."""
    from django.contrib.auth.models import User

    from bots.models import Bot
    from matches.models import Match

    existing = set(connection.introspection.table_names())
    return any(model._meta.db_table in existing and model.objects.exists()
               for model in (User, Bot, Match))


def _restore_postgresql(dump: Path) -> None:
    args, env = _pg_command("pg_restore", connection.settings_dict)
    connection.close()
    # --clean --if-exists: a migrated empty database has the tables already. One transaction:
    # a restore that fails leaves the database as it was.
    _run([*args, "--clean", "--if-exists", "--no-owner", "--no-privileges",
          "--single-transaction", "--exit-on-error",
          "--dbname", connection.settings_dict["NAME"], str(dump)], env)


def _restore_sqlite(copy: Path) -> None:
    connection.close()
    source = sqlite3.connect(copy)
    target = sqlite3.connect(connection.settings_dict["NAME"])
    try:
        source.backup(target)  # replaces every page of the target: the copy, exactly
    finally:
        target.close()
        source.close()


def _restore_to_storage(folder: Path, prefix: str, storage: Storage | None, *,
                        force: bool) -> int:
    """Every file under folder/prefix into `storage` under its own name: one already there
    with the same bytes is kept, one with other bytes replaced only with `force`."""
    source = folder / prefix
    if not source.is_dir():
        return 0
    if storage is None:
        raise BackupError(f"the backup holds {prefix}/ but the site has no archive of pruned "
                          "replays (KAISER_REPLAY_ARCHIVE_DIR): set it and restore again")
    restored = 0
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        name = path.relative_to(source).as_posix()
        if storage.exists(name):
            with storage.open(name, "rb") as existing:
                same = sha256_hex(existing.read()) == _sha256(path)
            if not same and not force:
                raise BackupError(f"{prefix} {name} exists with other content (--force "
                                  "replaces it)")
            storage.delete(name)
        with path.open("rb") as data:
            if storage.save(name, File(data)) != name:
                raise BackupError(f"{prefix} {name}: the storage wrote it under another name")
        restored += 1
    return restored


def _restore_files(folder: Path, prefix: str, destination: Path, *, force: bool) -> int:
    source = folder / prefix
    if not source.is_dir():
        return 0
    restored = 0
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        target = destination / path.relative_to(source)
        if target.exists() and _sha256(target) != _sha256(path) and not force:
            raise BackupError(f"{target} exists with other content (--force replaces it)")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        restored += 1
    return restored


def backup_restore(*, archive: Path, force: bool = False) -> dict[str, Any]:
    """Restore `archive` into the configured database and folders, then check the counts.
    Returns {"counts": ..., "store": replay objects restored, "replays": archived replays
    restored, "media": files restored, "store_included": whether the backup held the store}."""
    with _unpacked(archive) as (manifest, folder):
        if manifest["vendor"] != connection.vendor:
            raise BackupError(f"a {manifest['vendor']} backup cannot be restored into "
                              f"{connection.vendor}")
        if not force and database_holds_data():
            raise BackupError("the database already holds accounts, bots or matches: restore "
                              "into an empty database, or pass --force to replace it")
        if connection.vendor == "postgresql":
            _restore_postgresql(folder / manifest["database"])
        else:
            _restore_sqlite(folder / manifest["database"])
        store = _restore_to_storage(folder, "store", replay_storage(), force=force)
        replays = _restore_to_storage(folder, "replays", archive_storage(), force=force)
        media = _restore_files(folder, "media", Path(settings.MEDIA_ROOT), force=force)
    with connection.cursor() as cursor:
        counts = _counts(cursor, sorted(manifest["counts"]))
    if counts != manifest["counts"]:
        wrong = {t: (n, manifest["counts"][t]) for t, n in counts.items()
                 if n != manifest["counts"][t]}
        raise BackupError(f"restored, but the counts differ from the manifest: {wrong}")
    return {"counts": counts, "store": store, "replays": replays, "media": media,
            "store_included": manifest.get("store", {}).get("included", False)}
