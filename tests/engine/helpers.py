"""Fixed deals for the engine tests: build a deal from the tricks it should produce, then drive a
GameState through it with apply(), checking every action against legal_actions() on the way.

The card orders here are written out from docs/rules.md on purpose (not taken from the engine),
so a test built with them can disagree with the engine.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.faults import BotFault
from engine.kaiser.cards import parse_bid, parse_card
from engine.kaiser.game import Action, GameState
from engine.kaiser.rules import Rules
from engine.players import Player

HIGH_ORDER = "AKQJT98753"  # high to low, every contract but low no trump
LOW_ORDER = "789TJQKA53"  # low no trump: A..7 reversed, 5 and 3 still lowest

PACK_32 = [r + s for s, ranks in (("C", "AKQJT987"), ("D", "AKQJT987"), ("H", "AKQJT985"),
                                   ("S", "AKQJT983")) for r in ranks]
PACK_34 = sorted([*PACK_32, "7H", "7S"])

# Eight single-suit tricks covering the 32 cards played in any deal: since every trick holds one
# suit only, every card is a legal play whoever holds it. The 5H is in trick 5, the 3S in trick 7.
GROUPS = (
    "AC KC QC JC", "TC 9C 8C 7C", "AD KD QD JD", "TD 9D 8D 7D",
    "AH KH QH JH", "TH 9H 8H 5H", "AS KS QS JS", "TS 9S 8S 3S",
)


def strength(card: str, order: str = HIGH_ORDER) -> int:
    return len(order) - order.index(card[0])


def mask(cards: Sequence[str]) -> int:
    out = 0
    for card in cards:
        out |= 1 << parse_card(card)
    return out


def tricks_from_winners(first_leader: int, winners: Sequence[int],
                        groups: Sequence[str] = GROUPS,
                        order: str = HIGH_ORDER) -> list[tuple[int, list[str]]]:
    """Tricks (leader, cards in play order) in which trick i is won by seat winners[i]: the
    winner holds the best card of the group (by `order`), the others the rest."""
    assert len(winners) == len(groups) == 8
    tricks = []
    leader = first_leader
    for group, winner in zip(groups, winners, strict=True):
        cards = sorted(group.split(), key=lambda c: -strength(c, order))
        best, rest = cards[0], cards[1:]
        played = []
        for i in range(4):
            seat = (leader + i) % 4
            played.append(best if seat == winner else rest.pop(0))
        tricks.append((leader, played))
        leader = winner
    return tricks


@dataclass
class Script:
    """One deal as it should be played. `bids` in bidding order (from the dealer's left); if
    None, the contractor (the first trick's leader) bids `bid` and the other seats pass."""

    tricks: list[tuple[int, list[str]]]
    bid: str = "7"
    trump: str | None = "H"
    bids: list[str] | None = None
    kitty: list[str] = field(default_factory=list)
    discards: list[str] = field(default_factory=list)

    @property
    def contractor(self) -> int:
        return self.tricks[0][0]

    def hands(self) -> list[list[str]]:
        """The hands as dealt, from the cards each seat plays (and the contractor's kitty)."""
        hands: list[list[str]] = [[], [], [], []]
        for leader, cards in self.tricks:
            for i, card in enumerate(cards):
                hands[(leader + i) % 4].append(card)
        own = set(hands[self.contractor]) | set(self.discards)
        assert set(self.kitty) <= own, "the kitty must end in the contractor's play or discards"
        hands[self.contractor] = sorted(own - set(self.kitty))
        return hands


def scripted(first_leader: int, winners: Sequence[int], **kwargs: Any) -> Script:
    return Script(tricks_from_winners(first_leader, winners), **kwargs)


class ScriptedDeals:
    """A deal source (GameState's `deals=`) that hands out fixed deals in order, then seeded
    shuffles (a game that goes on deals again as soon as a deal is scored)."""

    def __init__(self, rules: Rules, deals: Sequence[tuple[list[list[str]], list[str]]]) -> None:
        pack = PACK_34 if rules.deck == 34 else PACK_32
        self.deals = []
        for hands, kitty in deals:
            assert all(len(h) == 8 for h in hands), hands
            assert sorted(c for h in [*hands, kitty] for c in h) == sorted(pack), "not the pack"
            masks = tuple(mask(h) for h in hands)
            self.deals.append(((masks[0], masks[1], masks[2], masks[3]), mask(kitty)))
        self.dealt = 0
        self.pack = pack
        self.rng = random.Random(0)

    def __call__(self) -> tuple[tuple[int, int, int, int], int]:
        self.dealt += 1
        if self.dealt <= len(self.deals):
            return self.deals[self.dealt - 1]
        cards = self.pack[:]
        self.rng.shuffle(cards)
        hands = tuple(mask(cards[8 * i:8 * i + 8]) for i in range(4))
        return (hands[0], hands[1], hands[2], hands[3]), mask(cards[32:])


def game_of(rules: Rules, dealer: int, scripts: Sequence[Script],
            extra: Sequence[tuple[list[list[str]], list[str]]] = ()) -> GameState:
    deals = [(s.hands(), s.kitty) for s in scripts] + list(extra)
    return GameState(rules, dealer=dealer, deals=ScriptedDeals(rules, deals))


def default_bids(dealer: int, contractor: int, bid: str) -> list[str]:
    return ["pass" if (dealer + 1 + i) % 4 != contractor else bid for i in range(4)]


def act(state: GameState, action: Any) -> None:
    """apply(), after checking that the action is legal now."""
    legal = state.legal_actions()
    assert action in legal, f"{action!r} is not legal ({state.decision}, seat {state.seat})"
    state.apply(action)


def play_script(state: GameState, script: Script) -> dict[str, Any]:
    """Plays one scripted deal; returns its replay record."""
    bids = script.bids or default_bids(state.dealer, script.contractor, script.bid)
    for text in bids:
        assert state.decision == "bid", state.decision
        act(state, parse_bid(text))
    assert state.contract() is not None and state.contract_seat == script.contractor
    if state.decision == "trump":
        assert script.trump is not None
        act(state, "CDHS".index(script.trump))
    if state.decision == "discard":
        act(state, tuple(sorted(parse_card(c) for c in script.discards)))
    deals_before = len(state.log)
    for leader, cards in script.tricks:
        assert state.decision == "play" and state.seat == leader, (
            f"expected seat {leader} to lead, the engine has seat {state.seat}")
        for card in cards:
            act(state, parse_card(card))
    assert len(state.log) == deals_before + 1, "the deal did not end after 8 tricks"
    return state.log[-1].to_dict()


def play_random_game(state: GameState, rng: random.Random) -> None:
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])


