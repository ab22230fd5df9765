"""What the tournament page and its downloads show, put together from the tournament's rows
(tournaments.selectors.tournament_read), its standings (tournaments.standings) and their
words (tournaments.words): the crosstable, the bracket or the rounds, the results as rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tournaments import standings, triples, words
from tournaments.models import Tournament
from tournaments.selectors import TournamentRead, read_progress, tournament_read, tournament_table
from tournaments.standings import MatchRow, TableRow


@dataclass
class Side:
    version_id: int
    name: str
    bot_id: int | None
    games: int | None = None
    won: bool = False
    points: float | None = None  # where the game scores each side


@dataclass
class Bout:
    """One pairing: a match (with its id) and its sides, a bye, or a place still to be
    decided (no sides)."""

    sides: list[Side] = field(default_factory=list)
    match_id: int | None = None
    status: str = ""
    fault: str = ""
    bye: bool = False


@dataclass
class Column:
    number: int
    title: str
    bouts: list[Bout] = field(default_factory=list)


@dataclass
class Cell:
    """The crosstable: one row's matches against one column's bot, from the row's side."""

    links: list[tuple[int, str, str]] = field(default_factory=list)  # (match id, text, outcome)
    self_cell: bool = False


@dataclass
class TournamentView:
    tournament: Tournament
    table: list[TableRow]
    progress: dict[str, int]
    columns: list[Column]
    crosstable: list[tuple[TableRow, list[Cell]]]
    champion: TableRow | None
    matches: list[MatchRow]
    byes: list[tuple[int, int | None, int]]  # (round, place, version id)


def _side(row: TableRow | None, version_id: int, games: int | None = None) -> Side:
    return Side(version_id, row.name if row else "?", row.bot_id if row else None, games)


def _bout(m: MatchRow, rows: dict[int, TableRow]) -> Bout:
    """A match: each side with its games won and, in a match of more than two, the points it
    earns in the standings (its share: the table's unit, not the game's own points); the top
    share won (unless all tied), once it ended with a result."""
    sides = [_side(rows.get(s.version_id), s.version_id, s.games) for s in m.sides]
    share = standings.shares(m)
    top = max(share)
    result = (m.played or m.status == words.WALKOVER) and share.count(top) < len(share)
    for i, side in enumerate(sides):
        side.won = result and share[i] == top
        if len(sides) > 2 and (m.played or m.status == words.WALKOVER):
            side.points = round(standings.match_points(m)[i], 3)
    return Bout(sides, m.id, m.status, words.fault_text(m))


def _bye(rows: dict[int, TableRow], version_id: int, through: bool = False) -> Bout:
    side = _side(rows.get(version_id), version_id)
    side.won = through
    return Bout([side], bye=True)


def _places(read: TournamentRead, rows: dict[int, TableRow]) -> dict[tuple[int, int], Bout]:
    """Each place of a knockout: its match (once its round is over, those who went through
    marked: not eliminated in it) or its bye (through)."""
    places: dict[tuple[int, int], Bout] = {}
    for m in read.matches:
        bout = _bout(m, rows)
        out = [rows[side.version_id].eliminated_round == m.round for side in bout.sides]
        if m.ended and any(out):  # the round is over: its tie-breaks have spoken
            for side, gone in zip(bout.sides, out, strict=True):
                side.won = not gone
        places[(m.round, m.position or 0)] = bout
    for number, position, version_id in read.byes:
        places[(number, position or 0)] = _bye(rows, version_id, through=True)
    return places


def _knockout_columns(read: TournamentRead, rows: dict[int, TableRow]) -> list[Column]:
    """Rounds as columns, each with every place of the bracket: its match, its bye, or a place
    still to be decided."""
    size = 1
    while size < len(rows):
        size *= 2
    places = _places(read, rows)
    columns = []
    for number in range(1, max(size.bit_length() - 1, 1) + 1):
        count = size >> number
        columns.append(Column(number, words.knockout_round_title(number, count),
                              [places.get((number, p), Bout()) for p in range(count)]))
    return columns


def _groups_columns(read: TournamentRead, rows: dict[int, TableRow]) -> list[Column]:
    """Rounds of groups (of three) as columns: every place of the plan (knockout_plan)."""
    plan = triples.knockout_plan(len(rows))
    places = _places(read, rows)
    return [Column(number, words.groups_round_title(number, len(plan)),
                   [places.get((number, p), Bout()) for p in range(len(groups))])
            for number, groups in enumerate(plan, start=1)]


