"""Builds the remembering greedy's program folder from the sources as they are now:

    python bench/remembering/build.py TARGET

bot.py and remembering.py from here, and the engine modules they import, renamed into the
package mc_engine the way bots/examples/build_zips.py packs mc.zip (a sandboxed bot sees only
its own files). bench/duplicate_memory.py builds it afresh for every run, so it never goes
stale; nothing built is committed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ENGINE = ROOT / "engine"
# The Sergeant Major modules beside the Kaiser ones mc.zip carries (build_zips.ENGINE_MODULES).
SM_MODULES = ("__init__.py", "cards.py", "rules.py", "game.py", "players.py", "protocol.py",
              "mc.py")


def _build_zips() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_zips",
                                                  ROOT / "bots" / "examples" / "build_zips.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def members() -> dict[str, bytes]:
    """The folder's files by relative path."""
    packer = _build_zips()
    package = packer.PACKAGE
    files = {"bot.py": (HERE / "bot.py").read_bytes(),
             "remembering.py": packer.renamed((HERE / "remembering.py").read_bytes())}
    for module in packer.ENGINE_MODULES["mc"]:  # flat, as in mc.zip (kaiser/cards.py too)
        files[f"{package}/{Path(module).name}"] = packer.renamed((ENGINE / module).read_bytes())
    for module in SM_MODULES:
        files[f"{package}/sergeant_major/{module}"] = packer.renamed(
            (ENGINE / "sergeant_major" / module).read_bytes())
    return files


def build(target: Path, memory_file: str | None = None) -> Path:
    """Writes the program folder at `target` (made if missing) and returns it. `memory_file`:
    where the bot keeps its memory, if not /tmp/remembered-layouts.json."""
    files = members()
    if memory_file is not None:
        files["memory-file"] = memory_file.encode() + b"\n"
    for name, data in files.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return target


if __name__ == "__main__":
    print(build(Path(sys.argv[1])))
