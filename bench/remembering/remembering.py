"""The remembering greedy of bench/duplicate_memory.py (issue 31): builtin:greedy, except that
when it recognises its hand among the deals it has seen end, it decides knowing every hand.

Every `deal_end` shows the deal's hands. A seat that keeps them and then plays a later game
over the same deals (duplicate's second table; Sergeant Major's second and third rotations)
finds its hand among them and holds the whole layout. It keeps them in its process and in a
file (the bot's is in its /tmp), so it would also use a /tmp that outlived its game.

With a layout it plays each choice out on the true hands with the engine's Monte Carlo
rollouts (engine.kaiser.mc, engine.sergeant_major.mc) and takes the best, greedy's own choice where
that is as good: Kaiser's bids (the others bidding as greedy does), trump and cards; Sergeant
Major's trump and cards (the exchanges and discard it did not see taken as greedy makes them:
its opponents are greedy). Without a layout it is builtin:greedy, decision for decision:
engine.kaiser.greedy.GreedyPlayer and engine.sergeant_major.players' SMGreedyPlayer, on a state
made from the observation (they read only their own hand and what was played). Kaiser's card
play uses the layout only without a kitty (another contractor's discards are not known); the
bench plays the official rules, which have none.

Standard library and engine modules only: bench/remembering/build.py bundles this file with
the engine modules it imports into the bot program.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import Any

from engine.kaiser.cards import (
    CARD_OF,
    NO_TRUMP,
    PASS,
    SUITS,
    TRICK_KEYS,
    cards_mask,
    deck,
    parse_bid,
)
from engine.kaiser.game import BID, DECISIONS, PLAY, TRUMP
from engine.kaiser.greedy import GreedyPlayer
from engine.kaiser.mc import (
    Stakes,
    bids_after,
    contract_points,
    contract_table,
    model_bid,
    model_estimates,
    play_out,
)
from engine.kaiser.rules import Rules
from engine.kaiser.sampling import View, view_from_observation
from engine.sergeant_major import cards as sc
from engine.sergeant_major import game as sg
from engine.sergeant_major.mc import WIN_BONUS as SM_WIN_BONUS
from engine.sergeant_major.mc import _policy as sm_policy
from engine.sergeant_major.players import SMGreedyPlayer
from engine.sergeant_major.rules import SMRules

Layout = tuple[tuple[int, ...], int]  # the hands by seat as dealt, and the kitty
# Sergeant Major: giver, receiver, count, the cards given and returned (None: not seen)
Exchange = tuple[int, int, int, tuple[int, ...] | None, tuple[int, ...] | None]


class Memory:
    """The layouts of every deal seen to its end, in this process and (with a path) in a file
    that every deal_end rewrites and a new process reads first."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path
        self.layouts: list[Layout] = []

    def load(self) -> int:
        """Reads the file a process of an earlier game may have left; the layouts read."""
        if self.path is None or not os.path.exists(self.path):
            return 0
        try:
            with open(self.path) as stored:
                found = [(tuple(hands), kitty) for hands, kitty in json.load(stored)]
        except (OSError, ValueError, TypeError):
            return 0
        self.layouts.extend(layout for layout in found if layout not in self.layouts)
        return len(found)

    def remember(self, layout: Layout) -> None:
        if layout in self.layouts:
            return
        self.layouts.append(layout)
        if self.path is not None:  # whole or not at all, whoever else writes it
            written = f"{self.path}.{os.getpid()}"
            with open(written, "w") as stored:
                json.dump([[list(hands), kitty] for hands, kitty in self.layouts], stored)
            os.replace(written, self.path)

    def find(self, seat: int, dealt_of: Callable[[int], int]) -> Layout | None:
        """The layout holding this seat's hand as dealt (`dealt_of(kitty)`: the hand, given
        the layout's kitty), its hands turned to this table's seats."""
        for hands, kitty in self.layouts:
            mine = dealt_of(kitty)
            for held_at, hand in enumerate(hands):
                if hand == mine:
                    n = len(hands)
                    return tuple(hands[(held_at + s - seat) % n] for s in range(n)), kitty
        return None


