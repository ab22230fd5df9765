"""Where replays live: one object per finished match in Django's storage "replays" (files under
KAISER_REPLAY_DIR, or an S3-compatible bucket: settings.STORAGES), the database keeping its key
and the SHA-256 of its bytes (Match.replay_key, Match.replay_sha256).

An object holds the gzip of the replay's canonical JSON, exactly the bytes Match.replay_gz
held before replays left the database. Its key names the match and the start of its hash
(`00004/42-<sha256[:16]>.json.gz`), so two attempts at one match that played differently
never write over each other: the loser's object is an orphan (replays_orphans removes it),
never the replay of a stored result. Every read is checked against the hash in the database.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from django.core.files.base import ContentFile
from django.core.files.storage import Storage, storages

STORE = "replays"
ARCHIVE = "replay_archive"
# The folder of a key: 10,000 matches a folder (a flat folder of millions of files is slow to
# list on most file systems; S3 does not care).
PER_FOLDER = 10_000
KEY = re.compile(r"(?:^|/)(\d+)-([0-9a-f]{16})[^/]*\.json\.gz$")


class ReplayUnavailable(Exception):
    """The store did not give back a replay the database says it holds: missing, unreadable,
    or with other bytes than its hash says (damaged)."""


@dataclass(frozen=True)
class StoredReplay:
    key: str
    sha256: str


def replay_storage() -> Storage:
    return storages[STORE]


def archive_storage() -> Storage | None:
    """The archive of pruned replays (KAISER_REPLAY_ARCHIVE_DIR ...), or None: not kept."""
    from django.conf import settings

    return storages[ARCHIVE] if ARCHIVE in settings.STORAGES else None


def replay_gzip(text: bytes) -> bytes:
    """The stored form of a replay's JSON. mtime=0: the same replay gives the same bytes, so a
    second attempt that played the match alike finds its object already there."""
    return gzip.compress(text, compresslevel=6, mtime=0)


def sha256_hex(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def replay_key(*, match_id: int, sha256: str, suffix: str = ".json.gz") -> str:
    return f"{match_id // PER_FOLDER:05d}/{match_id}-{sha256[:16]}{suffix}"


def key_match_id(key: str) -> int | None:
    """The match a key names (None for a name that is not a replay's)."""
    found = KEY.search(key)
    return int(found.group(1)) if found else None


def _read(storage: Storage, key: str) -> bytes:
    try:
        with storage.open(key, "rb") as stored:
            data: bytes = stored.read()
    except Exception as error:  # FileNotFoundError, OSError, botocore's errors: any backend
        raise ReplayUnavailable(f"replay {key}: the store did not return it "
                                f"({type(error).__name__}: {error})") from error
    return data


def replay_get(*, key: str, sha256: str, storage: Storage | None = None) -> bytes:
    """The stored bytes of `key`, checked against `sha256`."""
    blob = _read(storage or replay_storage(), key)
    if sha256_hex(blob) != sha256:
        raise ReplayUnavailable(f"replay {key}: its bytes do not match the SHA-256 the "
                                "database holds (damaged or replaced)")
    return blob


def replay_put(*, match_id: int, blob: bytes, suffix: str = ".json.gz") -> StoredReplay:
    """Write one match's replay (its gzip bytes) to the store, and read it back: the key and
    hash to record once the object is known good. An object already at the key with the same
    bytes (a repeated attempt, a resumed migration) is kept, not written twice. `suffix`
    names another object of the match kept the same way (its decision times:
    matches.times_store)."""
    storage = replay_storage()
    digest = sha256_hex(blob)
    key = replay_key(match_id=match_id, sha256=digest, suffix=suffix)
    try:
        if storage.exists(key) and sha256_hex(_read(storage, key)) == digest:
            return StoredReplay(key, digest)
        # A damaged object at the key (a write cut short) gets a free name beside it.
        key = storage.save(key, ContentFile(blob))
    except ReplayUnavailable:
        raise
    except Exception as error:  # the storage's own errors, whatever its backend
        raise ReplayUnavailable(f"replay of match {match_id}: the store refused it "
                                f"({type(error).__name__}: {error})") from error
    replay_get(key=key, sha256=digest, storage=storage)
    return StoredReplay(key, digest)


def replay_delete(key: str, *, storage: Storage | None = None) -> None:
    (storage or replay_storage()).delete(key)


def storage_walk(storage: Storage, folder: str = "") -> Iterator[str]:
    """Every file's name below `folder` of a storage, folders first, each sorted."""
    try:
        folders, files = storage.listdir(folder)
    except FileNotFoundError:  # a folder store nothing was written to yet
        return
    prefix = f"{folder}/" if folder else ""
    for name in sorted(folders):
        yield from storage_walk(storage, prefix + name)
    for name in sorted(files):
        yield prefix + name
