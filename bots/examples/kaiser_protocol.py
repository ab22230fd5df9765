"""kaiser_protocol: a helper for Kaiser Arena bots (protocol version 1), not a bot itself.

It runs the protocol loop in one small file. Put it next to your bot.py, and in bot.py call
run() with a function that picks an action (uploaded alone, this file does nothing: upload
a zip with both):

    import kaiser_protocol

    def decide(message):            # the whole `act` message: decision, legal, state
        return message["legal"][0]  # any element of legal (for "discard": a list of cards)

    kaiser_protocol.run(decide, name="my bot")

run() answers hello with ready, calls decide() for each act, hands deal_end and game_end to
on_notify (if given) and returns at match_end. Write logs to sys.stderr (kept, 64 KiB a game);
standard output belongs to the protocol. Standard library only.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

SUITS = "CDHS"
RANKS = "35789TJQKA"  # weakest first
FIVE_HEARTS, THREE_SPADES = "5H", "3S"


def suit(card: str) -> str:
    """'AS' -> 'S'."""
    return card[1]


def rank(card: str) -> int:
    """Strength within its suit, 0 (the 3) to 9 (the ace)."""
    return RANKS.index(card[0])


def card_points(card: str) -> int:
    """What the card is worth to the team that wins the trick, beyond the trick itself."""
    return 5 if card == FIVE_HEARTS else -3 if card == THREE_SPADES else 0


def trick_winner(cards: list[str], trump: str | None, low: bool = False) -> int:
    """Index in `cards` (play order) of the card that wins (or currently wins) the trick."""
    led = suit(cards[0])

    def strength(card: str) -> tuple[int, int]:
        r = rank(card)
        if low and card[0] not in "35":
            r = 11 - r  # low no trump: 7 high ... A low, the 5 and 3 stay lowest
        return (2 if suit(card) == trump else 1 if suit(card) == led else 0, r)

    return max(range(len(cards)), key=lambda i: strength(cards[i]))


def run(decide: Callable[[dict[str, Any]], Any], *, name: str | None = None,
        on_notify: Callable[[dict[str, Any]], None] | None = None,
        on_hello: Callable[[dict[str, Any]], None] | None = None) -> None:
    """Speak the protocol on stdin/stdout until match_end (or the end of the input)."""
    write, flush = sys.stdout.write, sys.stdout.flush
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "act":
            reply = {"id": message["id"], "action": decide(message)}
        elif kind == "hello":
            if on_hello is not None:
                on_hello(message)
            reply = {"id": message["id"], "type": "ready", "name": name}
        elif kind == "match_end":
            return
        else:
            if on_notify is not None:
                on_notify(message)
            continue
        write(json.dumps(reply) + "\n")
        flush()
