"""The code map (docs/architecture.md) is kept true: every module of the engine and of each
app is named there, in the part of the map that describes its package, so a redesign that
adds a module adds it to the map too (issue 42 found five missing). The test says which
modules are missing, and where they belong."""

from __future__ import annotations

import re
from pathlib import Path

from tests.architecture.test_house_rules import ROOT

MAP = ROOT / "docs" / "architecture.md"
APPS = ("accounts", "bots", "matches", "ladder", "tournaments", "play", "fairplay",
        "operations", "kaiser_site")
# What every app may hold without a line of its own: the map's "Each Django app holds ..."
# paragraph names them once for all.
SHARED = re.compile(r"Each Django app holds.*?\n\n", re.S)
# Not modules of the app: its migrations, commands, template tags, and bots/examples (the
# starter kit's programs, data the site serves).
SKIP_PARTS = {"migrations", "management", "templatetags", "__pycache__", "jinja2", "templates",
              "examples"}


def _modules(top: str) -> list[Path]:
    return [path for path in sorted((ROOT / top).rglob("*.py"))
            if path.name not in {"__init__.py", "__main__.py"}
            and not SKIP_PARTS & set(path.relative_to(ROOT).parts)]


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    """The map's top list items, each with its nested items: (the whole, [nested ones])."""
    blocks: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("- "):
            blocks.append((line, []))
        elif blocks and re.match(r"\s+- ", line):
            whole, nested = blocks[-1]
            blocks[-1] = (whole + "\n" + line, [*nested, line])
        elif blocks and line.strip():
            whole, nested = blocks[-1]
            if nested:
                nested[-1] += "\n" + line
            blocks[-1] = (whole + "\n" + line, nested)
    return blocks


def _named(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", text) is not None


def _starts(item: str, head: str) -> bool:
    return item.lstrip(" -*").startswith(f"`{head}/`")


def missing_from_map(text: str) -> list[str]:
    """The modules the map does not name where their package is described: engine/<pkg>/x.py
    in the item that starts with `<pkg>/`; engine/x.py and <app>/x.py in their app's item
    (nested items too); an app's usual modules in the shared paragraph; any by its path."""
    blocks = _blocks(text)
    shared = SHARED.search(text)
    shared_text = shared.group(0) if shared else ""
    missing = []
    for top in ("engine", *APPS):
        for path in _modules(top):
            relative = path.relative_to(ROOT)
            dotted = relative.with_suffix("").as_posix().replace("/", ".")
            if _named(relative.as_posix(), text) or _named(dotted, text):
                continue
            if top == "engine" and len(relative.parts) > 2:
                package = relative.parts[1]
                where = [n for _, nested in blocks for n in nested if _starts(n, package)]
                leaf = "/".join(relative.parts[2:])
            else:
                package = top
                where = [whole for whole, _ in blocks if _starts(whole, top)]
                leaf = "/".join(relative.parts[1:])
            if any(_named(leaf, w) for w in where):
                continue
            if top in APPS and _named(relative.name, shared_text):
                continue
            missing.append(f"{relative} (in the map's item of `{package}/`)")
    return missing


def test_every_engine_and_app_module_is_in_the_code_map() -> None:
    assert missing_from_map(MAP.read_text()) == []


def test_a_module_left_out_of_the_map_is_named() -> None:
    text = MAP.read_text().replace("`procs.py`", "`(gone)`")
    assert "engine/sandbox/procs.py (in the map's item of `sandbox/`)" in missing_from_map(text)