def _round_columns(read: TournamentRead, rows: dict[int, TableRow]) -> list[Column]:
    by_round: dict[int, Column] = {}
    for m in read.matches:
        by_round.setdefault(m.round, Column(m.round, words.round_title(m.round))).bouts.append(
            _bout(m, rows))
    for number, _, version_id in read.byes:
        by_round.setdefault(number, Column(number, words.round_title(number))).bouts.append(
            _bye(rows, version_id))
    return [by_round[n] for n in sorted(by_round)]


def _crosstable(table: list[TableRow], matches: list[MatchRow]
                ) -> list[tuple[TableRow, list[Cell]]]:
    """Each row's matches against each column's bot, in table order, pairwise (a match of
    three fills six cells), from the row's side and linked to the match."""
    index = {r.version_id: i for i, r in enumerate(table)}
    cells = [[Cell(self_cell=i == j) for j in range(len(table))] for i in range(len(table))]
    for m in matches:
        versions = m.versions
        if any(v not in index for v in versions):
            continue
        for x, row in enumerate(versions):
            for y, col in enumerate(versions):
                if x != y:
                    cells[index[row]][index[col]].links.append((m.id, *words.cell_text(m, x, y)))
    return [(r, cells[i]) for i, r in enumerate(table)]


def tournament_view(*, tournament: Tournament) -> TournamentView:
    """Everything the tournament page shows."""
    read = tournament_read(tournament=tournament)
    table = tournament_table(tournament=tournament, read=read)
    knockout = tournament.format == Tournament.Format.KNOCKOUT
    finished = tournament.status == Tournament.Status.FINISHED
    standings.shown_order(table, knockout=knockout, finished=finished)
    rows = {r.version_id: r for r in table}
    started = tournament.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED)
    if knockout and started:
        columns = (_groups_columns if tournament.players > 2 else _knockout_columns)(read, rows)
    else:
        columns = _round_columns(read, rows)
    crosstable = (_crosstable(table, read.matches)
                  if tournament.format == Tournament.Format.ROUND_ROBIN and started else [])
    champion = next((r for r in table if r.final_rank == 1), None) if finished else None
    return TournamentView(tournament, table, read_progress(tournament, read), columns,
                          crosstable, champion, read.matches, read.byes)


# The CSV's columns: the bot's name and its version as a person reads it ("v3"); the JSON's
# standings have the same keys and also the version's id and bare number (version_id,
# version_number).
RESULT_COLUMNS = ["rank", "bot", "bot_id", "version", "seed", "played", "wins", "draws",
                  "losses", "byes", "points", "buchholz", "games_won", "eliminated_round",
                  "withdrawn"]


def _standing(rank: int, r: TableRow) -> dict[str, Any]:
    return {
        "rank": r.final_rank or rank, "bot": r.name, "bot_id": r.bot_id,
        "version": words.version_label(r.version_number), "version_id": r.version_id,
        "version_number": r.version_number, "seed": r.seed, "played": r.played,
        "wins": r.wins, "draws": r.draws, "losses": r.losses, "byes": r.byes,
        "points": r.points, "buchholz": r.buchholz,
        "games_won": r.games_won, "eliminated_round": r.eliminated_round,
        "withdrawn": r.withdrawn,
    }


def _match(m: MatchRow, names: dict[int, str]) -> dict[str, Any]:
    """A match of the results: its sides in side order, each with its bot, version, games
    won, points (where the game scores sides) and fault."""
    return {
        "id": m.id, "round": m.round, "position": m.position, "status": m.status,
        "score": m.score,
        "sides": [{"side": standings.letter(i), "bot": names.get(s.version_id),
                   "version_id": s.version_id, "games": s.games, "points": s.points,
                   "fault": s.fault or None} for i, s in enumerate(m.sides)],
    }


def tournament_results(*, tournament: Tournament) -> dict[str, Any]:
    """The tournament, its standings (final ranking once finished), its byes and every
    match."""
    view = tournament_view(tournament=tournament)
    names = {r.version_id: r.name for r in view.table}
    t = tournament
    return {
        "tournament": {"id": t.pk, "name": t.name, "game": t.game, "format": t.format,
                       "status": t.status,
                       "rounds": t.rounds, "rules": t.rules,
                       "games_per_match": t.games_per_match, "move_ms": t.move_ms,
                       "bank_ms": t.bank_ms, "started": t.started, "finished": t.finished,
                       "champion": view.champion.name if view.champion else None},
        "standings": [_standing(i, r) for i, r in enumerate(view.table, start=1)],
        "byes": [{"round": number, "position": position, "bot": names.get(version_id),
                  "version_id": version_id} for number, position, version_id in view.byes],
        "matches": [_match(m, names) for m in view.matches],
    }
