"""Kaiser Arena's settings: one file, read from the environment.

With no environment at all the site runs for development: DEBUG on, SQLite at var/db.sqlite3,
Kombu's filesystem broker under var/broker/ (no server needed). Production sets DEBUG=0,
SECRET_KEY, DATABASE_URL (PostgreSQL) and REDIS_URL (broker and cache).
"""

from __future__ import annotations

import os
from dataclasses import asdict
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from engine.faults import InfrastructureError
from engine.sandbox.config import SandboxConfig
from engine.sandbox.config import config as sandbox_config
from kaiser_site import broker

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no)")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_path(name: str, default: Path) -> Path:
    raw = os.environ.get(name)
    return Path(raw).resolve() if raw else default


# --- Core -----------------------------------------------------------------------------------

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set: with DEBUG off it must come from the environment "
            "(e.g. SECRET_KEY=$(python -c 'import secrets; print(secrets.token_urlsafe(50))'))"
        )
    SECRET_KEY = "insecure-development-key-only-used-while-DEBUG-is-on"  # noqa: S105

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
SITE_NAME = env_str("SITE_NAME", "Kaiser Arena")

VAR_DIR = env_path("KAISER_VAR_DIR", BASE_DIR / "var")
MEDIA_ROOT = env_path("MEDIA_ROOT", BASE_DIR / "media")
MEDIA_URL = "/media/"
STATIC_ROOT = env_path("STATIC_ROOT", BASE_DIR / "staticfiles")
STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from here, not from a CDN
    "kaiser_site",
    "accounts",
    "bots",
    "matches",
    "ladder",
    "tournaments",
    "play",
    "fairplay",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "kaiser_site.middleware.UploadSizeLimitMiddleware",
    "kaiser_site.middleware.NulCharacterMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "kaiser_site.middleware.ErrorPagesMiddleware",  # last: it sees a view's exceptions first
]

ROOT_URLCONF = "kaiser_site.urls"
WSGI_APPLICATION = "kaiser_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "kaiser_site.context_processors.site",
            ],
        },
    },
    {
        # The repeated fragments of the pages (kaiser_site.fragments): each app's jinja2/ folder.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {"environment": "kaiser_site.fragments.environment", "autoescape": True},
    },
]

# --- Database -------------------------------------------------------------------------------

DEFAULT_SQLITE = VAR_DIR / "db.sqlite3"
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{DEFAULT_SQLITE}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
# A pool of PostgreSQL connections per process (Django's psycopg pool), on when
# DATABASE_POOL_MAX_SIZE > 0. Why a pool rather than kept connections or pgbouncer: a play
# worker runs a thread per table (hundreds) and the ASGI web a thread per request, and each
# thread's kept connection would be one of PostgreSQL's (100 here); a pool bounds a process at
# DATABASE_POOL_MAX_SIZE however many threads it runs (the others wait for one, up to
# DATABASE_POOL_TIMEOUT seconds), needs no extra server, and a thread's close() gives its
# connection back to the pool instead of ending it. Size it so that the processes' maxima add
# up to less than the server's max_connections (docs/scale.md). Persistent connections and a
# pool exclude each other (Django refuses both), so CONN_MAX_AGE is 0 with the pool.
if DATABASES["default"]["ENGINE"].endswith("postgresql") and not env_bool("DATABASE_JIT", False):
    # PostgreSQL's JIT compiles a query its planner thinks large: the tournament list's
    # counts spent 1.1 s compiling for a 0.1 s run at a million matches (bench/scale_sim.py,
    # EXPLAIN ANALYZE). The site's queries are short: off unless DATABASE_JIT=1.
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = "-c jit=off"
DATABASE_POOL_MAX_SIZE = env_int("DATABASE_POOL_MAX_SIZE", 0)
if DATABASE_POOL_MAX_SIZE > 0 and DATABASES["default"]["ENGINE"].endswith("postgresql"):
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(env_int("DATABASE_POOL_MIN_SIZE", 2), DATABASE_POOL_MAX_SIZE),
        "max_size": DATABASE_POOL_MAX_SIZE,
        "timeout": env_int("DATABASE_POOL_TIMEOUT", 30),
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server, the worker and beat share one file: WAL lets readers run beside a
    # writer, IMMEDIATE takes the write lock up front so two writers queue instead of failing.
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # pytest-django's test database is a file (one per test run) so that the Celery worker
    # the integration tests start can open the same database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")}
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: broker and cache (or the embedded fallbacks) --------------------------------------

