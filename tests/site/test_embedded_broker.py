"""The embedded broker (filesystem://) keeps its queue in order across the uptime boundaries.

Kombu's own filesystem transport names a message by milliseconds since boot and reads names in
text order, so at 1,000 s of uptime `1000000_...` sorts before `999999_...` and newer messages
jump the queue (issue 20). kaiser_site/broker.py names them with fixed-width wall-clock
nanoseconds. Plain Kombu here (no Celery), with the transport's clock patched, not slept.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import kombu
import pytest
from kombu.transport import filesystem

from kaiser_site import broker

ROOT = Path(__file__).resolve().parents[2]
STOCK = "kombu.transport.filesystem:Transport"
# Uptime in seconds around the first boundary: names of 6 digits of ms, then 7.
ACROSS_1000_S = [999.997, 999.998, 999.999, 1000.0, 1000.001, 1000.002]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for sub in ("queue", "control"):
        (tmp_path / sub).mkdir()
    return tmp_path


@pytest.fixture
def queue_name() -> str:
    return f"order-{uuid.uuid4().hex[:8]}"  # Kombu remembers bindings per process


def connect(folder: Path, transport: str | None = None) -> kombu.Connection:
    """A Kombu connection to the broker in `folder`: `filesystem://` as the settings say, or
    the transport class named."""
    options = {"data_folder_in": str(folder / "queue"), "data_folder_out": str(folder / "queue"),
               "control_folder": str(folder / "control"), "store_processed": False}
    if transport:
        return kombu.Connection(transport=transport, transport_options=options)
    return kombu.Connection("filesystem://", transport_options=options)


def clock(seconds: list[float]) -> Iterator[float]:
    yield from seconds


def put_all(conn: kombu.Connection, queue_name: str, bodies: list[int]) -> None:
    with conn.SimpleQueue(queue_name) as queue:
        for body in bodies:
            queue.put(body)


def get_all(conn: kombu.Connection, queue_name: str) -> list[int]:
    got = []
    with conn.SimpleQueue(queue_name) as queue:
        while True:
            try:
                message = queue.get_nowait()
            except queue.Empty:
                return got
            message.ack()
            got.append(message.payload)


def test_filesystem_urls_name_the_ordered_transport(folder: Path) -> None:
    with connect(folder) as conn:
        assert isinstance(conn.transport, broker.Transport)


def test_a_fresh_process_with_the_embedded_settings_uses_the_ordered_transport(
    tmp_path: Path,
) -> None:
    """As run.sh's worker, web and beat start: Celery's connection from settings alone."""
    code = ("import django; django.setup(); from kaiser_site.celery import app\n"
            "with app.connection_for_write() as conn:\n"
            "    print(conn.transport_cls, type(conn.transport).__module__)")
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    env.update(DJANGO_SETTINGS_MODULE="kaiser_site.settings", KAISER_VAR_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["filesystem", "kaiser_site.broker"]  # /health/ says "filesystem"


def test_kombus_own_transport_reorders_the_queue_at_1000_seconds_of_uptime(
    folder: Path, queue_name: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Why kaiser_site/broker.py exists (if this fails, Kombu has fixed its naming)."""
    ticks = clock(ACROSS_1000_S)
    monkeypatch.setattr(filesystem, "monotonic", lambda: next(ticks))
    with connect(folder, STOCK) as conn:
        put_all(conn, queue_name, list(range(6)))
        assert get_all(conn, queue_name) == [3, 4, 5, 0, 1, 2]


