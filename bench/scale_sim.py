#!/usr/bin/env python
"""The scale simulation (issue 21): 10,000 bots and 1,000,000 finished matches, their replays
in the replay store, in PostgreSQL; the public pages and their API twins, the ladder's
scheduling tick and the rating fit, timed; the database's size with the replays in the rows
and in the store. Targets: every page p95 < 150 ms; the tick and the fit each < 1 s.

1. A fresh database `--db-name` (kaiser_scale_sim) beside DATABASE_URL's, migrated, filled
   with COPY (explicit column lists: a column added later with a database default or NULL
   does not break it): the owners, the bots (one built-in version each, its playing version)
   on the main ladder, the finished rated matches (pairs of near strength, as the ladder pairs
   them, 2% ended by a fault, one a second back from now), two rating changes a match (Elo
   from the results), the entries' Elo and games, the ladder's tallies per pair (filled by
   ladder.services.pair_tallies_rebuild, as the migration fills them), each match's play
   statistics and the versions' folded totals (PlayStats), and three 64-bot tournaments made
   by the services (a finished Swiss, a finished knockout, a Swiss in its fourth round).
2. The replays: `--distinct` real replays (builtin:greedy against builtin:random) are written
   once each to a filesystem replay store under a temporary folder; every match row holds the
   key and SHA-256 of one of them (replay_gz empty). Writing a million objects (~4 KB each)
   would take this shared machine most of an hour and a million inodes, and the pages read one
   object per request whatever the count: so one object is shared by many rows' keys.
3. Each page and API twin is requested `--requests` times in this process with Django's test
   client (anonymous, the server time without HTTP), random bots, matches and leaderboard
   pages: first with the shared page cache OFF (every request built: the honest cost; the
   fragments and the fit cached as in production), then ON (Redis; the share served from the
   cache printed). p50, p95 and max per page.
4. The beat's scheduling tick (ladder.services.ladder_schedule: entries synced, pairs picked,
   matches made) on a ladder whose queue is empty, and the fit (ladder.services.
   ladder_fits_refresh: the pair tallies read, ratings.ratings_fit, cached), each `--repeat`
   times: the fit from nothing cached (from the entries' Elo), with its reading and its
   solving timed apart, then as the beat runs it on a live ladder, 100 results after the
   last fit (which it starts from).
5. The sizes: pg_total_relation_size of the match table and pg_database_size, as filled
   (replays in the store), then with the replays in the rows (a copy of the match table with
   each row's replay bytes in replay_gz, with the same indexes, measured and dropped).

Usage:
    .venv/bin/python bench/scale_sim.py [--bots 10000] [--matches 1000000] [--requests 100]
                                        [--repeat 5] [--keep] [--reuse] [--tiny]
                                        [--pages leaderboard,bot page] [--parts tick,fit]
--tiny: 40 bots, 400 matches, 8-bot tournaments, 3 requests a page (the suite's run).
--keep leaves the database (and prints the store's folder) for another run; --reuse measures
a kept one again.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
_URL = os.environ.get("DATABASE_URL", "")
SERVER = (_URL.rpartition("/")[0] if _URL.startswith(("postgres://", "postgresql://"))
          else "postgres://postgres@127.0.0.1:5432")
REDIS = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
CACHE_PREFIX = "kaiser-scale-sim"
Replay = tuple[bytes, int, float, int, int, dict[str, Any]]  # gz, size, score, A, B, stats


def say(text: str) -> None:
    print(text, flush=True)


@contextmanager
def timed(label: str) -> Iterator[None]:
    began = time.monotonic()
    yield
    say(f"  {label}: {time.monotonic() - began:.1f} s")


# --- The database and Django -------------------------------------------------------------------


def admin_sql(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(statement)


def django_setup(url: str, store: Path) -> None:
    os.environ.update(
        DATABASE_URL=url, REDIS_URL=REDIS, CACHE_KEY_PREFIX=CACHE_PREFIX, DEBUG="0",
        SECRET_KEY="scale-sim-bench-" + "x" * 40, ALLOWED_HOSTS="testserver,127.0.0.1",
        KAISER_REPLAY_STORE="file", KAISER_REPLAY_DIR=str(store), LOG_LEVEL="WARNING",
        KAISER_DISPATCH_DEPTH="0",  # the tick makes matches; nothing is sent to a broker
        # Every request comes from one address: the API's anonymous throttle would answer 429.
        KAISER_THROTTLE_ANON="100000000/min", DJANGO_SETTINGS_MODULE="kaiser_site.settings")
    os.environ.pop("DATABASE_POOL_MAX_SIZE", None)  # one thread here: a pool adds nothing
    # DEBUG off, as served: the pages name their static files from collectstatic's manifest.
    os.environ["STATIC_ROOT"] = tempfile.mkdtemp(prefix="kaiser-scale-static-")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)


def cache_forget() -> None:
    """This bench's cache keys only (the Redis may be shared)."""
    import redis

    client = redis.Redis.from_url(REDIS)
    keys = list(client.scan_iter(match=f"{CACHE_PREFIX}:*", count=1000))
    for start in range(0, len(keys), 1000):
        client.delete(*keys[start:start + 1000])


