"""The fair-play detector: does a bot's think time say more than the public situation of each
decision explains? (issues 31 and 41; docs/sandbox.md, "Think time: what a partner reads from
the clock".) Standard library only; it knows no game.

Seats are frozen between turns, but a seat reads the wall clock when it wakes, so the time
between its reply and its next message tells it how long the others took. Under the normal
clock nothing stops that, so this module looks at the sender: over a bot's matches
(`SideTimes`: a replay, the bot's side, each of its decisions' wall, counted and sleep ms in
the engine's order) it asks whether those times vary, beyond what the public situation
explains, in a way a partner's clock could read. The game of each replay (engine.games) gives
each decision's public features and its dealt hand's (`PublicDecision`, from
`Game.fairplay_decisions`); a game that offers none is read from its times alone (the wait
and sleep spreads; no cpu spread, which needs the situation to explain an honest search, and
no hand test).

Every figure is in steps a partner's clock tells apart: ABS_MS at short times, REL of the
time at long ones (u = log(t + ABS_MS / REL) / REL), so "bits a move" is the entropy of a
time cut in such steps: how many times a partner could tell apart, the most it could read.
- **cpu**: the counted (CPU) time less what a least-squares fit on the decision's public
  features explains. CPU time hardly moves with the host's load, so an honest bot's is
  nearly all explained; a bot that burns time to signal spreads it.
- **wait**: wall time less STRETCH x the counted time (a seat on move gets a third of a core
  at least: what is beyond that is not waiting for a core), in one bin under WAIT_FLOOR_MS
  and steps of ABS_MS + WAIT_REL of the wait above (a sleep blurs by the host's latency,
  not by a share of its length). An honest bot computes; a bot that sleeps to signal waits.
- **sleep**: the engine's own reading of each move's sleep (engine.clock.Move.sleep_ms: wall
  time in which the whole seat neither computed nor could have waited for a core, by the
  host's CPU pressure), binned as the waits are. It reads the wall clock itself, so a pair
  that burns a fixed CPU time and then sleeps to its symbol (its waits stay under STRETCH x
  its CPU time, issue 41) spreads it. Left out where the host gave no pressure figure.
- **hand**: the largest rank correlation between the wall (else counted) time's residuals,
  at each of the seat's first MOVES moves of a deal and their mean over the deal, and a
  feature of the dealt hand, with a permutation test that moves whole hands between deals
  (every feature and move tried is counted). It catches plain encodings (time grows with
  the trumps held) at rates the spreads miss; a scrambled encoding shows only in the spreads.
A side is flagged when cpu, wait or sleep reaches SPREAD_BITS, or when hand's p-value is at
most HAND_ALPHA with at least HAND_MIN_BITS.

`python -m engine.fairplay MATCHES.jsonl` runs it over recorded matches (main, below).
"""

from __future__ import annotations

import math
import operator
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from engine.games import game_of_replay

if TYPE_CHECKING:
    from engine.players import Player, PlayerFactory

ABS_MS = 2.0  # the step issue 31's pair and ours read a partner's time in, under gVisor
REL = 0.10  # ... and at long ones, as a share of the time
WAIT_REL = 0.01  # a wait's noise is the host's latency, hardly a share of the wait
STRETCH = 3.0  # a seat on move gets a third of a core at least (the wall backstop's premise)
WAIT_FLOOR_MS = 5.0  # waits (and sleeps) below this are a round trip and the host's hiccups
SPREAD_BITS = 2.5  # flagged at or above: bits a move, cpu, wait or sleep
HAND_ALPHA = 0.001
HAND_MIN_BITS = 0.25
PERMUTATIONS = 999
MOVES = 10  # a seat's first moves of a deal looked at one by one (Kaiser: a bid, a trump, 8 cards)
MIN_DECISIONS = 20
FORFEIT_EXTRA = 4  # times a forfeit may leave past the replay: an unfinished trick, the fault


@dataclass(frozen=True, slots=True)
class PublicDecision:
    """One decision of a side as its game describes it from the replay: where it is (the
    game of the match, the deal in it, the seat: a block is one dealt hand), its index among
    that seat's decisions of the deal, the public features its time may follow in the open
    (floats, without a constant), and the features of the seat's dealt hand (the same for
    every decision of a block; None where the game gives none) with their names."""

    game: int
    deal: int
    seat: int
    move: int
    features: tuple[float, ...]
    hand: tuple[float, ...] | None = None
    hand_names: tuple[str, ...] = ()

    @property
    def block(self) -> tuple[int, int, int]:
        return self.game, self.deal, self.seat


