"""The players of a game with a person are named properly: in the replay's JSON (a side of two
different players is their names joined, with no made-up version; each seat is in
seat_players) and in `kaiser-engine show`, which names each seat from seat_players."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from engine.builtin import RandomPlayer
from engine.human import SeatName, SingleGame
from engine.kaiser.rules import PRESETS, replace
from engine.kaiser.show import render, side_names
from engine.players import TimeControl
from engine.validate import validate_replay

ROOT = Path(__file__).resolve().parents[2]
NAMES = [SeatName("newbie", "person", human=True), SeatName("west-bot", "1"),
         SeatName("north-bot", "2"), SeatName("east-bot", "3")]


def _replay(names: list[SeatName] = NAMES) -> dict[str, Any]:
    # Random players at every seat: what plays the person's seat does not change the names.
    game = SingleGame([RandomPlayer() for _ in range(4)], names,
                      rules=replace(PRESETS["official"], max_deals=1), seed="3",
                      time=TimeControl())
    return game.run()


def test_the_replay_json_names_each_side_by_its_seats_players_without_a_garbled_version() -> None:
    replay = _replay()
    assert validate_replay(replay) == []
    assert replay["players"] == {"A": {"name": "newbie & north-bot", "version": ""},
                                 "B": {"name": "west-bot & east-bot", "version": ""}}
    assert [p["name"] for p in replay["seat_players"]] == \
        ["newbie", "west-bot", "north-bot", "east-bot"]


def test_one_bot_at_both_seats_of_a_side_is_that_side_s_one_player() -> None:
    same = [NAMES[0], SeatName("random", "1"), NAMES[2], SeatName("random", "1")]
    replay = _replay(same)
    assert replay["players"]["B"] == {"name": "random", "version": "1"}
    assert side_names(replay)["B"] == "random v1 & random v1"


def test_show_names_the_person_and_each_bot_with_its_version() -> None:
    replay = _replay()
    first = render(replay).splitlines()[0]
    assert first.startswith("newbie (person) & north-bot v2 (A) against "
                            "west-bot v1 & east-bot v3 (B), rules official")
    assert "vperson" not in render(replay)


def test_the_engine_command_shows_a_people_replay_file(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_replay()), encoding="utf-8")
    shown = subprocess.run([sys.executable, "-m", "engine", "show", str(path)], cwd=ROOT,
                           capture_output=True, text=True, timeout=60, check=True).stdout
    assert "newbie (person) & north-bot v2 (A) against west-bot v1 & east-bot v3 (B)" in shown


def test_a_match_replay_still_names_its_two_programs() -> None:
    replay = {"players": {"A": {"name": "greedy", "version": "3"},
                          "B": {"name": "random", "version": "1"}}, "games": []}
    assert side_names(replay) == {"A": "greedy v3", "B": "random v1"}
