"""Loading bot programs safely: a single .py file, a zip archive, or an unpacked folder.

Every check fails with a ProgramError whose message is one line an uploader can act on. Nothing
is trusted: names, sizes, modes and the manifest all come from the uploader.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

MAX_ARCHIVE_BYTES = 10 * 1024 * 1024
MAX_UNPACKED_BYTES = 50 * 1024 * 1024
MAX_FILES = 1000
MAX_MANIFEST_BYTES = 64 * 1024
# Far above what a real program needs, far below the kernel's NAME_MAX (255) and PATH_MAX: a
# hostile name fails here with a clear message, not as an OSError (or a RecursionError while
# cleaning up thousands of nested folders) in the middle of unpacking.
MAX_PATH_DEPTH = 32
MAX_NAME_BYTES = 200
MAX_PATH_BYTES = 1024
INTERPRETERS = ("python3", "node")
_CHUNK = 1 << 16


class ProgramError(ValueError):
    """A bot program that cannot be accepted; str() is a one-line reason."""


@dataclass(frozen=True, slots=True)
class BotProgram:
    """An unpacked program: its folder (becomes /bot, read-only) and the command to run there."""

    directory: Path
    run: tuple[str, ...]


def program_unpack(source: str | Path, dest: str | Path) -> BotProgram:
    """Check `source` (.py, .zip or folder) and unpack it into the new folder `dest`."""
    source, dest = Path(source), Path(dest)
    if not source.exists():
        raise ProgramError(f"no such bot program: {source}")
    dest.mkdir(mode=0o755)
    os.chmod(dest, 0o755)  # the sandbox runs as another user: it must be able to enter
    if source.is_dir():
        _copy_folder(source, dest)
    elif source.suffix == ".py":
        _copy_single_file(source, dest)
    elif zipfile.is_zipfile(source):
        _unpack_zip(source, dest)
    else:
        raise ProgramError(f"{source.name}: a bot program is a .py file, a .zip archive "
                           "or a folder")
    return program_load(dest)


def program_check(source: str | Path) -> BotProgram:
    """Validate an upload completely (by unpacking it into a scratch folder); returns its run."""
    with tempfile.TemporaryDirectory(prefix="kaiser-check-") as scratch:
        program = program_unpack(source, Path(scratch) / "bot")
        return BotProgram(Path(source), program.run)


def program_load(directory: str | Path) -> BotProgram:
    """The run command of an unpacked program: bot.json's `run`, else `python3 bot.py`."""
    directory = Path(directory)
    manifest = directory / "bot.json"
    if manifest.is_file():
        run = _manifest_run(manifest)
        _check_run_target(directory, run)
        return BotProgram(directory, run)
    if (directory / "bot.py").is_file():
        return BotProgram(directory, ("python3", "bot.py"))
    nested = sorted(p.relative_to(directory).as_posix() for p in directory.glob("*/bot.py"))
    hint = f" (found {nested[0]}: zip the files, not their folder)" if nested else ""
    raise ProgramError(f"no bot.json or bot.py at the root of the program{hint}")


