"""The local runner plays Sergeant Major: `python -m engine match A B C --game sergeant-major`,
`validate` and `show` on its replays, as real subprocesses; mistakes are one-line errors.
The packaged runner (kaiser-engine.pyz) carries the game too."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import zipapp
from engine.validate import validate_replay
from tests.engine.test_cli import engine, one_line_error

SM = ("--game", "sergeant-major")


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sm-cli") / "match.json"
    result = engine("match", "builtin:greedy", "builtin:random", "builtin:random", *SM,
                    "--games", "6", "--seed", "5", "--replay", path)
    assert result.returncode == 0, result.stderr
    assert "A = greedy v1, B = random v1, C = random v1, Sergeant Major, rules 952, seed 5" \
        in result.stdout
    assert "games won: A " in result.stdout and "faults: none" in result.stdout
    return path


def test_a_match_writes_a_replay_that_validates(replay_file: Path) -> None:
    replay = json.loads(replay_file.read_text())
    assert replay["format"] == "sergeant-major-replay" and len(replay["games"]) == 6
    assert validate_replay(replay) == []
    result = engine("validate", replay_file)
    assert result.returncode == 0 and result.stdout.strip() == f"{replay_file}: valid"


def test_validate_names_the_first_violation_of_a_tampered_replay(replay_file: Path,
                                                                 tmp_path: Path) -> None:
    replay = json.loads(replay_file.read_text())
    replay["games"][2]["deals"][0]["taken"] = [16, 0, 0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(replay))
    result = engine("validate", bad)
    assert result.returncode == 1
    assert result.stdout.startswith(f"{bad}: INVALID: game 2, deal 0: taken should be")


def test_show_prints_the_hands_exchanges_and_results(replay_file: Path) -> None:
    result = engine("show", replay_file, "--game", "1")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "=== Game 1: seat 0 C, seat 1 A, seat 2 B ===" in out
    assert "-- Hand 0, dealer seat" in out and "targets" in out and "kitty:" in out
    assert "trick 16:" in out and "up/down" in out and "Game 1:" in out
    assert "=== Game 0" not in out
    replay = json.loads(replay_file.read_text())
    if any(d["exchanges"] for d in replay["games"][1]["deals"]):
        assert "exchange: seat" in out


@pytest.mark.parametrize("preset", ["853", "952-kitty-first", "952-six-hands"])
def test_every_preset_plays_from_the_command_line(preset: str, tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    result = engine("match", "builtin:random", "builtin:greedy", "builtin:random", *SM,
                    "--rules", preset, "--replay", path, "--quiet")
    assert result.returncode == 0, result.stderr
    assert f"rules {preset}" in result.stdout
    assert validate_replay(json.loads(path.read_text())) == []


@pytest.mark.parametrize("args, message", [
    (("builtin:random", "builtin:random", *SM),
     "match has three players (A, B, C), not 2; two play Kaiser (--game kaiser)"),
    (("builtin:random",) * 3 + SM + ("--games", "4"), "multiple of 3"),
    (("builtin:random",) * 3 + SM + ("--rules", "official"),
     "unknown Sergeant Major preset 'official'"),
    (("builtin:random", "builtin:oracle", "builtin:random", *SM),
     "unknown built-in player 'oracle' of sergeant-major"),
    (("builtin:random",) * 3,
     "a Kaiser match has two players (A, B), not 3; three play Sergeant Major (9-5-2)"),
    (("builtin:random", "builtin:random", "--rules", "952"),
     "(a sergeant-major preset: add --game sergeant-major)"),
])
def test_mistakes_are_one_line_errors(args: tuple[str, ...], message: str) -> None:
    assert message in one_line_error(engine("match", *args))


def test_the_packaged_runner_plays_sergeant_major(tmp_path: Path) -> None:
    runner = tmp_path / "kaiser-engine.pyz"
    runner.write_bytes(zipapp.build().content)
    members = zipapp.engine_sources()
    assert "sergeant_major/game.py" in members and "kaiser/game.py" in members
    path = tmp_path / "r.json"
    result = subprocess.run([sys.executable, str(runner), "match", "builtin:greedy",
                             "builtin:random", "builtin:random", *SM, "--replay", str(path),
                             "--quiet"], capture_output=True, text=True, timeout=120,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    check = subprocess.run([sys.executable, str(runner), "validate", str(path)],
                           capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert check.stdout.strip() == f"{path}: valid"


def test_show_names_the_person_of_a_game_against_people_as_a_person(tmp_path: Path) -> None:
    """A game of the play app keeps its person's seat as version "person": `show` and the
    summary say "walker (person)", never "walker vperson"."""
    from engine.builtin import RandomPlayer
    from engine.human import SeatName, SingleGame
    from engine.players import TimeControl
    from engine.sergeant_major.players import SMGreedyPlayer
    from engine.sergeant_major.rules import PRESETS
    from engine.sergeant_major.show import summary

    names = [SeatName("walker", "person", human=True), SeatName("greedy", "1"),
             SeatName("random", "")]
    game = SingleGame([RandomPlayer(), SMGreedyPlayer(), RandomPlayer()], names,
                      rules=PRESETS["952-six-hands"], seed="7", time=TimeControl(),
                      game="sergeant-major")
    replay = game.run()
    assert replay["players"]["A"] == {"name": "walker", "version": "person"}
    path = tmp_path / "people.json"
    path.write_text(json.dumps(replay))
    out = engine("show", path).stdout
    assert out.startswith("walker (person) (A), greedy v1 (B), random (C): Sergeant Major")
    assert "seat 0 (South), A:" in out and "vperson" not in out
    assert summary(replay, 1.0).startswith(
        "A = walker (person), B = greedy v1, C = random, Sergeant Major")
