"""Architecture invariant of docs/architecture.md's engine/: the runtime names no game.

Everything in engine/ outside the game packages (engine/kaiser/, engine/sergeant_major/, ...)
asks the game it is given (engine.games.Game) and never which one it is: no module of it
imports a game's package or names a game, in code or in a string it uses (a message, a
default, a module path). The one exception is the registry, engine.games.GAME_MODULES.

What is not a game's name: the product's ("Kaiser Arena", kaiser-engine.pyz, the
KAISER_SANDBOX_* variables, the kaiser-bot-* folders: a name joined to others by "-" or "_"),
docstrings and comments (they may explain with an example).
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.games import GAME_MODULES, PLUGINS_ENV
from tests.architecture.test_house_rules import ROOT

ENGINE = ROOT / "engine"
REGISTRY = ENGINE / "games.py"
PACKAGES = tuple(module.split(".")[1] for module in GAME_MODULES)  # kaiser, sergeant_major
# The built-in games, not the registry: a plugin of KAISER_GAME_PLUGINS lives outside engine/.
BUILT_IN = [importlib.import_module(module).GAME for module in GAME_MODULES]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


# Each game as words: its name, its title without the parenthesis, its package.
GAME_WORDS = sorted({tuple(_words(form)) for game in BUILT_IN
                     for form in (game.name, game.title.split("(")[0], game.name)}
                    | {tuple(_words(package)) for package in PACKAGES})
# In a string: the game's words, joined by a space, "-" or "_", standing alone (not part of a
# longer name: kaiser-engine.pyz, KAISER_SANDBOX_MEMORY_MB, engine.kaiser is caught apart), and
# not the product's name "Kaiser Arena".
NAMED_IN_TEXT = re.compile("|".join(
    r"(?<![\w.\-/])" + r"[ _\-]".join(words) + r"(?![\w\-])(?!\s+arena)"
    for words in GAME_WORDS), re.IGNORECASE)


def runtime_modules() -> list[Path]:
    return [path for path in sorted(ENGINE.rglob("*.py"))
            if path.relative_to(ENGINE).parts[0] not in PACKAGES]


def docstring_ids(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (of a module, class or function)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _registry(tree: ast.AST) -> set[int]:
    """The nodes of `GAME_MODULES = (...)`: the one place that names the games."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == \
                ["GAME_MODULES"]:
            return {id(child) for child in ast.walk(node)}
    return set()


def _identifier_names_a_game(name: str) -> bool:
    parts = name.lower().split("_")
    return any(tuple(parts[i:i + len(words)]) == words
               for words in GAME_WORDS for i in range(len(parts)))


