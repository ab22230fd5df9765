"""Shared fixtures: users, API clients, an isolated cache, eager Celery for the upload check.

With KAISER_REQUIRE_SERVICES=1 (CI) the run stops at once, as a failure, if PostgreSQL or Redis
is not reachable: a suite that silently fell back to SQLite would prove nothing.

scripts/test.sh runs the suite on pytest-xdist workers: each has a test database and a Redis
database of its own (below), and a test marked `alone` runs while the others wait.
"""

from __future__ import annotations

import fcntl
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

PASSWORD = "correct-horse-battery-staple"

# The suite starts hundreds of processes that play a match or two (workers, benches, the
# runner) and exit: each keeps one seat booted ahead, not a worker's four, so that boots
# nobody takes do not crowd the host. The seat pool's own tests ask for four (test_seat_pool,
# the benches); the path is the same at any size.
os.environ.setdefault("KAISER_SANDBOX_POOL", "1")


# The kernel the seats of each test run on. The sandbox's own tests (tests/engine,
# tests/hardening, tests/site's health and metrics, tests/deploy) choose their backends
# themselves or take the production default, gVisor. The tests of the site's flows (uploads,
# ladders, tournaments, pages, people at the table, the benches at a tiny size) are about the
# site, not the boundary: their seats run on the host's kernel in bubblewrap with the
# system-call filter, still a separate sandboxed process a seat, about three times faster to
# play a ladder here (a gVisor seat costs about half a second of CPU to boot). A test or module
# marked `production_kernel` keeps gVisor: the author's path from the home page to a rated bot
# does, so one end-to-end flow always plays as production does.
HOST_KERNEL_FOLDERS = frozenset({"bench", "bots", "browser", "matches", "pages", "play",
                                 "sergeant_major", "tournaments"})
TESTS = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def _seat_kernel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = Path(request.path).resolve().relative_to(TESTS).parts[0]
    if folder in HOST_KERNEL_FOLDERS and not request.node.get_closest_marker(
            "production_kernel"):
        monkeypatch.setenv("KAISER_SANDBOX_KERNEL", "host")
        monkeypatch.setenv("KAISER_SANDBOX_ALLOW_SHARED_KERNEL", "1")


def _require_services() -> None:
    problems = []
    database_url = os.environ.get("DATABASE_URL", "")
    if not database_url.startswith(("postgres://", "postgresql://")):
        problems.append(f"DATABASE_URL is not PostgreSQL ({database_url or 'unset'})")
    else:
        import psycopg

        try:
            # The server, not the named database: the test run creates its own test_ database.
            psycopg.connect(database_url, dbname="postgres", connect_timeout=3).close()
        except psycopg.Error as error:
            problems.append(f"PostgreSQL unreachable at {database_url}: {error}")
    redis_url = os.environ.get("REDIS_URL", "")
    if not redis_url:
        problems.append("REDIS_URL is unset")
    else:
        import redis

        try:
            redis.Redis.from_url(redis_url, socket_connect_timeout=3).ping()
        except redis.RedisError as error:
            problems.append(f"Redis unreachable at {redis_url}: {error}")
    if problems:
        pytest.exit("KAISER_REQUIRE_SERVICES=1: " + "; ".join(problems), returncode=3)


def pytest_sessionstart(session: pytest.Session) -> None:
    if os.environ.get("KAISER_REQUIRE_SERVICES") == "1":
        _require_services()


def redis_url_of_worker(url: str, index: int) -> str:
    """REDIS_URL with its database number moved up by `index` (modulo Redis's 16 databases)."""
    parts = urlsplit(url)
    number = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(number + index) % 16}"))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: list[Any]) -> None:
    """Under pytest-xdist (scripts/test.sh runs -n), each worker on a Redis database of its
    own: a Celery broadcast (the /health/ tests ask every worker on the broker) then reaches
    only that worker's workers. Set before the worker process starts, so Django's settings
    read it. Each worker's PostgreSQL test database is pytest-django's test_<name>_gw<N>."""
    url = os.environ.get("REDIS_URL", "")
    for index, spec in enumerate(specs):
        if url:
            spec.env["REDIS_URL"] = redis_url_of_worker(url, index)