@dataclass(frozen=True)
class SideTimes:
    """One match of the bot: the replay, the bot's side, and the times of that side's
    decisions in the engine's order: wall ms (message written to reply read), counted ms
    (its CPU time, as the engine charges it) and sleep ms (engine.clock.DecisionTime; None
    for a decision, or the whole match, where the host gave no pressure figure). A list may
    be None when not recorded."""

    replay: dict[str, Any]
    side: str
    wall_ms: Sequence[float] | None
    counted_ms: Sequence[float] | None
    sleep_ms: Sequence[float | None] | None = None


@dataclass
class Verdict:
    """What fairplay_check found for one side over its matches."""

    decisions: int
    deals: int
    cpu_bits: float | None  # spread of the counted time beyond the public features
    wait_bits: float | None  # spread of the waits (wall time neither computing nor queued)
    sleep_bits: float | None  # spread of the engine's sleep figure (PSI)
    hand_r: float  # the largest |rank correlation| with a hand feature
    hand_feature: str
    hand_bits: float  # -log2(1 - r^2) / 2 there: bits a move, read as a Gaussian channel
    hand_p: float  # permutation p-value of hand_r (every feature and move tried counted)
    median_wall_ms: float | None
    median_wait_ms: float | None
    median_sleep_ms: float | None
    flagged: bool = False
    reasons: list[str] = field(default_factory=list)

    @property
    def bits(self) -> float | None:
        """The widest spread, bits a move (the one-line figure), if any was measured."""
        spreads = [b for b in (self.cpu_bits, self.wait_bits, self.sleep_bits) if b is not None]
        return max(spreads) if spreads else None

    def to_dict(self) -> dict[str, Any]:
        """The figures as JSON (the site stores them), `bits` with them."""
        return {**asdict(self), "bits": self.bits}

    def summary(self) -> str:
        verdict = "FLAGGED (" + "; ".join(self.reasons) + ")" if self.flagged else "passes"
        parts = [f"{self.decisions} decisions in {self.deals} deals"]
        for name, value in (("wall", self.median_wall_ms), ("wait", self.median_wait_ms),
                            ("sleep", self.median_sleep_ms)):
            if value is not None:
                parts.append(f"median {name} {value:.1f} ms")
        figures = [f"{name} {value:.2f} bits a move" for name, value in
                   (("cpu", self.cpu_bits), ("wait", self.wait_bits),
                    ("sleep", self.sleep_bits)) if value is not None]
        figures.append(f"hand |r| {self.hand_r:.2f} ({self.hand_feature}), "
                       f"{self.hand_bits:.2f} bits, p {self.hand_p:.4f}")
        return f"{', '.join(parts)}: {'; '.join(figures)}: {verdict}"


def fairplay_check(matches: Iterable[SideTimes], *, spread_bits: float = SPREAD_BITS,
                   permutations: int = PERMUTATIONS, seed: int = 0) -> Verdict:
    """Over one bot's matches (of one game): do its think times say more than the public
    situation of each decision explains? Pure: the same matches give the same verdict. Wall,
    counted or sleep times missing from any match are left out of every match. ValueError
    for too few decisions, times that do not fit a replay, or matches of several games.
    `spread_bits`: the spreads flagged (SPREAD_BITS holds on a host at ten times its cores'
    load; a worker whose honest bots spread less may ask for less)."""
    rows = _Rows.of(matches)
    verdict = Verdict(
        decisions=rows.count, deals=0, cpu_bits=None, wait_bits=None, sleep_bits=None,
        hand_r=0.0, hand_feature="not offered by the game", hand_bits=0.0, hand_p=1.0,
        median_wall_ms=None, median_wait_ms=None, median_sleep_ms=None)
    _spreads(verdict, rows)
    if rows.decisions is not None:
        _hand(verdict, rows, permutations, random.Random(seed))
    for name, bits in (("cpu", verdict.cpu_bits), ("wait", verdict.wait_bits),
                       ("sleep", verdict.sleep_bits)):
        if bits is not None and bits >= spread_bits:
            verdict.reasons.append(f"{name} spread {bits:.2f} >= {spread_bits} bits a move")
    if verdict.hand_p <= HAND_ALPHA and verdict.hand_bits >= HAND_MIN_BITS:
        verdict.reasons.append(f"hand feature {verdict.hand_feature}: p {verdict.hand_p:.4f},"
                               f" {verdict.hand_bits:.2f} bits")
    verdict.flagged = bool(verdict.reasons)
    return verdict


