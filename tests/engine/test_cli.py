"""`python -m engine match | validate | show`, run as a real subprocess."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import words
from engine.kaiser import words as kaiser_words
from engine.validate import validate_replay

ROOT = Path(__file__).resolve().parents[2]


def engine(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "match.json"
    result = engine("match", "builtin:greedy", "builtin:random", "--games", "4", "--seed", "9",
                    "--replay", path)
    assert result.returncode == 0, result.stderr
    return path


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# --- match --------------------------------------------------------------------------------------
def test_match_prints_the_summary_and_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    result = engine("match", "builtin:greedy", "builtin:random", "--games", "4", "--seed", "9",
                    "--replay", path)
    assert result.returncode == 0, result.stderr
    replay = load(path)
    won = replay["result"]["games"]
    out = result.stdout
    assert "A = greedy v1, B = random v1, rules official, seed 9" in out
    assert f"games won: A {won['A']}, B {won['B']}" in out
    assert "average points a deal: A " in out
    assert "faults: none" in out


def test_match_replay_validates(replay_file: Path) -> None:
    replay = load(replay_file)
    assert len(replay["games"]) == 4 and replay["seed"] == "9"
    assert validate_replay(replay) == []


def test_match_with_the_same_seed_writes_the_same_bytes(tmp_path: Path,
                                                        replay_file: Path) -> None:
    again = tmp_path / "again.json"
    result = engine("match", "builtin:greedy", "builtin:random", "--games", "4", "--seed", "9",
                    "--replay", again, "--quiet")
    assert result.returncode == 0
    assert again.read_bytes() == replay_file.read_bytes()


def test_match_under_another_preset(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    result = engine("match", "builtin:random", "builtin:random", "--rules", "saskatchewan",
                    "--replay", path)
    assert result.returncode == 0 and "rules saskatchewan" in result.stdout
    replay = load(path)
    assert replay["rules"]["preset"] == "saskatchewan" and validate_replay(replay) == []


def test_long_match_shows_progress(tmp_path: Path) -> None:
    result = engine("match", "builtin:random", "builtin:random", "--games", "20")
    assert result.returncode == 0
    assert "games 20/20" in result.stderr and "games 2/20" in result.stderr


def test_bad_preset_is_one_line_and_non_zero() -> None:
    line = one_line_error(engine("match", "builtin:random", "builtin:random", "--rules", "uno"))
    assert "unknown rules preset 'uno'" in line and "official" in line


def test_missing_bot_program_is_one_line_and_non_zero(tmp_path: Path) -> None:
    line = one_line_error(engine("match", str(tmp_path / "nobot.py"), "builtin:random"))
    assert "no such bot program" in line


def test_unknown_builtin_is_one_line_and_non_zero() -> None:
    line = one_line_error(engine("match", "builtin:oracle", "builtin:random"))
    assert "unknown built-in player 'oracle'" in line and "builtin:greedy" in line


def test_odd_number_of_games_is_one_line_and_non_zero() -> None:
    line = one_line_error(engine("match", "builtin:random", "builtin:random", "--games", "3"))
    assert "even" in line


def test_unwritable_replay_path_is_one_line_and_non_zero(tmp_path: Path) -> None:
    line = one_line_error(engine("match", "builtin:random", "builtin:random", "--replay",
                                 tmp_path / "no" / "such" / "dir" / "r.json"))
    assert "cannot write" in line


# --- validate -----------------------------------------------------------------------------------
def test_validate_accepts_a_valid_replay(replay_file: Path) -> None:
    result = engine("validate", replay_file)
    assert result.returncode == 0
    assert result.stdout.strip() == f"{replay_file}: valid"


def test_validate_rejects_a_tampered_replay(tmp_path: Path, replay_file: Path) -> None:
    replay = load(replay_file)
    replay["games"][1]["deals"][0]["score"][0] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(replay), encoding="utf-8")
    result = engine("validate", replay_file, bad)
    assert result.returncode == 1
    lines = result.stdout.strip().splitlines()
    assert lines[0] == f"{replay_file}: valid"
    assert lines[1].startswith(f"{bad}: INVALID: game 1, deal 0: score should be")


def test_validate_reads_json_lines(tmp_path: Path, replay_file: Path) -> None:
    text = replay_file.read_text(encoding="utf-8").strip()
    lines = tmp_path / "many.jsonl"
    lines.write_text(f"{text}\n{text}\n", encoding="utf-8")
    result = engine("validate", lines)
    assert result.returncode == 0
    assert result.stdout.strip().splitlines() == [f"{lines} (replay 1): valid",
                                                  f"{lines} (replay 2): valid"]


def test_validate_missing_file_is_one_line_and_non_zero(tmp_path: Path) -> None:
    line = one_line_error(engine("validate", tmp_path / "missing.json"))
    assert "cannot read" in line and "missing.json" in line


@pytest.mark.parametrize("content,message", [("{not json", "not JSON"), ("", "empty"),
                                             (b"\xff\xfe\x00", "not UTF-8")])
def test_validate_malformed_file_is_one_line_and_non_zero(tmp_path: Path, content: str | bytes,
                                                          message: str) -> None:
    path = tmp_path / "junk.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    assert message in one_line_error(engine("validate", path))


def test_validate_a_json_value_that_is_not_a_replay(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text("[1, 2]", encoding="utf-8")
    result = engine("validate", path)
    assert result.returncode == 1
    assert "INVALID: a replay must be a JSON object" in result.stdout


# --- show ---------------------------------------------------------------------------------------
def test_show_prints_hands_with_suit_symbols_bids_tricks_and_scores(replay_file: Path) -> None:
    replay = load(replay_file)
    result = engine("show", replay_file)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for symbol in "\u2660\u2665\u2666\u2663":
        assert symbol in out
    deal = replay["games"][0]["deals"][0]
    assert "=== Game 0" in out and "-- Deal 0, dealer seat" in out
    # The pages' words (engine.words): seats by name, bids and contracts as people say them.
    seat = ("South", "West", "North", "East")
    bids = ", ".join(f"{seat[b['seat']]} {kaiser_words.bid_text(b['bid'])}" for b in deal["bids"])
    assert f"bids: {bids}" in out
    contract = deal["contract"]
    assert (f"contract: {kaiser_words.bid_text(contract['bid'])}" in out
            and f"by seat {contract['seat']} ({seat[contract['seat']]})" in out)
    assert not re.search(r"\b\d{1,2}[NL]\b", out)  # no bid in the protocol's form
    assert "trick 1: " in out and "trick 8: " in out
    assert f"score {words.score_text(deal['score'])}" in out
    assert "10\u2665" in out or "10\u2660" in out or "10\u2666" in out or "10\u2663" in out
    result_line = replay["games"][0]["result"]
    assert f"score {words.score_text(result_line['score'])}" in out
    assert not re.search(r"-\d", out)  # negative numbers with a real minus sign
    assert f"Match: A {replay['result']['games']['A']} games" in out


def test_show_one_game(replay_file: Path) -> None:
    out = engine("show", replay_file, "--game", "1").stdout
    assert "=== Game 1" in out and "=== Game 0" not in out


def test_show_malformed_replay_is_one_line_and_non_zero(tmp_path: Path) -> None:
    path = tmp_path / "half.json"
    path.write_text(json.dumps({"players": {}}), encoding="utf-8")
    assert "not a readable replay" in one_line_error(engine("show", path))


def test_show_missing_file_is_one_line_and_non_zero(tmp_path: Path) -> None:
    assert "cannot read" in one_line_error(engine("show", tmp_path / "nope.json"))


@pytest.mark.sandbox
def test_forfeit_is_a_result_and_the_match_still_exits_0(tmp_path: Path) -> None:
    bot = tmp_path / "crash_bot.py"
    bot.write_text("import sys\nsys.exit(3)\n", encoding="utf-8")
    bot.chmod(0o644)
    tmp_path.chmod(0o755)  # the sandboxed bot runs as another user
    path = tmp_path / "forfeit.json"
    result = engine("match", bot, "builtin:random", "--replay", path)
    assert result.returncode == 0, result.stderr
    assert "games won: A 0, B 2" in result.stdout
    assert "faults: A at seat 0: crash" in result.stdout and "A forfeits" in result.stdout
    replay = load(path)
    assert replay["result"]["forfeit"]["reason"] == "crash"
    assert validate_replay(replay) == []
