"""A seat played by a bot program over JSON lines (docs/protocol.md), in the sandbox.

The process is started when the runner creates the player, so the seats of a table start in
parallel (and the next game's while this one plays: engine.tables); the hello/ready exchange
(and its start-up clock) happens in start().
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import select
import shutil
import tempfile
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from engine.archive import BotProgram, program_unpack
from engine.clock import BotCpu, DecisionTime, Move, SeatClock, sandbox_kernel_pids
from engine.faults import BotFault, InfrastructureError
from engine.games import ActWriter, Game, ReplyReader, default_game, game_of_rules
from engine.players import Player, TimeControl
from engine.sandbox import (
    SandboxLimits,
    SandboxProcess,
    unsandboxed_requested,
    warn_unsandboxed,
)
from engine.sandbox import pool as seat_pool
from engine.sandbox.config import config
from engine.sandbox.uids import left_by_the_dead, owner_token
from engine.slots import Slots
from engine.wire import parse_line

MAX_LINE = 64 * 1024
STDERR_CAP = 64 * 1024  # a game
EXIT_GRACE_S = 1.0  # match_end: the bot should exit within 1 s
NOTIFY_WRITE_S = 1.0  # a bot that does not read its input for this long times out
_READ = select.POLLIN | select.POLLHUP | select.POLLERR


class StderrLog:
    """The head of each game's standard error, capped, with a note of what was dropped."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.game_bytes = 0
        self.dropped = 0
        self.game = 0

    def begin_game(self, game: int) -> None:
        if game != self.game:  # the start-up (hello) counts as part of game 0
            self._note_dropped()
            self.game, self.game_bytes = game, 0

    def add(self, data: bytes) -> None:
        room = STDERR_CAP - self.game_bytes
        if room > 0:
            self.parts.append(data[:room])
        self.game_bytes += len(data)
        self.dropped += max(0, len(data) - max(room, 0))

    def _note_dropped(self) -> None:
        if self.dropped:
            self.parts.append(f"\n[... {self.dropped} more bytes of standard error in game "
                              f"{self.game} dropped: {STDERR_CAP >> 10} KiB a game]\n".encode())
            self.dropped = 0

    def tail(self, size: int = 4096) -> bytes:
        """The last bytes kept (what a bot wrote just before it died)."""
        return b"".join(self.parts[-8:])[-size:]

    def text(self) -> str:
        self._note_dropped()
        return b"".join(self.parts).decode("utf-8", errors="replace")


# How long the engine waits for the reply of the seat on move before it stops the others: the
# reply of a quick bot comes first and costs no stopping; a bot that thinks longer has the
# table to itself after this long.
STOP_GRACE_S = 0.0002
SANDBOX_START_S = 30.0
# Stopping the seats not on move is the rule; KAISER_SANDBOX_FREEZE=0 turns it off, for
# measuring its cost (bench/fair_cpu.py, which sets FREEZE instead) and nothing else. None: the
# sandbox's config decides, read when a seat joins its table.
FREEZE: bool | None = None


def _freeze() -> bool:
    return config().freeze if FREEZE is None else FREEZE


