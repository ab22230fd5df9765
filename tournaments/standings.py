"""The rules of a tournament's standings, rows in and table out: each side's share of a match
(any number of players), the match points it earns, the table with its tie-breaks, who goes
through a knockout round, the final ranking and how many matches a format plays.

Plain data and functions, like ladder/ratings.py: no Django, no database (the reads are
tournaments.selectors', the words tournaments.words'). Architecture invariant: this module
imports nothing of Django (tests/architecture/test_tournament_standings.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import NamedTuple

from tournaments import triples

# The formats, as Tournament.Format stores them (tournaments.models takes its values from here).
ROUND_ROBIN, SWISS, KNOCKOUT = "round_robin", "swiss", "knockout"
UNSEEDED = 10**6  # sorts after every seed


class SideRow(NamedTuple):
    """One side of a match (a MatchSide): its version, games won, points (where the game
    scores sides, or a walkover's share of the games) and fault. A tuple: a page reads
    hundreds."""

    version_id: int
    games: int | None = None
    points: float | None = None
    fault: str = ""


@dataclass  # (not frozen: a frozen dataclass's init costs a page hundreds of setattr calls)
class MatchRow:
    """One match of a tournament as the standings read it. `ended`: it counts in the table
    (finished, walkover, void or failed); `played`: it was played to its end (a replay holds
    its tie-breaks); `score`: A's share, where the game keeps no points by side."""

    id: int
    round: int
    position: int | None
    status: str
    ended: bool
    played: bool
    score: float | None
    sides: tuple[SideRow, ...]

    @property
    def versions(self) -> list[int]:
        return [side.version_id for side in self.sides]

    @cached_property
    def shares(self) -> list[float]:
        """shares(self), worked out once (a page asks for each cell, each side)."""
        return _shares(self)


@dataclass
class TableRow:
    version_id: int
    name: str
    seed: int | None
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    points: float = 0.0
    games_won: int = 0
    buchholz: float = 0.0
    opponents: list[int] = field(default_factory=list)
    eliminated_round: int | None = None
    final_rank: int | None = None
    bot_id: int | None = None
    withdrawn: bool = False
    version_number: int | None = None


def shares(match: MatchRow) -> list[float]:
    """Each side's share of the match (MatchRow.shares, worked out once)."""
    return match.shares


def _shares(match: MatchRow) -> list[float]:
    """Each side's share of the match, adding up to 1: of its points where the sides have
    points, else of the games (A's is `score`, two sides); even for a match without a result
    (void, failed)."""
    n = len(match.sides)
    points = [side.points or 0.0 for side in match.sides]
    total = sum(points)
    if total > 0:
        return [p / total for p in points]
    if match.score is not None and n == 2:
        return [match.score, 1.0 - match.score]
    return [1 / n] * n


def match_points(match: MatchRow) -> list[float]:
    """What each side earns in the table. Two sides: the match's outcome (a win 1, a draw or
    an unplayed match ½, a loss 0); more: its share, which a single match point could not
    tell apart (topped alone, second, last)."""
    share = shares(match)
    if len(share) != 2:
        return share
    return [1.0 if s > 0.5 else 0.0 if s < 0.5 else 0.5 for s in share]


def table(entrants: Sequence[TableRow], matches: Sequence[MatchRow], byes: Sequence[int], *,
          bye_points: float) -> list[TableRow]:
    """The standings: match points (a bye `bye_points`), then Buchholz (the points of the
    opponents met), then games won, then seed. A win is a match topped alone, a draw one
    topped jointly. `entrants`: the entrants' rows (the table fills copies); `byes`: the
    version of each bye."""
    rows = {row.version_id: replace(row, opponents=[]) for row in entrants}
    for match in matches:
        if match.ended:
            _tally(rows, match)
    for version_id in byes:
        rows[version_id].byes += 1
        rows[version_id].points += bye_points
    for row in rows.values():
        row.points = round(row.points, 6)
        row.buchholz = round(sum(rows[o].points for o in row.opponents), 6)
    return sorted(rows.values(), key=lambda r: (-r.points, -r.buchholz, -r.games_won,
                                                r.seed or UNSEEDED))


def _tally(rows: dict[int, TableRow], match: MatchRow) -> None:
    share, earned, versions = shares(match), match_points(match), match.versions
    top = max(share)
    for i, side in enumerate(match.sides):
        row = rows[side.version_id]
        row.played += 1
        row.points += earned[i]
        row.games_won += side.games or 0
        row.opponents.extend(v for v in versions if v != side.version_id)
        first = share[i] == top
        alone = first and share.count(top) == 1
        row.wins += alone
        row.draws += first and not alone
        row.losses += not first


def tied(match: MatchRow) -> bool:
    """Two sides share a place: the order needs the game's tie-break (read from the replay)."""
    share = shares(match)
    return len(set(share)) < len(share)


def group_order(match: MatchRow, seeds: Mapping[int, int],
                tiebreak: Mapping[str, float]) -> list[int]:
    """A knockout match's sides, first first: the biggest share, then the game's tie-break
    (`tiebreak`, by side letter: Kaiser's game points, Sergeant Major's ups; only a match
    played to its end has one), then the better seed."""
    share = shares(match)
    order = sorted(range(len(match.sides)), key=lambda i: (
        -share[i], -tiebreak.get(letter(i), 0.0), seeds[match.sides[i].version_id]))
    return [match.sides[i].version_id for i in order]


def letter(order: int) -> str:
    """A side's letter from its place in the match (matches.models.side_letter)."""
    return chr(ord("A") + order)


@dataclass(frozen=True)
class BracketResult:
    position: int
    winner: int
    loser: int | None


def knockout_results(matches: Sequence[MatchRow], byes: Sequence[tuple[int | None, int]],
                     seeds: Mapping[int, int],
                     tiebreaks: Mapping[int, Mapping[str, float]]) -> list[BracketResult]:
    """Who goes through from each place of a two-player knockout round, in bracket order.
    `byes`: (place, version); `tiebreaks`: the game's, by match id (for the tied ones)."""
    out = [BracketResult(position or 0, version_id, None) for position, version_id in byes]
    for match in matches:
        winner, loser = group_order(match, seeds, tiebreaks.get(match.id, {}))
        out.append(BracketResult(match.position or 0, winner, loser))
    return sorted(out, key=lambda r: r.position)


def groups_results(matches: Sequence[MatchRow], byes: Sequence[int], seeds: Mapping[int, int],
                   tiebreaks: Mapping[int, Mapping[str, float]]) -> tuple[list[int], list[int]]:
    """A knockout round in groups of three: (who goes through, who goes out). A group sends
    its first through (its first two in the group that sends two: triples.knockout_groups);
    a bye goes through."""
    through = list(byes)
    players = sorted(through + [v for m in matches for v in m.versions], key=lambda v: seeds[v])
    advance = {frozenset(g.members): g.advance
               for g in triples.knockout_groups(players=players) if not g.bye}
    out: list[int] = []
    for match in sorted(matches, key=lambda m: m.position or 0):
        order = group_order(match, seeds, tiebreaks.get(match.id, {}))
        count = advance.get(frozenset(order), 1)
        through += order[:count]
        out += order[count:]
    return through, out


def ranking(rows: Sequence[TableRow], *, knockout: bool) -> list[int]:
    """The final order of the entrants' versions from the table: its order, or for a knockout
    how far each went (the champion first), then the table."""
    if not knockout:
        return [r.version_id for r in rows]
    position = {r.version_id: i for i, r in enumerate(rows)}
    return [r.version_id for r in sorted(rows, key=lambda r: (
        -(r.eliminated_round or UNSEEDED), position[r.version_id]))]


def shown_order(rows: list[TableRow], *, knockout: bool, finished: bool) -> None:
    """The page's order of the table, in place: a knockout's still in first, then how far
    each went; a finished tournament's by its final ranking."""
    if knockout:
        rows.sort(key=lambda r: (r.final_rank or UNSEEDED, -(r.eliminated_round or UNSEEDED),
                                 r.seed or UNSEEDED))
    elif finished:
        rows.sort(key=lambda r: r.final_rank or UNSEEDED)


def matches_total(*, format: str, players: int, entrants: int, rounds: int, finished: bool,
                  made: int, done: int) -> int:
    """How many matches the tournament plays in all: those made once it is finished (a Swiss
    may stop early when no pairing is left), else what its format will play; never fewer
    than those done."""
    if finished:
        total = made
    elif players > 2:
        total = _groups_total(format, entrants, rounds)
    elif format == ROUND_ROBIN:
        total = rounds * entrants * (entrants - 1) // 2
    elif format == SWISS:
        total = rounds * (entrants // 2)
    else:
        total = max(entrants - 1, 0)  # every match of a knockout knocks one entrant out
    return max(total, done)


def _groups_total(format: str, n: int, rounds: int) -> int:
    """The matches of three a tournament of n entrants will play."""
    if n < 3:
        return 0
    if format == ROUND_ROBIN:
        return rounds * len(triples.balanced_triples(n))
    if format == SWISS:
        return rounds * (n // 3)
    return sum(not g.bye for groups in triples.knockout_plan(n) for g in groups)