def _spreads(verdict: Verdict, rows: _Rows) -> None:
    """The cpu, wait and sleep spreads and the medians, where their times are given."""
    if rows.counted is not None and rows.decisions is not None:
        verdict.cpu_bits = _entropy_bits(_residuals(rows.public(), [_steps(c)
                                                                    for c in rows.counted]))
    if rows.walls is not None:
        counted = rows.counted or [0.0] * len(rows.walls)
        waits = [_wait(w, c) for w, c in zip(rows.walls, counted, strict=True)]
        verdict.wait_bits, verdict.median_wait_ms = _floor_bits(waits), _median(waits)
        verdict.median_wall_ms = _median(rows.walls)
    sleeps = [s for s in rows.sleeps or () if s is not None]
    if len(sleeps) >= MIN_DECISIONS:
        verdict.sleep_bits, verdict.median_sleep_ms = _floor_bits(sleeps), _median(sleeps)


def _hand(verdict: Verdict, rows: _Rows, permutations: int, rng: random.Random) -> None:
    timed = rows.walls if rows.walls is not None else rows.counted
    if timed is None:
        raise ValueError("neither wall nor counted times are given for every match")
    residual = _residuals(rows.public(), [_steps(t) for t in timed])
    assert rows.decisions is not None
    hand = _hand_test(rows.decisions, rows.match, residual, permutations, rng)
    verdict.deals, verdict.hand_r, verdict.hand_feature = hand.blocks, hand.r, hand.feature
    verdict.hand_bits, verdict.hand_p = hand.bits, hand.p


# --- the matches' rows ------------------------------------------------------------------------


def side_decisions(replay: dict[str, Any], side: str) -> list[PublicDecision] | None:
    """The side's decisions in the match as its game describes them, in the engine's order;
    None for a game that offers no features (engine.games.Game.fairplay_decisions)."""
    return game_of_replay(replay).fairplay_decisions(replay, side)


def aligned_count(replay: dict[str, Any], decisions: int, times: int) -> int:
    """How many of the times are the replay's decisions. The counts must agree, except that
    a match a forfeit ended may have a few more times at the end (the unfinished trick's
    moves and the faulty one, which a replay does not keep)."""
    extra = times - decisions
    forfeit = replay.get("result", {}).get("forfeit")
    if extra and not (forfeit is not None and 0 < extra <= FORFEIT_EXTRA):
        raise ValueError(f"the side made {decisions} decisions in the replay but {times} "
                         f"times were given")
    return decisions


@dataclass
class _Rows:
    """Every decision of the bot's matches, with the match it is in and its times."""

    decisions: list[PublicDecision] | None
    match: list[int]
    walls: list[float] | None
    counted: list[float] | None
    sleeps: list[float | None] | None
    game: str | None = None

    @property
    def count(self) -> int:
        return len(self.match)

    @classmethod
    def of(cls, matches: Iterable[SideTimes]) -> _Rows:
        rows = cls([], [], [], [], [])
        for number, one in enumerate(matches):
            rows._add(number, one)
        if rows.count < MIN_DECISIONS:
            raise ValueError(f"{rows.count} decisions: too few to tell anything")
        return rows

    def _add(self, number: int, one: SideTimes) -> None:
        times = one.wall_ms if one.wall_ms is not None else one.counted_ms
        if times is None:
            raise ValueError("a match without times")
        game = str(one.replay.get("format"))
        if self.game not in (None, game):
            raise ValueError(f"matches of two games ({self.game}, {game}): check one at once")
        self.game = game
        found = side_decisions(one.replay, one.side)
        if found is None:
            self.decisions, count = None, len(times)
        else:
            count = aligned_count(one.replay, len(found), len(times))
            if self.decisions is not None:
                self.decisions += found
        self.match += [number] * count
        self.walls = _extend(self.walls, one.wall_ms, count)
        self.counted = _extend(self.counted, one.counted_ms, count)
        self.sleeps = _extend(self.sleeps, one.sleep_ms, count)

    def public(self) -> list[list[float]]:
        """Each decision's public row: a constant, then its game's features."""
        assert self.decisions is not None
        return [[1.0, *d.features] for d in self.decisions]