REDIS_URL = env_str("REDIS_URL")
BROKER_DIR = VAR_DIR / "broker"
# filesystem:// is Kombu's transport with names that sort in time order (kaiser_site/broker.py:
# Kombu's own reorders the queue each time the uptime passes 1,000 s, 10,000 s, ...).
broker.use_for_filesystem_urls()

if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": env_str("CACHE_URL", REDIS_URL),
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "kaiser-arena"),
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        # A task not acknowledged within this time is delivered again (acks_late): it must
        # exceed the hard time limit, and the match lease in the database decides anyway.
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600),
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
    for sub in ("queue", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)

# The public pages and their API twins, shared by anonymous visitors through the cache
# (kaiser_site/page_cache.py). On by default when the cache is Redis: with the in-process
# cache the worker's changes would never reach the web processes' copies.
KAISER_PAGE_CACHE = env_bool("KAISER_PAGE_CACHE", bool(REDIS_URL))
KAISER_PAGE_CACHE_SECONDS = env_int("KAISER_PAGE_CACHE_SECONDS", 30)  # the longest a copy lives
# A copy younger than this is served though the site changed since (a page is built at most
# once in it, however many matches finish).
KAISER_PAGE_CACHE_REBUILD_SECONDS = env_int("KAISER_PAGE_CACHE_REBUILD_SECONDS", 1)

# --- Celery ---------------------------------------------------------------------------------

CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 300)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 360)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BEAT_SCHEDULE = {
    "ladder-schedule": {
        "task": "ladder.tasks.ladder_schedule",
        "schedule": timedelta(seconds=10),
    },
    "ladder-fits-refresh": {  # fitted ratings: pages and the API only read them
        "task": "ladder.tasks.ladder_fits_refresh",
        "schedule": timedelta(seconds=30),
        "options": {"expires": 30},
    },
    "tournaments-start-due": {  # open entry: a tournament starts once its deadline passes
        "task": "tournaments.tasks.tournaments_start_due",
        "schedule": timedelta(seconds=15),
        "options": {"expires": 15},
    },
    "matches-requeue-stale": {
        "task": "matches.tasks.matches_requeue_stale",
        "schedule": timedelta(seconds=60),
    },
    # Finished matches' statistics into their versions' totals. No expiry: on a busy host a
    # tick waited past 10 s and expired, every one (issue 42), and statistics stayed at zero.
    # A late tick folds all that waits; the ticks behind it find nothing and return at once.
    "play-stats-fold": {
        "task": "matches.tasks.play_stats_fold",
        "schedule": timedelta(seconds=10),
    },
    "bot-versions-requeue-stale": {
        "task": "bots.tasks.bot_versions_requeue_stale",
        "schedule": timedelta(minutes=5),
    },
    "replays-prune": {  # off unless KAISER_REPLAY_RETENTION_DAYS is set
        "task": "matches.tasks.replays_prune",
        "schedule": timedelta(hours=1),
        "options": {"expires": 3600},
    },
    "play-games-void-stale": {
        "task": "play.tasks.games_void_stale",
        "schedule": timedelta(seconds=30),
        "options": {"expires": 30},
    },
}

# --- Matches and the ladder (matches, ladder apps) ------------------------------------------------

