"""settings.py reads the environment: each case runs a fresh interpreter with a chosen one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRINT = (
    "import json, django; from django.conf import settings; django.setup(); "
    "print(json.dumps({'debug': settings.DEBUG, 'db': settings.DATABASES['default']['ENGINE'],"
    " 'db_name': str(settings.DATABASES['default']['NAME']), "
    "'broker': settings.CELERY_BROKER_URL, 'cache': settings.CACHES['default']['BACKEND'],"
    " 'hosts': settings.ALLOWED_HOSTS, 'memory': settings.KAISER_SANDBOX['memory_mb'],"
    " 'beat': sorted(e['task'] for e in settings.CELERY_BEAT_SCHEDULE.values())}))"
)
KEEP = ("PATH", "HOME", "LANG")


def _run(env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k in KEEP}
    clean.update({"DJANGO_SETTINGS_MODULE": "kaiser_site.settings",
                  "KAISER_VAR_DIR": str(tmp_path / "var")}, **env)
    return subprocess.run([sys.executable, "-c", PRINT], cwd=ROOT, env=clean,
                          capture_output=True, text=True, timeout=60)


def test_no_environment_gives_the_embedded_development_defaults(tmp_path: Path) -> None:
    done = _run({}, tmp_path)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["debug"] is True
    assert got["db"] == "django.db.backends.sqlite3"
    assert got["db_name"] == str(tmp_path / "var" / "db.sqlite3")
    assert got["broker"] == "filesystem://"
    assert got["cache"].endswith("LocMemCache")
    assert (tmp_path / "var" / "broker" / "queue").is_dir()
    assert got["memory"] == 512
    assert got["beat"] == ["bots.tasks.bot_versions_requeue_stale",
                           "fairplay.tasks.fairplay_check_recent",
                           "ladder.tasks.ladder_fits_refresh",
                           "ladder.tasks.ladder_schedule",
                           "matches.tasks.matches_requeue_stale",
                           "matches.tasks.play_stats_fold",
                           "matches.tasks.replays_prune",
                           "play.tasks.games_void_stale",
                           "tournaments.tasks.tournaments_start_due"]


def test_debug_off_without_secret_key_stops_with_a_clear_message(tmp_path: Path) -> None:
    done = _run({"DEBUG": "0"}, tmp_path)
    assert done.returncode != 0
    assert "SECRET_KEY is not set: with DEBUG off it must come from the environment" in done.stderr


def test_production_environment_selects_postgres_and_redis(tmp_path: Path) -> None:
    done = _run({
        "DEBUG": "false", "SECRET_KEY": "x" * 50,
        "ALLOWED_HOSTS": "kaiser.example, www.kaiser.example",
        "DATABASE_URL": "postgres://kaiser:pw@db:5432/kaiser", "REDIS_URL": "redis://redis:6379/0",
        "KAISER_SANDBOX_MEMORY_MB": "256",
    }, tmp_path)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["debug"] is False
    assert got["db"] == "django.db.backends.postgresql"
    assert got["broker"] == "redis://redis:6379/0"
    assert got["cache"] == "django.core.cache.backends.redis.RedisCache"
    assert got["hosts"] == ["kaiser.example", "www.kaiser.example"]
    assert got["memory"] == 256


def test_malformed_values_are_named_in_the_error(tmp_path: Path) -> None:
    done = _run({"DEBUG": "maybe"}, tmp_path)
    assert "DEBUG='maybe' is not a boolean" in done.stderr
    done = _run({"KAISER_SANDBOX_MEMORY_MB": "lots"}, tmp_path)
    assert "KAISER_SANDBOX_MEMORY_MB='lots' is not an integer" in done.stderr


def test_required_services_that_are_down_fail_the_run_instead_of_skipping(tmp_path: Path) -> None:
    clean = {k: v for k, v in os.environ.items() if k in KEEP}
    clean.update(KAISER_REQUIRE_SERVICES="1", KAISER_VAR_DIR=str(tmp_path / "var"),
                 DATABASE_URL="postgres://postgres@127.0.0.1:1/kaiser",
                 REDIS_URL="redis://127.0.0.1:1/0")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/site/test_site_settings.py", "-q",
         "-p", "no:cacheprovider", "-k", "no_environment"],
        cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 3
    assert "KAISER_REQUIRE_SERVICES=1: PostgreSQL unreachable" in done.stdout + done.stderr
    assert "Redis unreachable at redis://127.0.0.1:1/0" in done.stdout + done.stderr
    assert "passed" not in done.stdout and "skipped" not in done.stdout


POOL_PROBE = (
    "import json, threading, django; from django.conf import settings; django.setup(); "
    "from django.db import connection; pids = set(); lock = threading.Lock()\n"
    "def work():\n"
    "    with connection.cursor() as c:\n"
    "        c.execute('SELECT pg_backend_pid(), pg_sleep(0.3)'); pid = c.fetchone()[0]\n"
    "    connection.close()\n"
    "    with lock: pids.add(pid)\n"
    "threads = [threading.Thread(target=work) for _ in range(6)]\n"
    "[t.start() for t in threads]; [t.join() for t in threads]\n"
    "print(json.dumps({'pool': settings.DATABASES['default']['OPTIONS'].get('pool'), "
    "'age': settings.DATABASES['default']['CONN_MAX_AGE'], 'backends': len(pids)}))"
)


def test_the_pool_setting_bounds_a_process_s_postgresql_connections(tmp_path: Path) -> None:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        # Without PostgreSQL the setting changes nothing (SQLite has no pool).
        done = _run({"DATABASE_POOL_MAX_SIZE": "2"}, tmp_path)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["db"] == "django.db.backends.sqlite3"
        return
    clean = {k: v for k, v in os.environ.items() if k in KEEP}
    clean.update(DJANGO_SETTINGS_MODULE="kaiser_site.settings",
                 KAISER_VAR_DIR=str(tmp_path / "var"), DATABASE_POOL_MAX_SIZE="2",
                 # Only SELECTs of the server's own functions: the maintenance database does.
                 DATABASE_URL=url.rpartition("/")[0] + "/postgres")
    done = subprocess.run([sys.executable, "-c", POOL_PROBE], cwd=ROOT, env=clean,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["pool"] == {"min_size": 2, "max_size": 2, "timeout": 30}
    assert got["age"] == 0  # Django refuses persistent connections beside a pool
    # Six threads querying at once went through two connections, handed back on close().
    assert got["backends"] == 2
