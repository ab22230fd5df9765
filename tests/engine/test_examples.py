"""The starter kit's zips are exactly what build_zips.py makes from the sources next to them."""

from __future__ import annotations

import importlib.util
import zipfile

import pytest

from engine.archive import program_check
from tests.engine.sandbox_support import EXAMPLES


def load_builder():
    spec = importlib.util.spec_from_file_location("build_zips", EXAMPLES / "build_zips.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["random", "greedy", "node_random"])
def test_committed_example_zip_matches_its_sources(name: str) -> None:
    builder = load_builder()
    with zipfile.ZipFile(EXAMPLES / f"{name}.zip") as archive:
        committed = {info.filename: archive.read(info) for info in archive.infolist()}

    assert committed == builder.zip_members(name), "run python bots/examples/build_zips.py"


@pytest.mark.parametrize("name, run", [
    ("minimal_bot.py", ("python3", "bot.py")),
    ("random.zip", ("python3", "bot.py")),
    ("greedy.zip", ("python3", "bot.py")),
    ("node_random.zip", ("node", "bot.js")),
])
def test_every_example_passes_the_upload_checks(name: str, run: tuple[str, ...]) -> None:
    assert program_check(EXAMPLES / name).run == run