# A worker holds a match by a lease in the database, renewed while it plays: a worker that dies
# stops renewing, and matches_requeue_stale gives the match to another once the lease runs out.
KAISER_MATCH_LEASE_SECONDS = env_int("KAISER_MATCH_LEASE_SECONDS", 120)
KAISER_MATCH_MAX_ATTEMPTS = env_int("KAISER_MATCH_MAX_ATTEMPTS", 3)
KAISER_MATCH_QUEUE = env_str("KAISER_MATCH_QUEUE") or None  # None: Celery's default queue
KAISER_DISPATCH_DEPTH = env_int("KAISER_DISPATCH_DEPTH", 4)  # matches in the broker at once
KAISER_BOT_IN_FLIGHT = env_int("KAISER_BOT_IN_FLIGHT", 2)  # of those, per bot version
# A worker that plays matches runs no more at once than it has cores (worker_cores.py).
KAISER_WORKER_CAP_TO_CORES = env_bool("KAISER_WORKER_CAP_TO_CORES", True)
# A match sent to the broker but still queued after this long is taken for lost (a Redis
# restart empties the queue) and sent again by matches_requeue_stale.
KAISER_DISPATCH_LOST_SECONDS = env_int("KAISER_DISPATCH_LOST_SECONDS", 900)
# Strict time (docs/operations.md, "Strict time"): a strict match mostly sleeps to its slots,
# so it goes to a queue of its own, served by a worker with a pool of threads that plays
# KAISER_STRICT_CONCURRENCY of them at once (scripts/devserver.py, docker-compose.yml). None:
# strict matches go with the others (played, but one a core like any match). A strict match's
# time limits are its own: the match queue's plus KAISER_STRICT_SLOTS_A_GAME slots a game
# (kaiser_site.worker_cores.match_send_options); 5000 fits a whole game of either (Kaiser: at
# most 100 deals of about 42 decisions; Sergeant Major: at most 60 hands of about 55).
KAISER_STRICT_QUEUE = env_str("KAISER_STRICT_QUEUE") or None
KAISER_STRICT_CONCURRENCY = env_int("KAISER_STRICT_CONCURRENCY", 8)
KAISER_STRICT_SLOTS_A_GAME = env_int("KAISER_STRICT_SLOTS_A_GAME", 5000)
KAISER_CHALLENGES_PER_HOUR = env_int("KAISER_CHALLENGES_PER_HOUR", 10)
# The most replays one /api/v1/replays/export/ may hold (staff: any number).
KAISER_EXPORT_MAX_REPLAYS_ANON = env_int("KAISER_EXPORT_MAX_REPLAYS_ANON", 500)
KAISER_EXPORT_MAX_REPLAYS = env_int("KAISER_EXPORT_MAX_REPLAYS", 20000)
# After this many rated matches a ladder pair is settled and scheduled rarely (pairing.py).
KAISER_LADDER_PAIR_SETTLED = env_int("KAISER_LADDER_PAIR_SETTLED", 20)
# A worker probes its sandbox every KAISER_SANDBOX_PROBE_SECONDS (kaiser_site/worker_sandbox.py,
# engine.sandbox.config); /health/ asks the workers for their reports at most once in
# KAISER_HEALTH_CACHE_SECONDS per web process.
KAISER_HEALTH_CACHE_SECONDS = env_int("KAISER_HEALTH_CACHE_SECONDS", 5)
# Replays of matches finished more than this many days ago are dropped by the beat (0: kept for
# ever); with an archive (KAISER_REPLAY_ARCHIVE_DIR, or KAISER_REPLAY_ARCHIVE_S3_PREFIX with the
# S3 store) each is first written there as <match id>.json.gz (STORAGES["replay_archive"]).
KAISER_REPLAY_RETENTION_DAYS = env_int("KAISER_REPLAY_RETENTION_DAYS", 0)
KAISER_REPLAY_ARCHIVE_DIR = env_str("KAISER_REPLAY_ARCHIVE_DIR") or None

# --- Fair play: the think-time check of each version's recent matches (fairplay app) ----------

# Every KAISER_FAIRPLAY_MINUTES the beat checks again each version with matches finished since
# the last run, over its last KAISER_FAIRPLAY_MATCHES finished matches with decision times
# (docs/operations.md, "Fair play"); the hand test's permutations (more: a finer p-value).
KAISER_FAIRPLAY_MATCHES = env_int("KAISER_FAIRPLAY_MATCHES", 20)
KAISER_FAIRPLAY_MINUTES = env_int("KAISER_FAIRPLAY_MINUTES", 10)
KAISER_FAIRPLAY_PERMUTATIONS = env_int("KAISER_FAIRPLAY_PERMUTATIONS", 999)
CELERY_BEAT_SCHEDULE["fairplay-check-recent"] = {
    "task": "fairplay.tasks.fairplay_check_recent",
    "schedule": timedelta(minutes=KAISER_FAIRPLAY_MINUTES),
    "options": {"expires": 60 * KAISER_FAIRPLAY_MINUTES},
}

# --- Games of people against bots (play app) -------------------------------------------------

