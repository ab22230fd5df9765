"""Does a side's think time tell its partner about its cards? (issue 31; docs/sandbox.md,
"Think time: what a partner can read from the clock").

Seats are frozen between turns, but a seat reads the wall clock when it wakes, so the time
between its reply and its next message tells it how long the others took. No sandbox we can
run stops that clock (gVisor's ptrace platform lets a seat read the host's time stamp
counter), so this module looks at the sender's side instead: over a bot's matches it asks
whether the time each of its decisions took varies, beyond what the public situation of the
decision explains, in a way that a partner's clock could read.

- `TimedSide` wraps a side's PlayerFactory and keeps the wall time of each of its decisions
  in the engine's order (the message written to the reply read, as the partner's clock sees
  it; a bot that sleeps uses no CPU time, so counted time alone misses it).
- `side_decisions` walks a Kaiser replay and lists a side's decisions in the engine's order,
  each with its public features and the deciding seat's dealt hand; `aligned` pairs them with
  the times and checks the counts; `engine_order` puts a per-process concatenation of times
  (what the site's RecordingFactory.decision_ms() gives) back in the engine's order.
- `think_time_check` is the detector: a pure function of the bot's matches (`SideTimes`:
  a replay, the bot's side, its decisions' wall and counted times).

Every figure is in steps a partner's clock tells apart: ABS_MS at short times, REL of the
time at long ones (u = log(t + ABS_MS / REL) / REL), so "bits a move" is the entropy of a
time cut in such steps: how many times a partner could tell apart, the most it could read.
- **cpu**: the counted (CPU) time less what a least-squares fit on the decision's public
  features explains (its kind, how many legal actions, the trick and the place in it, the
  bids before it, the seat's first decision of a game). CPU time hardly moves with the
  host's load, so an honest bot's is nearly all explained; a bot that burns time to signal
  spreads it.
- **wait**: wall time less STRETCH x the counted time (a seat on move gets a third of a core
  at least: what is beyond that is not waiting for a core), in one bin under WAIT_FLOOR_MS
  and steps of ABS_MS + WAIT_REL of the wait above (a sleep blurs by the host's latency,
  not by a share of its length). An honest bot computes; a bot that sleeps to signal
  waits, and spreads its waits. (Wall time alone spreads with the host's load: on a
  2-core machine at a load of 20, builtin:mc's wall times spread as much as a 4-bit
  signalling pair's.)
- **hand**: the largest rank correlation between the wall (else counted) time's residuals,
  at each of the seat's moves of a deal and their mean over the deal, and a feature of the
  dealt hand (each card, suit lengths, aces to jacks, a strength), with a permutation test
  that moves whole hands between deals (every feature and move tried is counted, and a
  deal's shared slow spell moves with it). It catches plain encodings (time grows with the
  trumps held) at rates the spreads miss; a scrambled encoding shows only in the spreads.
A side is flagged when cpu or wait reaches SPREAD_BITS, or when hand's p-value is at most
HAND_ALPHA with at least HAND_MIN_BITS.
Standard library only.
"""

from __future__ import annotations

import math
import operator
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.kaiser.cards import CARD_OF, RANKS, SUITS
from engine.kaiser.game import DISCARD, MISDEAL, PLAY, TRUMP, GameState
from engine.kaiser.match import seat_sides
from engine.kaiser.protocol import action_from_wire
from engine.kaiser.rules import Rules
from engine.players import Player, PlayerFactory

ABS_MS = 2.0  # the step issue 31's pair and ours read a partner's time in, under gVisor
REL = 0.10  # ... and at long ones, as a share of the time
WAIT_REL = 0.01  # a wait's noise is the host's latency, hardly a share of the wait
STRETCH = 3.0  # a seat on move gets a third of a core at least (the wall backstop's premise)
WAIT_FLOOR_MS = 5.0  # waits below this are a round trip and the host's hiccups
SPREAD_BITS = 2.5  # flagged at or above: bits a move, cpu or wait
HAND_ALPHA = 0.001
HAND_MIN_BITS = 0.25
PERMUTATIONS = 999
KINDS = ("misdeal", "bid", "trump", "discard", "play")


# --- recording ------------------------------------------------------------------------------


