#!/usr/bin/env python
"""The database's bytes a match (issue 42: "the database grows by under 2 KB a match"): how much
the database grows while the main ladder plays, table by table, and what a match row holds.

The matches are really played by the ladder's code path, in this process: the ladder's own
schedule (ladder.services.ladder_schedule) pairs its entrants, the worker's service plays each
match (matches.services.match_play: the engine, then match_finish with its ratings, board
losses and statistics) and the beat's fold (matches.stats.play_stats_fold) counts the
statistics, as a site does. Entrants: the house bots and built-in players (random, greedy), or
with --uploads the example bots greedy.zip and random.zip too, played in the sandbox (so that
their decision times and stderr are stored as an uploaded bot's are).

The database is compacted (VACUUM FULL on PostgreSQL, VACUUM on SQLite) and measured before
and after each round of N matches: every table with its indexes and TOAST
(pg_total_relation_size; SQLite's dbstat). The first round pays each table's and index's first
pages (an empty index is one page); the later rounds are the growth of a database that is
already in use. Also printed, on PostgreSQL: the mean bytes of a match row and of its biggest
columns (pg_column_size), and each match table's heap, TOAST and index bytes.

Uses a fresh test database (SQLite unless DATABASE_URL says otherwise: test_<its name>) and a
scratch replay store. Usage: .venv/bin/python bench/match_bytes.py [--matches 60]
[--rounds 6] [--uploads]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kaiser_site.settings")
EXAMPLES = ROOT / "bots" / "examples"
# The models a match writes rows of (the rest grow by a ladder's or a version's rows).
MATCH_MODELS = ("Match", "MatchSide", "MatchAttempt", "BoardLoss")
KB = 1024


def _setup(store: Path) -> Any:
    os.environ.setdefault("KAISER_REPLAY_DIR", str(store))
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    settings.KAISER_DISPATCH_DEPTH = 0  # nothing is sent to a broker: this process plays
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    return connection


def _entrants(uploads: bool) -> Any:
    """The main ladder, with its house bots and a few more entrants."""
    from django.contrib.auth.models import User

    from bots.models import Bot
    from bots.services import bot_builtin_add
    from ladder.services import house_bots_ensure, ladder_entries_sync, ladder_main_ensure

    ladder = ladder_main_ensure()
    house_bots_ensure()
    for name in ("greedy", "random"):
        bot = Bot.objects.create(owner=User.objects.create_user(f"owner-{name}"),
                                 name=f"bench-{name}")
        bot_builtin_add(bot=bot, spec=f"builtin:{name}")
    if uploads:
        for name in ("greedy.zip", "random.zip"):
            _upload(name)
    ladder_entries_sync(ladder=ladder)
    return ladder


def _upload(name: str) -> None:
    from django.contrib.auth.models import User

    from bots.models import Bot, BotProgram, BotVersion

    content = (EXAMPLES / name).read_bytes()
    program, _ = BotProgram.objects.get_or_create(
        sha256=hashlib.sha256(content).hexdigest(),
        defaults={"content": content, "size": len(content)})
    bot = Bot.objects.create(owner=User.objects.create_user(f"uploader-{name}"),
                             name=f"bench-upload-{name.partition('.')[0]}")
    BotVersion.objects.create(bot=bot, number=1, kind=BotVersion.Kind.ZIP, program=program,
                              filename=name, size=len(content),
                              status=BotVersion.Status.ACTIVE)


def _play(ladder: Any, count: int, rng: random.Random) -> None:
    """`count` more ladder matches finished: scheduled by the ladder, played by the worker's
    service, their statistics folded as the beat folds them."""
    from ladder.services import ladder_schedule
    from matches import services
    from matches.models import Match
    from matches.stats import play_stats_fold

    played = 0
    while played < count:
        ladder_schedule(ladder_id=ladder.pk, rng=rng)
        queued = list(Match.objects.filter(ladder=ladder, status=Match.Status.QUEUED)
                      .order_by("id").values_list("pk", flat=True)[:count - played])
        for pk in queued:
            assert services.match_play(match_id=pk, worker="bench") == "finished"
        played += len(queued)
    # The matches the ladder scheduled beyond `count` are not this round's: gone unplayed.
    Match.objects.filter(ladder=ladder, status=Match.Status.QUEUED).delete()
    while play_stats_fold():
        pass


def _sizes(connection: Any) -> dict[str, int]:
    """Every table's bytes with its indexes and TOAST, the database compacted first."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("VACUUM FULL ANALYZE")
            cursor.execute("SELECT relname, pg_total_relation_size(oid) FROM pg_class "
                           "WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace")
            return {name: int(size) for name, size in cursor.fetchall()}
        cursor.execute("VACUUM")
        cursor.execute("SELECT m.tbl_name, SUM(d.pgsize) FROM dbstat d JOIN sqlite_master m "
                       "ON m.name = d.name GROUP BY m.tbl_name")
        return {name: int(size) for name, size in cursor.fetchall()}