# They run on a queue of their own, served by a worker of its own (scripts/devserver.py,
# docker-compose.yml: "celery worker -Q play"), so no ladder worker ever waits for a person.
KAISER_PLAY_QUEUE = env_str("KAISER_PLAY_QUEUE", "play")
KAISER_PLAY_CONCURRENCY = env_int("KAISER_PLAY_CONCURRENCY", 8)  # games at once per worker
KAISER_PLAY_OPEN_GAMES = env_int("KAISER_PLAY_OPEN_GAMES", 2)  # per person
KAISER_PLAY_MOVE_SECONDS = env_int("KAISER_PLAY_MOVE_SECONDS", 300)  # the person's time a move
# How the person's move reaches the worker and the bots' moves reach the page: through Redis
# (a wake-up list per game for the worker, pub/sub and server-sent events for the page, served
# by the ASGI app) when KAISER_PLAY_REDIS_URL is set (default REDIS_URL); empty: both sides poll
# the database (the embedded default), the worker every KAISER_PLAY_POLL_MS at first, backing
# off to KAISER_PLAY_POLL_MAX_MS while the person thinks (docs/play.md).
KAISER_PLAY_REDIS_URL = env_str("KAISER_PLAY_REDIS_URL", REDIS_URL)
KAISER_PLAY_PUSH_PREFIX = env_str("KAISER_PLAY_PUSH_PREFIX", "kaiser:play")
KAISER_PLAY_POLL_MS = env_int("KAISER_PLAY_POLL_MS", 100)
KAISER_PLAY_POLL_MAX_MS = env_int("KAISER_PLAY_POLL_MAX_MS", 1000)
# An open event stream re-reads its game this often (a void game, a message lost), and sends
# a comment line so that proxies keep it open.
KAISER_PLAY_STREAM_CHECK_SECONDS = env_int("KAISER_PLAY_STREAM_CHECK_SECONDS", 15)
# The bots' clock: the ladder's default time control (ladder.models.Ladder).
KAISER_PLAY_BOT_MOVE_MS = env_int("KAISER_PLAY_BOT_MOVE_MS", 1000)
KAISER_PLAY_BOT_BANK_MS = env_int("KAISER_PLAY_BOT_BANK_MS", 10000)
KAISER_PLAY_BOT_STARTUP_MS = env_int("KAISER_PLAY_BOT_STARTUP_MS", 5000)
# The worker's heartbeat on a game; a game not heard from for KAISER_PLAY_STALE_SECONDS (its
# worker died) is void, as is a game no worker took within KAISER_PLAY_QUEUED_SECONDS.
KAISER_PLAY_HEARTBEAT_SECONDS = env_int("KAISER_PLAY_HEARTBEAT_SECONDS", 5)
KAISER_PLAY_STALE_SECONDS = env_int("KAISER_PLAY_STALE_SECONDS", 60)
KAISER_PLAY_QUEUED_SECONDS = env_int("KAISER_PLAY_QUEUED_SECONDS", 300)

# --- Bots and the sandbox -------------------------------------------------------------------

KAISER_UPLOAD_MAX_BYTES = env_int("KAISER_UPLOAD_MAX_MB", 10) * 1024 * 1024
KAISER_PROGRAM_DIR = env_path("KAISER_PROGRAM_DIR", VAR_DIR / "programs")

# The sandbox reads its own variables (engine.sandbox.config, the one place that does; the
# worker re-reads them for each seat): here, only what the site hands the engine.
def _sandbox() -> SandboxConfig:
    try:
        return sandbox_config()
    except InfrastructureError as error:
        raise ImproperlyConfigured(str(error)) from None


KAISER_UNSANDBOXED = _sandbox().unsandboxed
# Per-seat limits of the sandbox (engine.sandbox.SandboxLimits).
KAISER_SANDBOX = asdict(_sandbox().limits)
# The upload check: a short match against builtin:random, in whole sets of the bot's game
# (bots.services: 2 games of Kaiser, 3 of Sergeant Major).
KAISER_CHECK_GAMES = env_int("KAISER_CHECK_GAMES", 2)
KAISER_CHECK_MOVE_MS = env_int("KAISER_CHECK_MOVE_MS", 1000)
KAISER_CHECK_BANK_MS = env_int("KAISER_CHECK_BANK_MS", 10000)
KAISER_CHECK_STARTUP_MS = env_int("KAISER_CHECK_STARTUP_MS", 5000)
KAISER_CHECK_STDERR_MAX = 64 * 1024