class TimedSide:
    """A side's PlayerFactory whose players' decisions are timed on the wall clock, in the
    engine's order: the runner asks one decision at a time, so one list for the side holds
    them in the order they were made, across both seats and every game."""

    def __init__(self, factory: PlayerFactory) -> None:
        self.factory = factory
        self.name, self.version = factory.name, factory.version
        self.players: list[Player] = []
        self.wall_ms: list[float] = []
        self.counted_ms: list[int] = []  # the engine's counted (CPU) ms; 0 for built-ins

    def __call__(self, slot: int) -> Player:
        player = self.factory(slot)
        self.players.append(player)
        inner = player.act

        def act(state: Any, legal: Any) -> Any:
            began = time.perf_counter()
            action = inner(state, legal)
            self.wall_ms.append((time.perf_counter() - began) * 1000)
            counted = player.decision_ms()
            self.counted_ms.append(counted[-1] if counted else 0)
            return action

        player.act = act  # type: ignore[method-assign]
        return player

    def stderr_texts(self) -> list[str]:
        return [player.stderr_text() for player in self.players]


# --- the replay's decisions -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a side, as the replay shows it."""

    game: int
    deal: int
    seat: int
    kind: str
    legal: int  # how many legal actions (discards: how many sets)
    trick: int  # the trick's number in the deal, -1 outside the play
    place: int  # the place in the trick (play) or in the bidding (bid), else 0
    move: int  # the seat's decisions before this one in the deal
    first: bool  # the seat's first decision of the game (a fresh process warms up)
    dealt: int  # the seat's hand as dealt, a mask of engine.kaiser.cards numbers


def side_decisions(replay: dict[str, Any], side: str) -> list[Decision]:
    """Every decision `side` made in the match, in the engine's order (game by game, as
    the rules asked them). Thrown-in hands' "keep it" answers included. A deal that a
    forfeit cut short gives what it recorded (the unfinished trick is not in a replay)."""
    if replay.get("format") != "kaiser-replay":
        raise ValueError("think time checks read Kaiser replays only")
    rules = Rules.from_dict(replay["rules"])
    found: list[Decision] = []
    for number, game in enumerate(replay["games"]):
        sides = seat_sides(number)
        found += [d for d in _game_decisions(rules, number, game) if sides[d.seat] == side]
    return found


def _game_decisions(rules: Rules, number: int, game: dict[str, Any]) -> list[Decision]:
    deals = game["deals"]
    if not deals:
        return []
    queue = iter(deals)

    def next_deal() -> tuple[tuple[int, int, int, int], int]:
        record = next(queue)
        hands = tuple(_mask(h) for h in record["hands"])
        return (hands[0], hands[1], hands[2], hands[3]), _mask(record["kitty"])

    state = GameState(rules, dealer=deals[0]["dealer"], deals=next_deal, game=number)
    walk = _Walk(number)
    for index, record in enumerate(deals):
        walk.deal(state, index, record)
        if state.is_terminal():
            break
    return walk.found