class _Table:
    """The sandboxed seats this thread plays (a match's, as a rule): only the one on move runs.

    A seat that has answered is stopped (SIGSTOP, every process of it) while the next one
    thinks, off the critical path: the engine takes the stopping steps while it waits for the
    reply. A stopped seat is resumed when a message that it must read goes to it.
    """

    def __init__(self) -> None:
        self.seats: list[SandboxProcess] = []
        self.pending: list[SandboxProcess] = []
        self.steps = 0  # stopping steps taken, for bench/fair_cpu.py
        self.freeze = _freeze()

    def join(self, proc: SandboxProcess) -> None:
        self.freeze = _freeze()
        self.seats.append(proc)

    def leave(self, proc: SandboxProcess) -> None:
        with contextlib.suppress(ValueError):
            self.seats.remove(proc)
        with contextlib.suppress(ValueError):
            self.pending.remove(proc)
        proc.resume()

    def turn(self, proc: SandboxProcess) -> None:
        """proc is on move (its message is written): it runs, every other seat is to stop.

        A seat with a cgroup freezer (the rule on a server) is asked to freeze before proc
        runs: one write, after which its tasks stop within microseconds, so two seats never
        run together (the seat that has just answered included). Whether it has settled is
        checked off the critical path, while proc thinks."""
        if self.freeze:
            for other in self.seats:
                if other is not proc and other.freezes and not other.stopped:
                    self.steps += 1
                    if not other.stop_step():
                        self.pending.append(other)
        self.wake(proc)
        if not self.freeze:
            return
        for other in self.seats:
            if other is not proc and not other.frozen and other not in self.pending:
                self.pending.append(other)
        # A seat of several processes (or not known yet) gets its stop signals at once, not
        # after the grace: busy children could keep a loaded host from running the engine
        # until the reply is in, and so from stopping them at all. One-process seats wait for
        # the grace (a quick reply then costs no stopping).
        self.pending = [other for other in self.pending
                        if not (other.processes != 1 and self._step(other))]

    def rest(self, proc: SandboxProcess) -> None:
        """proc has answered (or said ready): a seat with a freezer is frozen at once, so it
        runs nothing between its reply and its next message, whatever the engine does
        meanwhile (the other seats' start-up, notifications, the next seat's turn)."""
        if self.freeze and proc.freezes and not proc.stopped:
            self.steps += 1
            if not proc.stop_step():
                self.pending.append(proc)

    def _step(self, proc: SandboxProcess) -> bool:
        self.steps += 1
        return proc.stop_step()

    def wake(self, proc: SandboxProcess) -> None:
        if proc.stopped:
            proc.resume()
        with contextlib.suppress(ValueError):
            self.pending.remove(proc)

    def work(self) -> None:
        """One stopping step for every seat still to stop."""
        self.steps += len(self.pending)
        self.pending = [proc for proc in self.pending if not proc.stop_step()]


_tables = threading.local()


def seats_rest() -> None:
    """Stop every sandboxed seat this thread plays: for a seat that is not a bot program on
    move (a person), so that no bot thinks on its time. A seat runs again when a message that
    it must read goes to it, as between its turns in a match."""
    table = _table()
    if not table.freeze:
        return
    for proc in table.seats:
        if not proc.frozen and proc not in table.pending:
            table.pending.append(proc)
    table.work()  # the stop signals go out now; a later step confirms (the person is slow)


def _table() -> _Table:
    table: _Table | None = getattr(_tables, "table", None)
    if table is None:
        table = _tables.table = _Table()
    return table


