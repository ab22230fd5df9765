"""What the hand-passing probes of issue 19 share: the hand as a number, the report lines the
test reads, and a lockstep of symbols over a counter that two seats' kernels might share.

Each seat reports on standard error, one line a deal:
    SENT game=G deal=D hand=C1,C2,...      the hand this seat tried to pass (its 8 cards)
    DECODED game=G deal=D hand=C1,C2,...   what it read of its partner's hand in that deal
    ERROR what                             the channel could not be used (once)
The test holds each DECODED line against the partner's SENT line of the same deal.
"""

import math
import os

from _play import report

# The 32-card pack (engine/kaiser/cards.py): 7 to A of each suit, with 5H and 3S for 7H and 7S.
DECK = [rank + suit for suit in "CDHS" for rank in "789TJQKA"
        if rank + suit not in ("7H", "7S")] + ["5H", "3S"]
HAND = 8
HAND_BITS = math.comb(len(DECK), HAND).bit_length()  # 24: a hand is one of C(32, 8)


def hand_number(cards):
    """The hand's rank among all hands of 8 (the combinatorial number system)."""
    places = sorted(DECK.index(card) for card in cards)
    return sum(math.comb(place, k + 1) for k, place in enumerate(places))


def hand_of(number):
    places = []
    for k in range(HAND, 0, -1):
        place = k - 1
        while math.comb(place + 1, k) <= number:
            place += 1
        number -= math.comb(place, k)
        places.append(place)
    return cards_text(DECK[place] for place in places)


def cards_text(cards):
    return ",".join(sorted(cards, key=DECK.index))


def mask_of(cards):
    return sum(1 << DECK.index(card) for card in cards)


def partner_of(state):
    return (state["seat"] + 2) % 4


def partner_moves(state):
    """How many decisions the partner has made in this deal: its bid, its trump, its cards."""
    partner = partner_of(state)
    moves = sum(1 for bid in state["bids"] if bid["seat"] == partner)
    moves += partner_trumped(state)
    for trick in [*state["tricks"], state.get("trick")]:
        if trick and (partner - trick["leader"]) % 4 < len(trick["cards"]):
            moves += 1
    return moves


def partner_trumped(state):
    contract = state.get("contract")
    return bool(contract and contract["seat"] == partner_of(state) and contract.get("trump"))


class Deals:
    """The deals of the match in order; both partners see the same ones (each bids in all)."""

    def __init__(self):
        self.keys = []

    def note(self, state):
        """True on this seat's first move in a new deal."""
        key = (state["game"], state["deal"])
        if self.keys and self.keys[-1] == key:
            return False
        self.keys.append(key)
        return True

    @property
    def index(self):
        return len(self.keys) - 1

    def line(self, what, index, hand):
        game, deal = self.keys[index]
        return f"{what} game={game} deal={deal} hand={hand}"


class Channel:
    """A probe's channel, reporting its first error and going quiet after it."""

    def __init__(self):
        self.deals = Deals()
        self.failed = None

    def on_act(self, seat, message):
        state = message["state"]
        new_deal = self.deals.note(state)
        if new_deal:  # said even once the channel has failed: the test counts the deals
            report(self.deals.line("SENT", self.deals.index, cards_text(state["hand"])))
        if self.failed:
            return
        try:
            if new_deal:
                self.new_deal(state)
            self.act(state)
        except OSError as error:
            self.fail(f"{type(error).__name__}: {error}")

    def fail(self, text):
        self.failed = text
        report(f"ERROR {text}")

    def decoded(self, index, hand):
        report(self.deals.line("DECODED", index, hand))

    def new_deal(self, state):
        pass

    def act(self, state):
        pass


