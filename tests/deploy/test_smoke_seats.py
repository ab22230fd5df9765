"""deploy/smoke_seats.py, the smoke test's reading of the seats' freezer: which samples it
counts as every seat off move frozen, and which as two seats of one match awake (the fault of
issue 31, where seat-thaw thawed a live worker's seats a second after each freeze)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
F, T = "FROZEN", "THAWED"


def smoke_seats() -> ModuleType:
    spec = importlib.util.spec_from_file_location("smoke_seats", ROOT / "deploy/smoke_seats.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def samples(*rows: dict[str, str]) -> list[tuple[float, dict[str, str]]]:
    return [(index * 0.02, row) for index, row in enumerate(rows)]


def seats(states: str, match: int = 7, first: int = 1) -> dict[str, str]:
    """'FTFF' -> kaiser-7-1 FROZEN, kaiser-7-2 THAWED, ..."""
    return {f"kaiser-{match}-{first + i}": {"F": F, "T": T}[s] for i, s in enumerate(states)}


def test_a_table_that_hands_the_move_on_has_every_seat_off_move_frozen() -> None:
    played = samples(
        seats("TTTT"),  # booting and saying hello: at no table yet
        seats("FTTT"),
        seats("FFFF"),
        seats("TFFF"),
        seats("FTFF"),
        seats("FFTF"),
        seats("FFFT"),
        seats("TFFF"),
        {**seats("FTFF"), **seats("TTTT", first=5)},  # the next table's seats boot meanwhile
        {**seats("FFFF"), **seats("TTTT", first=5)},
        seats("TTTT"),  # the table closes: its seats are let go, to exit
    )
    found = smoke_seats().summary(played)
    assert found["samples_in_play"] == 8
    assert found["samples_off_move_frozen"] == 8
    assert found["samples_two_awake"] == 0
    assert found["matches"] == 1


def test_a_seat_thawed_off_move_is_counted_in_every_sample_until_frozen_again() -> None:
    played = samples(
        seats("FFFF"),
        seats("TFFF"),
        seats("FTTF"),  # seat 3 thawed while seat 2 is on move (as seat-thaw did)
        seats("FFTT"),
        seats("FFFF"),
    )
    found = smoke_seats().summary(played)
    assert found["samples_two_awake"] == 2
    assert [s["at_s"] for s in found["first_two_awake"]] == [0.04, 0.06]


def test_two_matches_of_one_worker_each_have_a_seat_on_move() -> None:
    played = samples(
        {**seats("FFFF", 7), **seats("FFFF", 9)},
        {**seats("TFFF", 7), **seats("FFTF", 9)},
        {**seats("FFFF", 7), **seats("FFFF", 9)},
    )
    found = smoke_seats().summary(played)
    assert (found["matches"], found["samples_two_awake"]) == (2, 0)


def test_watch_reads_the_freezer_files_until_told_to_stop(tmp_path: Path) -> None:
    for name, state in {"kaiser-7-1": "FROZEN\n", "kaiser-7-2": "THAWED\n"}.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "freezer.state").write_text(state)
    (tmp_path / "kaiser-7-3").mkdir()
    (tmp_path / "kaiser-7-3" / "cgroup.freeze").write_text("1\n")  # cgroup v2's word
    stop = tmp_path / "stop"
    script = ROOT / "deploy/smoke_seats.py"
    watcher = subprocess.Popen([sys.executable, str(script), "watch", str(tmp_path), str(stop)],
                               stdout=subprocess.PIPE, text=True)
    stop.touch()
    out, _ = watcher.communicate(timeout=60)
    found = json.loads(out)
    assert found["seats"] == 3
    assert found["readings"] == {"FROZEN": 2 * found["samples"], "THAWED": found["samples"]}
