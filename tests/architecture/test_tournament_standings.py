"""Architecture invariant (docs/architecture.md, tournaments): the standings are rules, rows in
and table out. tournaments/standings.py, and every project module it loads, imports nothing
of Django (no ORM, no model): the reads are tournaments.selectors', the words
tournaments.words'."""

from __future__ import annotations

import ast

from tests.architecture.test_house_rules import MODULES, _runtime_imports, import_graph

PURE = "tournaments.standings"


def _loaded(start: str) -> set[str]:
    """The project modules `start` loads, itself included, at any depth."""
    graph, seen, todo = import_graph(), set(), [start]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(graph[module])
    return seen


def _outside_imports(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text())
    names: set[str] = set()
    for node in _runtime_imports(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif not node.level:
            names.add(node.module or "")
    return names


def test_the_standings_import_nothing_of_django() -> None:
    loaded = _loaded(PURE)
    assert loaded == {PURE, "tournaments.triples"}, loaded
    django = {(m, name) for m in loaded for name in _outside_imports(m)
              if name.split(".")[0] == "django"}
    assert not django, django
    assert not any(m.endswith((".models", ".selectors")) for m in loaded)