# --- Auth -----------------------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "account"
LOGOUT_REDIRECT_URL = "/"
# Failed password checks (login form, admin login, API token, password change): per account
# and client address, past this many that address waits, longer each time; per address across
# accounts, past that many it is refused until the window ends. Never per account alone, which
# would lock the owner out (accounts.login_limits).
KAISER_LOGIN_FAILURES_PER_ACCOUNT = env_int("KAISER_LOGIN_FAILURES_PER_ACCOUNT", 10)
KAISER_LOGIN_FAILURES_PER_ADDRESS = env_int("KAISER_LOGIN_FAILURES_PER_ADDRESS", 30)
KAISER_LOGIN_WINDOW_SECONDS = env_int("KAISER_LOGIN_WINDOW_SECONDS", 900)
# Reverse proxies in front of the site that append the client's address to X-Forwarded-For:
# 0 takes REMOTE_ADDR (a client's own X-Forwarded-For is never trusted). Rate limits per
# address (logins, the API's anonymous throttle) count by this address.
KAISER_PROXIES = env_int("KAISER_PROXIES", 0)

# --- Email: the password reset mail (accounts) -----------------------------------------------

# KAISER_EMAIL_BACKEND: "file" (the default: one file a message in KAISER_EMAIL_DIR, var/mail/,
# where a run.sh user reads it), "console" (the web process's output) or "smtp" (EMAIL_HOST,
# EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS or EMAIL_USE_SSL: production).
EMAIL_BACKENDS = {
    "file": "django.core.mail.backends.filebased.EmailBackend",
    "console": "django.core.mail.backends.console.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
}
_email_backend = env_str("KAISER_EMAIL_BACKEND").strip().lower() or "file"
if _email_backend not in EMAIL_BACKENDS:
    raise ImproperlyConfigured(
        f"KAISER_EMAIL_BACKEND={_email_backend!r} is not one of {', '.join(EMAIL_BACKENDS)}"
    )
EMAIL_BACKEND = EMAIL_BACKENDS[_email_backend]
EMAIL_FILE_PATH = env_path("KAISER_EMAIL_DIR", VAR_DIR / "mail")
EMAIL_HOST = env_str("EMAIL_HOST") or "localhost"
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)  # STARTTLS, usually port 587
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)  # TLS from the start, usually port 465
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL: set one of them, not both")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)  # seconds; Django's default waits for ever
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL") or "webmaster@localhost"
# Reset requests in a KAISER_LOGIN_WINDOW_SECONDS window, per email address typed (mail
# bombing) and per client address (accounts.login_limits.reset_requested).
KAISER_RESET_REQUESTS_PER_EMAIL = env_int("KAISER_RESET_REQUESTS_PER_EMAIL", 3)
KAISER_RESET_REQUESTS_PER_ADDRESS = env_int("KAISER_RESET_REQUESTS_PER_ADDRESS", 10)

# --- REST API -------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "kaiser_site.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["kaiser_site.permissions.ReadOnlyOrOwnerOrStaff"],
    "DEFAULT_PAGINATION_CLASS": "kaiser_site.permissions.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
        "rest_framework.throttling.ScopedRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("KAISER_THROTTLE_ANON", "120/min"),
        "user": env_str("KAISER_THROTTLE_USER", "600/min"),
        "uploads": env_str("KAISER_THROTTLE_UPLOADS", "20/hour"),
        "challenges": env_str("KAISER_THROTTLE_CHALLENGES", "30/hour"),
        "health": env_str("KAISER_THROTTLE_HEALTH", "60/min"),  # per address, /health/
    },
    "NUM_PROXIES": KAISER_PROXIES,
    "EXCEPTION_HANDLER": "kaiser_site.exceptions.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "kaiser_site.schema.AutoSchema",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Kaiser Arena API",
    "DESCRIPTION": "Bots, versions, matches, replays, ladders and tournaments of Kaiser Arena.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "kaiser_site.openapi_errors.postprocess_error_responses",
    ],
    "ENUM_NAME_OVERRIDES": {  # three models have a `status`: name each set of choices
        "BotVersionStatusEnum": "bots.models.BotVersion.Status",
        "MatchStatusEnum": "matches.models.Match.Status",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
    },
}