class Rememberer:
    """What both games share: the memory, the deals seen and recognised, greedy's fallback."""

    card_of: dict[str, int] = {}  # the game's card names

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.deals: set[tuple[int, int]] = set()
        self.recognised: set[tuple[int, int]] = set()
        self.mispredicted = 0  # decisions where a recognised layout did not fit what was seen
        self._layouts: dict[tuple[int, int], Layout | None] = {}

    def report(self) -> str:
        return f"RECOGNISED {len(self.recognised)} of {len(self.deals)} deals"

    def layout(self, obs: dict[str, Any], dealt_of: Callable[[int], int]) -> Layout | None:
        key = (int(obs["game"]), int(obs["deal"]))
        if key not in self._layouts:
            self.deals.add(key)
            self._layouts[key] = self.memory.find(int(obs["seat"]), dealt_of)
            if self._layouts[key] is not None:
                self.recognised.add(key)
        return self._layouts[key]

    def deal_end(self, record: dict[str, Any]) -> None:
        card_of = self.card_of
        hands = tuple(sum(1 << card_of[c] for c in hand) for hand in record["hands"])
        self.memory.remember((hands, sum(1 << card_of[c] for c in record.get("kitty") or ())))

    def decide(self, obs: dict[str, Any], decision: str, legal: Sequence[Any]) -> Any:
        """The action (in the engine's form) for this observation and legal list."""
        raise NotImplementedError


def _best(options: Sequence[Any], value: Callable[[Any], float], preferred: Any) -> Any:
    """The option of highest value; `preferred` (greedy's) when it is as good."""
    values = [value(option) for option in options]
    top = max(values)
    if preferred in options and values[list(options).index(preferred)] >= top:
        return preferred
    return options[values.index(top)]


# --- Kaiser ----------------------------------------------------------------------------------
class KaiserSeen:
    """What GreedyPlayer reads of a GameState, from the seat's observation alone."""

    __slots__ = ("phase", "seat", "dealer", "hands", "high_seat", "contract_seat", "trump",
                 "keys", "trick", "led", "tricks", "rules")

    def __init__(self, obs: dict[str, Any], phase: int, rules: Rules) -> None:
        card_of = CARD_OF
        self.phase, self.rules = phase, rules
        self.seat, self.dealer = int(obs["seat"]), int(obs["dealer"])
        self.hands = [0, 0, 0, 0]
        self.hands[self.seat] = sum(1 << card_of[c] for c in obs["hand"])
        self.high_seat = -1
        for bid in obs["bids"]:
            if bid["bid"] != "pass":
                self.high_seat = int(bid["seat"])
        contract = obs.get("contract") or {}
        self.contract_seat = int(contract.get("seat", -1))
        named = contract.get("trump")  # null for no trump (and before it is named)
        self.trump = SUITS.index(named) if named else NO_TRUMP
        low = bool(contract) and parse_bid(contract["bid"]) % 3 == 2
        self.keys = TRICK_KEYS[low][self.trump]
        self.tricks = [(int(t["leader"]), tuple(card_of[c] for c in t["cards"]), int(t["winner"]))
                       for t in obs["tricks"]]
        self.trick = [card_of[c] for c in (obs.get("trick") or {}).get("cards", [])]
        self.led = self.trick[0] // 10 if self.trick else -1


