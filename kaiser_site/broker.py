"""Kombu's filesystem transport with message names whose text order is their time order.

Kombu (5.5) names a message `<ms since boot>_<uuid>.<queue>.msg` and takes the first name in
text order. The number has no fixed width, so once the uptime passes 1,000 s (10,000 s, ...)
`1000000_...` sorts before `999999_...`: every new message jumps the queue and the old ones
wait behind it (issue 20: a tournament match waited 4.5 minutes behind newer ladder matches).

Kombu's binding of a queue to an exchange (a JSON table in the control folder) also races when
two workers start at once: each opens a missing table with "wb", so one truncates what the other
is writing and the table ends as two lists run together ("JSONDecodeError: Extra data"), which
stops a worker at start. Here the table is created, read and rewritten under one exclusive lock
(an empty table is an empty list), and read under a shared one.

Here a name starts with 20 digits of wall-clock nanoseconds, never the same twice in a process,
and the queue is read in the order of that number, so messages named by Kombu's own transport
(left in the folder, or written by a process not yet restarted) are still read: before ours,
and in their own numeric order. Wall clock rather than monotonic: the folder outlives a
reboot, after which the monotonic clock starts at zero again.

`use_for_filesystem_urls()` (called by settings) makes `filesystem://` this transport.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import threading
import uuid
from queue import Empty
from time import time_ns
from typing import Any

import kombu.transport
from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

STAMP_DIGITS = 20  # time_ns() has 19 digits until the year 2286
UNNUMBERED = 10**STAMP_DIGITS  # a name without a leading number: after every numbered one

_last_stamp = 0
_stamp_lock = threading.Lock()


def next_stamp() -> int:
    """Wall-clock nanoseconds, strictly increasing within this process: ties and a clock
    stepped back (NTP) still give later messages later names."""
    global _last_stamp
    with _stamp_lock:
        _last_stamp = max(time_ns(), _last_stamp + 1)
        return _last_stamp


def arrival(name: str) -> tuple[int, str]:
    """The sort key of a message file: its leading number (ours or Kombu's), then the name."""
    head = name.partition("_")[0]
    return (int(head) if head.isdigit() else UNNUMBERED, name)


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        """Write the message under a name no reader matches, then rename it into the queue:
        a reader never takes a file that is still being written."""
        name = f"{next_stamp():0{STAMP_DIGITS}d}_{uuid.uuid4()}"
        partial = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, os.path.join(self.data_folder_out, f"{name}.{queue}.msg"))
        except OSError as error:
            raise ChannelError(f"Cannot add message {name!r} to queue {queue!r}") from error

    def _get(self, queue: str) -> Any:
        """The queue's oldest message (Kombu's `_get` with the order of `arrival`)."""
        suffix = f".{queue}.msg"
        for name in sorted(os.listdir(self.data_folder_in), key=arrival):
            if suffix in name and (payload := self._take(name)) is not None:
                return loads(bytes_to_str(payload))
        raise Empty()

    def _take(self, name: str) -> bytes | None:
        """Move the file out of the queue and read it; None if another consumer took it."""
        folder = self.processed_folder if self.store_processed else tempfile.gettempdir()
        try:
            shutil.move(os.path.join(self.data_folder_in, name), folder)
        except OSError:
            return None
        taken = os.path.join(folder, name)
        try:
            with open(taken, "rb") as file:
                payload = file.read()
            if not self.store_processed:
                os.remove(taken)
        except OSError as error:
            raise ChannelError(f"Cannot read file {taken!r} from queue.") from error
        return payload


    def _queue_bind(self, exchange: str, routing_key: str, pattern: str, queue: str) -> None:
        """Add the queue to the exchange's table: created, read and rewritten under one
        exclusive lock, so two workers binding at once both end in it."""
        self.control_folder.mkdir(parents=True, exist_ok=True)
        entry = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        path = self.control_folder / f"{exchange}.exchange"
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            queues = _table(os.read(fd, 1 << 20))
            if entry not in queues:
                queues.insert(0, entry)
                os.lseek(fd, 0, os.SEEK_SET)
                os.ftruncate(fd, 0)
                os.write(fd, str_to_bytes(dumps(queues)))
        finally:
            os.close(fd)  # (the lock goes with it)

    def get_table(self, exchange: str) -> list[Any]:
        """The exchange's queues (none while its table is still being made)."""
        path = self.control_folder / f"{exchange}.exchange"
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return []
        except OSError as error:
            raise ChannelError(f"Cannot open {path}") from error
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            return _table(os.read(fd, 1 << 20))
        finally:
            os.close(fd)


def _table(raw: bytes) -> list[Any]:
    """An exchange's table as Kombu writes it (JSON: a list of [routing key, pattern, queue]);
    an empty file (just created) is an empty table."""
    text = bytes_to_str(raw).strip()
    return [filesystem.exchange_queue_t(*q) for q in loads(text)] if text else []


class Transport(filesystem.Transport):
    # global_state stays the parent's (one set of bindings per process, as in Kombu).
    Channel = Channel


def use_for_filesystem_urls() -> None:
    """Make `filesystem://` (the settings' and the tests' broker URL) name this transport.
    Kombu resolves a URL's scheme through TRANSPORT_ALIASES and caches the class."""
    kombu.transport.TRANSPORT_ALIASES["filesystem"] = f"{__name__}:Transport"
    kombu.transport._transport_cache.pop("filesystem", None)