def _manifest_run(manifest: Path) -> tuple[str, ...]:
    if manifest.stat().st_size > MAX_MANIFEST_BYTES:
        raise ProgramError("bot.json is larger than 64 KiB")
    try:
        data: Any = json.loads(manifest.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProgramError(f"bot.json is not valid JSON: {exc}") from None
    run = data.get("run") if isinstance(data, dict) else None
    if not (isinstance(run, list) and run and len(run) <= 64
            and all(isinstance(a, str) and 0 < len(a) <= 4096 and "\0" not in a for a in run)):
        raise ProgramError('bot.json needs "run": a non-empty list of strings, '
                           'like ["python3", "main.py"]')
    return tuple(run)


def _check_run_target(directory: Path, run: tuple[str, ...]) -> None:
    command = run[0]
    if command in INTERPRETERS:
        return
    if not command.startswith("./"):
        raise ProgramError(f'bot.json "run" must start with python3, node or ./FILE '
                           f"(an executable in the archive), not {command!r}")
    target = directory / _safe_relative(command[2:])
    if not target.is_file():
        raise ProgramError(f"bot.json runs {command}, which is not a file in the program")
    target.chmod(0o755)


def _safe_relative(name: str) -> PurePosixPath:
    """The relative path a member name stands for, or ProgramError if it could escape."""
    if not name or "\0" in name or "\\" in name:
        raise ProgramError(f"unsafe file name {name!r}")
    path = PurePosixPath(name)
    if path.is_absolute() or (len(name) > 1 and name[1] == ":"):
        raise ProgramError(f"absolute path in the archive: {name}")
    if ".." in path.parts:
        raise ProgramError(f"path with '..' in the archive: {name}")
    if not path.parts:
        raise ProgramError(f"unsafe file name {name!r}")
    if (len(path.parts) > MAX_PATH_DEPTH or len(name.encode()) > MAX_PATH_BYTES
            or any(len(part.encode()) > MAX_NAME_BYTES for part in path.parts)):
        raise ProgramError(f"path too deep or too long in the archive: {name[:60]}...")
    return path


class _Budget:
    """Counts files and bytes against the limits while writing."""

    def __init__(self) -> None:
        self.files = 0
        self.bytes = 0

    def add_file(self, name: str) -> None:
        self.files += 1
        if self.files > MAX_FILES:
            raise ProgramError(f"more than {MAX_FILES} files in the program")

    def add_bytes(self, n: int) -> None:
        self.bytes += n
        if self.bytes > MAX_UNPACKED_BYTES:
            raise ProgramError(f"the program unpacks to more than {MAX_UNPACKED_BYTES >> 20} MB")


def _write_file(dest: Path, rel: PurePosixPath, chunks: Any, executable: bool,
                budget: _Budget) -> None:
    target = dest.joinpath(*rel.parts)
    _make_parents(dest, rel)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    try:
        fd = os.open(target, flags, 0o755 if executable else 0o644)
    except FileExistsError:
        raise ProgramError(f"file listed twice in the archive: {rel}") from None
    with os.fdopen(fd, "wb") as out:
        for chunk in chunks:
            budget.add_bytes(len(chunk))
            out.write(chunk)
    os.chmod(target, 0o755 if executable else 0o644)  # whatever the umask was


def _make_parents(dest: Path, rel: PurePosixPath) -> None:
    current = dest
    for part in rel.parts[:-1]:
        current = current / part
        if current.is_symlink() or (current.exists() and not current.is_dir()):
            raise ProgramError(f"{rel}: a parent is not a folder")
        if not current.exists():
            current.mkdir(mode=0o755)
            os.chmod(current, 0o755)


def _copy_single_file(source: Path, dest: Path) -> None:
    if source.stat().st_size > MAX_ARCHIVE_BYTES:
        raise ProgramError(f"{source.name} is larger than {MAX_ARCHIVE_BYTES >> 20} MB")
    with source.open("rb") as src:
        _write_file(dest, PurePosixPath("bot.py"), iter(lambda: src.read(_CHUNK), b""),
                    False, _Budget())


def _unpack_zip(source: Path, dest: Path) -> None:
    if source.stat().st_size > MAX_ARCHIVE_BYTES:
        raise ProgramError(f"the archive is larger than {MAX_ARCHIVE_BYTES >> 20} MB")
    try:
        with zipfile.ZipFile(source) as archive:
            members = archive.infolist()
            _check_members(members, source.stat().st_size)
            budget = _Budget()
            for info in members:
                _extract_member(archive, info, dest, budget)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError,
            zlib.error, UnicodeDecodeError) as exc:  # a name flagged UTF-8 that is not
        raise ProgramError(f"the archive is damaged or unsupported: {exc}") from None


def _check_members(members: list[zipfile.ZipInfo], archive_size: int) -> None:
    """Everything that can be known from the directory, before writing a byte."""
    if len(members) > MAX_FILES:
        raise ProgramError(f"more than {MAX_FILES} files in the archive")
    if any(not 0 <= m.header_offset < archive_size for m in members):
        # zipfile would seek there (a negative offset is an OSError, not BadZipFile)
        raise ProgramError("the archive is damaged: a file's header lies outside it")
    if sum(m.file_size for m in members) > MAX_UNPACKED_BYTES:
        raise ProgramError(f"the archive unpacks to more than {MAX_UNPACKED_BYTES >> 20} MB")
    for info in members:
        _safe_relative(info.filename.rstrip("/") or info.filename)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise ProgramError(f"symbolic link in the archive: {info.filename}")
        if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise ProgramError(f"special file (device, pipe or socket) in the archive: "
                               f"{info.filename}")
        if info.flag_bits & 0x1:
            raise ProgramError(f"encrypted file in the archive: {info.filename}")


def _extract_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, dest: Path,
                    budget: _Budget) -> None:
    rel = _safe_relative(info.filename.rstrip("/"))
    budget.add_file(info.filename)
    if info.is_dir():
        _make_parents(dest, rel / "x")
        return
    executable = bool((info.external_attr >> 16) & 0o111)
    with archive.open(info) as member:
        _write_file(dest, rel, iter(lambda: member.read(_CHUNK), b""), executable, budget)


def _copy_folder(source: Path, dest: Path) -> None:
    budget = _Budget()
    for root, dirs, files in os.walk(source, followlinks=False):
        for name in sorted(dirs + files):
            path = Path(root) / name
            rel = PurePosixPath(path.relative_to(source).as_posix())
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                raise ProgramError(f"symbolic link in the program: {rel}")
            budget.add_file(str(rel))
            if stat.S_ISDIR(mode):
                _make_parents(dest, rel / "x")
            elif stat.S_ISREG(mode):
                _copy_one(path, dest, rel, bool(mode & 0o111), budget)
            else:
                raise ProgramError(f"special file (device, pipe or socket) in the program: {rel}")


def _copy_one(path: Path, dest: Path, rel: PurePosixPath, executable: bool,
              budget: _Budget) -> None:
    with path.open("rb") as src:
        _write_file(dest, rel, iter(lambda: src.read(_CHUNK), b""), executable, budget)