class KaiserRememberer(Rememberer):
    card_of = CARD_OF

    def __init__(self, memory: Memory, rules: Rules) -> None:
        super().__init__(memory)
        self.rules = rules
        self.greedy = GreedyPlayer()

    def decide(self, obs: dict[str, Any], decision: str, legal: Sequence[Any]) -> Any:
        phase = DECISIONS.index(decision)
        greedy = self.greedy.act(KaiserSeen(obs, phase, self.rules), legal)  # type: ignore[arg-type]
        layout = self.layout(obs, lambda kitty: _kaiser_dealt(obs) & ~kitty)
        if layout is None or len(legal) < 2:
            return greedy
        view = view_from_observation(obs, self.rules)
        hands, kitty = layout
        if phase == BID:
            return _best(legal, lambda bid: self._bid_value(view, [*hands, kitty], bid), greedy)
        if phase == TRUMP:
            return _best(legal, lambda t: self._trump_value(view, [*hands, kitty], t), greedy)
        if phase == PLAY and not self.rules.kitty:
            return _best(legal, lambda card: _card_value(view, hands, card), greedy)
        return greedy

    def _bid_value(self, view: View, deal: list[int], bid: int) -> float:
        cseat, final = _auction(view, [model_estimates(h) for h in deal[:4]], bid)
        if final % 3:
            trumps = [NO_TRUMP]
        elif cseat == view.seat:
            trumps = [0, 1, 2, 3]  # it would name the best, knowing the hands
        else:
            trumps = [model_estimates(deal[cseat])[2]]  # as greedy names it
        stakes = Stakes(self.rules, view.score, view.seat & 1)
        return max(stakes.value(cseat, final, contract_points(deal, cseat, final, t, self.rules))
                   for t in trumps)

    def _trump_value(self, view: View, deal: list[int], trump: int) -> float:
        assert view.contract is not None
        _, bid, _ = view.contract
        stakes = Stakes(self.rules, view.score, view.seat & 1)
        return stakes.value(view.seat, bid, contract_points(deal, view.seat, bid, trump,
                                                            self.rules))


def _kaiser_dealt(obs: dict[str, Any]) -> int:
    """The seat's hand as dealt: what it holds and what it has played of this deal."""
    card_of, seat = CARD_OF, int(obs["seat"])
    hand = sum(1 << card_of[c] for c in obs["hand"])
    for trick in [*obs["tricks"], *([obs["trick"]] if obs.get("trick") else [])]:
        for place, card in enumerate(trick["cards"]):
            if (int(trick["leader"]) + place) % 4 == seat:
                hand |= 1 << card_of[card]
    return hand


def _auction(view: View, estimates: list[tuple[float, float, int]], my_bid: int) -> tuple[int, int]:
    """(contractor, contract) if this seat bids `my_bid` and the others bid as greedy does
    (engine.kaiser.mc's model of builtin:greedy's bidding)."""
    high, high_seat = PASS, -1
    for seat, bid in view.bids:
        if bid != PASS:
            high, high_seat = bid, seat
    if my_bid != PASS:
        high, high_seat = my_bid, view.seat
    seat = view.seat
    while seat != view.dealer:
        seat = (seat + 1) & 3
        legal = bids_after(view.rules, high, seat, view.dealer)
        partner_high = high_seat == (seat + 2) & 3 and seat != view.dealer
        bid = model_bid(estimates[seat], legal, partner_high)
        if bid != PASS:
            high, high_seat = bid, seat
    return high_seat, high


def _card_value(view: View, hands: Sequence[int], card: int) -> float:
    """The deal played out on the true hands after `card` (engine.kaiser.mc's rollout)."""
    assert view.contract is not None
    cseat, bid, trump = view.contract
    table = contract_table(trump, bid % 3 == 2, cseat & 1, cards_mask(deck(view.rules)))
    points = view.team_points()
    leader = view.leader if view.trick else view.seat
    play_out([h & ~view.played for h in hands], view.trick[:], leader, view.played, points,
             table, card)
    return Stakes(view.rules, view.score, view.seat & 1).value(cseat, bid, points[cseat & 1])