# --- Internationalisation, logging, security -------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Replays live outside the database (matches.replay_store), one object per finished match, the
# database keeping its key and SHA-256: files under KAISER_REPLAY_DIR (the embedded default),
# or any S3-compatible store (django-storages) with KAISER_REPLAY_STORE=s3.
KAISER_REPLAY_STORE = env_str("KAISER_REPLAY_STORE", "file").strip().lower()
KAISER_REPLAY_DIR = env_path("KAISER_REPLAY_DIR", VAR_DIR / "replays")


def replay_s3_options(prefix: str) -> dict[str, object]:
    """django-storages' S3Storage options from KAISER_REPLAY_S3_*; unset keys and region fall
    to boto3's own lookup (AWS_ACCESS_KEY_ID ..., an instance role)."""
    bucket = env_str("KAISER_REPLAY_S3_BUCKET")
    if not bucket:
        raise ImproperlyConfigured("KAISER_REPLAY_STORE=s3 needs KAISER_REPLAY_S3_BUCKET (the "
                                   "bucket's name; it must exist)")
    endpoint = env_str("KAISER_REPLAY_S3_ENDPOINT_URL") or None
    options: dict[str, object] = {
        "bucket_name": bucket, "location": prefix.strip("/"), "endpoint_url": endpoint,
        "region_name": env_str("KAISER_REPLAY_S3_REGION") or None,
        "access_key": env_str("KAISER_REPLAY_S3_ACCESS_KEY_ID") or None,
        "secret_key": env_str("KAISER_REPLAY_S3_SECRET_ACCESS_KEY") or None,
        # MinIO, Ceph, Garage and most stores other than AWS want the bucket in the path.
        "addressing_style": env_str("KAISER_REPLAY_S3_ADDRESSING") or (
            "path" if endpoint else None),
        "default_acl": None, "querystring_auth": False, "file_overwrite": True,
    }
    return options


S3_STORAGE = "storages.backends.s3.S3Storage"
if KAISER_REPLAY_STORE == "file":
    STORAGES["replays"] = {"BACKEND": "django.core.files.storage.FileSystemStorage",
                           "OPTIONS": {"location": str(KAISER_REPLAY_DIR)}}
elif KAISER_REPLAY_STORE == "s3":
    STORAGES["replays"] = {"BACKEND": S3_STORAGE, "OPTIONS": replay_s3_options(
        env_str("KAISER_REPLAY_S3_PREFIX", "replays"))}
else:
    raise ImproperlyConfigured(f"KAISER_REPLAY_STORE={KAISER_REPLAY_STORE!r}: use file or s3")
# Where replays_prune writes a replay before it drops it (unset: dropped).
if KAISER_REPLAY_ARCHIVE_DIR:
    STORAGES["replay_archive"] = {"BACKEND": "django.core.files.storage.FileSystemStorage",
                                  "OPTIONS": {"location": KAISER_REPLAY_ARCHIVE_DIR}}
elif KAISER_REPLAY_STORE == "s3" and env_str("KAISER_REPLAY_ARCHIVE_S3_PREFIX"):
    STORAGES["replay_archive"] = {"BACKEND": S3_STORAGE, "OPTIONS": replay_s3_options(
        env_str("KAISER_REPLAY_ARCHIVE_S3_PREFIX"))}

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if not DEBUG else None
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)  # usually the TLS proxy's job
SECURE_REDIRECT_EXEMPT = [r"^health/$"]  # container health checks speak plain HTTP
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SESSION_ENGINE = "kaiser_site.sessions"  # the database engine, minus malformed keys
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# --- Operations: Prometheus metrics (docs/operations.md) ------------------------------------

# django-prometheus counts requests (its middleware first and last); kaiser_site/metrics.py
# serves them at /metrics with the arena's own figures, read from the database at scrape time.
# Readable from this host, or by anyone sending "Authorization: Bearer <KAISER_METRICS_TOKEN>".
INSTALLED_APPS += ["django_prometheus"]
MIDDLEWARE = [
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    *MIDDLEWARE,
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]
KAISER_METRICS_TOKEN = env_str("KAISER_METRICS_TOKEN")
SECURE_REDIRECT_EXEMPT += [r"^metrics$"]  # Prometheus scrapes plain HTTP, as health checks do

# --- Operations: backup and restore (manage.py arena_backup / arena_restore) ------------------

INSTALLED_APPS += ["operations"]
