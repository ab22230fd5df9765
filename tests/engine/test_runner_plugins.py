"""The downloadable runner (kaiser-engine.pyz) plays, validates and shows a plugin's game:
KAISER_GAME_PLUGINS names the plugin module, importable where the runner is run (here the
test game, tests/games/duel, from the project's root). Without it the runner says the replay
is of no game it knows, and how to make it known (it said "not a kaiser-replay": issue 42)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engine import zipapp
from tests.architecture.test_house_rules import ROOT

PLUGIN = "tests.games.duel.plugin"


def _run(runner: Path, *args: str, plugins: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "KAISER_GAME_PLUGINS"}
    env.pop("PYTHONPATH", None)
    if plugins:
        env["KAISER_GAME_PLUGINS"] = plugins
    return subprocess.run([sys.executable, str(runner), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_runner_plays_and_validates_a_plugin_s_game(tmp_path: Path) -> None:
    runner = tmp_path / "kaiser-engine.pyz"
    assert zipapp.main([str(runner)]) == 0
    replay = tmp_path / "duel.json"
    played = _run(runner, "match", "builtin:random", "builtin:greedy", "--game", "duel",
                  "--replay", str(replay), "--quiet", plugins=PLUGIN)
    assert played.returncode == 0, played.stderr
    assert "Duel" in played.stdout
    valid = _run(runner, "validate", str(replay), plugins=PLUGIN)
    assert (valid.returncode, valid.stdout.strip()) == (0, f"{replay}: valid"), valid.stderr
    shown = _run(runner, "show", str(replay), plugins=PLUGIN)
    assert shown.returncode == 0 and "Game 0" in shown.stdout, shown.stderr

    unknown = _run(runner, "validate", str(replay), plugins=None)
    assert unknown.returncode != 0
    assert "not a replay of a game known here: its format is 'duel-replay'" in unknown.stdout
    assert "KAISER_GAME_PLUGINS" in unknown.stdout
    assert "kaiser-replay of version" not in unknown.stdout
