"""Uploaded bot programs on the site's side: check an upload, and keep stored programs unpacked.

The checks themselves (paths, links, sizes, manifest) are the engine's (engine.archive); this
module only feeds it the uploaded bytes. Unpacked programs are cached per SHA-256 under
KAISER_PROGRAM_DIR, so a worker unpacks each program once, whatever machine it runs on.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from engine.archive import ProgramError, program_check, program_unpack

__all__ = ["ProgramError", "ProgramInfo", "program_inspect", "program_materialize"]


@dataclass(frozen=True)
class ProgramInfo:
    kind: str  # "py" or "zip"
    run: str  # the command the sandbox runs, e.g. "python3 bot.py"


def program_size_error(size: int) -> str | None:
    """Why an upload of this size is refused (None if it is not); checked before reading it."""
    limit = settings.KAISER_UPLOAD_MAX_BYTES
    if size > limit:
        return f"the file is {_mb(size)}; the limit is {_mb(limit)}"
    return None


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def _kind(filename: str) -> str:
    lower = filename.lower()
    if lower.endswith(".py"):
        return "py"
    if lower.endswith(".zip"):
        return "zip"
    raise ProgramError("upload a single .py file or a .zip archive")


@contextmanager
def _as_file(filename: str, content: bytes) -> Iterator[Path]:
    """The bytes in a private temporary file whose suffix tells engine.archive what it is."""
    with tempfile.TemporaryDirectory(prefix="kaiser-upload-") as scratch:
        path = Path(scratch) / f"upload.{_kind(filename)}"
        path.write_bytes(content)
        yield path


def program_inspect(*, filename: str, content: bytes) -> ProgramInfo:
    """Check an upload completely without running it; ProgramError (one line) if it is refused."""
    if message := program_size_error(len(content)):
        raise ProgramError(message)
    if not content:
        raise ProgramError("the file is empty")
    kind = _kind(filename)
    if kind == "zip" and not zipfile.is_zipfile(io.BytesIO(content)):
        raise ProgramError("the file is not a valid zip archive")
    with _as_file(filename, content) as path:
        program = program_check(path)
    return ProgramInfo(kind=kind, run=" ".join(program.run))


def program_dir() -> Path:
    return Path(settings.KAISER_PROGRAM_DIR)


def program_materialize(*, sha256: str, filename: str, content: bytes) -> Path:
    """The folder holding this program unpacked (made once; concurrent callers are safe)."""
    target = program_dir() / sha256
    if target.is_dir():
        return target
    program_dir().mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{sha256[:12]}-", dir=program_dir()))
    try:
        with _as_file(filename, content) as path:
            program_unpack(path, staging / "bot")
        os.rename(staging / "bot", target)  # atomic: a concurrent unpacker loses harmlessly
    except OSError:
        if not target.is_dir():
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