# --- Sergeant Major --------------------------------------------------------------------------
class SMSeen:
    """What SMGreedyPlayer (and the rollouts below) read of an SMState, from the seat's
    observation alone."""

    __slots__ = ("phase", "seat", "dealer", "hands", "trump", "keys", "trick", "led", "leader",
                 "tricks", "exchanges", "discards", "taken", "rules")

    def __init__(self, obs: dict[str, Any], phase: int, rules: SMRules) -> None:
        self.phase, self.rules = phase, rules
        self.seat, self.dealer = int(obs["seat"]), int(obs["dealer"])
        self.hands = [0, 0, 0]
        self.hands[self.seat] = _sm_mask(obs["hand"])
        self.trump = sc.SUITS.index(obs["trump"]) if obs.get("trump") else -1
        self.keys = sc.TRICK_KEYS[self.trump] if self.trump >= 0 else ()
        self.tricks = [(int(t["leader"]), tuple(sc.CARD_OF[c] for c in t["cards"]),
                        int(t["winner"])) for t in obs["tricks"]]
        trick = obs.get("trick") or {}
        self.trick = [sc.CARD_OF[c] for c in trick.get("cards", [])]
        self.leader = int(trick.get("leader", -1))
        self.led = sc.suit_of(self.trick[0]) if self.trick else -1
        self.exchanges: list[Exchange] = [
            (int(x["giver"]), int(x["receiver"]), int(x["count"]), _sm_cards(x["given"]),
             _sm_cards(x["returned"])) for x in obs["exchanges"]]
        self.discards = _sm_cards(obs.get("discards")) or ()
        self.taken = [int(n) for n in obs["taken"]]

    def played_by(self, seat: int) -> int:
        played = 0
        for leader, cards, _ in [*self.tricks, (self.leader, tuple(self.trick), -1)]:
            for place, card in enumerate(cards):
                if (leader + place) % 3 == seat:
                    played |= 1 << card
        return played


def _sm_mask(names: Sequence[str]) -> int:
    return sum(1 << sc.CARD_OF[c] for c in names)


def _sm_cards(names: Sequence[str] | None) -> tuple[int, ...] | None:
    return None if names is None else tuple(sorted(sc.CARD_OF[c] for c in names))


class SMRememberer(Rememberer):
    card_of = sc.CARD_OF

    def __init__(self, memory: Memory, rules: SMRules) -> None:
        super().__init__(memory)
        self.rules = rules
        self.greedy = SMGreedyPlayer()

    def decide(self, obs: dict[str, Any], decision: str, legal: Sequence[Any]) -> Any:
        seen = SMSeen(obs, sg.DECISIONS.index(decision), self.rules)
        greedy = self.greedy.act(seen, legal)  # type: ignore[arg-type]
        layout = self.layout(obs, lambda kitty: _sm_dealt(seen, kitty))
        if layout is None or seen.phase not in (sg.TRUMP, sg.PLAY) or len(legal) < 2:
            return greedy
        hands = self._exchanged(seen, layout)
        if seen.phase == sg.PLAY:
            hands = self._played(seen, layout, hands) if hands else None
        if hands is None:
            self.mispredicted += 1
            return greedy
        if seen.phase == sg.TRUMP:
            return _best(legal, lambda t: self._trump_value(seen, layout, hands, t), greedy)
        return _best(legal, lambda card: _sm_card_value(seen, hands, card), greedy)

    def _exchanged(self, seen: SMSeen, layout: Layout) -> list[int] | None:
        """The three hands after this hand's exchanges (those this seat was not part of made
        as greedy makes them): at trump or in play; None if this seat's own does not fit."""
        dealt, kitty = layout
        hands = list(dealt)
        for giver, receiver, count, given, returned in seen.exchanges:  # all made by now
            given = given or SMGreedyPlayer._shed(hands[giver], count, trump=-1)
            hands[giver] &= ~sc.cards_mask(given)
            hands[receiver] |= sc.cards_mask(given)
            returned = returned or sg.forced_return(hands[receiver], given)
            hands[receiver] &= ~sc.cards_mask(returned)
            hands[giver] |= sc.cards_mask(returned)
        mine = seen.hands[seen.seat] | seen.played_by(seen.seat)
        if seen.seat == seen.dealer:
            mine = (mine | sc.cards_mask(seen.discards)) & ~kitty
        return hands if hands[seen.seat] == mine else None

    def _played(self, seen: SMSeen, layout: Layout, hands: list[int]) -> list[int] | None:
        """The hands now: after the dealer's discard (greedy's, unless this seat dealt) and
        less what was played; None if a card played was not in its player's hand."""
        kitty = layout[1]
        dealer = seen.dealer
        discards = seen.discards if seen.seat == dealer else SMGreedyPlayer._shed(
            hands[dealer] | (kitty if self.rules.kitty_first else 0), self.rules.kitty,
            trump=seen.trump)
        hands[dealer] = (hands[dealer] | kitty) & ~sc.cards_mask(discards)
        for seat in range(3):
            played = seen.played_by(seat)
            if played & ~hands[seat]:
                return None
            hands[seat] &= ~played
        return hands

    def _trump_value(self, seen: SMSeen, layout: Layout, hands: list[int], trump: int) -> float:
        """The hand played out from the first lead after naming `trump` and discarding as
        greedy would with it."""
        me, kitty = seen.seat, layout[1]
        held = hands[me] | (kitty if self.rules.kitty_first else 0)
        discards = SMGreedyPlayer._shed(held, self.rules.kitty, trump=trump)
        after = list(hands)
        after[me] = (hands[me] | kitty) & ~sc.cards_mask(discards)
        return _sm_play_out(self.rules, me, after, [], sg.NEXT[me], [0, 0, 0], trump)


