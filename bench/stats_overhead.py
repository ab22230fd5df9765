#!/usr/bin/env python
"""What the play statistics (tournaments/stats.py) add to a worker's time per match.

In one run, matches are played through the worker's own service (tournaments.services.
match_play: the engine match, then match_finish storing the replay, the ratings and the
match's statistics in one transaction), alternately with the statistics and with them
switched off (replay_stats replaced by a stub that gives none), so both halves see the same
machine. The matches played with them are then folded into the totals as the beat does
(play_stats_fold), and that time is shared out per match. Two pairings: builtin:greedy
against builtin:random (no sandbox: the shortest matches, the worst case for the ratio) and
the sandboxed example bot minimal_bot.py against builtin:greedy (a typical uploaded bot).
Prints the medians of each half, the fold's time a match, and the overhead.

Target: at most 10%. Uses a fresh test database (SQLite unless DATABASE_URL says otherwise).
Usage: .venv/bin/python bench/stats_overhead.py [--matches 40]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kaiser_site.settings")


def _setup() -> Any:
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    settings.KAISER_DISPATCH_DEPTH = 0  # nothing is sent to a broker: this process plays
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    return connection


def _versions() -> dict[str, Any]:
    import hashlib

    from django.contrib.auth.models import User

    from bots.models import Bot, BotProgram, BotVersion
    from bots.services import bot_builtin_add

    house = User.objects.create_user("bench-house")
    # Named apart from the house bots, which every migrated database has (ladder 0007).
    made = {name: bot_builtin_add(bot=Bot.objects.create(owner=house,
                                                                 name=f"bench-{name}"),
                                          spec=f"builtin:{name}")
            for name in ("greedy", "random")}
    content = (ROOT / "bots" / "examples" / "minimal_bot.py").read_bytes()
    program = BotProgram.objects.create(sha256=hashlib.sha256(content).hexdigest(),
                                        content=content, size=len(content))
    made["minimal"] = BotVersion.objects.create(
        bot=Bot.objects.create(owner=house, name="minimal"), number=1, kind="py",
        program=program, filename="minimal_bot.py", size=len(content), status="active")
    return made


def _time_one(a: Any, b: Any, ladder: Any, with_stats: bool) -> float:
    from matches import services
    from matches.models import Match

    original = services.replay_stats
    if not with_stats:
        services.replay_stats = lambda replay, **_: None  # type: ignore[assignment]
    try:
        match = services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                      conditions=ladder, ladder=ladder, rated=True)
        started = time.perf_counter()
        assert services.match_play(match_id=match.pk, worker="bench") == "finished"
        return time.perf_counter() - started
    finally:
        services.replay_stats = original


def _fold_per_match() -> float:
    from matches.stats import play_stats_fold

    started, count = time.perf_counter(), 0
    while folded := play_stats_fold(limit=100):
        count += folded
    return (time.perf_counter() - started) / max(count, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40, help="per pairing and half")
    args = parser.parse_args()
    connection = _setup()
    from ladder.models import Ladder

    ladder = Ladder.objects.create(name="Bench", slug="bench", games_per_match=2)
    versions = _versions()
    print(f"database: {connection.vendor}; {args.matches} matches per pairing and half, "
          "alternating with and without the statistics")
    for a, b in (("greedy", "random"), ("minimal", "greedy")):
        times: dict[bool, list[float]] = {True: [], False: []}
        for n in range(2 * args.matches):
            with_stats = n % 2 == 0
            times[with_stats].append(_time_one(versions[a], versions[b], ladder, with_stats))
        on, off = statistics.median(times[True]), statistics.median(times[False])
        fold = _fold_per_match()
        print(f"{a} vs {b}: {1000 * off:.1f} ms a match without the statistics, "
              f"{1000 * on:.1f} ms with them, plus {1000 * fold:.2f} ms a match to fold them "
              f"into the totals: {100 * (on + fold - off) / off:+.1f}%")
    stats_only = _stats_alone(args.matches)
    print(f"the statistics alone (tournaments.stats.replay_stats on a stored replay): "
          f"{1000 * stats_only:.2f} ms a match")


def _stats_alone(count: int) -> float:
    from matches.models import Match
    from matches.stats import replay_stats

    replays = [m.replay() for m in Match.objects.filter(status="finished")[:count]]
    started = time.perf_counter()
    for replay in replays:
        replay_stats(replay)
    return (time.perf_counter() - started) / max(len(replays), 1)


if __name__ == "__main__":
    main()
