"""Builds the uploadable zips of the example bots: python bots/examples/build_zips.py

Each zip holds the bot's folder plus, for Python bots, the helper kaiser_protocol.py; mc's zip also
carries the engine modules its player is made of (a sandboxed bot sees only its own files), taken
from engine/ itself so there is one copy in the repository. They go in as the package mc_engine,
their imports renamed to match: a part of the engine named engine/ looked like the engine but
was not one (`python -m engine` failed in the unpacked zip; the runner is kaiser-engine.pyz,
from the site's /docs/). The zips are committed;
tests/engine/test_examples.py and test_mc.py check that they match these sources.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENGINE = HERE.parent.parent / "engine"
# The engine modules builtin:mc imports, packed into mc.zip as the package mc_engine/.
# Paths below engine/ (Kaiser's own modules are in engine/kaiser/); the package is flat.
ENGINE_MODULES = {"mc": ("__init__.py", "pack.py", "wire.py", "rules_dict.py", "kaiser/cards.py",
                         "kaiser/rules.py",
                         "kaiser/game.py", "players.py", "seeded.py", "kaiser/greedy.py",
                         "kaiser/protocol.py", "kaiser/sampling.py", "kaiser/mc.py")}
# bot -> whether its zip needs the helper kaiser_protocol.py
BOTS = {"random": True, "greedy": True, "node_random": False, "mc": True}
PACKAGE = "mc_engine"
IMPORTS = re.compile(rb"^([ \t]*)from engine\.(?:kaiser\.)?", re.MULTILINE)
STAMP = (2026, 1, 1, 0, 0, 0)  # fixed, so the same sources give the same bytes


def zip_members(name: str) -> dict[str, bytes]:
    folder = HERE / name
    # Subfolders too, never Python's caches.
    members = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
               if p.is_file() and "__pycache__" not in p.parts}
    if BOTS[name]:
        members["kaiser_protocol.py"] = (HERE / "kaiser_protocol.py").read_bytes()
    for module in ENGINE_MODULES.get(name, ()):
        members[f"{PACKAGE}/{Path(module).name}"] = renamed((ENGINE / module).read_bytes())
    return members


def renamed(source: bytes) -> bytes:
    """An engine module's imports of its siblings, as imports from mc_engine."""
    return IMPORTS.sub(rb"\1from " + PACKAGE.encode() + rb".", source)


def build(name: str) -> Path:
    target = HERE / f"{name}.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in sorted(zip_members(name).items()):
            info = zipfile.ZipInfo(member, STAMP)
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return target


if __name__ == "__main__":
    for bot in BOTS:
        print(build(bot))
