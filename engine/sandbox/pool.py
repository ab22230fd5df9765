"""Seats booted ahead: a match's seats are ready in tens of milliseconds, not a second.

Booting a seat (its gVisor kernel, its uid, cgroups and /tmp, and the zygote's interpreter:
engine.sandbox.zygote) takes 0.4 s to over a second of a host's time. A worker process keeps
KAISER_SANDBOX_POOL such seats booted (default 4) and hands one to each seat of a match that
asks (take()); a thread of its own boots the next ones meanwhile. A seat booted ahead has
run no code of any bot's; it gets its program's files and then, when its game begins, its
command (engine.sandbox.SandboxProcess.hand and wait_started). A seat is used once: it is
killed and removed after its game, like every seat, and never goes back to the pool, so
nothing of one match's seat survives into another's.

The pool boots seats of one kind only: the worker's configuration and limits as they were
when it was first asked. A seat of any other kind (another limits, a test's configuration,
a seat with no cgroup, whose limits depend on its program) boots when asked, as before.

The pool's seats are tied to its thread (the sandboxes' parent-death signal goes with the
thread that started them), which lives as long as the process; a forked child (a Celery
worker's) starts a pool of its own when it first asks.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import dataclasses
import os
import threading
import time
import weakref
from collections.abc import Iterator, Sequence

from engine.faults import InfrastructureError
from engine.sandbox.config import SandboxConfig, config
from engine.sandbox.limits import SandboxLimits
from engine.sandbox.seat import SandboxProcess

# /tmp slots a match needs at once (a table of four plays while the next game's four boot):
# where a worker has fewer beside its pool's, the pool boots nothing.
TABLE_SLOTS = 8
BOOT_S = 60.0  # a seat not up by then is killed (the host is in trouble: the next try waits)
RETRY_S = 5.0  # after a failed boot
SETTINGS_S = 0.5  # while the sandbox's settings are not the pool's


def pool_key(limits: SandboxLimits, unsandboxed: bool,
             cfg: SandboxConfig | None = None) -> tuple[object, ...] | None:
    """What makes two seats alike for the pool: their limits and the sandbox's settings
    (cfg: a seat's own; default the current ones). None: a seat the pool never boots
    (unsandboxed; with no cgroup, whose limits depend on its program; or where the /tmp
    slots would not leave room for a match's two tables)."""
    cfg = cfg or config()
    if unsandboxed or cfg.unsandboxed or cfg.rlimit_fallback_allowed:
        return None
    if cfg.tmp_slots is not None and len(list(cfg.tmp_slots.glob("slot-*"))) < (
            TABLE_SLOTS + cfg.pool):
        return None
    return (limits, dataclasses.replace(cfg, pool=0))


class SeatPool:
    def __init__(self) -> None:
        POOLS.add(self)
        self._lock = threading.Condition()
        self._ready: collections.deque[SandboxProcess] = collections.deque()
        self._key: tuple[object, ...] | None = None
        self._size = 0
        self._thread: threading.Thread | None = None
        self._closed = False
        self._paused = 0
        self._booting = False
        self.booted = 0  # seats this pool has booted (for tests and the bench)
        self.served = 0  # seats handed out ready
        self.last_error: str | None = None

    def take(self, limits: SandboxLimits, *, unsandboxed: bool = False,
             run: Sequence[str] | None = None) -> SandboxProcess:
        """A seat, booted up to its gate, with an empty /bot for hand(). run: the program to
        come (it decides the limits of a seat with no cgroup, which the pool never boots)."""
        key, size = pool_key(limits, unsandboxed), config().pool
        seat = self._pop(key, size) if key is not None and size > 0 else None
        if seat is None:
            return SandboxProcess(limits=limits, unsandboxed=unsandboxed, run=run)
        return seat

    def _pop(self, key: tuple[object, ...], size: int) -> SandboxProcess | None:
        with self._lock:
            if self._key is None:
                self._key = key
            if key != self._key:
                return None
            self._size = size
            if self._thread is None:
                self._thread = threading.Thread(target=self._fill, name="kaiser-seat-pool",
                                                daemon=True)
                self._thread.start()
            while self._ready:
                seat = self._ready.popleft()
                self._lock.notify_all()
                if seat.poll() is None:
                    self.served += 1
                    return seat
                seat.kill()  # died while it waited (killed from outside): never handed out
            self._lock.notify_all()
            return None

    def ready(self) -> int:
        with self._lock:
            return len(self._ready)

    def wait_full(self, timeout_s: float) -> bool:
        """True once the pool holds as many booted seats as it keeps (bench and tests)."""
        deadline = time.monotonic() + timeout_s
        with self._lock:
            while len(self._ready) < self._size or self._size == 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
            return True

    def _fill(self) -> None:
        """The pool's thread: keeps the pool full, one boot at a time, for ever (its seats
        die with it, so it never ends before the process)."""
        while True:
            with self._lock:
                while self._closed or self._paused or len(self._ready) >= self._size:
                    self._lock.wait()
                key, self._booting = self._key, True
            try:
                seat, wait_s = self._boot()
            finally:
                with self._lock:
                    self._booting = False
                    self._lock.notify_all()
            with self._lock:
                if seat is not None and key == self._key and not self._closed:
                    self._ready.append(seat)
                    self._lock.notify_all()
                    continue
            if seat is not None:
                seat.kill()
            time.sleep(wait_s)

    def _boot(self) -> tuple[SandboxProcess | None, float]:
        """A seat booted up to its gate, or None and how long to wait before the next try.

        The sandbox reads its settings from the environment: while they are not the pool's
        (a test's own), the pool boots nothing, and a seat whose settings changed while it
        booted is not kept (it may be of another kind)."""
        limits, unsandboxed = self._key_limits()
        if pool_key(limits, unsandboxed) != self._key:
            return None, SETTINGS_S
        try:
            seat = SandboxProcess(limits=limits, unsandboxed=unsandboxed)
        except InfrastructureError as error:
            self.last_error = str(error)
            return None, RETRY_S
        wait_s = SETTINGS_S
        try:
            if pool_key(limits, unsandboxed, seat.config) != self._key:
                pass  # booted with other settings than the pool's
            elif seat.wait_booted(time.monotonic() + BOOT_S):
                self.booted += 1
                return seat, 0.0
            else:
                self.last_error, wait_s = f"a seat was not up within {BOOT_S:.0f} s", RETRY_S
        except InfrastructureError as error:
            self.last_error, wait_s = str(error), RETRY_S
        seat.kill()
        return None, wait_s

    def _key_limits(self) -> tuple[SandboxLimits, bool]:
        key = self._key
        assert key is not None
        return key[0], False  # type: ignore[return-value]

    @contextlib.contextmanager
    def paused(self) -> Iterator[set[str]]:
        """No seat boots meanwhile; yields the host folders of the seats the pool holds (a
        check that no used seat left anything behind leaves these out)."""
        with self._lock:
            self._paused += 1
            while self._booting:
                self._lock.wait()
            held = set().union(*(seat.host_paths() for seat in self._ready))
        try:
            yield held
        finally:
            with self._lock:
                self._paused -= 1
                self._lock.notify_all()

    def close(self) -> None:
        """Kill every seat the pool holds (at exit; tests)."""
        with self._lock:
            self._closed = True
            seats, self._ready = list(self._ready), collections.deque()
            self._lock.notify_all()
        for seat in seats:
            with contextlib.suppress(Exception):
                seat.kill()


POOLS: weakref.WeakSet[SeatPool] = weakref.WeakSet()  # every pool of this process (tests)
_pool: SeatPool | None = None
_pool_lock = threading.Lock()


def pool() -> SeatPool:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = SeatPool()
            atexit.register(_pool.close)
        return _pool


def renew() -> SeatPool:
    """A new pool for this process, the old one's seats killed. A pool keeps seats of the
    first kind it was asked for; the bench, which measures one backend after another in one
    process, starts each with a pool of its own."""
    global _pool
    with _pool_lock:
        old, _pool = _pool, SeatPool()
        atexit.register(_pool.close)
    if old is not None:
        old.close()
    return _pool


def _forget_in_child() -> None:
    """A forked child does not own its parent's seats (nor its thread): a pool of its own."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_in_child)