def _sm_card_value(seen: SMSeen, hands: list[int], card: int) -> float:
    after = list(hands)
    after[seen.seat] &= ~(1 << card)
    return _sm_play_out(seen.rules, seen.seat, after, [*seen.trick, card], seen.leader,
                        seen.taken, seen.trump)


def _sm_play_out(rules: SMRules, me: int, hands: list[int], trick: list[int], leader: int,
                 taken: list[int], trump: int) -> float:
    """The rest of the hand played with engine.sergeant_major.mc's rollout policy: `me`'s
    tricks, with its bonus for reaching the winning count and malus for another's."""
    keys_by_led = sc.TRICK_KEYS[trump]
    hands, trick, taken = list(hands), list(trick), list(taken)
    seat = (leader + len(trick)) % 3
    while True:
        if len(trick) == 3:
            keys = keys_by_led[sc.suit_of(trick[0])]
            leader = (leader + max(range(3), key=lambda i: keys[trick[i]])) % 3
            taken[leader] += 1
            trick, seat = [], leader
        if not hands[seat]:
            break
        card = sm_policy(hands[seat], trick, keys_by_led)
        hands[seat] &= ~(1 << card)
        trick.append(card)
        seat = (seat + 1) % 3
    value = float(taken[me])
    if rules.win_tricks is not None:
        if taken[me] >= rules.win_tricks:
            value += SM_WIN_BONUS
        elif max(taken) >= rules.win_tricks:
            value -= SM_WIN_BONUS
    return value


def _sm_dealt(seen: SMSeen, kitty: int) -> int:
    """The seat's hand as dealt, if `kitty` was the kitty: its hand and what it played and
    discarded, without the kitty, and the exchanges it took part in undone."""
    me = seen.seat
    hand = seen.hands[me] | seen.played_by(me)
    if me == seen.dealer:
        hand |= sc.cards_mask(seen.discards)
    hand &= ~kitty
    for giver, receiver, _, given, returned in reversed(seen.exchanges):
        back = sc.cards_mask(returned or ())
        if me == giver and given is not None:
            hand = (hand & ~back) | sc.cards_mask(given)
        elif me == receiver and given is not None:
            hand = (hand | back) & ~sc.cards_mask(given)
    return hand


def rememberer(game: str, memory: Memory, rules: dict[str, Any]) -> Rememberer:
    """The remembering greedy of `game` ("kaiser" or "sergeant-major") under these rules."""
    if game == "sergeant-major":
        return SMRememberer(memory, SMRules.from_dict(rules))
    return KaiserRememberer(memory, Rules.from_dict(rules))