def _identifiers(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    elif isinstance(node, (ast.arg, ast.keyword)) and node.arg:
        yield node.arg
    elif isinstance(node, ast.alias):
        yield from filter(None, (node.name, node.asname))


def _imported(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom) and node.module:
        yield node.module
        yield from (f"{node.module}.{alias.name}" for alias in node.names)


def game_names_in(source: str) -> list[str]:
    """Where a module names a game: imports of a game package, identifiers, and strings (a
    module path in one too) that are not docstrings; the registry's nodes are let through."""
    tree = ast.parse(source)
    skip = docstring_ids(tree) | _registry(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        line = getattr(node, "lineno", "?")
        for module in _imported(node):
            if any(module == f"engine.{p}" or module.startswith(f"engine.{p}.")
                   for p in PACKAGES):
                found.append(f"line {line}: imports {module}")
        for name in _identifiers(node):
            if _identifier_names_a_game(name):
                found.append(f"line {line}: identifier {name}")
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            match = NAMED_IN_TEXT.search(text)
            if match or any(f"engine.{p}" in text for p in PACKAGES):
                found.append(f"line {line}: string {text[:60]!r}")
    return found


def test_the_runtime_names_no_game() -> None:
    found = {str(path.relative_to(ROOT)): game_names_in(path.read_text())
             for path in runtime_modules()}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_registry_is_the_runtime_s_one_list_of_games() -> None:
    """Every game of the registry is a package of its own beside the runtime."""
    assert len(PACKAGES) == len(GAME_MODULES) >= 2  # a plugin named in the environment aside
    for package in PACKAGES:
        assert (ENGINE / package / "plugin.py").is_file()
    assert "engine/games.py" in {str(p.relative_to(ROOT)) for p in runtime_modules()}


def test_the_invariant_holds_with_a_plugin_registered_outside_the_engine() -> None:
    """A deployment's game (here the test game, tests/games/duel) named in PLUGINS_ENV is in
    the registry of every process; this module's tests hold there too."""
    env = {**os.environ, PLUGINS_ENV: "tests.games.duel.plugin"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         f"{__file__}::test_the_runtime_names_no_game",
         f"{__file__}::test_the_registry_is_the_runtime_s_one_list_of_games"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]
    assert "2 passed" in run.stdout


@pytest.mark.parametrize("source", [
    "from engine.kaiser.rules import PRESETS\n",
    "import engine.sergeant_major.game\n",
    "from engine import kaiser\n",
    "KAISER = 1\n",
    "x = SERGEANT_MAJOR\n",
    "def f(kaiser_rules): pass\n",
    "game = rules.get('game', 'kaiser')\n",
    "if name == 'sergeant-major': pass\n",
    "message = f'a Kaiser match has {n} players'\n",
    "title = 'Sergeant Major (9-5-2)'\n",
    "module = importlib.import_module('engine.kaiser.plugin')\n",
])
def test_a_module_that_names_a_game_is_caught(source: str) -> None:
    assert game_names_in(source) != []


@pytest.mark.parametrize("source", [
    '"""Kaiser and Sergeant Major, in a docstring."""\n',
    "# kaiser, in a comment\nx = 1\n",
    "VAR = 'KAISER_SANDBOX_MEMORY_MB'\n",
    "prefix = f'kaiser-bot-{pid}-'\n",
    "name = 'kaiser-engine.pyz: the Kaiser Arena engine'\n",
    "state = '/run/kaiser-arena'\n",
    "site = 'kaiser_site.worker_cores'\n",
])
def test_the_product_s_name_is_not_a_game_s(source: str) -> None:
    assert game_names_in(source) == []


# --- The browser's side: static/js ----------------------------------------------------------
# A game's own scripts (Game.browser_scripts) may name it; the shared ones (the replay viewer
# and its registry, the person's table, the live pages) ask the registry (viewers.js) or the
# page (its data-game) instead. What counts is code, not comments: a string naming a game or
# its replay format, or an identifier that is a game's name ("KAISER", "sergeantMajor"); an
# identifier that only begins with the product's word ("kaiserCards", "KaiserArenaReplay")
# is the product's.
STATIC = ROOT / "static"
JS_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\\\"'])//[^\n]*", re.DOTALL)
JS_STRING = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'")
JS_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
FORMATS = {game.replay_format for game in BUILT_IN}


def shared_scripts() -> list[Path]:
    own = {script for game in BUILT_IN for script in getattr(game, "browser_scripts", ())}
    return [path for path in sorted((STATIC / "js").rglob("*.js"))
            if str(path.relative_to(STATIC)) not in own]


def _identifier_words(name: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name))


def game_names_in_script(source: str) -> list[str]:
    """Where a script's code names a game: strings and whole identifiers."""
    code = JS_COMMENT.sub(" ", source)
    found = []
    for match in JS_STRING.finditer(code):
        text = match.group(0)[1:-1]
        if NAMED_IN_TEXT.search(text) or text in FORMATS:
            found.append(f"string {text[:60]!r}")
    for match in JS_IDENTIFIER.finditer(JS_STRING.sub('""', code)):
        if _identifier_words(match.group(0)) in GAME_WORDS:
            found.append(f"identifier {match.group(0)}")
    return found


def test_the_shared_scripts_name_no_game() -> None:
    shared = shared_scripts()
    assert STATIC / "js" / "viewers.js" in shared and STATIC / "js" / "play.js" in shared
    assert len(shared) < len(list((STATIC / "js").rglob("*.js")))  # the games' own are let be
    found = {str(path.relative_to(ROOT)): game_names_in_script(path.read_text())
             for path in shared}
    assert {name: hits for name, hits in found.items() if hits} == {}


@pytest.mark.parametrize("source", [
    'var SM = "sergeant-major";', "if (replay.format === 'kaiser-replay') {}",
    "var KAISER = {};", "window.sergeantMajor = 1;", 'message("a Kaiser table");',
])
def test_a_script_that_names_a_game_is_caught(source: str) -> None:
    assert game_names_in_script(source) != []


@pytest.mark.parametrize("source", [
    "/* Kaiser, in a comment */ var x = 1;", "// Sergeant Major's words\nvar S = window.smCards;",
    "var K = window.kaiserCards;", "window.KaiserArenaReplay.register(f, d);",
    'message("This is not a Kaiser Arena replay");',
])
def test_the_product_s_name_in_a_script_is_not_a_game_s(source: str) -> None:
    assert game_names_in_script(source) == []
