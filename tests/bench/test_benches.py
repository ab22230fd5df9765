"""Every bench in bench/ runs at a tiny size, as a real subprocess, in the suite's environment
(PostgreSQL and Redis when DATABASE_URL / REDIS_URL say so, else SQLite and the filesystem
broker), and prints the figures it promises: so none rots unseen. Only that it ran and what it
printed is asserted, never a timing (bench/ measures; tests do not).

Benches that make a database make their own beside DATABASE_URL (or under var/ with SQLite);
the two that need one given to them get a scratch one here. Each run has a private var folder
(KAISER_VAR_DIR: SQLite files, the filesystem broker, programs)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATABASE_URL = os.environ.get("DATABASE_URL", "")
POSTGRES = DATABASE_URL.startswith(("postgres://", "postgresql://"))
VENDOR = "postgresql" if POSTGRES else "sqlite"
Env = dict[str, str]
needs_postgres = pytest.mark.skipif(
    not POSTGRES, reason="the page benches fill PostgreSQL with COPY: run with DATABASE_URL set")


def run_bench(script: str, *args: str, env: Env, timeout: float = 240) -> str:
    """bench/<script>.py with these arguments; its output, once it has exited 0."""
    result = subprocess.run([sys.executable, f"bench/{script}.py", *args], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, (
        f"bench/{script}.py exited {result.returncode}\n--- stdout\n{result.stdout[-3000:]}"
        f"\n--- stderr\n{result.stderr[-5000:]}")
    return result.stdout


def assert_prints(output: str, *promised: str) -> None:
    missing = [line for line in promised if line not in output]
    assert not missing, f"missing {missing} in:\n{output}"


@pytest.fixture
def scratch_postgres() -> Iterator[str | None]:
    """A fresh PostgreSQL database beside DATABASE_URL, dropped afterwards; None with SQLite."""
    if not POSTGRES:
        yield None
        return
    import psycopg

    # One per pytest-xdist worker: two benches use it, and may run at once.
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    base, name = DATABASE_URL.rpartition("/")[0], f"kaiser_bench_scratch{worker}"

    def sql(statement: str) -> None:
        with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
            conn.execute(statement)

    sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    sql(f"CREATE DATABASE {name}")
    yield f"{base}/{name}"
    sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


# --- the engine alone ---------------------------------------------------------------------------


@pytest.mark.timeout(120)
def test_engine_speed_prints_each_path_the_memory_and_the_reference(bench_env: Env) -> None:
    out = run_bench("engine_speed", "--games", "10", "--repeat", "1", "--paths",
                    "fast,trusted,checked", "--memory", "10", "--reference", env=bench_env)

    assert_prints(out, "official / fast:", "official / trusted:", "official / checked:",
                  "cpu  deals/s", "wall games/s", "replay_json of the replay",
                  "ru_maxrss", "tracemalloc peak", "plain loop (reference)")


@pytest.mark.timeout(120)
def test_sergeant_major_prints_its_speed_and_greedys_share(bench_env: Env) -> None:
    out = run_bench("sergeant_major", "--games", "3", "--repeat", "1", "--strength", "3",
                    "--mc", "3", "--rules", "952,952-six-hands", env=bench_env)

    assert_prints(out, "952 / random: 3 games", "952 / greedy: 3 games",
                  "952-six-hands / random:", "cpu  hands/s", "wall decisions/s",
                  "replay_json of the replay", "greedy vs random, random, 952, 3 games",
                  "95% CI", "average up per hand",
                  "mc vs greedy, greedy, 952-six-hands, 3 games: mc's points share", "ms a hand")


@pytest.mark.timeout(120)
def test_mc_strength_prints_the_share_won_and_the_time_per_decision(bench_env: Env) -> None:
    out = run_bench("mc_strength", "--games", "2", "--jobs", "1", env=bench_env)

    assert_prints(out, "mc vs greedy, official, 2 games", "95% CI", "forfeits 0",
                  "wall time per decision", "CPU time per decision")


@pytest.mark.timeout(180)
def test_rating_convergence_prints_the_table_the_taus_and_the_matches_needed(
        bench_env: Env, tmp_path: Path) -> None:
    out = run_bench("rating_convergence", "--seeds", "1", "--matches", "4", "--pairs", "2",
                    "--jobs", "2", "--table", str(tmp_path / "table.json"),
                    env=bench_env)

    assert_prints(out, "outcome table:", "share of games won by the row player",
                  "one match's separation", "mean Kendall tau over 1 seeded ladders",
                  "matches a bot needed for mean tau >= 0.9",
                  "rating pairing,          games rule, elo",
                  "info pairing,         boards rule, fit",
                  "holds mean tau >= 0.9 for good",
                  "before (Elo order) ", "after (fitted order) ",
                  "the same, ladder by ladder", " ladders)",
                  "one owner's pairs 0/")


@pytest.mark.timeout(180)
def test_for_good_is_the_first_checkpoint_after_the_last_dip() -> None:
    from bench.rating_convergence import first_for_good

    checkpoints = [2, 4, 8, 16]
    assert first_for_good([0.5, 0.95, 0.85, 0.92], checkpoints) == 16
    assert first_for_good([0.91, 0.95, 0.93, 0.92], checkpoints) == 2
    assert first_for_good([0.91, 0.95, 0.93, 0.2], checkpoints) is None


def test_per_ladder_for_good_takes_each_ladders_own_taus() -> None:
    from bench.rating_convergence import Run, per_ladder_for_good

    checkpoints = [2, 4, 8, 16]
    runs = [Run(elo=[0.5, 0.95, 0.85, 0.92], fit=[0.91, 0.95, 0.93, 0.92], fewest_share=1.0,
                same_owner=0, matches=16),
            Run(elo=[0.95, 0.95, 0.95, 0.2], fit=[0.5, 0.95, 0.93, 0.92], fewest_share=1.0,
                same_owner=0, matches=16)]
    assert per_ladder_for_good(runs, "elo", checkpoints) == "median 16 (1/2 ladders)"
    assert per_ladder_for_good(runs, "fit", checkpoints) == "median 3 (2/2 ladders)"


def test_sm_rating_convergence_prints_the_separation_the_taus_and_the_matches_needed(
        bench_env: Env, tmp_path: Path) -> None:
    out = run_bench("sm_rating_convergence", "--seeds", "1", "--matches", "4",
                    "--matches-a-group", "2", "--jobs", "2",
                    "--table", str(tmp_path / "table.json"), env=bench_env)

    assert_prints(out, "outcome table:", "one match's separation", "both took no points",
                  "mean Kendall tau over 1 seeded ladders",
                  "matches a bot needed for mean tau >= 0.9 (6 players, 3 a match)",
                  "rating pairing,         points rule, elo",
                  "info pairing,            ups rule, fit", "one owner's pairs 0/")


@pytest.mark.sandbox
@pytest.mark.timeout(180)
def test_sandbox_speed_prints_each_design(bench_env: Env) -> None:
    out = run_bench("sandbox_speed", "--matches", "1", "--designs", "plain pipe,gVisor a seat",
                    env=bench_env)

    assert_prints(out, "decision round trip", "start-up of the four seats", "before (pool 0)",
                  "after (pool 4)", "the bot's CPU a decision", "kernel's share",
                  "one seat (default design)", "two-game matches/s")


@pytest.mark.sandbox
@pytest.mark.timeout(180)
def test_match_cpu_splits_a_match_by_phase_and_process(bench_env: Env) -> None:
    out = run_bench("match_cpu", "--matches", "2", "--designs", "plain pipe,gVisor a seat",
                    env=bench_env)

    assert_prints(out, "plain pipe [load", "gVisor a seat [load", "the worker's CPU a match",
                  "boot, a seat:", "start, a seat:", "a decision:", "freezer writes",
                  "clock reads", "teardown, a seat:", "the Sentry's share", "median seat boot")
    boot = next(line for line in out.splitlines() if line.startswith("  boot, a seat:")
                and "Sentry" in line)
    for part in ("launcher", "gofer", "Sentry", "interpreter", "engine"):
        assert f"{part} " in boot, boot


@pytest.mark.sandbox
@pytest.mark.timeout(180)
def test_table_cost_prints_a_tables_start_up_and_the_matchs_wall_time(bench_env: Env) -> None:
    out = run_bench("table_cost", "--rounds", "1", env=bench_env)

    assert_prints(out, "start-up of a table", "made when its game begins (game 0)",
                  "made early, while the last played", "two-game match of trivial bots",
                  "this tree", "load average")


@pytest.mark.sandbox
@pytest.mark.timeout(180)
def test_fair_cpu_prints_fairness_speed_and_cost(bench_env: Env) -> None:
    out = run_bench("fair_cpu", "--think", "0.02", "--moves", "2", "--hog", "2", "--matches",
                    "1", env=bench_env)

    runs = [line.split()[0] for line in out.splitlines() if "counted median" in line]
    assert runs == ["A", "B", "B2", "C"], out
    # Fair play at this size: no run's bot forfeits (the clock counts its CPU, not the host's).
    verdicts = [line for line in out.splitlines() if "forfeits:" in line]
    assert [line.split()[0] for line in verdicts] == runs, out
    assert all(line.endswith("forfeits: none") for line in verdicts), out
    assert_prints(out, "speed: the calibration workload's CPU time", "cost: round trip",
                  "the clock: one read of a seat's CPU time")


# --- the ladder's policy and the database --------------------------------------------------------


@pytest.mark.timeout(60)
def test_ladder_churn_prints_old_and_new_policy_per_ladder(bench_env: Env) -> None:
    out = run_bench("ladder_churn", "--ticks", "30", env=bench_env)

    assert_prints(out, "house  old:", "house  new:", "field  old:", "field  new:")


@pytest.mark.timeout(120)
def test_ladder_schedule_cost_prints_a_fill_with_and_without_meetings(bench_env: Env) -> None:
    out = run_bench("ladder_schedule_cost", "--bots", "6", "--matches", "30", "--fills", "2",
                    env=bench_env)

    assert_prints(out, f"{VENDOR}: 6 bots, 30 finished rated matches",
                  "one ladder fill, without the meetings", "one ladder fill, with the meetings")


@pytest.mark.timeout(120)
def test_health_cost_prints_both_medians_against_the_configured_services(bench_env: Env) -> None:
    out = run_bench("health_cost", "--requests", "1", env=bench_env)

    broker = "redis" if os.environ.get("REDIS_URL") else "filesystem"
    assert_prints(out, f"broker {broker}, database {VENDOR}", "workers asked each time",
                  "workers' answer cached")


@pytest.mark.sandbox
@pytest.mark.timeout(180)
def test_stats_overhead_prints_both_pairings_and_the_statistics_alone(bench_env: Env) -> None:
    if POSTGRES:  # its test database is test_<name>: never the suite's own test_kaiser
        bench_env["DATABASE_URL"] = DATABASE_URL.rpartition("/")[0] + "/kaiser_bench_stats"
    out = run_bench("stats_overhead", "--matches", "1", env=bench_env)

    assert_prints(out, f"database: {VENDOR}; 1 matches per pairing", "greedy vs random:",
                  "minimal vs greedy:", "to fold them into the totals", "the statistics alone")


def test_replay_store_prints_the_database_with_and_without_the_replays(bench_env: Env) -> None:
    if POSTGRES:  # its test database is test_<name>: never the suite's own test_kaiser
        bench_env["DATABASE_URL"] = DATABASE_URL.rpartition("/")[0] + "/kaiser_bench_replays"
    out = run_bench("replay_store", "--matches", "30", "--played", "2", env=bench_env)

    assert_prints(out, f"database: {VENDOR}; 30 finished matches", "with the replays in it:",
                  "without them (moved out):", "the replay store:          30 objects",
                  "a million matches:", "replays_to_store: 28 moved", "one replay read:")


@pytest.mark.sandbox
def test_fairplay_storage_prints_the_bytes_a_match_with_and_without_the_times(
        bench_env: Env) -> None:
    if POSTGRES:  # its test database is test_<name>: never the suite's own test_kaiser
        bench_env["DATABASE_URL"] = DATABASE_URL.rpartition("/")[0] + "/kaiser_bench_fairplay"
    out = run_bench("fairplay_storage", "--matches", "30", "--played", "1", env=bench_env)

    assert_prints(out, f"database: {VENDOR}; 30 finished matches",
                  "match table with the times' key and hash:", "match table without them:",
                  "(limit 1,024): within", "the replay store: the times")


@pytest.mark.timeout(120)
def test_match_bytes_prints_each_round_the_tables_and_the_bytes_a_match(bench_env: Env) -> None:
    if POSTGRES:  # its test database is test_<name>: never the suite's own test_kaiser
        bench_env["DATABASE_URL"] = DATABASE_URL.rpartition("/")[0] + "/kaiser_bench_bytes"
    out = run_bench("match_bytes", "--matches", "4", "--rounds", "2", env=bench_env)

    assert_prints(out, f"database: {VENDOR}; 2 rounds of 4 ladder matches on Main ladder",
                  "round 1: the database grew by", "round 2: the database grew by",
                  "the first 4 matches (from none):", "the 4 matches after them",
                  "bytes a match: the first 4", "(target: under 2,048)")


@pytest.mark.timeout(180)
def test_boards_overhead_prints_both_pairings_and_the_comparison_alone(bench_env: Env) -> None:
    if POSTGRES:  # its test database is test_<name>: never the suite's own test_kaiser
        bench_env["DATABASE_URL"] = DATABASE_URL.rpartition("/")[0] + "/kaiser_bench_boards"
    out = run_bench("boards_overhead", "--matches", "1", env=bench_env)

    assert_prints(out, f"database: {VENDOR}; 1 matches per pairing", "greedy vs random:",
                  "minimal vs greedy:", "with them:", "the comparison alone",
                  "BoardLoss rows in all")


# --- the site: workers, web servers, pages ------------------------------------------------------


@pytest.mark.worker
@pytest.mark.sandbox
@pytest.mark.timeout(240)
def test_ladder_throughput_prints_the_engine_and_the_site_rates(bench_env: Env) -> None:
    out = run_bench("ladder_throughput", "--matches", "2", env=bench_env)

    scheme = DATABASE_URL.split(":")[0] if POSTGRES else "sqlite"  # as the bench names it
    broker = "Redis" if os.environ.get("REDIS_URL") else "filesystem broker"
    assert_prints(out, f"{scheme} + {broker}", "engine alone",
                  "site, queue to rating", "site overhead vs the engine in the same worker")


@pytest.mark.worker
@pytest.mark.timeout(180)
def test_play_latency_prints_the_time_until_the_page_sees_a_move(
        bench_env: Env, scratch_postgres: str | None) -> None:
    if scratch_postgres:  # the bench migrates and fills the database it is given
        bench_env["DATABASE_URL"] = scratch_postgres
    out = run_bench("play_latency", "--games", "1", env=bench_env)

    assert_prints(out, "play latency:", "in 1 one-deal games",
                  "bot's answer -> page sees it: median")


@pytest.mark.worker
@pytest.mark.sandbox
@pytest.mark.timeout(300)
def test_first_rated_match_prints_each_games_time_from_upload_to_a_rated_match(
        bench_env: Env) -> None:
    out = run_bench("first_rated_match", "--authors", "1", env=bench_env, timeout=290)

    assert_prints(out, "first rated match: upload of the starter -> its first rated ladder "
                  "match finished", "kaiser: 1 authors, median", "sergeant-major: 1 authors, "
                  "median", "(target: under 120 s)")


@pytest.mark.worker
@pytest.mark.timeout(240)
def test_people_tables_prints_the_pushed_latency_the_waiting_cost_and_the_requests(
        bench_env: Env, scratch_postgres: str | None) -> None:
    if scratch_postgres:  # the bench migrates and fills the database it is given
        bench_env["DATABASE_URL"] = scratch_postgres
    out = run_bench("people_tables", "--tables", "3", "--think-ms", "100", "--quiet-seconds",
                    "2", env=bench_env)

    assert_prints(out, "people at tables: 3 one-deal games", "bot's answer -> page (pushed): "
                  "median", "99th percentile", "over 1 s:", "queries/s per waiting table",
                  "web requests", "void games 0")


@pytest.mark.worker
@pytest.mark.timeout(180)
def test_load_ladder_keeps_the_pages_answering_while_the_ladder_plays(bench_env: Env) -> None:
    # The beat tops the ladder up every 10 s: a warm-up past the first tick, so matches play.
    out = run_bench("load_ladder", "--bots", "6", "--clients", "2", "--seconds", "3",
                    "--warmup", "12", env=bench_env)

    assert_prints(out, "load: 6 bots on the main ladder", f"{VENDOR} + private redis-server",
                  "not 200: none", "page cache 1; answers:", "queue over time",
                  "rated matches per bot: min")


@pytest.mark.worker
@pytest.mark.sandbox
@pytest.mark.timeout(240)
def test_fault_recovery_loses_and_doubles_nothing_under_a_fault(bench_env: Env) -> None:
    out = run_bench("fault_recovery", "--matches", "3", "--period", "2", "--timeout", "150",
                    env=bench_env)

    assert_prints(out, "fault recovery: 3 rated matches", f"{VENDOR} + private redis-server",
                  "SIGKILL worker", "all done in", "lost or doubled: nothing")


@needs_postgres
@pytest.mark.timeout(180)
def test_page_speed_fills_its_database_and_prints_each_page(bench_env: Env) -> None:
    out = run_bench("page_speed", "--bots", "10", "--matches", "40", "--clients", "1",
                    "--requests", "2", "--workers", "1", env=bench_env)

    assert_prints(out, "filled kaiser_bench_pages: 10 bots, 40 finished matches",
                  "queries of a first visit", "server time (gunicorn's own", "at the client")
    for page in ("home", "bot page", "match page", "match list", "match list, one bot",
                 "replay (API)"):
        assert f"\n  {page} " in out, f"no row for {page}:\n{out}"


@needs_postgres
@pytest.mark.timeout(180)
def test_boards_page_speed_fills_its_boards_and_prints_each_page(bench_env: Env) -> None:
    out = run_bench("boards_page_speed", "--bots", "10", "--matches", "40", "--clients", "1",
                    "--requests", "2", "--workers", "1", env=bench_env)

    assert_prints(out, "filled kaiser_bench_boards: 10 bots, 40 finished matches with their "
                  "boards", "queries of a first visit", "server time (gunicorn's own",
                  "at the client")
    for page in ("bot page", "bot page, one opponent", "match boards", "one board",
                 "boards (API)", "costliest (API)"):
        assert f"\n  {page} " in out, f"no row for {page}:\n{out}"


@needs_postgres
@pytest.mark.timeout(180)
def test_tournament_page_speed_builds_its_tournaments_and_prints_each_page(bench_env: Env) -> None:
    out = run_bench("tournament_page_speed", "--clients", "1", "--requests", "2", "--workers",
                    "1", "--background", "40", "--field", "16", env=bench_env)

    assert_prints(out, "Swiss, 16 bots, 6 rounds, finished: finished",
                  "knockout, 16 bots, finished: finished", "queries of a tournament page",
                  "the body uncached", "server time (gunicorn's own", "live poll (running Swiss)",
                  "API detail (running Swiss)")


@needs_postgres
@pytest.mark.timeout(180)
def test_scale_sim_fills_its_database_and_prints_pages_tick_fit_and_sizes(
        bench_env: Env) -> None:
    out = run_bench("scale_sim", "--tiny", "--db-name", "kaiser_scale_sim_tiny", env=bench_env)

    assert_prints(out, "filling kaiser_scale_sim_tiny: 40 bots, 400 matches",
                  "finished matches and their sides (COPY)",
                  "three 8-bot tournaments by the services",
                  "pages, page cache OFF", "pages, page cache ON", "the scheduling tick",
                  "the rating fit", "replays in the store: match table",
                  "replays in the rows:  match table")
    for page in ("home", "leaderboard, a page", "bot page", "match page", "match list",
                 "match list, one bot", "tournament page", "API leaderboard", "API bot",
                 "API match", "API match list, one bot", "API tournament"):
        assert out.count(f"\n  {page:<26}") == 2, f"no row for {page} in each mode:\n{out}"


@needs_postgres
@pytest.mark.timeout(600)
def test_before_after_runs_the_page_benches_at_two_revisions_and_gives_a_verdict(
        bench_env: Env) -> None:
    result = subprocess.run(
        ["bench/before_after.sh", "HEAD", "HEAD", "--bots", "10", "--matches", "40",
         "--clients", "1", "--requests", "2", "--workers", "1"], cwd=ROOT,
        # One bench (each has its own test above), in a database of its own: the page bench's
        # test beside it drops its own database by name.
        env={**bench_env, "PASSES": "1", "BENCHES": "page_speed",
             "KAISER_BENCH_PAGES_DB": "kaiser_bench_pages_before_after"},
        capture_output=True, text=True, timeout=590)
    out = result.stdout
    assert result.returncode == 0, f"{out[-3000:]}\n--- stderr\n{result.stderr[-3000:]}"

    assert out.count(": bench/page_speed.py ") == 2, out  # once a revision
    assert_prints(out, "median server time, ms (the lowest of 1 passes): before (HEAD) and "
                  "after (HEAD)",
                  "page_speed: match page")
    # The verdict is the table's: each page's row read back, the rule (> 20% and > 2 ms)
    # applied to it, and the last line must say exactly that.
    table = out.split("before (HEAD) and after (HEAD)", 1)[1].strip().splitlines()[2:-1]
    slower = []
    for row in table:
        page, before, after = row.rsplit(None, 3)[:3]
        gain = float(after) - float(before)
        if gain > 2 and gain / float(before) > 0.2:
            slower.append(page.strip())
    assert table and all(row.startswith("  page_speed: ") for row in table), out
    verdict = out.strip().splitlines()[-1]
    if slower:
        assert verdict == "slower beyond noise (> 20% and > 2 ms): " + "; ".join(slower), out
    else:
        assert verdict == "no page slower beyond noise (> 20% and > 2 ms)", out
