"""A game's browser side is one registration (issue 42): each game's own scripts
(Game.browser_scripts) register with the replay viewer's registry (static/js/viewers.js) one
entry that holds its replay drawing, its `cards` (which its other views, such as Kaiser's
board view, take from there) and its person's `table` exactly when the game has one; and
they leave nothing else on `window` (no game's globals for the shared scripts to read). The
scripts run under Node as the page loads them, on a page without the elements they draw."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
from typing import Any

import pytest

from engine.games import GAME_MODULES
from tests.architecture.test_house_rules import ROOT

BUILT_IN = [importlib.import_module(module).GAME for module in GAME_MODULES]
JS = ROOT / "static" / "js"
# A page with none of the elements the scripts look for: they register and draw nothing.
LOAD = """
globalThis.window = {};
globalThis.document = { getElementById: () => null, addEventListener: () => {} };
const scripts = JSON.parse(process.argv[1]);
scripts.forEach((path) => require(path));
const registry = window.KaiserArenaReplay;
const games = JSON.parse(process.argv[2]);
console.log(JSON.stringify({
  globals: Object.keys(window),
  entries: games.map((name) => {
    const entry = registry.gameOf(name);
    return entry && { format: entry.format, cards: Object.keys(entry.cards || {}),
                      table: entry.table ? Object.keys(entry.table).sort() : null };
  }),
}));
"""


@pytest.fixture(scope="module")
def loaded() -> dict[str, Any]:
    node = shutil.which("node") or shutil.which("nodejs")
    assert node, "Node runs the page's scripts here (the site's Node bots need it too)"
    own = [script for game in BUILT_IN for script in game.browser_scripts]
    scripts = [str(JS / "viewers.js"), *(str(ROOT / "static" / s) for s in own),
               str(JS / "play.js")]
    done = subprocess.run([node, "-e", LOAD, json.dumps(scripts),
                           json.dumps([game.name for game in BUILT_IN])],
                          capture_output=True, text=True, timeout=30, check=True)
    return dict(json.loads(done.stdout))


def test_the_games_scripts_leave_only_the_registry_on_window(loaded: dict[str, Any]) -> None:
    assert loaded["globals"] == ["KaiserArenaReplay"]


@pytest.mark.parametrize("index", range(len(BUILT_IN)), ids=[g.name for g in BUILT_IN])
def test_each_game_registers_its_drawing_cards_and_table_once(loaded: dict[str, Any],
                                                              index: int) -> None:
    game = BUILT_IN[index]
    entry = loaded["entries"][index]
    assert entry is not None, f"{game.name}: no entry of its game in the registry"
    assert entry["format"] == game.replay_format
    assert {"cardNode", "cardOrder", "cardText"} <= set(entry["cards"])
    table = ["draw", "resignWords", "resultText"]
    assert entry["table"] == (table if game.has_person_table else None)
