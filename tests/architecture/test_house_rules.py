"""The boundaries of docs/architecture.md, checked over the tree: no import circles between
modules, the engine imports nothing of the site, the runtime imports no game, services never
import tasks, and no HTML is assembled in Python (pages are templates; the repeated fragments
are Jinja2 templates)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("accounts", "bots", "engine", "fairplay", "kaiser_site", "ladder", "matches",
            "operations", "play", "tournaments")


def _sources() -> Iterator[tuple[str, Path]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            yield name, path


MODULES = dict(_sources())


def _runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth, but those under `if TYPE_CHECKING:`."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in _runtime_imports(child))
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        yield from _runtime_imports(node)


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The project modules an import statement loads."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")[: len(module.split(".")) - node.level + (
                MODULES[module].name == "__init__.py")]
            base = ".".join([*package, base] if base else package)
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                 for alias in node.names]
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != module:
            yield name


def import_graph() -> dict[str, set[str]]:
    return {module: {t for node in _runtime_imports(ast.parse(path.read_text()))
                     for t in _targets(module, node)}
            for module, path in MODULES.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles_between_modules() -> None:
    assert circles(import_graph()) == []


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


def test_the_engine_imports_nothing_of_the_site() -> None:
    graph = import_graph()
    outside = {(m, t) for m, targets in graph.items() if m.startswith("engine")
               for t in targets if not t.startswith("engine")}
    assert outside == set()


# The runtime: the parts of the engine that play any game (a match's tables, the players'
# interface, the clock, the faults, the sandbox). A game reaches them through engine.games.
RUNTIME = ("engine.tables", "engine.players", "engine.clock", "engine.slots", "engine.faults",
           "engine.sandbox")


def _in_runtime(module: str) -> bool:
    return any(module == part or module.startswith(f"{part}.") for part in RUNTIME)


def outside_the_runtime(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Each import of a runtime module that leaves the runtime (into a game's modules)."""
    return {(m, t) for m, targets in graph.items() if _in_runtime(m)
            for t in targets if not _in_runtime(t)}


def test_the_runtime_imports_no_game() -> None:
    assert all(part in MODULES for part in RUNTIME)
    assert outside_the_runtime(import_graph()) == set()


def test_the_runtime_check_finds_a_game_import() -> None:
    graph = {"engine.clock": {"engine.faults", "engine.sergeant_major.rules"},
             "engine.sandbox.seat": {"engine.sandbox.config"}, "engine.match": {"engine.game"}}
    assert outside_the_runtime(graph) == {("engine.clock", "engine.sergeant_major.rules")}


def test_only_tasks_and_the_celery_app_import_tasks_modules() -> None:
    """Tasks call services; a service sends a task by name (kaiser_site.task_send)."""
    graph = import_graph()
    wrong = {(m, t) for m, targets in graph.items() for t in targets
             if t.endswith(".tasks") and not m.endswith(".tasks")}
    assert wrong == set()


# An HTML element in a string literal: the tags the pages use.
TAG = re.compile(r"<\s*/?\s*(!doctype|a|abbr|b|br|button|code|details|div|em|form|g|h[1-6]|i|"
                 r"img|input|label|li|line|ol|option|p|path|polyline|pre|rect|script|section|"
                 r"select|small|span|strong|summary|svg|table|tbody|td|text|th|thead|time|"
                 r"title|tr|ul)\b[^<]*>", re.IGNORECASE)
ASSEMBLERS = {"mark_safe", "format_html", "format_html_join", "SafeString"}
# The places allowed to mark text safe, and why.
ALLOWED = {
    # Jinja2 has escaped everything the fragment printed (the one place for the fragments).
    ("kaiser_site.fragments", "mark_safe"),
    # Markdown of the repository's own docs, converted by the markdown library.
    ("kaiser_site.docs_pages", "mark_safe"),
}


def html_in_python(modules: dict[str, Path] = MODULES, root: Path = ROOT) -> list[str]:
    found = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text())
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                           ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in docstrings and TAG.search(node.value)):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {node.value[:60]!r}")
            if isinstance(node, ast.Call):
                called = getattr(node.func, "attr", None) or getattr(node.func, "id", "")
                if called in ASSEMBLERS and (module, called) not in ALLOWED:
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {called}()")
    return found


def test_no_html_is_assembled_in_python() -> None:
    assert html_in_python() == []


@pytest.mark.parametrize("source", [
    'x = f"<td>{name}</td>"',
    "from django.utils.html import format_html\ny = format_html('{}', 1)",
])
def test_the_html_check_finds_html_in_python(source: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_text(source)
    assert html_in_python({"bots.bad": path}, tmp_path) != []