def _extend(so_far: list[Any] | None, times: Sequence[Any] | None, count: int) -> list[Any] | None:
    if so_far is None or times is None:
        return None
    if len(times) < count:
        raise ValueError("a match's wall, counted and sleep times differ in number")
    return so_far + [None if t is None else float(t) for t in times[:count]]


def engine_order(replay: dict[str, Any], side: str, times: Sequence[Any]) -> list[Any]:
    """Times listed process by process, a fresh process for each seat of each game (each
    process's decisions in order: what concatenating each player's times gives) put back in
    the engine's order."""
    decisions = side_decisions(replay, side)
    if decisions is None:
        raise ValueError("the game offers no decisions to put the times in order by")
    if len(times) != len(decisions):
        raise ValueError(f"side {side} made {len(decisions)} decisions in the replay but "
                         f"{len(times)} times were given")
    order = sorted(range(len(decisions)),
                   key=lambda i: (decisions[i].game, decisions[i].seat, i))
    result: list[Any] = [None] * len(times)
    for value, index in zip(times, order, strict=True):
        result[index] = value
    return result


class RecordedSide:
    """A side's PlayerFactory that keeps the players it makes, so that after a match its
    decisions' times can be read as the detector reads them (what the site's
    bots.runner.RecordingFactory keeps, for the engine's tests and benches)."""

    def __init__(self, factory: PlayerFactory) -> None:
        self.factory = factory
        self.name, self.version = factory.name, factory.version
        self.players: list[Player] = []

    def __call__(self, slot: int) -> Player:
        player = self.factory(slot)
        self.players.append(player)
        return player

    def side_times(self, replay: dict[str, Any], side: str) -> SideTimes:
        """The match's SideTimes for the side: its seats' decisions sorted by when each
        message went out (a side's seats take turns: the engine's order). Sleep ms is None
        where the host gave no pressure figure for any decision."""
        merged = sorted((t for p in self.players for t in p.decision_times()),
                        key=lambda t: t.sent)
        sleeps = [t.sleep_ms for t in merged]
        return SideTimes(replay, side, [t.wall_ms for t in merged],
                         [t.counted_ms for t in merged],
                         sleeps if any(s is not None for s in sleeps) else None)

    def stderr_texts(self) -> list[str]:
        return [player.stderr_text() for player in self.players]


# --- the spreads ------------------------------------------------------------------------------


def _steps(ms: float, rel: float = REL) -> float:
    """The time in steps a partner's clock tells apart: ABS_MS each at short times, `rel` of
    the time at long ones (d/dt of this is 1 / (ABS_MS + rel * t))."""
    return math.log(max(ms, 0.0) + ABS_MS / rel) / rel


def _wait(wall: float, counted: float) -> float:
    """Wall time that is neither the seat's CPU time nor, within STRETCH times it, time
    spent waiting for a core: what a seat that sleeps (or blocks) on purpose adds."""
    return max(0.0, wall - STRETCH * counted)


def _floor_bits(waits: Sequence[float]) -> float:
    """Entropy of waits or sleeps: one bin under WAIT_FLOOR_MS (a round trip and the host's
    hiccups), then steps of ABS_MS + WAIT_REL of the time; averaged over where the cuts
    fall. A sleeping sender's symbols blur by the host's latency, whatever their length."""
    origin = _steps(0.0, WAIT_REL)
    return _entropy_bits([None if w < WAIT_FLOOR_MS
                          else _steps(w - WAIT_FLOOR_MS, WAIT_REL) - origin for w in waits])


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


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


# --- the hand test ----------------------------------------------------------------------------


@dataclass
class _HandFound:
    r: float
    feature: str
    bits: float
    p: float
    blocks: int


