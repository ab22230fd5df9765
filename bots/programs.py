"""Uploaded bot programs: inspect an upload; unpack a stored program where the engine runs it.

Every program becomes a folder with `bot.py` or `bot.json` at its root, the form
`engine.builtin.resolve_player` accepts. Folders are cached per SHA-256 under
KAISER_PROGRAM_DIR, so a worker unpacks each program once, whatever machine it runs on.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.conf import settings

MAX_FILES = 1000
MAX_UNPACKED_BYTES = 50 * 1024 * 1024
ALLOWED_RUNTIMES = ("python3", "node")


class ProgramError(ValueError):
    """The upload is not a bot program we can run; the message is one line for its owner."""


@dataclass(frozen=True)
class ProgramInfo:
    kind: str  # "py" or "zip"
    entry: str  # what runs: "bot.py" or the manifest's command


def program_inspect(*, filename: str, content: bytes) -> ProgramInfo:
    """Check an upload's shape without running it; raise ProgramError with the reason."""
    if message := program_size_error(len(content)):
        raise ProgramError(message)
    if not content:
        raise ProgramError("the file is empty")
    lower = filename.lower()
    if lower.endswith(".py"):
        _check_python_source(content)
        return ProgramInfo(kind="py", entry="bot.py")
    if lower.endswith(".zip"):
        return ProgramInfo(kind="zip", entry=_inspect_zip(content))
    raise ProgramError("upload a single .py file or a .zip archive")


def program_size_error(size: int) -> str | None:
    """Why an upload of this size is refused (None if it is not); checked before reading it."""
    limit = settings.KAISER_UPLOAD_MAX_BYTES
    if size > limit:
        return f"the file is {_mb(size)}; the limit is {_mb(limit)}"
    return None


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def _check_python_source(content: bytes) -> None:
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        raise ProgramError("the .py file is not UTF-8 text") from None


def _open_zip(content: bytes) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(content))
    except (zipfile.BadZipFile, OSError, ValueError):
        raise ProgramError("the file is not a valid zip archive") from None


def _inspect_zip(content: bytes) -> str:
    with _open_zip(content) as archive:
        members = archive.infolist()
        if len(members) > MAX_FILES:
            raise ProgramError(f"the archive holds {len(members)} files; the limit is {MAX_FILES}")
        total = 0
        for member in members:
            _check_member(member)
            total += member.file_size
        if total > MAX_UNPACKED_BYTES:
            raise ProgramError(
                f"the archive unpacks to {_mb(total)}; the limit is {_mb(MAX_UNPACKED_BYTES)}"
            )
        names = {m.filename for m in members}
        if "bot.json" in names:
            return _read_manifest(archive, names)
        if "bot.py" in names:
            return "bot.py"
        raise ProgramError("the archive has neither bot.json nor bot.py at its root")


def _check_member(member: zipfile.ZipInfo) -> None:
    name = member.filename
    path = PurePosixPath(name)
    if name.startswith("/") or "\\" in name or (len(name) > 1 and name[1] == ":"):
        raise ProgramError(f"the archive holds an absolute path: {name}")
    if ".." in path.parts:
        raise ProgramError(f"the archive holds a path that leaves its folder: {name}")
    mode = member.external_attr >> 16
    if mode and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        kind = "a symbolic link" if stat.S_ISLNK(mode) else "a special file"
        raise ProgramError(f"the archive holds {kind}: {name}")


def _read_manifest(archive: zipfile.ZipFile, names: set[str]) -> str:
    try:
        manifest = json.loads(archive.read("bot.json"))
    except (ValueError, zipfile.BadZipFile, OSError):
        raise ProgramError("bot.json is not valid JSON") from None
    run = manifest.get("run") if isinstance(manifest, dict) else None
    if not isinstance(run, list) or not run or not all(isinstance(a, str) for a in run):
        raise ProgramError('bot.json needs "run": a list of strings, e.g. ["python3", "main.py"]')
    command = run[0]
    if command.startswith("./"):
        if command[2:] not in names:
            raise ProgramError(f"bot.json runs {command}, which is not in the archive")
    elif command not in ALLOWED_RUNTIMES:
        raise ProgramError(
            f"bot.json runs {command!r}; use python3, node or ./an-executable-in-the-archive"
        )
    return " ".join(run)


def program_dir() -> Path:
    return Path(settings.KAISER_PROGRAM_DIR)


def program_materialize(*, sha256: str, filename: str, content: bytes) -> Path:
    """The folder holding this program unpacked (made once; concurrent callers are safe)."""
    target = program_dir() / sha256
    if target.is_dir():
        return target
    program_dir().mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{sha256[:12]}-", dir=program_dir()))
    staging.chmod(0o755)  # the sandboxed bot may run as another user
    try:
        _unpack_into(staging, filename=filename, content=content)
        os.rename(staging, target)  # atomic; loses the race harmlessly if another got there first
    except OSError:
        if not target.is_dir():
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _unpack_into(folder: Path, *, filename: str, content: bytes) -> None:
    info = program_inspect(filename=filename, content=content)
    if info.kind == "py":
        (folder / "bot.py").write_bytes(content)
    else:
        _extract(content, folder)


def _extract(content: bytes, folder: Path) -> None:
    with _open_zip(content) as archive:
        for member in archive.infolist():
            destination = folder / member.filename
            if member.is_dir():
                destination.mkdir(parents=True, exist_ok=True)
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as source, destination.open("wb") as sink:
                shutil.copyfileobj(source, sink)
            if (member.external_attr >> 16) & 0o111:
                destination.chmod(0o755)
