"""The words people read for cards, trumps, numbers and scores: one vocabulary for the site's
pages and the local runner's `show`, the same as the play table's and the replay viewer's
(static/js/replay.js: cardText, trumpText, number, signed, scoreText). The protocol's own
forms ("TH", "C", -1) are for bots; these are for people: "10♥", "♣ clubs", "11 to −1",
"+4 / −7". A game's own words (its seats, bids, contracts) are in its package's `words`.

Standard library only, as the rest of the engine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
MINUS = "\u2212"  # a real minus sign: "−24", never the hyphen of "-24"


def card_text(code: str) -> str:
    """'TH' as '10♥'."""
    rank, suit = code[:-1], code[-1:]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS.get(suit, suit)


def cards_text(codes: Sequence[str]) -> str:
    return " ".join(card_text(c) for c in codes)


def number(n: float) -> str:
    """-24 as '−24' (a real minus sign); 7 as '7'; 0.5 as '0.5'."""
    return f"{MINUS}{-n:g}" if n < 0 else f"{n:g}"


def signed(n: float) -> str:
    """A change: '+7', '−7', '0'."""
    return f"+{n:g}" if n > 0 else number(n)


def trick_lines(tricks: Sequence[Mapping[str, Any]], seats: int) -> list[str]:
    """A deal's tricks for `show`, one line each: "   trick 1: 0:5♥ 1:K♥ ...  -> seat 1", each
    card after the seat that played it (the leader's first, round a table of `seats`)."""
    lines = []
    for number, trick in enumerate(tricks):
        plays = [f"{(trick['leader'] + i) % seats}:{card_text(c)}"
                 for i, c in enumerate(trick["cards"])]
        lines.append(f"   trick {number + 1}: {' '.join(plays)}  -> seat {trick['winner']}")
    return lines


def score_text(pair: Sequence[float]) -> str:
    """[11, -1] as '11 to −1'."""
    return f"{number(pair[0])} to {number(pair[1])}"


def changes_text(pair: Sequence[float]) -> str:
    """Two changes of score, [4, -7] as '+4 / −7'."""
    return f"{signed(pair[0])} / {signed(pair[1])}"


def trump_text(suit: str | None) -> str:
    """A named trump: 'C' as '♣ clubs'; none as 'no trump'."""
    if not suit:
        return "no trump"
    return f"{SUIT_SYMBOLS.get(suit, suit)} {SUIT_WORDS.get(suit, suit)}"


def player_name(player: Mapping[str, Any]) -> str:
    """A player of a replay in words: 'greedy v3', a built-in 'random', a person 'ada
    (person)' (a game against people names the person's side with version 'person')."""
    name = str(player.get("name", "?"))
    if player.get("human") or player.get("version") == "person":
        return f"{name} (person)"
    version = player.get("version")
    return f"{name} v{version}" if version else name


def faults_text(forfeit: Mapping[str, Any] | None) -> str:
    """A match's forfeit, as the local runner's summary says it ("faults: none" without)."""
    if not forfeit:
        return "faults: none"
    return (f"faults: {forfeit['player']} at seat {forfeit['seat']}: {forfeit['reason']} "
            f"(message {forfeit['message_id']}): {forfeit['detail']}; "
            f"{forfeit['player']} forfeits")
