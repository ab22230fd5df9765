"""The local runner: engine/ packed as one zipapp, kaiser-engine.pyz, that a bot author runs
with a plain `python3` (3.11+): `python3 kaiser-engine.pyz match my_bot.py builtin:mc`.

`python3 -m engine.zipapp [OUT]` writes it (default kaiser-engine.pyz). The site builds the
same bytes on demand (kaiser_site/runner_pages.py). The build is reproducible: the same
engine sources give the same bytes, so the SHA-256 the site shows identifies them.
"""

from __future__ import annotations

import hashlib
import io
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

ENGINE_DIR = Path(__file__).resolve().parent
STAMP = (2026, 1, 1, 0, 0, 0)  # fixed, so the same sources give the same bytes
MAIN = (
    '"""kaiser-engine.pyz: the Kaiser Arena engine (python3 kaiser-engine.pyz --help)."""\n'
    "import sys\n\n"
    "if sys.version_info < (3, 11):\n"
    '    sys.exit("kaiser-engine.pyz needs Python 3.11 or later, not " + sys.version.split()[0])\n'
    "import os  # noqa: E402\n\n"
    "if os.environ.get('KAISER_GAME_PLUGINS'):  # a game's package, where the runner is run\n"
    "    sys.path.append(os.getcwd())\n"
    "from engine.cli import main  # noqa: E402\n\n"
    "sys.exit(main())\n"
)


@dataclass(frozen=True, slots=True)
class Runner:
    content: bytes
    version: str  # the first 12 hex digits of the engine sources' hash
    sha256: str  # of content


def engine_sources(engine_dir: Path = ENGINE_DIR) -> dict[str, bytes]:
    """The engine's modules by path below engine/ (its games' packages too; no caches, no
    tests)."""
    return {p.relative_to(engine_dir).as_posix(): p.read_bytes()
            for p in sorted(engine_dir.rglob("*.py")) if "__pycache__" not in p.parts}


def sources_hash(sources: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for name, data in sorted(sources.items()):
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def build(engine_dir: Path = ENGINE_DIR) -> Runner:
    sources = engine_sources(engine_dir)
    version = sources_hash(sources)[:12]
    members = {f"engine/{name}": data for name, data in sources.items()}
    members["engine/_version.py"] = f'VERSION = "{version}"\n'.encode()
    members["__main__.py"] = MAIN.encode()
    buffer = io.BytesIO()
    buffer.write(b"#!/usr/bin/env python3\n")  # so `./kaiser-engine.pyz` runs too
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in sorted(members.items()):
            info = zipfile.ZipInfo(member, STAMP)
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    content = buffer.getvalue()
    return Runner(content=content, version=version, sha256=hashlib.sha256(content).hexdigest())


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0] if args else "kaiser-engine.pyz")
    runner = build()
    target.write_bytes(runner.content)
    target.chmod(0o755)
    print(f"{target}: version {runner.version}, sha256 {runner.sha256}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