def raw() -> Any:
    from django.db import connection

    connection.ensure_connection()
    return connection.connection


def copy_rows(table: str, columns: str, rows: Iterator[tuple[Any, ...]]) -> None:
    """COPY `rows` into `table` (its named columns only), committed."""
    conn = raw()
    with conn.cursor() as cur, cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
    conn.commit()


def scalar_rows(sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with raw().cursor() as cur:
        cur.execute(sql, params)
        return list(cur.fetchall())


# --- Filling -----------------------------------------------------------------------------------


def real_replays(count: int) -> list[Replay]:
    """Real replays of built-in players, each with its play statistics (matches.stats)."""
    import json

    from engine.builtin import resolve_player
    from engine.kaiser.match import run_match
    from engine.runner import replay_json
    from matches.replay_store import replay_gzip
    from matches.stats import replay_stats

    out = []
    for seed in range(count):
        replay = run_match(resolve_player("builtin:greedy"), resolve_player("builtin:random"),
                           games=2, seed=f"scale-{seed}")
        text = replay_json(replay).encode()
        result = replay["result"]
        out.append((replay_gzip(text), len(text), float(result["score"]),
                    result["games"]["A"], result["games"]["B"],
                    replay_stats(json.loads(text))))
    return out


def replays_store(replays: list[Replay]) -> list[tuple[str, str]]:
    """Each distinct replay written once to the store: its (key, sha256)."""
    from django.core.files.base import ContentFile

    from matches.replay_store import replay_storage, sha256_hex

    storage, out = replay_storage(), []
    for n, (gz, *_rest) in enumerate(replays):
        digest = sha256_hex(gz)
        key = storage.save(f"shared/{n}-{digest[:16]}.json.gz", ContentFile(gz))
        out.append((key, digest))
    return out


def owners_and_bots(count: int, now: Any) -> list[int]:
    """COPY the owners, bots, versions (playing) and ladder entries; the version ids."""
    owners = count // 5 + 1
    copy_rows("auth_user", "password, is_superuser, username, first_name, last_name, email, "
              "is_staff, is_active, date_joined",
              (("!", False, f"author{i:05d}", "", "", "", False, True, now)
               for i in range(owners)))
    user_ids = [r[0] for r in scalar_rows(
        "SELECT id FROM auth_user WHERE username LIKE 'author%%' ORDER BY username")]
    copy_rows("bots_bot", "name, description, retired, created, owner_id",
              ((f"bot{i:05d}", f"Simulated bot {i}.", False, now, user_ids[i % owners])
               for i in range(count)))
    bot_ids = [r[0] for r in scalar_rows(
        "SELECT id FROM bots_bot WHERE name LIKE 'bot%%' ORDER BY name")]
    copy_rows("bots_botversion", "number, kind, builtin, filename, size, status, reason, "
              "check_stderr, check_attempts, created, checked, bot_id",
              ((1, "builtin", "builtin:random", "", 0, "active", "built-in player", "", 0,
                now, now, b) for b in bot_ids))
    version_ids = [r[0] for r in scalar_rows(
        "SELECT v.id FROM bots_botversion v JOIN bots_bot b ON b.id = v.bot_id "
        "WHERE b.name LIKE 'bot%%' ORDER BY b.name")]
    with raw().cursor() as cur:
        cur.execute("UPDATE bots_bot b SET playing_version_id = v.id FROM bots_botversion v "
                    "WHERE v.bot_id = b.id AND b.name LIKE 'bot%%'")
    raw().commit()
    ladder = main_ladder()
    copy_rows("tournaments_ladderentry", "elo, games, pinned, active, created, updated, "
              "ladder_id, version_id",
              ((1500.0, 0, False, True, now, now, ladder, v) for v in version_ids))
    return version_ids


def main_ladder() -> int:
    from ladder.models import Ladder

    return int(Ladder.objects.get(slug="main").pk)


def match_rows(versions: list[int], count: int, refs: list[tuple[str, str]],
               replays: list[Replay], now: Any, rng: random.Random,
               tally: Counter[tuple[int, int, str]], sides: array[int]
               ) -> Iterator[tuple[Any, ...]]:
    """The finished ladder matches, oldest first, one a second up to `now`. Opponents are near
    in strength (within 40 places of a hidden order), as the ladder pairs them. `tally`
    counts (version, replay, side) for the play statistics' totals; `sides` gets each
    match's A version, A's games, B version, B's games and whether B forfeited (sides_copy)."""
    import json

    from ladder.models import Ladder

    ladder = Ladder.objects.get(slug="main")  # read before the COPY holds the connection
    stats_json = [json.dumps(r[5]) for r in replays]
    n, fault_json = len(versions), '{"seat": 1, "player": "B", "reason": "timeout"}'
    for i in range(count):
        a = rng.randrange(n)
        b = (a + rng.choice((-1, 1)) * rng.randint(1, min(40, n - 1))) % n
        if a == b:
            b = (a + 1) % n
        va, vb = versions[a], versions[b]
        k = rng.randrange(len(replays))
        gz, size, score, ga, gb, _ = replays[k]
        if a > b:  # the stronger side (lower place) wins more: results carry the order
            score, ga, gb = 1.0 - score, gb, ga
        fault = rng.random() < 0.02
        if fault:
            score, ga, gb = 1.0, 2, 0
        tally[(va, k, "A")] += 1
        tally[(vb, k, "B")] += 1
        sides.extend((va, ga, vb, gb, fault))
        when = now - timedelta(seconds=count - i)
        yield ("ladder", ladder.pk, True, str(i), "finished", score, fault_json if fault else None,
               None, size, "", when - timedelta(seconds=40),
               when - timedelta(seconds=30), when - timedelta(seconds=20), when, 120, 1, "",
               ladder.rules, ladder.games_per_match, ladder.move_ms, ladder.bank_ms,
               ladder.startup_ms, ladder.strict_ms, stats_json[k], True, refs[k][0], refs[k][1])


MATCH_COLUMNS = ("kind, ladder_id, rated, seed, status, score, forfeit, replay_gz, "
                 "replay_size, error, created, dispatched, "
                 "started, finished, play_ms, attempts, lease_token, rules, games_per_match, "
                 "move_ms, bank_ms, startup_ms, strict_ms, stats, stats_folded, replay_key, "
                 "replay_sha256")


def sides_copy(sides: array[int]) -> None:
    """The sides of the matches just copied (match_rows' `sides`, in id order), two a match."""
    conn = raw()
    with conn.cursor(name="match_ids", withhold=True) as read:
        read.itersize = 50_000
        read.execute("SELECT id FROM tournaments_match ORDER BY id")
        ids = array("q", (row[0] for row in read))
    rows = ((match_id, order, sides[5 * k + 2 * order], sides[5 * k + 2 * order + 1], "",
             "timeout" if order == 1 and sides[5 * k + 4] else "")
            for k, match_id in enumerate(ids) for order in (0, 1))
    copy_rows("matches_matchside", 'match_id, "order", version_id, games, stderr, fault', rows)


def ratings_copy(now: Any) -> None:
    """Two rating changes a match, the Elo of the results in order (ladder.ratings), and the
    entries' final Elo and games."""
    from ladder import ratings

    entries = dict(scalar_rows("SELECT version_id, id FROM tournaments_ladderentry"))
    elo = dict.fromkeys(entries.values(), ratings.START)
    games = dict.fromkeys(entries.values(), 0)
    import psycopg

    conn = raw()
    # The matches are read in batches from a cursor on one connection while the COPY streams
    # on another: one connection cannot do both at once.
    with conn.cursor(name="matches_in_order", withhold=True) as read, \
            psycopg.connect(os.environ["DATABASE_URL"]) as other, other.cursor() as write, \
            write.copy("COPY tournaments_ratingchange (match_id, entry_id, before, after, "
                       "created) FROM STDIN") as copy:
        read.itersize = 20_000
        read.execute("SELECT m.id, a.version_id, b.version_id, m.score, m.finished FROM "
                     "tournaments_match m "
                     'JOIN matches_matchside a ON a.match_id = m.id AND a."order" = 0 '
                     'JOIN matches_matchside b ON b.match_id = m.id AND b."order" = 1 '
                     "WHERE m.kind = 'ladder' ORDER BY m.id")
        for match_id, a, b, score, when in read:
            ea, eb = entries[a], entries[b]
            da, db = ratings.elo_changes(rating_a=elo[ea], rating_b=elo[eb], score=score,
                                         played_a=games[ea], played_b=games[eb])
            for entry, d in ((ea, da), (eb, db)):
                copy.write_row((match_id, entry, elo[entry], elo[entry] + d, when))
                elo[entry] += d
                games[entry] += 1
    with conn.cursor() as cur:
        cur.execute("CREATE TEMP TABLE final_elo (id bigint, elo float8, games int)")
        with cur.copy("COPY final_elo (id, elo, games) FROM STDIN") as copy:
            for e in elo:
                copy.write_row((e, elo[e], games[e]))
        cur.execute("UPDATE tournaments_ladderentry l SET elo = f.elo, games = f.games, "
                    "updated = %s FROM final_elo f WHERE f.id = l.id", [now])
        cur.execute("DROP TABLE final_elo")
    conn.commit()


def scaled(stats: dict[str, Any], times: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in stats.items():
        if isinstance(value, dict):
            out[key] = scaled(value, times)
        elif isinstance(value, list):
            out[key] = [v * times for v in value]
        else:
            out[key] = value * times
    return out


def play_stats_copy(tally: Counter[tuple[int, int, str]], replays: list[Replay],
                    now: Any) -> None:
    """The versions' statistics totals and all bots' (what play_stats_fold would have added
    up), from how often each version played each replay on each side."""
    import json

    from matches.stats import ALL, add

    totals: dict[int, dict[str, Any]] = {}
    site: dict[str, Any] = {}
    for (version, k, side), n in tally.items():
        part = scaled(replays[k][5][side], n)
        totals[version] = add(totals.get(version, {}), part)
        site = add(site, part)
    copy_rows("tournaments_playstats", "key, version_id, data, updated",
              [(ALL, None, json.dumps(site), now)]
              + [(f"version:{v}", v, json.dumps(d), now) for v, d in totals.items()])


def tournaments_make(versions: list[int], refs: list[tuple[str, str]],
                     replays: list[Replay], field_size: int) -> dict[str, int]:
    """Three tournaments by the services, their matches finished with stored replays."""
    from bots.models import BotVersion
    from ladder.models import Ladder
    from tournaments import services

    rng = random.Random(5)
    ladder = Ladder.objects.get(slug="main")
    size = min(field_size, len(versions) // 2 * 2)
    field = list(BotVersion.objects.filter(pk__in=rng.sample(versions, size))
                 .select_related("bot"))
    made = {}
    for label, fmt, rounds, stop in (("Swiss, finished", "swiss", 6, None),
                                     ("knockout, finished", "knockout", 1, None),
                                     ("Swiss, round 4 running", "swiss", 6, 4)):
        tournament = services.tournament_create(name=f"{label} ({size} bots)", format=fmt,
                                                rounds=rounds, versions=field, ladder=ladder)
        tournament_finish(tournament.pk, refs, replays, rng, stop)
        made[label] = tournament.pk
    return made


def tournament_finish(tournament_id: int, refs: list[tuple[str, str]], replays: list[Replay],
                      rng: random.Random, stop_round: int | None) -> None:
    """Finish its queued matches round by round as match_finish would (result, stored replay)
    and let the service pair the next round; stop halfway through `stop_round`."""
    from django.utils import timezone

    from matches import services as match_services
    from matches.models import Match
    from tournaments import services
    from tournaments.models import Tournament

    while True:
        current = Tournament.objects.get(pk=tournament_id).current_round
        queued = list(Match.objects.filter(tournament_id=tournament_id,
                                           status=Match.Status.QUEUED).order_by("id"))
        stopping = stop_round is not None and current >= stop_round
        if not queued:
            return
        for match in queued[: len(queued) // 2] if stopping else queued:
            k = rng.randrange(len(replays))
            gz, size, score, ga, gb, _ = replays[k]
            if rng.random() < 0.5:
                score, ga, gb = 1.0 - score, gb, ga
            now = timezone.now()
            Match.objects.filter(pk=match.pk).update(
                status=Match.Status.FINISHED, score=score,
                replay_key=refs[k][0], replay_sha256=refs[k][1], replay_size=size,
                started=now, finished=now, play_ms=100, attempts=1)
            match_services.match_sides_result(match_id=match.pk, games={"A": ga, "B": gb})
            services.tournament_advance(tournament_id=tournament_id)
        if stopping:
            return


def fill(args: argparse.Namespace) -> None:
    from django.utils import timezone

    say(f"filling {args.db_name}: {args.bots} bots, {args.matches} matches")
    began, now, rng = time.monotonic(), timezone.now(), random.Random(2)
    with timed(f"{args.distinct} real replays played and written to the store"):
        replays = real_replays(args.distinct)
        refs = replays_store(replays)
    with timed("owners, bots, versions, ladder entries (COPY)"):
        versions = owners_and_bots(args.bots, now)
    tally: Counter[tuple[int, int, str]] = Counter()
    sides = array("q")
    with timed("finished matches and their sides (COPY)"):
        rows = match_rows(versions, args.matches, refs, replays, now, rng, tally, sides)
        first = next(rows)  # the generator's own queries run before the COPY starts
        copy_rows("tournaments_match", MATCH_COLUMNS, itertools.chain([first], rows))
        sides_copy(sides)
    with timed("rating changes, two a match (COPY), and the entries' Elo"):
        ratings_copy(now)
    with timed("the ladder's tallies per pair (GROUP BY, as the migration fills them)"):
        from ladder.services import pair_tallies_rebuild

        say(f"    {pair_tallies_rebuild()} pairs")
    with timed("play statistics totals (COPY)"):
        play_stats_copy(tally, replays, now)
    with timed(f"three {args.field}-bot tournaments by the services"):
        tournaments_make(versions, refs, replays, args.field)
    # What autovacuum does on a live site: the statistics, and the visibility map that lets
    # a count use an index alone.
    with timed("VACUUM ANALYZE"), raw().cursor() as cur:
        cur.execute("VACUUM ANALYZE")
    say(f"filled in {time.monotonic() - began:.0f} s")


# --- Measuring the pages -----------------------------------------------------------------------


def page_paths(rng_seed: int = 7) -> dict[str, Callable[[random.Random], str]]:
    """Each page and API twin: a function of a random source giving the next path."""
    from bots.models import Bot
    from ladder.models import LadderEntry
    from matches.models import Match
    from tournaments.models import Tournament

    bots = list(Bot.objects.filter(name__startswith="bot").values_list("pk", "name"))
    low = Match.objects.order_by("id").values_list("id", flat=True).first()
    high = Match.objects.order_by("-id").values_list("id", flat=True).first()
    tournaments = list(Tournament.objects.values_list("pk", flat=True))
    pages = max(1, -(-LadderEntry.objects.filter(games__gt=0).count() // 50))
    assert low is not None and high is not None and tournaments

    def bot(rng: random.Random) -> tuple[int, str]:
        return bots[rng.randrange(len(bots))]

    return {
        "home": lambda rng: "/",
        "leaderboard, a page": lambda rng: f"/ladders/main/?page={rng.randint(1, pages)}",
        "bot page": lambda rng: f"/bots/{bot(rng)[0]}/",
        "match page": lambda rng: f"/matches/{rng.randint(low, high)}/",
        "match list": lambda rng: "/matches/",
        "match list, one bot": lambda rng: f"/matches/?bot={bot(rng)[1]}",
        "tournament list": lambda rng: "/tournaments/",
        "tournament page": lambda rng: f"/tournaments/{rng.choice(tournaments)}/",
        "API ladders": lambda rng: "/api/v1/ladders/",
        "API leaderboard": lambda rng: "/api/v1/ladders/main/",
        "API bot": lambda rng: f"/api/v1/bots/{bot(rng)[0]}/",
        "API bot list": lambda rng: "/api/v1/bots/",
        "API match": lambda rng: f"/api/v1/matches/{rng.randint(low, high)}/",
        "API match list": lambda rng: "/api/v1/matches/",
        "API match list, one bot": lambda rng: f"/api/v1/matches/?bot={bot(rng)[1]}",
        "API tournament": lambda rng: f"/api/v1/tournaments/{rng.choice(tournaments)}/",
    }


def measure_pages(paths: dict[str, Callable[[random.Random], str]], requests: int,
                  cached: bool) -> dict[str, tuple[list[float], Counter[str]]]:
    """`requests` anonymous GETs of each page, shuffled together; the seconds of each and the
    page cache's answers (X-Page-Cache)."""
    from django.conf import settings
    from django.test import Client

    settings.KAISER_PAGE_CACHE = cached
    client, rng = Client(), random.Random(11)
    jobs = [name for name in paths for _ in range(requests)]
    rng.shuffle(jobs)
    out: dict[str, tuple[list[float], Counter[str]]] = {n: ([], Counter()) for n in paths}
    for name in jobs:
        path = paths[name](rng)
        accept = "application/json" if path.startswith("/api/") else "text/html"
        began = time.perf_counter()
        response = client.get(path, HTTP_ACCEPT=accept)
        elapsed = time.perf_counter() - began
        if response.status_code != 200:
            raise SystemExit(f"GET {path}: {response.status_code}")
        out[name][0].append(elapsed)
        out[name][1][response.headers.get("X-Page-Cache", "-")] += 1
    return out


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def pages_report(title: str, results: dict[str, tuple[list[float], Counter[str]]],
                 target_ms: float = 150) -> list[str]:
    say(title)
    say(f"  {'page':<26}{'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}  cache answers")
    over = []
    for name, (times, answers) in results.items():
        ms = [t * 1000 for t in times]
        p95 = percentile(ms, 0.95)
        mark = "" if p95 < target_ms else "  OVER"
        if mark:
            over.append(name)
        shown = ", ".join(f"{k} {v}" for k, v in sorted(answers.items()))
        say(f"  {name:<26}{len(ms):>5}{statistics.median(ms):>9.1f}{p95:>9.1f}"
            f"{max(ms):>9.1f}  {shown}{mark}")
    return over


# --- The tick, the fit, the sizes --------------------------------------------------------------


def measure_tick(repeat: int) -> list[float]:
    """The beat's top-up of the main ladder from an empty queue (the queue's open matches are
    deleted before each run, so every tick pairs queue_depth matches)."""
    from ladder import services
    from ladder.models import Ladder
    from matches.models import Match
    from matches.services import OPEN

    ladder = Ladder.objects.get(slug="main")
    times = []
    for n in range(repeat + 1):
        Match.objects.filter(ladder=ladder, kind=Match.Kind.LADDER, status__in=OPEN).delete()
        began = time.perf_counter()
        made = services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(n))
        elapsed = time.perf_counter() - began
        if made != ladder.queue_depth:
            raise SystemExit(f"the tick made {made} matches, not {ladder.queue_depth}")
        if n:  # the first run warms the process up (imports, the planner's statistics)
            times.append(elapsed)
    Match.objects.filter(ladder=ladder, kind=Match.Kind.LADDER, status__in=OPEN).delete()
    return times


def measure_fit(repeat: int) -> dict[str, list[float]]:
    """The beat's refresh of the fitted ratings (a stale fit each time), with this process's
    CPU time for it (what the machine's other load does not change much), and its parts one
    by one: reading the ladder's tallies and the entries' Elo, and solving
    (ratings.ratings_fit)."""
    from django.core.cache import cache

    from ladder import ratings, selectors, services
    from ladder.models import Ladder, LadderEntry

    ladder = Ladder.objects.get(slug="main")
    times: dict[str, list[float]] = {"whole": [], "cpu": [], "reading": [], "solving": []}
    for _ in range(repeat):
        cache.delete(selectors._fit_key(ladder.pk))
        began, cpu = time.perf_counter(), time.process_time()
        services.ladder_fits_refresh()
        times["whole"].append(time.perf_counter() - began)
        times["cpu"].append(time.process_time() - cpu)
        began = time.perf_counter()
        tallies = selectors.ladder_tallies(ladder=ladder)
        entries = LadderEntry.objects.filter(ladder=ladder)
        elo = dict(entries.values_list("version_id", "elo"))
        pins = dict(entries.filter(pinned=True).values_list("version_id", "elo"))
        times["reading"].append(time.perf_counter() - began)
        began = time.perf_counter()
        fitted = ratings.ratings_fit(tallies=tallies, pinned=pins, start=elo)
        times["solving"].append(time.perf_counter() - began)
        if fitted != selectors.ladder_fit(ladder=ladder, compute=False):
            raise SystemExit("the fit measured apart differs from the refresh's")
    say(f"  {len(fitted)} ratings fitted from {len(tallies.games)} pairs")
    return times


def measure_fit_again(repeat: int, results: int = 100) -> list[float]:
    """The beat's refresh as it runs on a live ladder: `results` new results since the last
    fit (added to random pairs' tallies in a transaction rolled back after each run, the
    cached fit marked stale), so the last fit is the start."""
    from django.core.cache import cache
    from django.db import connection, transaction

    from ladder import selectors, services
    from ladder.models import Ladder, PairTally

    ladder = Ladder.objects.get(slug="main")
    services.ladder_fits_refresh()
    key, table, times = selectors._fit_key(ladder.pk), PairTally._meta.db_table, []
    for _ in range(repeat):
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f"UPDATE {table} SET games = games + 2, low_wins = low_wins + "
                               f"floor(random() * 3) WHERE id IN (SELECT id FROM {table} "
                               f"ORDER BY random() LIMIT %s)", [results])
            cache.set(key, ("stale", cache.get(key)[1]), 600)
            began = time.perf_counter()
            services.ladder_fits_refresh()
            times.append(time.perf_counter() - began)
            transaction.set_rollback(True)
    cache.delete(key)
    return times


def sizes(replays_dir: Path) -> None:
    """The match table and the database as filled (replays in the store), then with every
    row's replay in replay_gz: a copy of the table with the same indexes, filled on the server
    (INSERT ... SELECT, each row's bytes joined in by its key), measured, dropped."""
    mb = 1024 * 1024
    conn = raw()
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            cur.execute("VACUUM ANALYZE tournaments_match")
            cur.execute("SELECT pg_total_relation_size('tournaments_match'), "
                        "pg_database_size(current_database()), count(*) FROM tournaments_match")
            table, database, rows = cur.fetchone()
            files = [f for f in replays_dir.rglob("*.json.gz") if f.is_file()]
            store = sum(f.stat().st_size for f in files)
            each = store / max(len(files), 1)
            say(f"sizes, {rows} matches:")
            say(f"  replays in the store: match table {table / mb:,.0f} MB, database "
                f"{database / mb:,.0f} MB; the store: {len(files)} shared objects, "
                f"{store / mb:.1f} MB (an object a match would be ~{each * rows / mb:,.0f} MB)")
            began = time.monotonic()
            cur.execute("DROP TABLE IF EXISTS scale_sim_inrows")
            cur.execute("CREATE TABLE scale_sim_inrows (LIKE tournaments_match INCLUDING ALL)")
            cur.execute("CREATE TEMP TABLE scale_sim_blobs (key varchar(200), gz bytea)")
            with cur.copy("COPY scale_sim_blobs (key, gz) FROM STDIN") as copy:
                for path in files:
                    copy.write_row((str(path.relative_to(replays_dir)), path.read_bytes()))
            cur.execute("SELECT column_name FROM information_schema.columns WHERE table_name = "
                        "'tournaments_match' ORDER BY ordinal_position")
            columns = [c for (c,) in cur.fetchall()]
            moved = {"replay_gz": "b.gz", "replay_key": "''", "replay_sha256": "''"}
            cur.execute(f"INSERT INTO scale_sim_inrows ({', '.join(columns)}) SELECT "
                        + ", ".join(moved.get(c, f"m.{c}") for c in columns)
                        + " FROM tournaments_match m LEFT JOIN scale_sim_blobs b "
                        "ON b.key = m.replay_key")
            cur.execute("ANALYZE scale_sim_inrows")
            cur.execute("SELECT pg_total_relation_size('scale_sim_inrows')")
            inrows = cur.fetchone()[0]
            say(f"  replays in the rows:  match table {inrows / mb:,.0f} MB, database "
                f"{(database - table + inrows) / mb:,.0f} MB (the same rows with replay_gz "
                f"filled; built and measured in {time.monotonic() - began:.0f} s)")
            cur.execute("DROP TABLE scale_sim_inrows")
            cur.execute("DROP TABLE scale_sim_blobs")
    finally:
        conn.autocommit = False


def ms_summary(times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    return (f"median {statistics.median(ms):.0f} ms, max {max(ms):.0f} ms over {len(ms)} "
            f"runs")


def measure(args: argparse.Namespace, store: Path) -> None:
    from django.db import connection

    cache_forget()
    paths = {name: path for name, path in page_paths().items()
             if not args.pages or any(part in name for part in args.pages.split(","))}
    measure_pages(paths, 1, cached=False)  # warm up: templates, imports, the fragments
    load = os.getloadavg()[0]
    off = measure_pages(paths, args.requests, cached=False)
    over = pages_report(f"pages, page cache OFF (each request built; load average {load:.1f} "
                        f"on {os.cpu_count()} cores):", off)
    if "cached" in args.parts:
        on = measure_pages(paths, args.requests, cached=True)
        pages_report(f"pages, page cache ON (Redis; load average {os.getloadavg()[0]:.1f}):",
                     on)
    say(f"  pages over the target (p95 >= 150 ms) with the cache off: "
        f"{', '.join(over) if over else 'none'}")
    if "tick" in args.parts:
        tick = measure_tick(args.repeat)
        say(f"the scheduling tick (ladder_schedule, the main ladder's queue topped up from "
            f"empty): {ms_summary(tick)} (target < 1 s)")
    if "fit" in args.parts:
        load = os.getloadavg()[0]
        fit = measure_fit(args.repeat)
        say(f"the rating fit (ladder_fits_refresh, stale each time; load average {load:.1f}): "
            f"{ms_summary(fit['whole'])} (target < 1 s), CPU median "
            f"{statistics.median(fit['cpu']) * 1000:.0f} ms; of which reading the tallies and "
            f"the Elo: median {statistics.median(fit['reading']) * 1000:.0f} ms, solving: "
            f"median {statistics.median(fit['solving']) * 1000:.0f} ms; load average "
            f"{os.getloadavg()[0]:.1f} after")
        again = measure_fit_again(args.repeat)
        say(f"the rating fit 100 results after the last one (which it starts from): "
            f"{ms_summary(again)}; load average {os.getloadavg()[0]:.1f}")
    if "sizes" in args.parts:
        sizes(store)
    say(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
        f"{connection.vendor}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=100, help="per page and cache mode")
    parser.add_argument("--repeat", type=int, default=5, help="runs of the tick and the fit")
    parser.add_argument("--distinct", type=int, default=24, help="distinct stored replays")
    parser.add_argument("--field", type=int, default=64, help="bots in each tournament")
    parser.add_argument("--db-name", default="kaiser_scale_sim")
    parser.add_argument("--keep", action="store_true", help="keep the database and store")
    parser.add_argument("--reuse", action="store_true", help="measure a kept database again")
    parser.add_argument("--store", help="the replay store's folder (with --reuse)")
    parser.add_argument("--tiny", action="store_true", help="40 bots, 400 matches, 3 requests")
    parser.add_argument("--pages", default="", help="only the pages whose names contain one of "
                        "these comma-separated words (default: all)")
    parser.add_argument("--parts", default="cached,tick,fit,sizes",
                        help="what to measure besides the pages with the cache off, "
                        "comma-separated: cached (the pages again, cache on), tick, fit, sizes")
    args = parser.parse_args()
    if args.tiny:
        args.bots, args.matches, args.requests, args.repeat, args.distinct = 40, 400, 3, 2, 4
        args.field = 8
    if args.reuse and not args.store:
        parser.error("--reuse needs --store, the folder a --keep run printed")
    store = Path(args.store) if args.store else Path(tempfile.mkdtemp(prefix="kaiser-scale-"))
    url = f"{SERVER}/{args.db_name}"
    if not args.reuse:
        admin_sql(f"DROP DATABASE IF EXISTS {args.db_name} WITH (FORCE)")
        admin_sql(f"CREATE DATABASE {args.db_name}")
    try:
        django_setup(url, store)
        if not args.reuse:
            from django.core.management import call_command

            call_command("migrate", verbosity=0)
            fill(args)
        measure(args, store)
    finally:
        from django.db import connections

        connections.close_all()
        cache_forget()
        if args.keep or args.reuse:
            say(f"kept: database {args.db_name}, store {store} (--reuse --store {store})")
        else:
            admin_sql(f"DROP DATABASE IF EXISTS {args.db_name} WITH (FORCE)")
            shutil.rmtree(store, ignore_errors=True)


if __name__ == "__main__":
    main()
