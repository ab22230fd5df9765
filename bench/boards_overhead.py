#!/usr/bin/env python
"""What the board comparison (engine/kaiser/boards.py: matches.services.match_finish stores its
BoardLoss rows and rates the match from it; the pages work it out from the replay) adds to a
worker's time to finish a match.

As bench/stats_overhead.py: matches are played through the worker's own service
(matches.services.match_play: the engine match, then match_finish), alternately with the
boards and with them switched off (board_comparison replaced by a stub that finds none, so
no rows are written), so both halves see the same machine. Two
pairings: builtin:greedy against builtin:random (no sandbox: the shortest matches, the worst
case for the ratio) and the sandboxed example bot minimal_bot.py against builtin:greedy.
Prints the medians of each half and the overhead, then the comparison alone on stored
replays.

Target: under 5%. Uses a fresh test database (SQLite unless DATABASE_URL says otherwise).
Usage: .venv/bin/python bench/boards_overhead.py [--matches 40]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import stats_overhead  # noqa: E402  (its database and bot versions)


def _time_one(a: Any, b: Any, ladder: Any, with_boards: bool) -> float:
    from engine.kaiser import boards
    from matches import services
    from matches.models import Match

    # The game's board_comparison reads engine.kaiser.boards' when asked (engine.games).
    original = boards.board_comparison
    if not with_boards:
        boards.board_comparison = lambda replay: []  # type: ignore[assignment]
    try:
        match = services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                      conditions=ladder, ladder=ladder, rated=True)
        started = time.perf_counter()
        assert services.match_play(match_id=match.pk, worker="bench") == "finished"
        return time.perf_counter() - started
    finally:
        boards.board_comparison = original


def _boards_alone(count: int) -> tuple[float, float, int]:
    """The comparison of a stored replay, and its JSON: ms a match, characters."""
    import json

    from engine.kaiser.boards import board_comparison
    from matches.models import Match

    finished = Match.objects.filter(status="finished", ladder__slug="bench")[:count]
    replays = [m.replay() for m in finished]
    started = time.perf_counter()
    for replay in replays:
        board_comparison(replay)
    sizes = [len(json.dumps(board_comparison(r))) for r in replays]
    return ((time.perf_counter() - started) / max(len(replays), 1), statistics.mean(sizes),
            len(replays))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40, help="per pairing and half")
    args = parser.parse_args()
    connection = stats_overhead._setup()
    from ladder.models import Ladder
    from matches.models import BoardLoss

    ladder = Ladder.objects.create(name="Bench", slug="bench", games_per_match=2)
    versions = stats_overhead._versions()
    print(f"database: {connection.vendor}; {args.matches} matches per pairing and half, "
          "alternating with and without the boards")
    for a, b in (("greedy", "random"), ("minimal", "greedy")):
        times: dict[bool, list[float]] = {True: [], False: []}
        for n in range(2 * args.matches):
            with_boards = n % 2 == 0
            times[with_boards].append(_time_one(versions[a], versions[b], ladder, with_boards))
        on, off = statistics.median(times[True]), statistics.median(times[False])
        print(f"{a} vs {b}: {1000 * off:.1f} ms to play and finish a match without the boards, "
              f"{1000 * on:.1f} ms with them: {100 * (on - off) / off:+.1f}%")
    alone, size, count = _boards_alone(args.matches)
    print(f"the comparison alone (engine.kaiser.boards.board_comparison on a stored replay): "
          f"{1000 * alone:.2f} ms a match ({count} matches); its JSON about {size:.0f} "
          f"characters a match (no row keeps it); {BoardLoss.objects.count()} BoardLoss rows "
          "in all")


if __name__ == "__main__":
    main()