class Lockstep(Channel):
    """Symbols over a counter that only grows (a cookie, an inode number): a seat adds k to it
    to say k - 1; its partner reads the growth on its own turn.

    A symbol is (deal parity, its place in the hand, data bits); the hand's 24 bits go in
    HAND_BITS / data_bits symbols. Only one seat of a match runs at a time. On each turn a
    seat reads the counter once (which may itself add `read_cost`), and adds a symbol of its
    own only once its partner has moved since its last one: the partner has then read it, so
    symbols never pile up. The growth it reads, less its own read and symbol and its partner's
    reads (one a decision, which the public state counts), is its partner's symbol.
    `modulus`: a per-CPU counter jumps by whole batches. `scale`: a counter that the rest of
    the host moves too gets `scale` steps a unit, and what is left over is taken for noise.
    """

    def __init__(self, read, bump, *, data_bits, modulus=None, read_cost=1, scale=1):
        super().__init__()
        self.read, self.bump = read, bump
        self.data_bits, self.modulus, self.read_cost = data_bits, modulus, read_cost
        self.scale = scale
        self.count = -(-HAND_BITS // data_bits)
        self.place_bits = (self.count - 1).bit_length()
        self.symbol_bits = 1 + self.place_bits + data_bits
        self.queue = []
        self.last = None  # (counter, partner's decisions, own symbol) at this seat's last read
        self.partner_before = 0  # the partner's decisions in the deals before this one
        self.partner_deal_total = 0  # its decisions in this deal, once all are made
        self.sent_at = -1  # the partner's decisions when this seat last added a symbol
        self.heard = {}  # deal index -> {place: data}
        self.symbols = [0, 0]  # sent, heard

    def new_deal(self, state):
        self.partner_before += self.partner_deal_total
        number, mask = hand_number(state["hand"]), (1 << self.data_bits) - 1
        self.queue = [(place, number >> (place * self.data_bits) & mask)
                      for place in range(self.count)]

    def partner_decisions(self, state):
        """The partner's decisions so far in the match."""
        # This seat's last card may come before its partner's: the partner's decisions in a
        # deal are counted in full (a bid, 8 cards, maybe a trump) when the next one starts.
        self.partner_deal_total = 1 + HAND + partner_trumped(state)
        return self.partner_before + partner_moves(state)

    def next_symbol(self, decisions):
        """The next symbol to add, once the partner has read the last one; or None."""
        if not self.queue or decisions <= self.sent_at:
            return None
        place, data = self.queue.pop(0)
        self.sent_at = decisions
        self.symbols[0] += 1
        return ((self.deals.index & 1) << self.place_bits | place) << self.data_bits | data

    def act(self, state):
        decisions = self.partner_decisions(state)
        value = self.read()
        if self.last is not None:
            counter, before, own = self.last
            reads = (decisions - before + 1) * self.read_cost  # the partner's and this one
            self.hear(value - counter - own - reads)
        own = 0
        symbol = self.next_symbol(decisions)
        if symbol is not None:
            own = (1 + symbol) * self.scale
            self.bump(own)
        self.last = (value, decisions, own)

    def hear(self, growth):
        if self.modulus:
            growth %= self.modulus
        units = growth // self.scale
        if 0 < units <= 1 << self.symbol_bits:  # else nothing was sent, or it is noise
            self.take(units - 1)

    def take(self, symbol):
        data = symbol & (1 << self.data_bits) - 1
        place = symbol >> self.data_bits & (1 << self.place_bits) - 1
        parity = symbol >> (self.data_bits + self.place_bits)
        now = self.deals.index
        deal = now if now & 1 == parity else now - 1  # the partner is at most a deal behind
        if place >= self.count or deal < 0:
            return
        self.symbols[1] += 1
        parts = self.heard.setdefault(deal, {})
        parts[place] = data
        if len(parts) == self.count:
            number = sum(data << (p * self.data_bits) for p, data in parts.items())
            if number < math.comb(len(DECK), HAND):
                self.decoded(deal, hand_of(number))
            parts.clear()

    def summary(self):
        return f"symbols sent {self.symbols[0]}, heard {self.symbols[1]}"


class Board(Channel):
    """A hand as 32 marks on something both sandboxes can see (a lock, a cached page): each
    seat marks its hand on its first move of a deal (a bid: every seat bids before anyone
    plays) and reads its partner's marks on its first card. Half of the board is each seat's:
    seats 0 and 1 take the first, their partners the second."""

    def __init__(self):
        super().__init__()
        self.read_in = None  # the deal whose partner's marks were read

    def new_deal(self, state):
        self.mark(state["seat"] // 2, mask_of(state["hand"]))

    def act(self, state):
        playing = state["tricks"] or state.get("trick")  # then every bid is in
        if playing and self.read_in != self.deals.index:
            self.read_in = self.deals.index
            self.decoded(self.deals.index, self.look(1 - state["seat"] // 2))

    def mark(self, half, mask):
        raise NotImplementedError

    def look(self, half):
        """The partner's hand as read from its half."""
        raise NotImplementedError


def on_cpu_zero(seat):
    """on_hello of a probe whose counter is kept per CPU: both seats on CPU 0."""
    try:
        os.sched_setaffinity(0, {0})
    except OSError as error:
        report(f"NOTE sched_setaffinity: {error}")
