"""Architecture invariant (issue 32, docs/architecture.md, "Games as plug-ins"): the site
branches on a game's capabilities, never on its name. Outside the games' packages
(engine/<game>/), their templates (templates/games/<game>/) and the migrations, no site module
or template names a game: no import of a game's package, no `KAISER`/`SERGEANT_MAJOR`
constant, no game's name as a string (docstrings and comments may say it). Since issue 32 no
file is excepted; before it, the site's apps named a game on 80 lines."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from engine.games import GAME_MODULES, GAMES
from tests.architecture.test_house_rules import ROOT
from tests.architecture.test_runtime_names_no_game import docstring_ids

SITE_APPS = ("accounts", "bots", "fairplay", "kaiser_site", "ladder", "matches", "operations",
             "play", "tournaments")
# Each registered game's package ("engine.kaiser") and constant ("KAISER").
GAME_PACKAGES = tuple(module.rsplit(".", 1)[0] for module in GAME_MODULES)
CONSTANTS = {name.upper().replace("-", "_") for name in GAMES}


def _site_modules() -> list[Path]:
    return sorted(path for app in SITE_APPS for path in (ROOT / app).rglob("*.py")
                  if "migrations" not in path.parts and "examples" not in path.parts)


def names_in_python(text: str, names: set[str]) -> list[str]:
    """How a module's code names a game: imports of its package, its constant, its name."""
    tree = ast.parse(text)
    docs = docstring_ids(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(GAME_PACKAGES):
            found.append(f"line {node.lineno}: from {node.module} import")
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name.startswith(GAME_PACKAGES)]
        elif isinstance(node, ast.Name) and node.id in CONSTANTS:
            found.append(f"line {node.lineno}: {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr in CONSTANTS:
            found.append(f"line {node.lineno}: .{node.attr}")
        elif (isinstance(node, ast.Constant) and node.value in names
              and id(node) not in docs):
            found.append(f"line {node.lineno}: {node.value!r}")
    return found


def names_in_template(text: str, names: set[str]) -> list[str]:
    alternatives = "|".join(map(re.escape, sorted(names)))
    quoted = re.compile(r"""["'](""" + alternatives + r""")["']""")
    return [f"line {n}: {m.group(0)}" for n, line in enumerate(text.splitlines(), 1)
            for m in quoted.finditer(line)]


def _templates() -> list[Path]:
    folders = [ROOT / "templates", *(ROOT / app / "templates" for app in SITE_APPS),
               *(ROOT / app / "jinja2" for app in SITE_APPS)]
    return sorted(path for folder in folders if folder.is_dir()
                  for path in folder.rglob("*.html")
                  if not path.is_relative_to(ROOT / "templates" / "games"))


def test_no_site_module_or_template_names_a_game() -> None:
    names = set(GAMES)
    naming = {}
    for path in _site_modules():
        if found := names_in_python(path.read_text(), names):
            naming[str(path.relative_to(ROOT))] = found
    for path in _templates():
        if found := names_in_template(path.read_text(), names):
            naming[str(path.relative_to(ROOT))] = found
    assert not naming, f"these name a game; ask the game (engine.games.Game) instead: {naming}"


def test_the_check_finds_each_way_of_naming_a_game() -> None:
    """The check can fail: each of these is found, and none of the allowed ones is."""
    names = {"kaiser", "sergeant-major"}
    caught = ["from engine.kaiser.boards import costliest", "import engine.sergeant_major",
              "x = KAISER", "x = games.SERGEANT_MAJOR", "if game == 'kaiser': pass",
              "f(game='sergeant-major')"]
    for code in caught:
        assert names_in_python(code, names), code
    allowed = ['"""A docstring about kaiser."""', "x = 'kaiser-arena'", "# kaiser",
               "x = KAISER_SANDBOX_POOL", "from engine.games import get_game",
               "def f():\n    'kaiser'\n"]
    for code in allowed:
        assert not names_in_python(code, names), code
    assert names_in_template('{% if game == "kaiser" %}', names)
    assert not names_in_template("Kaiser Arena", names)