def split(contractor: int, tricks: int, five: bool, three: bool, **kwargs: Any) -> Script:
    """A deal in which the contractor's team wins `tricks` tricks, among them the one holding
    the 5H if `five` and the one holding the 3S if `three` (the other team wins the rest).
    The bidding team then has tricks + 5*five - 3*three points."""
    bidders = [contractor, (contractor + 2) % 4]
    others = [(contractor + 1) % 4, (contractor + 3) % 4]
    team_of: dict[int, bool] = {5: five, 7: three}  # trick index -> won by the bidders
    rest = [0, 1, 2, 3, 4, 6]
    plain = tricks - five - three
    assert 0 <= plain <= len(rest), "impossible split"
    for i, index in enumerate(rest):
        team_of[index] = i < plain
    if tricks == 0:
        team_of[0] = False
    winners = []
    counts = {True: 0, False: 0}
    for index in range(8):
        side = team_of[index]
        seats = bidders if side else others
        winners.append(seats[counts[side] % 2])
        counts[side] += 1
    return scripted(contractor, winners, **kwargs)


class FirstLegal(Player):
    """An untrusted player (the runner re-checks it) that always takes the first legal action,
    and raises `fault` instead of its act number `fault_at` (counting from 0)."""

    def __init__(self, fault_at: int | None = None, fault: BotFault | None = None,
                 reply: Callable[[Sequence[Action]], Action] | None = None) -> None:
        self.acts = 0
        self.fault_at = fault_at
        self.fault = fault or BotFault("timeout", "no reply within 1000 ms", 57)
        self.reply = reply or (lambda legal: legal[0])
        self.messages: list[dict[str, Any]] = []

    def act(self, state: GameState, legal: list[Action]) -> Action:
        if self.acts == self.fault_at:
            raise self.fault
        self.acts += 1
        return self.reply(legal)


@dataclass
class Factory:
    name: str
    version: str
    make: Callable[[int], Player]

    def __call__(self, slot: int) -> Player:
        return self.make(slot)


class CountedFirstLegal(FirstLegal):
    """A FirstLegal whose acts count on from the last game's player of its seat (every game
    has players of its own), so that `fault_at` counts through the match."""

    def __init__(self, count: list[int], fault_at: int | None, fault: BotFault | None) -> None:
        super().__init__(fault_at, fault)
        self.count = count

    def act(self, state: GameState, legal: list[Action]) -> Action:
        self.acts = self.count[0]
        action = super().act(state, legal)
        self.count[0] = self.acts
        return action


def faulty_b(fault_at: int, fault: BotFault | None = None) -> Factory:
    """Side B whose slot-0 seat faults at its act `fault_at` of the match."""
    count = [0]
    return Factory("flaky", "2", lambda slot: CountedFirstLegal(
        count, fault_at if slot == 0 else None, fault) if slot == 0 else FirstLegal())