def _hand_test(decisions: list[PublicDecision], match: list[int], residual: list[float],
               permutations: int, rng: random.Random) -> _HandFound:
    """Deals (a seat's decisions in one deal: one dealt hand) are the units. For each of
    the seat's moves of a deal (0, 1, ... and their mean) the residuals' ranks across
    deals, and for each feature of the dealt hand their correlation; the largest |r|, and
    how often moving whole hands at random between deals gives one as large."""
    blocks: dict[tuple[int, int, int, int], dict[int, float]] = {}
    hands: dict[tuple[int, int, int, int], PublicDecision] = {}
    for d, m, r in zip(decisions, match, residual, strict=True):
        key = (m, *d.block)
        blocks.setdefault(key, {})[d.move] = r
        hands[key] = d
    keys = [k for k in blocks if hands[k].hand is not None]
    if not keys:
        return _HandFound(r=0.0, feature="not offered by the game", bits=0.0, p=1.0,
                          blocks=len(blocks))
    if len(keys) < 8:
        return _HandFound(r=0.0, feature="too few deals", bits=0.0, p=1.0, blocks=len(keys))
    table = [hands[k].hand or () for k in keys]
    names = hands[keys[0]].hand_names
    features = [(f, column) for f, values in enumerate(zip(*table, strict=True))
                if (column := _standardised(values)) and any(column)]
    columns = _move_columns([blocks[k] for k in keys])
    if not features or not columns:
        return _HandFound(r=0.0, feature="no hand feature varies", bits=0.0, p=1.0,
                          blocks=len(keys))
    best, where = _best([c for _, c in features], columns, list(range(len(keys))))
    above = 0
    order = list(range(len(keys)))
    for _ in range(permutations):
        rng.shuffle(order)
        if _best([c for _, c in features], columns, order)[0] >= best - 1e-9:
            above += 1
    f, move = features[where[0]][0], columns[where[1]][0]
    bits = -0.5 * math.log2(max(1e-12, 1 - best * best))
    name = names[f] if f < len(names) else f"hand feature {f}"
    label = f"{name}, " + ("mean of the deal" if move < 0 else f"move {move}")
    return _HandFound(r=best, feature=label, bits=bits, p=(above + 1) / (permutations + 1),
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


# --- the operator's command -------------------------------------------------------------------


def side_times_of(line: dict[str, Any], *, per_process: bool) -> SideTimes:
    """One line of the operator's file as SideTimes (put in the engine's order if its lists
    are process by process)."""
    replay, side = line["replay"], line["side"]
    times = [line.get("wall_ms"), line.get("counted_ms"), line.get("sleep_ms")]
    if per_process:
        times = [None if t is None else engine_order(replay, side, t) for t in times]
    return SideTimes(replay, side, times[0], times[1], times[2])


def public_decisions(decisions: Iterable[Any], features: Callable[[Any], tuple[float, ...]],
                     hand: Callable[[int], tuple[float, ...]],
                     hand_names: tuple[str, ...]) -> list[PublicDecision]:
    """A game's decisions (each with game, deal, seat, move and its dealt hand's mask,
    `dealt`) as the detector reads them; a hand's features are computed once a hand."""
    hands: dict[int, tuple[float, ...]] = {}
    found = []
    for d in decisions:
        if d.dealt not in hands:
            hands[d.dealt] = hand(d.dealt)
        found.append(PublicDecision(game=d.game, deal=d.deal, seat=d.seat, move=d.move,
                                    features=features(d), hand=hands[d.dealt],
                                    hand_names=hand_names))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """python -m engine.fairplay MATCHES.jsonl [--per-process]: one line a match of the bot,
    {"replay": {...}, "side": "A", "wall_ms": [...], "counted_ms": [...], "sleep_ms": [...]}
    (any list may be null or missing; a sleep may be null); --per-process: the lists are
    process by process, a fresh process for each seat of each game, not in the engine's
    order. Prints the verdict; exits 1 if the bot is flagged."""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m engine.fairplay", description=main.__doc__)
    parser.add_argument("matches", help="a JSON Lines file, one match of the bot a line")
    parser.add_argument("--per-process", action="store_true")
    parser.add_argument("--spread-bits", type=float, default=SPREAD_BITS)
    args = parser.parse_args(argv)
    with open(args.matches, encoding="utf-8") as handle:
        found = [side_times_of(json.loads(line), per_process=args.per_process)
                 for line in handle if line.strip()]
    verdict = fairplay_check(found, spread_bits=args.spread_bits)
    print(verdict.summary())
    return 1 if verdict.flagged else 0


if __name__ == "__main__":
    raise SystemExit(main())
