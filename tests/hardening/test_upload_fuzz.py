"""Hostile uploads: truncated and random archives, zip bombs (honest and lying about their
size), deeply nested and overlong paths, huge file counts, names that are not UTF-8, special
files, wrong file types. Each is one clear refusal (a 400 with a one-line reason, no version
stored), the server never answers 500, and nothing is written outside the folders it owns:
every scratch folder it makes lives under a private TMPDIR that must be empty afterwards, and
no name an archive tries to smuggle out appears anywhere."""

from __future__ import annotations

import io
import os
import stat
import struct
import tempfile
import uuid
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from bots.programs import ProgramError, program_inspect
from bots.services import bot_create

pytestmark = pytest.mark.django_db
MARKER = f"kaiser-smuggled-{uuid.uuid4().hex[:12]}"
GOOD_BOT = b"import sys\nfor line in sys.stdin:\n    pass\n"


def _zip(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _zip_with_mode(name: str, mode: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", GOOD_BOT)
        info = zipfile.ZipInfo(name)
        info.external_attr = mode << 16
        archive.writestr(info, b"x")
    return buffer.getvalue()


def _lying_bomb() -> bytes:
    """60 MB of zeros whose headers claim 1 KB: only reading it reveals the truth."""
    data = bytearray(_zip({"bot.py": GOOD_BOT, "pad.bin": bytes(60 * 2**20)}))
    lie = struct.pack("<I", 1024)
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = 0
        while (start := data.find(signature, start)) != -1:
            name_len = struct.unpack_from("<H", data, start + (26 if offset == 22 else 28))[0]
            name_at = start + (30 if offset == 22 else 46)
            if data[name_at:name_at + name_len] == b"pad.bin":
                data[start + offset:start + offset + 4] = lie
            start += 4
    return bytes(data)


def _not_utf8_name() -> bytes:
    """A member name flagged UTF-8 (bit 11) whose bytes are not UTF-8."""
    return _zip({"bot.py": GOOD_BOT, "\u00e9t\u00e9.txt": b"x"}).replace(
        "\u00e9t\u00e9".encode(), b"\xff\xfe\xff\xfe")


def _many_files(count: int) -> bytes:
    return _zip({"bot.py": GOOD_BOT, **{f"f/{i}": b"" for i in range(count)}},
                method=zipfile.ZIP_STORED)


def _encrypted() -> bytes:
    data = bytearray(_zip({"bot.py": GOOD_BOT}))
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        flags = struct.unpack_from("<H", data, at + offset)[0] | 0x1
        struct.pack_into("<H", data, at + offset, flags)
    return bytes(data)


def _duplicate() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", GOOD_BOT)
        archive.writestr("bot.py", b"import os")
    return buffer.getvalue()


GOOD_ZIP = _zip({"bot.py": GOOD_BOT, "lib/helper.py": b"X = 1\n" * 50})

# name -> (upload file name, content maker, words the one-line reason must contain)
HOSTILE: dict[str, tuple[str, Callable[[], bytes], str]] = {
    "zip truncated after its first header": ("b.zip", lambda: GOOD_ZIP[:60], "archive"),
    "zip cut before its central directory": ("b.zip", lambda: GOOD_ZIP[:-30], "archive"),
    "zip missing its middle": ("b.zip", lambda: GOOD_ZIP[:40] + GOOD_ZIP[-200:], "archive"),
    "random bytes called .zip": ("b.zip", lambda: os.urandom(4096), "archive"),
    "zip bomb that says its size": (
        "b.zip", lambda: _zip({"bot.py": GOOD_BOT, "z.bin": bytes(60 * 2**20)}), "50 MB"),
    "zip bomb that lies about its size": ("b.zip", _lying_bomb, "archive"),
    "many small bombs under the limit each": (
        "b.zip", lambda: _zip({"bot.py": GOOD_BOT,
                               **{f"z{i}.bin": bytes(9 * 2**20) for i in range(6)}}), "50 MB"),
    "path 40 folders deep": ("b.zip", lambda: _zip({"bot.py": GOOD_BOT,
                                                   "a/" * 40 + "f.py": b"x"}), "too deep"),
    "path 3000 folders deep": ("b.zip", lambda: _zip({"bot.py": GOOD_BOT,
                                                     "a/" * 3000 + "f": b"x"}), "too deep"),
    "a 300-byte file name": ("b.zip", lambda: _zip({"bot.py": GOOD_BOT, "n" * 300: b"x"}),
                             "too long"),
    "1001 files": ("b.zip", lambda: _many_files(1001), "more than 1000 files"),
    "20000 files": ("b.zip", lambda: _many_files(20000), "more than 1000 files"),
    "name flagged UTF-8 that is not": ("b.zip", _not_utf8_name, "damaged"),
    "traversal out of the scratch folder": (
        "b.zip", lambda: _zip({"bot.py": GOOD_BOT, f"../../../../{MARKER}": b"x"}), "'..'"),
    "absolute path": ("b.zip", lambda: _zip({"bot.py": GOOD_BOT,
                                             f"/tmp/{MARKER}": b"x"}), "absolute"),
    "backslash traversal": ("b.zip", lambda: _zip({"bot.py": GOOD_BOT,
                                                   f"..\\..\\{MARKER}": b"x"}), "unsafe"),
    "drive letter": ("b.zip", lambda: _zip({"bot.py": GOOD_BOT, f"C:{MARKER}": b"x"}),
                     "absolute"),
    "symbolic link to /etc": ("b.zip", lambda: _zip_with_mode("etc", stat.S_IFLNK | 0o777),
                              "symbolic link"),
    "device file": ("b.zip", lambda: _zip_with_mode("dev", stat.S_IFCHR | 0o666),
                    "special file"),
    "named pipe": ("b.zip", lambda: _zip_with_mode("fifo", stat.S_IFIFO | 0o666),
                   "special file"),
    "encrypted member": ("b.zip", _encrypted, "encrypted"),
    "the same name twice": ("b.zip", _duplicate, "twice"),
    "a file under a file": ("b.zip", lambda: _zip({"bot.py": GOOD_BOT, "x": b"1",
                                                   "x/y": b"2"}), "not a folder"),
    "empty zip": ("b.zip", lambda: _zip({}), "no bot.json or bot.py"),
    "manifest that is not JSON": ("b.zip", lambda: _zip({"bot.json": b"{run:", "bot.py": b""}),
                                  "not valid JSON"),
    "manifest running a host binary": (
        "b.zip", lambda: _zip({"bot.json": b'{"run": ["/bin/sh", "-c", "id"]}'}), "must start"),
    "manifest running a file it lacks": (
        "b.zip", lambda: _zip({"bot.json": b'{"run": ["./missing"]}'}), "not a file"),
    "manifest of 100 KB": ("b.zip", lambda: _zip({"bot.json": b" " * 100_000}), "64 KiB"),
    "a tar.gz": ("bot.tar.gz", lambda: zlib.compress(b"x" * 100), ".py file or a .zip"),
    "a Windows program": ("bot.exe", lambda: b"MZ\x90\x00" + os.urandom(500), ".py file"),
    "compiled Python": ("bot.pyc", lambda: b"\x6f\x0d\x0d\x0a" + os.urandom(64), ".py file"),
    "no extension": ("bot", lambda: GOOD_BOT, ".py file"),
    "a zip disguised as a .py.zip.txt": ("bot.py.zip.txt", lambda: GOOD_ZIP, ".py file"),
}


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private TMPDIR for every scratch folder the upload code makes."""
    folder = tmp_path / "scratch"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder


@pytest.fixture
def bot(owner: object) -> Bot:
    return bot_create(owner=owner, name="fuzzed")


def _post(client: APIClient, bot: Bot, name: str, content: bytes) -> tuple[int, dict]:
    response = client.post(f"/api/v1/bots/{bot.pk}/versions/",
                           {"file": SimpleUploadedFile(name, content)}, format="multipart")
    return response.status_code, response.json()


def _smuggled(root: Path) -> list[Path]:
    found = [p for p in root.rglob(f"*{MARKER}*")]
    found += [p for p in (Path("/tmp") / MARKER, Path("/") / MARKER) if p.exists()]
    return found


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_upload_is_one_clear_refusal_and_leaves_nothing_behind(
    case: str, bot: Bot, owner_client: APIClient, scratch: Path, tmp_path: Path
) -> None:
    filename, make, reason = HOSTILE[case]
    status, body = _post(owner_client, bot, filename, make())
    assert status == 400, body
    assert body["code"] == "invalid"
    assert reason in body["detail"]
    assert "\n" not in body["detail"] and len(body["detail"]) < 300
    assert not BotVersion.objects.filter(bot=bot).exists()
    assert list(scratch.iterdir()) == []
    assert _smuggled(tmp_path) == []


def test_hostile_file_names_of_the_upload_itself_are_only_labels(
    bot: Bot, owner_client: APIClient, scratch: Path, tmp_path: Path
) -> None:
    names = (f"../../../{MARKER}.py", f"/tmp/{MARKER}.py", f"{'x' * 5000}.py")
    for n, name in enumerate(names):  # different bytes each: identical ones are refused
        status, body = _post(owner_client, bot, name, GOOD_BOT + f"\n# {n}\n".encode())
        assert status == 201, body
        assert len(body["filename"]) <= 200
    assert list(scratch.iterdir()) == []
    assert _smuggled(tmp_path) == []


def _mutations() -> st.SearchStrategy[bytes]:
    """A valid archive, truncated, with bytes overwritten, or with bytes inserted."""
    size = len(GOOD_ZIP)
    cut = st.integers(0, size).map(lambda n: GOOD_ZIP[:n])
    flips = st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, 255)), min_size=1,
                     max_size=8).map(_overwrite)
    insert = st.tuples(st.integers(0, size), st.binary(min_size=1, max_size=64)).map(
        lambda t: GOOD_ZIP[:t[0]] + t[1] + GOOD_ZIP[t[0]:])
    return st.one_of(cut, flips, insert, st.binary(max_size=2048))


def _overwrite(changes: list[tuple[int, int]]) -> bytes:
    data = bytearray(GOOD_ZIP)
    for at, value in changes:
        data[at] = value
    return bytes(data)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(content=_mutations())
def test_a_damaged_archive_is_accepted_whole_or_refused_in_one_line(
    content: bytes, scratch: Path
) -> None:
    try:
        info = program_inspect(filename="bot.zip", content=content)
    except ProgramError as error:
        assert "\n" not in str(error) and str(error)
    else:
        assert info.kind == "zip"
    assert list(scratch.iterdir()) == []
