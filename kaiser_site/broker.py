"""Kombu's filesystem transport with message names whose text order is their time order.

Kombu (5.5) names a message `<ms since boot>_<uuid>.<queue>.msg` and takes the first name in
text order. The number has no fixed width, so once the uptime passes 1,000 s (10,000 s, ...)
`1000000_...` sorts before `999999_...`: every new message jumps the queue and the old ones
wait behind it (issue 20: a tournament match waited 4.5 minutes behind newer ladder matches).

Here a name starts with 20 digits of wall-clock nanoseconds, never the same twice in a process,
and the queue is read in the order of that number, so messages named by Kombu's own transport
(left in the folder, or written by a process not yet restarted) are still read: before ours,
and in their own numeric order. Wall clock rather than monotonic: the folder outlives a
reboot, after which the monotonic clock starts at zero again.

`use_for_filesystem_urls()` (called by settings) makes `filesystem://` this transport.
"""

from __future__ import annotations

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


class Transport(filesystem.Transport):
    # global_state stays the parent's (one set of bindings per process, as in Kombu).
    Channel = Channel


def use_for_filesystem_urls() -> None:
    """Make `filesystem://` (the settings' and the tests' broker URL) name this transport.
    Kombu resolves a URL's scheme through TRANSPORT_ALIASES and caches the class."""
    kombu.transport.TRANSPORT_ALIASES["filesystem"] = f"{__name__}:Transport"
    kombu.transport._transport_cache.pop("filesystem", None)