def test_messages_come_back_in_the_order_sent_across_1000_seconds(
    folder: Path, queue_name: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    ticks = clock(ACROSS_1000_S)
    monkeypatch.setattr(broker, "time_ns", lambda: int(next(ticks) * 1e9))
    monkeypatch.setattr(broker, "_last_stamp", 0)  # the clock as patched, not this run's
    with connect(folder) as conn:
        put_all(conn, queue_name, list(range(6)))
        names = sorted(os.listdir(folder / "queue"))
        stamps = [int(name.partition("_")[0]) for name in names]
        assert stamps == [round(s * 1e9) for s in ACROSS_1000_S]  # text order is time order
        assert len({len(name.partition("_")[0]) for name in names}) == 1
        assert get_all(conn, queue_name) == list(range(6))
    assert os.listdir(folder / "queue") == []


def test_messages_sent_in_one_clock_tick_keep_their_order(
    folder: Path, queue_name: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ties (a coarse clock, or one stepped back) still give later messages later names."""
    ticks = clock([1000.0, 1000.0, 1000.0, 999.0, 1000.0])
    monkeypatch.setattr(broker, "time_ns", lambda: int(next(ticks) * 1e9))
    monkeypatch.setattr(broker, "_last_stamp", 0)
    with connect(folder) as conn:
        put_all(conn, queue_name, list(range(5)))
        assert get_all(conn, queue_name) == list(range(5))


def test_messages_left_by_kombus_own_transport_are_read_first_and_in_order(
    folder: Path, queue_name: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A folder from before this transport (or a process not yet restarted) across the same
    boundary: its messages are older than any new one and come out first, oldest first."""
    ticks = clock(ACROSS_1000_S[:4])
    monkeypatch.setattr(filesystem, "monotonic", lambda: next(ticks))
    with connect(folder, STOCK) as stock:
        put_all(stock, queue_name, [0, 1, 2, 3])
    with connect(folder) as conn:
        put_all(conn, queue_name, [4, 5])
        assert get_all(conn, queue_name) == [0, 1, 2, 3, 4, 5]


def test_a_message_is_never_visible_half_written(
    folder: Path, queue_name: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reader takes any file named for its queue: the writer names it so only once the
    whole message is in it."""
    seen: list[list[str]] = []
    real_replace = os.replace

    def replace(source: str, target: str) -> None:
        seen.append(sorted(os.listdir(folder / "queue")))
        assert json.loads(Path(source).read_bytes())["body"]  # complete before the rename
        real_replace(source, target)

    monkeypatch.setattr(broker.os, "replace", replace)
    with connect(folder) as conn:
        put_all(conn, queue_name, [1])
        assert [name.endswith(".part") for name in seen[0]] == [True]
        assert get_all(conn, queue_name) == [1]


BIND = """
import sys, time
sys.path.insert(0, {root!r})
from kaiser_site import broker
broker.use_for_filesystem_urls()
import kombu
from kombu.transport import filesystem
options = {{"data_folder_in": {queue!r}, "data_folder_out": {queue!r},
            "control_folder": {control!r}, "store_processed": False}}
with kombu.Connection("filesystem://", transport_options=options) as conn:
    channel = conn.default_channel
    while time.time() < {at}:  # every process binds at the same moment
        pass
    for i in range(300):  # each exchange's table is made by whichever process comes first
        channel._queue_bind(f"ex-{{i}}", "key", "", f"q-{{sys.argv[1]}}")
    print(sum(len(channel.get_table(f"ex-{{i}}")) for i in range(300)))
"""


def test_workers_that_bind_queues_at_once_all_end_in_a_whole_table(folder: Path) -> None:
    """Two workers starting together once left the exchange's table as two JSON lists run
    together ("Extra data"), which stopped one at start: six processes that each bind a queue
    of their own to the same 300 exchanges at the same moment end with 300 whole tables of
    all six queues."""
    import time

    script = BIND.format(root=str(ROOT), queue=str(folder / "queue"),
                         control=str(folder / "control"), at=time.time() + 1.5)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(n)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for n in range(6)]
    results = [proc.communicate(timeout=60) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), [err for _, err in results]
    for i in range(300):
        table = json.loads((folder / "control" / f"ex-{i}.exchange").read_text())
        assert sorted(q for _, _, q in table) == [f"q-{n}" for n in range(6)], (i, table)
