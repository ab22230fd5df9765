"""The `act` message as bytes, built directly, and the action a reply names: the hot path.

`ActWriter.message` gives exactly the bytes of the reference encoding (`reference_message`):

    json.dumps({"type": "act", "id": mid, "decision": state.decision,
                "legal": legal_to_wire(state, legal),
                "state": {**state.observation(state.seat), "bank_ms": bank_ms}},
               separators=(",", ":")).encode() + b"\\n"

but from cached JSON fragments (quoted card names, a hand's suits by bit pattern, bids) and
the finished tricks of the deal encoded once each, instead of dicts and json.dumps.
tests/engine/test_wire.py holds the two equal over many seeded games of every preset and every
kind of decision.

`action_from_reply` is engine.kaiser.protocol.action_from_wire for a reply to that message: a
card or bid in `legal` is looked up directly; anything else goes to action_from_wire, which
accepts it or says why not. (`parse_line`, reading the reply, is the runtime's: engine.wire.)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.kaiser.cards import CARD_NAMES, NO_TRUMP, PASS, SUITS, bid_str
from engine.kaiser.game import BID, DECISIONS, MISDEAL, PLAY, TRUMP
from engine.kaiser.protocol import action_from_wire, legal_to_wire

if TYPE_CHECKING:
    from engine.kaiser.game import Action, GameState

Trick = tuple[int, Sequence[int], int]

# '"9H"' for card 9H: the JSON string of each card name.
_QUOTED: tuple[str, ...] = tuple(json.dumps(name) for name in CARD_NAMES)
_quoted = _QUOTED.__getitem__


def _suit_fragments(suit: int) -> tuple[str, ...]:
    """For each 10-bit pattern of a suit's ranks: its cards' JSON, strongest first, each with
    a trailing comma (the order of GameState.observation's `hand`:
    engine.kaiser.cards.mask_names)."""
    return tuple("".join(_QUOTED[suit * 10 + rank] + "," for rank in range(9, -1, -1)
                         if pattern >> rank & 1)
                 for pattern in range(1024))


_H0, _H1, _H2, _H3 = (_suit_fragments(suit) for suit in range(4))

# Every bid a preset allows (and PASS): its JSON string, its `bids` entry for each seat, and
# the bid a reply's string names.
_ALL_BIDS = range(PASS, 13 * 3)
_BID_QUOTED: dict[int, str] = {b: json.dumps(bid_str(b)) for b in _ALL_BIDS}
_BID_ENTRY: dict[tuple[int, int], str] = {
    (seat, b): f'{{"seat":{seat},"bid":{_BID_QUOTED[b]}}}' for seat in range(4) for b in _ALL_BIDS}
_BID_OF: dict[str, int] = {bid_str(b): b for b in _ALL_BIDS}
_CARD_OF: dict[str, int] = {name: card for card, name in enumerate(CARD_NAMES)}

_DECISION_QUOTED: dict[str | None, str] = {d: json.dumps(d) for d in DECISIONS}
_TRUMP_LEGAL = ",".join(json.dumps(suit) for suit in SUITS)
_MISDEAL_LEGAL = "true,false"


def _contract_json(contract: tuple[int, int, int] | None) -> str:
    if contract is None:
        return "null"
    seat, bid, trump = contract
    # null for no trump, and until the contractor names trump (trump is still -1)
    named = json.dumps(SUITS[trump]) if 0 <= trump < NO_TRUMP else "null"
    return f'{{"seat":{seat},"bid":{json.dumps(bid_str(bid))},"trump":{named}}}'


def _trick_json(trick: Trick) -> str:
    leader, cards, winner = trick
    return f'{{"leader":{leader},"cards":[{",".join(map(_quoted, cards))}],"winner":{winner}}}'


def _bid_entry(entry: tuple[int, int]) -> str:
    text = _BID_ENTRY.get(entry)
    if text is None:  # not a bid of any preset: encoded as the reference would
        seat, bid = entry
        text = f'{{"seat":{json.dumps(seat)},"bid":{json.dumps(bid_str(bid))}}}'
    return text


class ActWriter:
    """Builds one seat's `act` messages. It remembers the finished tricks it last encoded:
    within a deal they only grow, so each is encoded once (checked, not assumed: a prefix
    that differs from the remembered one is encoded afresh)."""

    __slots__ = ("_tricks", "_tricks_text", "_contract", "_contract_text", "_bids",
                 "_bids_text")

    def __init__(self) -> None:
        self._bids: list[tuple[int, int]] = []
        self._bids_text = ""
        self._tricks: list[Trick] = []
        self._tricks_text = ""
        self._contract: tuple[int, int, int] | None = None
        self._contract_text = "null"

    def message(self, state: GameState, legal: Sequence[Action], mid: int,
                bank_ms: int) -> bytes:
        phase = state.phase
        seat = state.seat
        if phase == PLAY:
            legal_text = ",".join(map(_quoted, legal))  # type: ignore[arg-type]
            trick_text = (f'{{"leader":{state.leader},"cards":['
                          f'{",".join(map(_quoted, state.trick))}]}}')
        else:
            trick_text = "null"
            if phase == BID:
                legal_text = ",".join(map(_BID_QUOTED.__getitem__, legal))  # type: ignore[arg-type]
            elif phase == TRUMP:
                legal_text = _TRUMP_LEGAL
            elif phase == MISDEAL:
                legal_text = _MISDEAL_LEGAL
            else:  # discard (once a deal at most), or no decision
                legal_text = json.dumps(legal_to_wire(state, legal), separators=(",", ":"))[1:-1]
        hand = state.hands[seat]
        hand_text = (_H0[hand & 1023] + _H1[hand >> 10 & 1023] + _H2[hand >> 20 & 1023]
                     + _H3[hand >> 30 & 1023])[:-1]
        bids = state.bids
        if bids != self._bids:  # they change in the auction only
            self._bids = [entry if type(entry) is tuple else (entry[0], entry[1])
                          for entry in bids]
            self._bids_text = ",".join(map(_bid_entry, bids))
        contract = state.contract()
        if contract != self._contract:  # changes twice a deal: the auction, the trump
            self._contract = None if contract is None else (contract[0], contract[1], contract[2])
            self._contract_text = _contract_json(contract)
        decision_text = _DECISION_QUOTED.get(state.decision) or json.dumps(state.decision)
        score = state.score
        return (f'{{"type":"act","id":{mid},"decision":{decision_text},'
                f'"legal":[{legal_text}],"state":{{"game":{state.game},'
                f'"deal":{state.first_deal + len(state.log)},"seat":{seat},"dealer":{state.dealer},'
                f'"score":[{score[0]},{score[1]}],"hand":[{hand_text}],"bids":[{self._bids_text}],'
                f'"contract":{self._contract_text},"tricks":[{self._tricks_json(state.tricks)}],'
                f'"trick":{trick_text},"bank_ms":{bank_ms}}}}}\n').encode()

    def _tricks_json(self, tricks: Sequence[Trick]) -> str:
        known = self._tricks
        count = len(known)
        if len(tricks) >= count and tricks[:count] == known:  # the same deal, so far
            if len(tricks) == count:
                return self._tricks_text
            fresh = [*map(_frozen, tricks[count:])]
            text = ",".join(map(_trick_json, fresh))
            if count:
                text = self._tricks_text + "," + text
            known += fresh
        else:  # a new deal
            known[:] = map(_frozen, tricks)
            text = ",".join(map(_trick_json, known))
        self._tricks_text = text
        return text


def _frozen(trick: Trick) -> Trick:
    """The trick itself if nothing in it can change (the engine's tuples), else a copy."""
    if type(trick) is tuple and type(trick[1]) is tuple:
        return trick
    leader, cards, winner = trick
    return leader, tuple(cards), winner


def reference_message(state: GameState, legal: Sequence[Action], mid: int,
                      bank_ms: int) -> bytes:
    """The act message from its definition (docs/protocol.md): what ActWriter must equal."""
    message = {"type": "act", "id": mid, "decision": state.decision,
               "legal": legal_to_wire(state, legal),
               "state": {**state.observation(state.seat), "bank_ms": bank_ms}}
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def action_from_reply(state: GameState, legal: Sequence[Action], value: Any) -> Action:
    """The action a reply names, if it is in `legal` (state.legal_actions()); else ValueError
    saying why, from engine.kaiser.protocol.action_from_wire."""
    if type(value) is str:
        phase = state.phase
        if phase == PLAY:
            card = _CARD_OF.get(value)
            if card is not None and card in legal:
                return card
        elif phase == BID:
            bid = _BID_OF.get(value)
            if bid is not None and bid in legal:
                return bid
    return action_from_wire(state, value)