def _alone(item: pytest.Item | None) -> bool:
    return item is not None and item.get_closest_marker("alone") is not None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that run alone go first, one after the other: pytest-xdist's worksteal gives
    a worker the head of the list, so they run on one worker in a row and the others wait
    once for the room to empty, not once an alone test (each wait lasted as long as the
    longest test then in the room: a minute or two of the run's wall time in all)."""
    items.sort(key=lambda item: not _alone(item))  # stable: the order is kept otherwise


_turnstile: list[Any] = []  # the gate and room files an alone test holds for the next one


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[object]:
    """A test marked `alone` runs while no other test of the run does: the other pytest-xdist
    workers finish the test they are in and wait (a turnstile of two file locks in the run's
    temporary folder). Every other test runs beside the others. Alone tests in a row hold the
    room from the first to the last."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return (yield)
    alone = _alone(item)
    if not _turnstile:
        folder = item.config._tmp_path_factory.getbasetemp().parent  # type: ignore[attr-defined]
        gate, room = (folder / "alone-gate.lock").open("a"), (folder / "alone-room.lock").open("a")
        # The gate, held by a test that waits to be alone, stops new tests from entering the
        # room: the tests in it finish, and it cannot be starved.
        fcntl.flock(gate, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        fcntl.flock(room, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        if not alone:
            fcntl.flock(gate, fcntl.LOCK_UN)
        _turnstile[:] = [gate, room]
    try:
        return (yield)
    finally:
        if not (alone and _alone(nextitem)):
            for held in _turnstile:
                fcntl.flock(held, fcntl.LOCK_UN)
                held.close()
            _turnstile.clear()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    """The test database as migrated, less the house bots that ladder's migration 0007 adds:
    every test starts from a site without bots (as each transactional test does anyway, the
    database flushed after the one before), and a test that wants them calls
    house_bots_ensure(). tests/sergeant_major/test_house_bots.py runs the migration itself."""
    from bots.models import Bot

    with django_db_blocker.unblock():
        Bot.objects.filter(owner__username="house").delete()
        User.objects.filter(username="house").delete()


@pytest.fixture(autouse=True)
def _isolated_cache(settings: Any) -> None:
    """A fresh cache namespace per test, so throttle counts never leak between tests (and
    the shared Redis is never flushed)."""
    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    for conf in caches.values():
        conf["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
        if "LocMem" in conf["BACKEND"]:
            conf["LOCATION"] = conf["KEY_PREFIX"]
    settings.CACHES = caches


@pytest.fixture(autouse=True)
def _shared_pages_fresh_after_each_change(settings: Any) -> None:
    """The shared page cache on (as in production, whatever the cache backend), with no
    rebuild interval: a test's next request shows what the test just changed.
    tests/site/test_page_cache.py checks the interval itself."""
    settings.KAISER_PAGE_CACHE = True
    settings.KAISER_PAGE_CACHE_REBUILD_SECONDS = 0


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True, scope="session")
def _program_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    from django.conf import settings

    folder = tmp_path_factory.mktemp("programs")
    folder.chmod(0o755)  # the sandboxed bot runs as another user
    settings.KAISER_PROGRAM_DIR = folder


@pytest.fixture(autouse=True)
def _replay_store(settings: Any, tmp_path_factory: pytest.TempPathFactory,
                  monkeypatch: pytest.MonkeyPatch) -> Path:
    """The replay store in a folder of the test's own, never the checkout's var/replays; the
    workers and commands the test starts find it through the environment."""
    folder = tmp_path_factory.mktemp("replays")
    monkeypatch.setenv("KAISER_REPLAY_STORE", "file")
    monkeypatch.setenv("KAISER_REPLAY_DIR", str(folder))
    settings.STORAGES = {**settings.STORAGES, "replays": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": str(folder)}}}
    return folder


@pytest.fixture
def replay_archive(settings: Any, tmp_path: Path) -> Path:
    """An archive of pruned replays (KAISER_REPLAY_ARCHIVE_DIR) in the test's folder."""
    folder = tmp_path / "replay-archive"
    settings.KAISER_REPLAY_ARCHIVE_DIR = str(folder)
    settings.STORAGES = {**settings.STORAGES, "replay_archive": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": str(folder)}}}
    return folder


@pytest.fixture
def password() -> str:
    """The password of the owner, other and staff users."""
    return PASSWORD


def _user(username: str, *, staff: bool = False) -> User:
    return User.objects.create_user(
        username=username, password=PASSWORD, email=f"{username}@example.org", is_staff=staff
    )


@pytest.fixture
def owner(db: None) -> User:
    return _user("olivia")


@pytest.fixture
def other(db: None) -> User:
    return _user("oscar")


@pytest.fixture
def staff(db: None) -> User:
    return _user("stella", staff=True)


def _client_for(user: User | None) -> APIClient:
    from accounts.services import user_token

    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {user_token(user=user).key}")
    return client


@pytest.fixture
def anon_client() -> APIClient:
    return APIClient()


@pytest.fixture
def owner_client(owner: User) -> APIClient:
    return _client_for(owner)


@pytest.fixture
def other_client(other: User) -> APIClient:
    return _client_for(other)


@pytest.fixture
def staff_client(staff: User) -> APIClient:
    return _client_for(staff)


@pytest.fixture
def clients(
    anon_client: APIClient, owner_client: APIClient, other_client: APIClient,
    staff_client: APIClient,
) -> dict[str, APIClient]:
    return {"anon": anon_client, "owner": owner_client, "other": other_client,
            "staff": staff_client}


@pytest.fixture
def house(db: None) -> User:
    """The owner of house bots made by a test."""
    return User.objects.create_user(username="house-test")


@pytest.fixture
def make_builtin(house: User) -> Callable[..., Any]:
    """make(name, spec="builtin:greedy", own=False): a bot with an active built-in version, of
    the house, or with own=True of an owner of its own (the ladder never pairs two bots of one
    owner)."""
    from bots.models import Bot
    from bots.services import bot_builtin_add

    def make(name: str, spec: str = "builtin:greedy", *, own: bool = False) -> Any:
        owner = User.objects.create_user(username=f"owner-of-{name}") if own else house
        return bot_builtin_add(bot=Bot.objects.create(owner=owner, name=name), spec=spec)

    return make


@pytest.fixture
def make_sm_builtin(house: User) -> Callable[..., Any]:
    """make(name, spec="builtin:greedy", own=True): a Sergeant Major bot with an active
    built-in version, of an owner of its own (the ladder never seats two bots of one owner)
    unless own=False."""
    from bots.models import Bot
    from bots.services import bot_builtin_add

    def make(name: str, spec: str = "builtin:greedy", *, own: bool = True) -> Any:
        owner = User.objects.create_user(username=f"owner-of-{name}") if own else house
        bot = Bot.objects.create(owner=owner, name=name, game="sergeant-major")
        return bot_builtin_add(bot=bot, spec=spec)

    return make


@pytest.fixture
def make_program(house: User) -> Callable[..., Any]:
    """make(name, content, owner=None, kind="py", game="kaiser"): a bot with an active
    version whose program is `content` (a bot.py, or a zip with kind="zip"); no upload check,
    the test decides."""
    import hashlib

    from bots.models import Bot, BotProgram, BotVersion

    def make(name: str, content: bytes, owner: User | None = None,
             kind: str = BotVersion.Kind.PYTHON, game: str = "kaiser") -> Any:
        program, _ = BotProgram.objects.get_or_create(
            sha256=hashlib.sha256(content).hexdigest(),
            defaults={"content": content, "size": len(content)})
        bot = Bot.objects.create(owner=owner or house, name=name, game=game)
        filename = "bot.zip" if kind == BotVersion.Kind.ZIP else "bot.py"
        return BotVersion.objects.create(
            bot=bot, number=1, kind=kind, program=program, filename=filename,
            size=len(content), status=BotVersion.Status.ACTIVE)

    return make


@pytest.fixture
def celery_eager() -> Iterator[None]:
    """Run tasks in-process when they are sent (unit tests; the real worker is tested in
    tests/tournaments)."""
    from kaiser_site.celery import app

    before = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = before


def _forget_connections() -> None:
    """Drop what Celery and Kombu keep per process about the broker (the connection and
    producer pools, the filesystem transport's remembered bindings), as a fresh process would."""
    from kombu import pools
    from kombu.transport.filesystem import Transport

    from kaiser_site.celery import app

    Transport.global_state.clear()
    pools.reset()
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def private_broker(settings: Any, tmp_path: Path) -> Iterator[Path]:
    """This process's Celery on a private filesystem broker (no stray worker listens there);
    yields the var folder a worker must use to share it."""
    var_dir = tmp_path / "var"
    broker = var_dir / "broker"
    for sub in ("queue", "control"):
        (broker / sub).mkdir(parents=True, exist_ok=True)
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(broker / "queue"), "data_folder_out": str(broker / "queue"),
        "control_folder": str(broker / "control"), "store_processed": False,
    }
    _forget_connections()
    yield var_dir
    _forget_connections()  # settings are restored after this; no pool may keep the old broker


@pytest.fixture
def dead_broker(settings: Any) -> Iterator[None]:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}
    _forget_connections()
    yield
    _forget_connections()


@pytest.fixture
def quartet() -> Iterator[Any]:
    """Quartet, the test game of four players without partners (tests/games/quartet), in the
    registry for the test; forgotten afterwards unless it was there before."""
    from tests.games.registry import registered

    with registered("tests.games.quartet.plugin") as game:
        yield game
