"""The bot protocol's transport, whatever the game: its version, and a bot's reply line read
as JSON (the hot path: a seat's every decision). Each game writes its own messages (its
plugin's hello and act_writer) and reads the actions of its replies (action_from_reply)."""

from __future__ import annotations

import json
from typing import Any

PROTOCOL_VERSION = 1

_decode = json.JSONDecoder().decode  # what json.loads uses for a str, with default arguments


def parse_line(line: bytes) -> Any:
    """json.loads(line), exactly (the same value, or the same error), without its encoding
    detection for the usual line: one that opens with "{" and no NUL (UTF-8 to json.loads)."""
    if line[:1] == b"{" and line[1:2] != b"\x00":
        return _decode(line.decode("utf-8", "surrogatepass"))
    return json.loads(line)
