"""The sandbox package's invariants (docs/sandbox.md, "Module map"): only
engine/sandbox/config.py reads the sandbox's environment variables, anywhere in the project;
inside the package nothing else reads the environment but the worker's PATH; and no function
of the package is over 60 lines."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from tests.architecture.test_house_rules import MODULES, ROOT

PACKAGE = ROOT / "engine" / "sandbox"
CONFIG = PACKAGE / "config.py"
MAX_LINES = 60
SANDBOX_VARIABLE = re.compile(r"^(KAISER_SANDBOX_[A-Z_]+|KAISER_SEAT_UIDS|KAISER_UNSANDBOXED)$")


def long_functions(tree: ast.AST, limit: int = MAX_LINES) -> list[str]:
    return [f"{node.name} ({node.end_lineno - node.lineno + 1} lines, line {node.lineno})"
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno is not None and node.end_lineno - node.lineno + 1 > limit]


def variable_names(tree: ast.AST) -> list[str]:
    """Every string literal that is a sandbox variable's name (how a module would read one:
    os.environ.get("KAISER_SANDBOX_..."), env_int("KAISER_SANDBOX_...", ...)); names inside
    longer text (messages, docstrings) are not reads."""
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and SANDBOX_VARIABLE.match(node.value)]


def environment_reads(tree: ast.AST) -> Iterator[str]:
    """os.environ and os.getenv uses, but os.environ.get("PATH") (where the worker finds
    bwrap, runsc and setpriv: not a sandbox setting)."""
    allowed = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and ast.unparse(node.func) == "os.environ.get"
                and [ast.unparse(arg) for arg in node.args] == ["'PATH'"]):
            allowed.add(id(node.func.value))  # type: ignore[attr-defined]
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and id(node) not in allowed
                and ast.unparse(node) in ("os.environ", "os.getenv")):
            yield f"{ast.unparse(node)} (line {node.lineno})"


def test_no_function_of_the_sandbox_package_is_over_60_lines() -> None:
    found = {path.name: long_functions(ast.parse(path.read_text()))
             for path in sorted(PACKAGE.glob("*.py"))}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_only_the_config_names_a_sandbox_variable() -> None:
    found = {str(path.relative_to(ROOT)): variable_names(ast.parse(path.read_text()))
             for path in MODULES.values() if path != CONFIG}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_nothing_else_in_the_package_reads_the_environment() -> None:
    found = {path.name: list(environment_reads(ast.parse(path.read_text())))
             for path in sorted(PACKAGE.glob("*.py")) if path != CONFIG}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_old_modules_are_gone() -> None:
    assert [name for name in ("sandbox.py", "gvisor.py", "syscall_filter.py")
            if (ROOT / "engine" / name).exists()] == []


def test_the_checks_find_what_they_look_for() -> None:
    source = ast.parse(
        "import os\n"
        "def f():\n" + "    x = 1\n" * 60 + "\n"
        "A = os.environ.get('KAISER_SANDBOX_POOL', '4')\n"
        "B = env_int('KAISER_SEAT_UIDS')\n"
        "C = os.getenv('HOME')\n"
        "D = os.environ.get('PATH')\n"
        "E = 'set KAISER_SANDBOX_POOL=0 to boot each seat when asked'\n")
    assert long_functions(source) == ["f (61 lines, line 2)"]
    assert variable_names(source) == ["KAISER_SANDBOX_POOL", "KAISER_SEAT_UIDS"]
    assert sorted(hit.split(" ")[0] for hit in environment_reads(source)) == ["os.environ",
                                                                            "os.getenv"]
