"""Each decision's times, kept for the fair-play check (the fairplay app, engine.fairplay): per
side, every decision's counted (CPU) ms, wall ms and sleep ms (engine.clock.DecisionTime), in
the engine's order, which is the order of the side's decisions in the replay.

They are an object beside the replay in the replay store (matches.replay_store: the same
storage, written and read back the same way, its key `<match>-<sha256[:16]>.times.json.gz`),
the match row keeping its key and hash (Match.times_key, times_sha256: about 110 bytes a
match). The object is the gzip of a small JSON object, every time an integer count of tenths
of a millisecond:

    {"format": 1, "unit_ms": 0.1,
     "sides": {"A": {"counted": [..], "wall": [..], "sleep": [..] or null}, ...}}

A side without times (a built-in player) is left out; "sleep" is null where the host gave no
pressure figure for any decision, and holds null for each decision it gave none for. A tenth of
a millisecond is finer than anything the detector tells apart (its steps are 2 ms), and the
integers gzip to about 2.5 bytes a figure.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.clock import DecisionTime
from matches.replay_store import StoredReplay, replay_get, replay_put

if TYPE_CHECKING:
    from matches.models import Match

FORMAT = 1
UNIT_MS = 0.1
SUFFIX = ".times.json.gz"


@dataclass(frozen=True)
class SideClock:
    """One side's decisions in the engine's order, as stored (to UNIT_MS)."""

    counted_ms: list[float]
    wall_ms: list[float]
    sleep_ms: list[float | None] | None


def times_encode(times: Mapping[str, Sequence[DecisionTime]] | None) -> bytes | None:
    """The stored bytes of a match's times (None when no side has any). The same times give
    the same bytes, so a repeated attempt finds its object already there."""
    sides = {side: _side(rows) for side, rows in sorted((times or {}).items()) if rows}
    if not sides:
        return None
    text = json.dumps({"format": FORMAT, "unit_ms": UNIT_MS, "sides": sides},
                      separators=(",", ":"), sort_keys=True)
    return gzip.compress(text.encode(), compresslevel=9, mtime=0)


def _side(rows: Sequence[DecisionTime]) -> dict[str, Any]:
    sleeps = [None if t.sleep_ms is None else _units(t.sleep_ms) for t in rows]
    return {"counted": [_units(t.counted_ms) for t in rows],
            "wall": [_units(t.wall_ms) for t in rows],
            "sleep": sleeps if any(s is not None for s in sleeps) else None}


def _units(ms: float) -> int:
    return max(0, round(ms / UNIT_MS))


def times_decode(blob: bytes) -> dict[str, SideClock]:
    """The times of each side that has them, in ms."""
    data = json.loads(gzip.decompress(blob))
    if data.get("format") != FORMAT:
        raise ValueError(f"decision times of format {data.get('format')!r}, not {FORMAT}")
    unit = float(data["unit_ms"])
    return {side: SideClock(counted_ms=[n * unit for n in row["counted"]],
                            wall_ms=[n * unit for n in row["wall"]],
                            sleep_ms=(None if row["sleep"] is None else
                                      [None if n is None else n * unit for n in row["sleep"]]))
            for side, row in data["sides"].items()}


def times_put(*, match_id: int, blob: bytes) -> StoredReplay:
    """Write a match's times to the replay store and read them back (ReplayUnavailable if the
    store refuses them: the match is then released and played again, as for its replay)."""
    return replay_put(match_id=match_id, blob=blob, suffix=SUFFIX)


def match_times(match: Match) -> dict[str, SideClock] | None:
    """The match's stored times by side; None where it has none (ReplayUnavailable if the
    store does not give back what the row names)."""
    if not match.times_key:
        return None
    return times_decode(replay_get(key=match.times_key, sha256=match.times_sha256))