class ProgramPlayer(Player):
    """One seat, one sandboxed process, for one game of a match (engine.tables)."""

    wants_notifications = True

    def __init__(self, program: BotProgram, *, limits: SandboxLimits, unsandboxed: bool,
                 keep_alive: object = None) -> None:
        self._keep_alive = keep_alive  # the staged files must outlive the process
        self._stderr = StderrLog()
        self._buffer = bytearray()
        self._writer: ActWriter | None = None  # start() knows the game: its writer
        self._from_reply: ReplyReader | None = None
        self._next_id = 0
        self._decisions: list[int] = []  # counted ms of each decision (engine.clock)
        self._times: list[DecisionTime] = []  # each decision's times, for the detector
        self._slots: Slots | None = None  # strict time: the match's schedule
        self._held: list[bytes] = []  # strict time: notifications, sent with the next message
        self._fault: BotFault | None = None
        self._time = TimeControl()
        self.clock = SeatClock(self._time, factor=1.0)  # start() sets the match's
        self.cpu = BotCpu(lambda: None)  # start() reads the bot's, not its kernel's
        self._stderr_open = True
        self._proc: SandboxProcess | None = None
        self.pid_namespace: str | None = None  # the sandbox's, for checking nothing survives
        self._start_error: InfrastructureError | None = None
        self._greeted = False  # hello answered: only then does the bot get a match_end
        self._ending = False  # end() has run
        self._goodbye_until: float | None = None  # match_end sent: the bot may exit until then
        try:
            # A seat booted ahead (engine.sandbox.pool) or now; the program's files are copied
            # into its own /bot, and its command goes through the gate in let_in().
            self._proc = seat_pool.pool().take(limits, unsandboxed=unsandboxed, run=program.run)
            try:
                self._proc.hand(program.directory, program.run)
            except InfrastructureError:
                self._proc.kill()
                raise
        except InfrastructureError as exc:  # raised from start(): the runner closes us then
            self._proc = None
            self._start_error = exc
        self._poll = select.poll()
        self._table = _table()
        if self._proc is not None:
            self._poll.register(self._proc.stdout_fd, _READ)
            self._poll.register(self._proc.stderr_fd, _READ)

    # --- the Player interface ------------------------------------------------------------
    @property
    def start_error(self) -> Exception | None:
        return self._start_error

    def start(self, *, seat: int, rules: Any, games: int, time: TimeControl,
              seed: str) -> None:
        proc = self._running()
        # Only now does the seat join the table's freezer: a seat made early (engine.tables
        # makes the next game's while this one plays) boots meanwhile, with nothing to read.
        self._table.join(proc)
        self._stderr.game = self.game  # its start-up's log counts with its one game
        self._time, self.clock = time, SeatClock(time)
        game = game_of_rules(rules)
        # This seat writes its act messages and reads the actions of its replies in the game's
        # own protocol.
        self._writer, self._from_reply = game.act_writer(), game.action_from_reply
        hello = game.hello(seat=seat, rules=rules, games=games, game=self.game, time=time)
        self.let_in(time)  # as a rule done already, for the whole table at once
        self.pid_namespace = proc.pid_namespace
        self.cpu = BotCpu(proc.cpu_ns, sandbox_kernel_pids(proc.pid))
        move = self.clock.hello(self.cpu)  # the bot's own clock starts at hello
        self._send(hello, move.wall_deadline, 0)
        reply = self._receive(move, 0)
        self._table.rest(proc)  # frozen until its first message: the others still start
        if reply.get("type") != "ready":
            raise BotFault("protocol", f'expected {{"type": "ready"}} in reply to hello, got '
                           f"{_clip(reply)}", 0)
        _check_declared_game(game, reply)
        self._greeted = True

    def let_in(self, time: TimeControl) -> None:
        """The sandbox up, and the bot let through its gate (engine.sandbox.zygote): its
        interpreter starts now, beside the other seats of its table; hello comes in start().

        The sandbox's own start (a kernel a seat under gVisor) is the host's business, not the
        bot's: it gets startup_ms, but never less than SANDBOX_START_S on a busy host."""
        wait_s = max(time.startup_ms / 1000, SANDBOX_START_S)
        if not self._running().wait_started(_now() + wait_s):
            raise InfrastructureError(f"the sandbox did not start within {wait_s:.0f} s")

    def use_slots(self, slots: Slots) -> None:
        """Strict time: each message goes out at its slot's start (engine.slots), its
        notifications with it."""
        self._slots = slots

    def boot_wait(self) -> None:
        if self._proc is not None:
            self._proc.wait_booted(_now() + SANDBOX_START_S)  # late: let_in says so

    def begin_game(self, game: int) -> None:
        self.clock.begin_game()
        if self._proc is not None and self._stderr_open:
            # What the last game left in the pipe is that game's: replies are read without
            # a poll when they are there already, and only a poll drains standard error.
            self._drain_stderr(self._proc)
        self._stderr.begin_game(game)

    def act(self, state: Any, legal: list[Any]) -> Any:
        if self._fault is not None:
            raise self._fault
        try:
            return self._exchange(state, legal)
        except BotFault as fault:
            self._fault = fault  # remembered: close() then kills without a goodbye
            raise

    def _exchange(self, state: Any, legal: list[Any]) -> Any:
        proc = self._running()
        self._next_id += 1
        mid = self._next_id
        writer, from_reply = self._writer, self._from_reply
        assert writer is not None and from_reply is not None  # start() has run
        data = writer.message(state, legal, mid, int(self.clock.bank_ms))
        slots = self._slots
        if slots is None:
            move = self.clock.move(self.cpu)  # the bot's CPU time, read before it can run
        else:
            if self._held:
                data = b"".join(self._held) + data
                self._held.clear()
            start = slots.begin()  # sleeps to the slot's start: nobody's reply moves it
            move = self.clock.move(self.cpu, strict_until=start + slots.reply_s)
        if proc.cpu_limit_hit(self.cpu.seat_ns) is not None:  # what its last turns used
            raise BotFault("resource", "the sandbox's CPU time limit stopped the bot", mid)
        self._write(data, move.wall_deadline, mid)
        self._table.turn(proc)
        reply = self._receive(move, mid)
        self._table.rest(proc)
        counted = self.clock.charge(move)
        self._decisions.append(counted)
        assert move.ended is not None
        self._times.append(DecisionTime(move.sent, counted, (move.ended - move.sent) * 1000,
                                        move.sleep_ms()))
        hit = self._proc.tmp_limit_hit()  # type: ignore[union-attr]
        if hit is not None:
            raise BotFault("resource", f"the sandbox's {hit} limit stopped the bot", mid)
        if "action" not in reply:
            raise BotFault("protocol", f'reply has no "action": {_clip(reply)}', mid)
        try:
            return from_reply(state, legal, reply["action"])
        except (ValueError, TypeError, KeyError) as exc:  # whatever odd JSON a bot sends
            raise BotFault("illegal", str(exc) or f"not a legal action: {_clip(reply)}",
                           mid) from None

    def notify(self, message: dict[str, Any]) -> None:
        if self._fault is not None or self._proc is None:
            return
        if self._slots is not None:  # strict: when a deal ended is no seat's business
            self._held.append(json.dumps(message, separators=(",", ":")).encode() + b"\n")
            return
        try:
            self._send(message, _now() + NOTIFY_WRITE_S, self._next_id)
        except BotFault as fault:
            self._fault = fault
        except OSError as exc:
            self._fault = BotFault("crash", f"its input could not be written: {exc}",
                                   self._next_id)

    def end(self) -> None:
        """match_end, and the input closed: the bot exits by itself while the table's other
        seats are told the same (close() then waits for it)."""
        proc = self._proc
        if proc is None or self._ending:
            return
        self._ending = True
        self._table.leave(proc)  # resumed: it must read its goodbye, or be killed
        if self._greeted and self._fault is None and proc.poll() is None:
            with contextlib.suppress(BotFault, OSError):
                held, self._held = b"".join(self._held), []
                if held:
                    self._write(held, _now() + 0.2, self._next_id)
                self._send({"type": "match_end"}, _now() + 0.2, self._next_id)
                proc.close_stdin()
            self._goodbye_until = _now() + EXIT_GRACE_S

    def close(self) -> None:
        proc = self._proc
        if proc is None:
            return
        self.end()
        try:
            if self._goodbye_until is not None:
                self._await_exit(proc, self._goodbye_until)
            else:
                # What it logged before its fault: a reply read without a poll leaves that
                # in the pipe, and the owner needs it most now.
                self._drain_stderr(proc)
        except (OSError, BotFault):
            pass  # a bot that will not say goodbye is killed all the same, just below
        finally:
            self._proc = None
            proc.kill()
            self.pid_namespace = proc.pid_namespace

    def stderr_text(self) -> str:
        return self._stderr.text()

    def decision_ms(self) -> list[int]:
        return self._decisions

    def decision_times(self) -> list[DecisionTime]:
        return self._times

    # --- the wire ------------------------------------------------------------------------
    def _running(self) -> SandboxProcess:
        if self._start_error is not None:
            raise self._start_error
        if self._proc is None:
            raise RuntimeError("the player is closed")
        return self._proc

    def _send(self, message: dict[str, Any], deadline: float, mid: int) -> None:
        self._write(json.dumps(message, separators=(",", ":")).encode() + b"\n", deadline, mid)

    def _write(self, data: bytes, deadline: float, mid: int) -> None:
        proc = self._running()
        try:
            written = os.write(proc.stdin_fd, data)  # as a rule, all of it at once
        except BlockingIOError:
            written = 0
        except BrokenPipeError:
            raise self._died(mid) from None
        if written == len(data):
            return
        view = memoryview(data)[written:]
        self._table.wake(proc)  # a stopped seat cannot read: let it run until its turn ends
        while view:  # the pipe was full: wait until the bot reads, within the deadline
            if not self._wait_writable(proc, deadline):
                raise self._timeout(mid, "did not read its input in time")
            try:
                view = view[os.write(proc.stdin_fd, view):]
            except BlockingIOError:
                pass
            except BrokenPipeError:
                raise self._died(mid) from None

    def _wait_writable(self, proc: SandboxProcess, deadline: float) -> bool:
        poll = select.poll()
        poll.register(proc.stdin_fd, select.POLLOUT)
        if self._stderr_open:
            poll.register(proc.stderr_fd, _READ)
        while (left := deadline - _now()) > 0:
            for fd, _ in poll.poll(left * 1000):
                if fd == proc.stdin_fd:
                    return True
                self._drain_stderr(proc)
                if not self._stderr_open:
                    poll.unregister(proc.stderr_fd)
        return False

    def _receive(self, move: Move, mid: int) -> dict[str, Any]:
        line = self._read_line(move, mid)
        try:
            reply = parse_line(line)
        except (ValueError, RecursionError):
            raise BotFault("protocol", f"not JSON: {_clip(line)}", mid) from None
        if not isinstance(reply, dict):
            raise BotFault("protocol", f"not a JSON object: {_clip(line)}", mid)
        got = reply.get("id")
        if type(got) is not int or got != mid:
            what = "no id" if got is None else f"id {_clip(got)}"
            raise BotFault("protocol", f"reply has {what}, expected id {mid}", mid)
        return reply

    def _read_line(self, move: Move, mid: int) -> bytes:
        proc = self._running()
        buffer = self._buffer
        if not buffer:  # the reply is often there already: read it without a poll first
            try:
                buffer += os.read(proc.stdout_fd, MAX_LINE + 1)
            except BlockingIOError:
                pass
            else:
                if not buffer:
                    raise self._died(mid)
        while True:
            end = buffer.find(b"\n")
            if end >= 0:
                if end > MAX_LINE:
                    raise BotFault("protocol", "reply line longer than 64 KiB", mid)
                line = bytes(buffer[:end])
                del buffer[:end + 1]
                return line
            if len(buffer) > MAX_LINE:
                raise BotFault("protocol", "reply line longer than 64 KiB", mid)
            left = move.wait_s()  # until the clock must be looked at again
            if left <= 0:
                raise self._timeout(mid, "no reply in time", move)
            if self._table.pending:
                events = self._poll.poll(min(left, STOP_GRACE_S) * 1000)
                if not events:
                    self._table.work()
                    continue
            else:
                events = self._poll.poll(left * 1000)
                if not events and proc.cpu_limit_hit() is not None:  # the clock's look-in
                    raise BotFault("resource", "the sandbox's CPU time limit stopped the bot",
                                   mid)
            for fd, _ in events:
                if fd == proc.stderr_fd:
                    self._drain_stderr(proc)
                elif not self._read_stdout(proc):
                    raise self._died(mid)

    def _read_stdout(self, proc: SandboxProcess) -> bool:
        """Read what is there; False at end of file."""
        try:
            chunk = os.read(proc.stdout_fd, MAX_LINE + 1)
        except BlockingIOError:
            return True
        self._buffer += chunk
        return bool(chunk)

    def _drain_stderr(self, proc: SandboxProcess) -> None:
        # At most 1 MiB a call: a bot refilling the pipe as fast as it is read must not keep
        # the engine here past a deadline (callers poll again, and check it, between calls).
        for _ in range(16):
            if not self._stderr_open:
                return
            try:
                chunk = os.read(proc.stderr_fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno != errno.EBADF:
                    raise
                chunk = b""
            if not chunk:
                self._stderr_open = False
                with contextlib.suppress(KeyError):
                    self._poll.unregister(proc.stderr_fd)
                return
            self._stderr.add(chunk)

    # --- faults --------------------------------------------------------------------------
    def _timeout(self, mid: int, detail: str, move: Move | None = None) -> BotFault:
        proc = self._running()
        hit = proc.limit_hit()
        if hit is not None:
            return BotFault("resource", f"hit the sandbox's {hit} limit and {detail}", mid)
        if proc.poll() is not None:
            return self._died(mid)
        return BotFault("timeout", f"{detail} ({move.overrun() if move else 'wall-clock time'})",
                        mid)

    def _died(self, mid: int) -> BotFault:
        """The bot closed its output: wait briefly for its exit, then say why it ended."""
        proc = self._running()
        end = _now() + 0.5
        while proc.poll() is None and _now() < end:
            self._drain_stderr(proc)
            time.sleep(0.005)
        self._drain_stderr(proc)
        reason, detail = proc.death()
        if reason == "crash" and proc.mode == "rlimit" and _out_of_memory(self._stderr.tail()):
            # Without a memory cgroup the address-space limit makes allocation fail inside the
            # bot, which then dies of it: the seat's memory limit stopped it all the same.
            reason, detail = "resource", f"ran out of the seat's memory limit ({detail})"
        return BotFault(reason, detail, mid)

    def _await_exit(self, proc: SandboxProcess, end: float) -> None:
        """Until `end` for the bot to exit by itself after match_end (its output drained)."""
        while proc.poll() is None and _now() < end:
            for fd, _ in self._poll.poll(max(0.0, end - _now()) * 1000):
                if fd == proc.stderr_fd:
                    self._drain_stderr(proc)
                elif not self._read_stdout(proc):
                    self._poll.unregister(proc.stdout_fd)
                del self._buffer[:]
            if not self._stderr_open and proc.wait(max(0.0, end - _now())) is not None:
                break
        self._drain_stderr(proc)


def _check_declared_game(game: Game, ready: dict[str, Any]) -> None:
    """A bot declares the game it plays in `ready` ("game": NAME); a bot of the default game
    may say nothing (the protocol's first version had one game). A bot of another game at
    this table is a protocol fault that says so, not a crash on its first message."""
    declared = ready.get("game", default_game().name)
    if declared != game.name:
        raise BotFault("protocol", f"this match is {game.name}, but the bot's ready declares "
                       f"game {_clip(declared)}" + (
                           f' (a bot for {game.name} answers hello with "game": "{game.name}")'
                           if "game" not in ready else ""), 0)


# What Python, Node, C++ and the C library say as they die for want of memory.
_OUT_OF_MEMORY = (b"MemoryError", b"heap out of memory", b"std::bad_alloc",
                  b"Cannot allocate memory", b"out of memory")


def _out_of_memory(stderr_tail: bytes) -> bool:
    return any(marker in stderr_tail for marker in _OUT_OF_MEMORY)


def _now() -> float:
    return time.monotonic()


def _clip(value: object, limit: int = 80) -> str:
    """A short, printable, one-line rendering of what a bot sent, for a fault's detail."""
    text = value[:limit * 4].decode(errors="replace") if isinstance(value, bytes) else repr(value)
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text[:limit + 1])
    return text if len(text) <= limit else text[:limit] + "…"