def _mask(cards: Sequence[str]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << CARD_OF[card]
    return mask


class _Walk:
    """Applies a deal record's actions to the state, noting each decision before it."""

    def __init__(self, game: int) -> None:
        self.game = game
        self.found: list[Decision] = []
        self.seen: set[int] = set()

    def deal(self, state: GameState, index: int, record: dict[str, Any]) -> None:
        self.index, self.moves = index, [0, 0, 0, 0]
        misdeal = record["misdeal"]
        while state.phase == MISDEAL:
            throw = misdeal is not None and misdeal["seat"] == state.seat
            self.act(state, throw, 0)
            if throw:
                return
        for place, entry in enumerate(record["bids"]):
            self.act(state, entry["bid"], place)
        contract = record["contract"]
        if state.phase == TRUMP and contract and contract["trump"] is not None:
            self.act(state, contract["trump"], 0)
        if state.phase == DISCARD and record["discards"]:
            self.act(state, record["discards"], 0)
        for number, trick in enumerate(record["tricks"]):
            for place, card in enumerate(trick["cards"]):
                if state.phase != PLAY:
                    return
                self.act(state, card, place, number)

    def act(self, state: GameState, value: Any, place: int, trick: int = -1) -> None:
        seat = state.seat
        kind = KINDS[state.phase]
        legal = len(state.legal_actions())
        self.found.append(Decision(
            game=self.game, deal=self.index, seat=seat, kind=kind, legal=legal, trick=trick,
            place=place, move=self.moves[seat], first=seat not in self.seen,
            dealt=state.dealt[seat]))
        self.seen.add(seat)
        self.moves[seat] += 1
        state.apply(action_from_wire(state, value))


def aligned(replay: dict[str, Any], side: str,
            times: Sequence[float]) -> list[tuple[Decision, float]]:
    """The side's decisions with their times. The counts must agree, except that a match a
    forfeit ended may have up to four more times at the end: the cards of the unfinished
    trick and an illegal action, which the replay does not keep."""
    decisions = side_decisions(replay, side)
    extra = len(times) - len(decisions)
    forfeit = replay.get("result", {}).get("forfeit")
    if extra and not (forfeit is not None and 0 < extra <= 4):
        raise ValueError(f"side {side} made {len(decisions)} decisions in the replay but "
                         f"{len(times)} times were given")
    return list(zip(decisions, times[:len(decisions)], strict=True))


def engine_order(replay: dict[str, Any], side: str, times: Sequence[float], *,
                 per_game: bool) -> list[float]:
    """Times listed process by process (each process's decisions in order: what
    RecordingFactory.decision_ms() concatenates) put back in the engine's order. A side's
    process at slot k plays seat k, 2k or 2k + 1 (engine.kaiser.match.Match.seats_for); one process
    a slot for the whole match (per_game=False), or a fresh one for each game, made game by
    game (per_game=True)."""
    decisions = side_decisions(replay, side)
    if len(times) != len(decisions):
        raise ValueError(f"side {side} made {len(decisions)} decisions in the replay but "
                         f"{len(times)} times were given")

    def group(d: Decision) -> tuple[int, int]:
        return (d.game if per_game else 0, d.seat // 2)

    order = sorted(range(len(decisions)), key=lambda i: (group(decisions[i]), i))
    result = [0.0] * len(times)
    for value, index in zip(times, order, strict=True):
        result[index] = value
    return result


# --- the statistics ----------------------------------------------------------------------


@dataclass(frozen=True)
class SideTimes:
    """One match of the bot: the replay, the bot's side, and the times of that side's
    decisions in the engine's order: wall ms (message written to reply read) and counted
    ms (its CPU time, as the engine charges it). Either may be None when not recorded."""

    replay: dict[str, Any]
    side: str
    wall_ms: Sequence[float] | None
    counted_ms: Sequence[float] | None


@dataclass
class Verdict:
    """What think_time_check found for one side over its matches."""

    decisions: int
    deals: int
    cpu_bits: float | None  # spread of the counted time beyond the public features
    wait_bits: float | None  # spread of the waits (wall time neither computing nor queued)
    hand_r: float  # the largest |rank correlation| with a hand feature
    hand_feature: str
    hand_bits: float  # -log2(1 - r^2) / 2 there: bits a move, read as a Gaussian channel
    hand_p: float  # permutation p-value of hand_r (every feature and move tried counted)
    median_wall_ms: float | None
    median_wait_ms: float | None
    flagged: bool = False
    reasons: list[str] = field(default_factory=list)

    def summary(self) -> str:
        verdict = "FLAGGED (" + "; ".join(self.reasons) + ")" if self.flagged else "passes"
        parts = [f"{self.decisions} decisions in {self.deals} deals"]
        if self.median_wall_ms is not None:
            parts.append(f"median wall {self.median_wall_ms:.1f} ms")
        if self.median_wait_ms is not None:
            parts.append(f"median wait {self.median_wait_ms:.1f} ms")
        figures = [f"{name} {value:.2f} bits a move" for name, value in
                   (("cpu", self.cpu_bits), ("wait", self.wait_bits)) if value is not None]
        figures.append(f"hand |r| {self.hand_r:.2f} ({self.hand_feature}), "
                       f"{self.hand_bits:.2f} bits, p {self.hand_p:.4f}")
        return f"{', '.join(parts)}: {'; '.join(figures)}: {verdict}"


def think_time_check(matches: Iterable[SideTimes], *, spread_bits: float = SPREAD_BITS,
                     permutations: int = PERMUTATIONS, seed: int = 0) -> Verdict:
    """Over one bot's matches: do its think times say more than the public situation of
    each decision explains? Pure: the same matches give the same verdict. Wall or counted
    times missing from any match are left out of every match. `spread_bits`: the cpu and
    wait spreads flagged (SPREAD_BITS holds on a host at ten times its cores' load; a worker
    whose honest bots spread less may ask for less)."""
    rows = _Rows.of(matches)
    public = [_public(d) for d in rows.decisions]
    cpu_bits = wait_bits = median_wall = median_wait = None
    if rows.counted is not None:
        cpu_bits = _entropy_bits(_residuals(public, [_steps(c) for c in rows.counted]))
    if rows.walls is not None:
        counted = rows.counted or [0.0] * len(rows.walls)
        waits = [_wait(w, c) for w, c in zip(rows.walls, counted, strict=True)]
        wait_bits, median_wait = _wait_bits(waits), _median(waits)
        median_wall = _median(rows.walls)
    timed = rows.walls if rows.walls is not None else rows.counted
    if timed is None:
        raise ValueError("neither wall nor counted times are given for every match")
    residual = _residuals(public, [_steps(t) for t in timed])
    hand = _hand_test(rows.decisions, rows.match, residual, permutations,
                      random.Random(seed))
    verdict = Verdict(
        decisions=len(rows.decisions), deals=hand.blocks, cpu_bits=cpu_bits,
        wait_bits=wait_bits, hand_r=hand.r, hand_feature=hand.feature, hand_bits=hand.bits,
        hand_p=hand.p, median_wall_ms=median_wall, median_wait_ms=median_wait)
    for name, bits in (("cpu", cpu_bits), ("wait", wait_bits)):
        if bits is not None and bits >= spread_bits:
            verdict.reasons.append(f"{name} spread {bits:.2f} >= {spread_bits} bits a move")
    if hand.p <= HAND_ALPHA and hand.bits >= HAND_MIN_BITS:
        verdict.reasons.append(f"hand feature {hand.feature}: p {hand.p:.4f}, "
                               f"{hand.bits:.2f} bits")
    verdict.flagged = bool(verdict.reasons)
    return verdict


@dataclass
class _Rows:
    """Every decision of the bot's matches, with the match it is in and its times."""

    decisions: list[Decision]
    match: list[int]
    walls: list[float] | None
    counted: list[float] | None

    @classmethod
    def of(cls, matches: Iterable[SideTimes]) -> _Rows:
        rows = cls([], [], [], [])
        for number, one in enumerate(matches):
            times = one.wall_ms if one.wall_ms is not None else one.counted_ms
            if times is None:
                raise ValueError("a match without times")
            pairs = aligned(one.replay, one.side, times)
            rows.decisions += [d for d, _ in pairs]
            rows.match += [number] * len(pairs)
            rows.walls = _extend(rows.walls, one.wall_ms, len(pairs))
            rows.counted = _extend(rows.counted, one.counted_ms, len(pairs))
        if len(rows.decisions) < 20:
            raise ValueError(f"{len(rows.decisions)} decisions: too few to tell anything")
        return rows


def _extend(so_far: list[float] | None, times: Sequence[float] | None,
            count: int) -> list[float] | None:
    if so_far is None or times is None:
        return None
    if len(times) < count:
        raise ValueError("a match's wall and counted times differ in number")
    return so_far + [float(t) for t in times[:count]]


def _steps(ms: float, rel: float = REL) -> float:
    """The time in steps a partner's clock tells apart: ABS_MS each at short times, `rel` of
    the time at long ones (d/dt of this is 1 / (ABS_MS + rel * t))."""
    return math.log(max(ms, 0.0) + ABS_MS / rel) / rel


def _wait(wall: float, counted: float) -> float:
    """Wall time that is neither the seat's CPU time nor, within STRETCH times it, time
    spent waiting for a core: what a seat that sleeps (or blocks) on purpose adds."""
    return max(0.0, wall - STRETCH * counted)


def _wait_bits(waits: list[float]) -> float:
    """Entropy of the waits: one bin under WAIT_FLOOR_MS (a round trip and the host's
    hiccups), then steps of ABS_MS + WAIT_REL of the time; averaged over where the cuts
    fall. A sleeping sender's symbols blur by the host's latency, whatever their length."""
    origin = _steps(0.0, WAIT_REL)
    return _entropy_bits([None if w < WAIT_FLOOR_MS
                          else _steps(w - WAIT_FLOOR_MS, WAIT_REL) - origin for w in waits])


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _public(d: Decision) -> list[float]:
    """What a decision's time may depend on in the open: its kind, how many legal actions
    (and whether it is forced), the trick and the place in it, the bids before it, and the
    seat's first decision of a game (a process warming up)."""
    row = [1.0, math.log(d.legal) if d.legal > 0 else 0.0, float(d.legal == 1), float(d.first)]
    row += [float(d.kind == kind) for kind in ("misdeal", "trump", "discard", "play")]
    row += [float(d.kind == "play" and d.trick == n) for n in range(1, 8)]
    row += [float(d.kind == "play" and d.place == n) for n in range(1, 4)]
    row += [float(d.kind == "bid" and d.place == n) for n in range(1, 4)]
    return row


def _residuals(rows: list[list[float]], y: list[float]) -> list[float]:
    """y less its least-squares fit on rows (a column that never varies is dropped)."""
    width = len(rows[0])
    keep = [j for j in range(width) if j == 0 or len({row[j] for row in rows}) > 1]
    x = [[row[j] for j in keep] for row in rows]
    beta = _least_squares(x, y)
    return [yi - sum(b * v for b, v in zip(beta, xi, strict=True))
            for xi, yi in zip(x, y, strict=True)]


def _least_squares(x: list[list[float]], y: list[float]) -> list[float]:
    """Normal equations with a whisker of ridge (collinear dummies stay solvable)."""
    p = len(x[0])
    a = [[sum(row[i] * row[j] for row in x) for j in range(p)] for i in range(p)]
    b = [sum(row[i] * yi for row, yi in zip(x, y, strict=True)) for i in range(p)]
    for i in range(p):
        a[i][i] += 1e-6 * (a[i][i] + 1.0)
    for col in range(p):  # Gaussian elimination with partial pivoting
        pivot = max(range(col, p), key=lambda r: abs(a[r][col]))
        a[col], a[pivot], b[col], b[pivot] = a[pivot], a[col], b[pivot], b[col]
        for r in range(col + 1, p):
            f = a[r][col] / a[col][col]
            if f:
                a[r] = [v - f * w for v, w in zip(a[r], a[col], strict=True)]
                b[r] -= f * b[col]
    beta = [0.0] * p
    for i in range(p - 1, -1, -1):
        beta[i] = (b[i] - sum(a[i][j] * beta[j] for j in range(i + 1, p))) / a[i][i]
    return beta


def _entropy_bits(values: Sequence[float | None]) -> float:
    """Entropy of values cut in whole steps (None: a bin of its own), averaged over four
    places of the cuts."""
    total = 0.0
    n = len(values)
    for offset in (0.0, 0.25, 0.5, 0.75):
        counts: dict[int | None, int] = {}
        for v in values:
            key = None if v is None else math.floor(v + offset)
            counts[key] = counts.get(key, 0) + 1
        total -= sum(c / n * math.log2(c / n) for c in counts.values())
    return total / 4


# --- the hand test --------------------------------------------------------------------------

_DECK = [CARD_OF[r + s] for s in SUITS for r in RANKS]


def _hand_features(mask: int) -> list[float]:
    cards = [float(mask >> c & 1) for c in _DECK]
    suits = [float(bin(mask >> (10 * s) & 1023).count("1")) for s in range(4)]
    ranks = [float(sum(mask >> (10 * s + r) & 1 for s in range(4))) for r in (9, 8, 7, 6)]
    strength = sum((1.0, 0.6, 0.3)[9 - r] for s in range(4) for r in (9, 8, 7)
                   if mask >> (10 * s + r) & 1)
    return [*cards, *suits, *ranks, strength]


_FEATURE_NAMES = ([f"holds {RANKS[c % 10]}{SUITS[c // 10]}" for c in _DECK]
                  + [f"{s} length" for s in SUITS]
                  + ["aces", "kings", "queens", "jacks", "strength"])
MOVES = 10  # the seat's moves of a deal looked at one by one: a bid, a trump, eight cards


@dataclass
class _Hand:
    r: float
    feature: str
    bits: float
    p: float
    blocks: int


def _hand_test(decisions: list[Decision], match: list[int], residual: list[float],
               permutations: int, rng: random.Random) -> _Hand:
    """Deals (a seat's decisions in one deal: one dealt hand) are the units. For each of
    the seat's moves of a deal (0, 1, ... and their mean) the residuals' ranks across
    deals, and for each feature of the dealt hand their correlation; the largest |r|, and
    how often moving whole hands at random between deals gives one as large."""
    blocks: dict[tuple[int, int, int, int], dict[int, float]] = {}
    hands: dict[tuple[int, int, int, int], int] = {}
    for d, m, r in zip(decisions, match, residual, strict=True):
        key = (m, d.game, d.deal, d.seat)
        blocks.setdefault(key, {})[d.move] = r
        hands[key] = d.dealt
    keys = list(blocks)
    if len(keys) < 8:
        return _Hand(r=0.0, feature="too few deals", bits=0.0, p=1.0, blocks=len(keys))
    table = [_hand_features(hands[k]) for k in keys]
    features = [(f, column) for f, values in enumerate(zip(*table, strict=True))
                if (column := _standardised(values)) and any(column)]
    columns = _move_columns([blocks[k] for k in keys])
    best, where = _best([c for _, c in features], columns, list(range(len(keys))))
    above = 0
    order = list(range(len(keys)))
    for _ in range(permutations):
        rng.shuffle(order)
        if _best([c for _, c in features], columns, order)[0] >= best - 1e-9:
            above += 1
    f, move = features[where[0]][0], columns[where[1]][0]
    bits = -0.5 * math.log2(max(1e-12, 1 - best * best))
    label = f"{_FEATURE_NAMES[f]}, " + ("mean of the deal" if move < 0 else f"move {move}")
    return _Hand(r=best, feature=label, bits=bits, p=(above + 1) / (permutations + 1),
                 blocks=len(keys))


def _standardised(values: Sequence[float]) -> list[float]:
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
    return [(v - mean) / sd if sd > 0 else 0.0 for v in values]


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    for rank, i in enumerate(order):
        ranks[i] = float(rank)
    return ranks


def _move_columns(blocks: list[dict[int, float]]) -> list[tuple[int, list[float]]]:
    """Per move (-1: the deal's mean) the residuals' standardised ranks, deal by deal; a
    deal without that move counts as the middle rank (its column correlates only
    through the deals that have it). Moves fewer than 8 deals reach are left out."""
    columns = []
    for move in range(-1, MOVES):
        values = [sum(b.values()) / len(b) if move < 0 else b.get(move) for b in blocks]
        present = [v for v in values if v is not None]
        if len(present) < 8:
            continue
        ranks = iter(_standardised(_ranks(present)))
        columns.append((move, [next(ranks) if v is not None else 0.0 for v in values]))
    return columns


def _best(features: list[list[float]], columns: list[tuple[int, list[float]]],
          order: list[int]) -> tuple[float, tuple[int, int]]:
    """The largest |correlation| of a feature, its deals taken in `order`, with a column."""
    n = len(order)
    best, where = 0.0, (0, 0)
    for f, feature in enumerate(features):
        moved = [feature[i] for i in order]
        for c, (_, values) in enumerate(columns):
            r = abs(sum(map(operator.mul, moved, values))) / n
            if r > best:
                best, where = r, (f, c)
    return best, where


# --- the operator's command ------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """python -m engine.kaiser.think_time MATCHES.jsonl [--per-process]: one line a match of the
    bot, {"replay": {...}, "side": "A", "wall_ms": [...], "counted_ms": [...]} (either list may be
    null); --per-process: the lists are process by process, a fresh process a game (as the
    site's RecordingFactory.decision_ms() gives them), not in the engine's order. Prints
    the verdict; exits 1 if the bot is flagged."""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m engine.kaiser.think_time",
                                     description=main.__doc__)
    parser.add_argument("matches", help="a JSON Lines file, one match of the bot a line")
    parser.add_argument("--per-process", action="store_true")
    parser.add_argument("--spread-bits", type=float, default=SPREAD_BITS)
    args = parser.parse_args(argv)
    found = []
    with open(args.matches, encoding="utf-8") as handle:
        for line in filter(str.strip, handle):
            one = json.loads(line)
            replay, side = one["replay"], one["side"]
            times = [one.get("wall_ms"), one.get("counted_ms")]
            if args.per_process:
                times = [None if t is None else engine_order(replay, side, t, per_game=True)
                         for t in times]
            found.append(SideTimes(replay, side, times[0], times[1]))
    verdict = think_time_check(found, spread_bits=args.spread_bits)
    print(verdict.summary())
    return 1 if verdict.flagged else 0


if __name__ == "__main__":
    raise SystemExit(main())