def _growth(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {name: after[name] - before.get(name, 0) for name in after
            if after[name] != before.get(name, 0)}


def _match_tables() -> list[str]:
    from django.apps import apps

    return [apps.get_model("matches", name)._meta.db_table for name in MATCH_MODELS]


def _print_tables(label: str, growth: dict[str, int], count: int) -> float:
    """The growth a match over `count` matches, with the tables that grew by 16 bytes or
    more a match; the total a match."""
    total = sum(growth.values())
    print(f"{label}: {total / count:,.0f} bytes a match")
    for name, size in sorted(growth.items(), key=lambda item: -item[1]):
        if name in _match_tables() or abs(size) >= count * 16:
            print(f"    {name:<28} {size / count:>8,.0f} bytes a match")
    return total / count


def _row_detail(connection: Any) -> None:
    """What a match row and its tables hold (PostgreSQL's own counts)."""
    from matches.models import Match

    if connection.vendor != "postgresql":
        return
    fields = [f.column for f in Match._meta.concrete_fields]
    with connection.cursor() as cursor:
        cursor.execute("SELECT AVG(pg_column_size(m.*)), "
                       + ", ".join(f'AVG(pg_column_size("{c}"))' for c in fields)
                       + ' FROM tournaments_match m WHERE status = %s', ["finished"])
        row, *columns = cursor.fetchone()
        big = sorted(((float(v or 0), c) for v, c in zip(columns, fields, strict=True)),
                     reverse=True)[:6]
        print(f"a finished match row: {float(row):,.0f} bytes (pg_column_size, mean); its "
              "biggest columns: " + ", ".join(f"{c} {v:,.0f}" for v, c in big))
        for table in _match_tables():
            cursor.execute("SELECT pg_relation_size(c.oid), COALESCE(pg_total_relation_size("
                           "NULLIF(c.reltoastrelid, 0)), 0), pg_indexes_size(c.oid), "
                           "(SELECT count(*) FROM pg_index i WHERE i.indrelid = c.oid) "
                           "FROM pg_class c WHERE c.relname = %s", [table])
            heap, toast, indexes, count = cursor.fetchone()
            print(f"    {table:<28} heap {heap / KB:,.0f} KB, TOAST {toast / KB:,.0f} KB, "
                  f"{count} indexes {indexes / KB:,.0f} KB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=60, help="matches a round")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--uploads", action="store_true",
                        help="example zip bots in the sandbox too")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--keep", action="store_true",
                        help="keep the test database afterwards, to look into it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kaiser-match-bytes-") as scratch:
        connection = _setup(Path(scratch) / "replays")
        ladder = _entrants(args.uploads)
        entrants = ladder.entries.count()
        print(f"database: {connection.vendor}; {args.rounds} rounds of {args.matches} ladder "
              f"matches on {ladder.name} ({entrants} entrants, {ladder.games_per_match} games "
              "a match), played by the ladder's code path in this process")
        rng = random.Random(args.seed)
        sizes = [_sizes(connection)]
        for number in range(1, args.rounds + 1):
            _play(ladder, args.matches, rng)
            sizes.append(_sizes(connection))
            grown = sum(_growth(sizes[-2], sizes[-1]).values())
            print(f"round {number}: the database grew by {grown / args.matches:,.0f} bytes a "
                  f"match ({grown / KB:,.0f} KB over {args.matches} matches)")
        first = _print_tables(f"the first {args.matches} matches (from none)",
                              _growth(sizes[0], sizes[1]), args.matches)
        later = args.matches * (args.rounds - 1)
        in_use = (_print_tables(f"the {later} matches after them (a database in use)",
                                _growth(sizes[1], sizes[-1]), later) if later else first)
        _row_detail(connection)
        print(f"bytes a match: the first {args.matches} {first:,.0f}, in use {in_use:,.0f} "
              "(target: under 2,048)")
        if args.keep:
            print(f"kept: {connection.settings_dict['NAME']}")
        else:
            connection.creation.destroy_test_db(connection.settings_dict["NAME"], verbosity=0)


if __name__ == "__main__":
    main()