@functools.cache
def _sweep_stale_staging(base: str) -> None:
    """Once a process: remove the copies left by processes that were killed mid-match."""
    for path in Path(base).glob("kaiser-bot-*-*"):
        if left_by_the_dead(path, part=2):
            shutil.rmtree(path, ignore_errors=True)


class _Staging:
    """A private copy of the program for one match; removed when nothing uses it any more."""

    def __init__(self, source: Path) -> None:
        base = os.environ.get("KAISER_BOT_STAGING") or tempfile.gettempdir()
        _sweep_stale_staging(base)
        self.root = Path(tempfile.mkdtemp(prefix=f"kaiser-bot-{owner_token()}-", dir=base))
        os.chmod(self.root, 0o755)
        self._finalizer = weakref.finalize(self, shutil.rmtree, self.root, True)
        try:
            self.program = program_unpack(source, self.root / "bot")
        except BaseException:
            self._finalizer()
            raise


class ProgramFactory:
    """Makes the ProgramPlayer for each of a side's seats in each game (separate sandboxes).

    Each seat of each game gets a copy of the program of its own: partners that shared one
    set of files could signal through them (a lock, a change of time stamp), a seat of a later
    game could read what one of an earlier game left, and no seat may write to what another
    one runs.
    """

    def __init__(self, source: Path, *, time: TimeControl, limits: SandboxLimits,
                 unsandboxed: bool, name: str, version: str) -> None:
        self.name = name
        self.version = version
        self.time = time
        self.limits = limits
        self.unsandboxed = unsandboxed
        self._source = source
        self._first = _Staging(source)  # checks the program at once
        self.players: list[ProgramPlayer] = []

    def stderr_texts(self) -> list[str]:
        """The captured standard error of each process this factory started, in order."""
        return [player.stderr_text() for player in self.players]

    @property
    def program(self) -> BotProgram:
        """The program as the first seat's copy has it (every copy has the same files)."""
        return self._first.program

    def __call__(self, slot: int) -> Player:
        # The checked program, copied into the seat's own /bot (ProgramPlayer).
        player = ProgramPlayer(self._first.program, limits=self.limits,
                               unsandboxed=self.unsandboxed, keep_alive=self._first)
        self.players.append(player)
        return player


def program_player_factory(path: str | Path, *, time: TimeControl,
                           limits: SandboxLimits | None = None, unsandboxed: bool = False,
                           name: str | None = None, version: str = "1") -> ProgramFactory:
    """A factory for the bot program at `path` (.py, .zip, or an unpacked folder).

    Raises engine.archive.ProgramError (a ValueError) if the program is not acceptable.
    `unsandboxed` (or KAISER_UNSANDBOXED=1) runs it without bubblewrap: local development only.
    """
    source = Path(path)
    unsandboxed = unsandboxed or unsandboxed_requested()
    if unsandboxed:
        warn_unsandboxed()
    return ProgramFactory(source, time=time, limits=limits or SandboxLimits(),
                          unsandboxed=unsandboxed,
                          name=name or source.stem, version=version)
