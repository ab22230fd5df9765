"""Reads of tournaments: the crosstable (round robin), the standings with their tie-breaks,
the drawn bracket (knockout), the results as rows, progress, the tournaments open for entry,
and a bot's tournament history.

A tournament page is a fixed handful of queries whatever its size: the entrants and the
matches are read once as plain values (tournament_table's), and everything shown is worked
out from them here."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Count, Q
from django.utils import timezone

from bots.models import Bot, BotVersion
from matches.models import Match
from tournaments import triples
from tournaments.models import Tournament, TournamentBye, TournamentEntrant, bye_points


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


def _outcome(score: float | None) -> float:
    """Match points of side A: a win 1, a draw 0.5 (also a void match), a loss 0."""
    if score is None:
        return 0.5
    return 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5


def _tally(row: TableRow, points: float, games_won: int, opponent: int) -> None:
    row.played += 1
    row.points += points
    row.games_won += games_won
    row.opponents.append(opponent)
    row.wins += points == 1.0
    row.draws += points == 0.5
    row.losses += points == 0.0


MATCH_FIELDS = ("id", "round", "position", "status", "score", "games_a", "games_b",
                "version_a_id", "version_b_id", "forfeit_player", "forfeit_reason",
                "version_c_id", "games_c", "points")


@dataclass(frozen=True)
class TournamentRead:
    """A tournament's rows as its pages and standings use them: the entrants (version id, bot
    name, bot id, version number, seed, eliminated round, final rank, withdrawn) by seed, the
    matches (dicts of MATCH_FIELDS) by round, place and id, and the byes (round, place,
    version id) by round, place and id."""

    entrants: list[tuple[int, str, int, int, int | None, int | None, int | None, bool]]
    matches: list[dict[str, Any]]
    byes: list[tuple[int, int | None, int]]


def tournament_read(*, tournament: Tournament) -> TournamentRead:
    """Three plain SQL reads (the ORM's building of them was about half the reads' time on a
    64-bot tournament's page). The same columns and order as the ORM's `entrants.values(...)`
    (by seed), `matches.order_by("round", "position", "id").values(*MATCH_FIELDS)` and
    `byes.order_by("round", "position", "id")` would give."""
    entrant, version, bot = (TournamentEntrant._meta.db_table, BotVersion._meta.db_table,
                             Bot._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT e.version_id, b.name, v.bot_id, v.number, e.seed, e.eliminated_round,"
            f" e.final_rank, e.withdrawn IS NOT NULL FROM {entrant} e"
            f" JOIN {version} v ON v.id = e.version_id JOIN {bot} b ON b.id = v.bot_id"
            f" WHERE e.tournament_id = %s ORDER BY e.seed, e.id", [tournament.pk])
        entrants = [(*row[:7], bool(row[7])) for row in cursor.fetchall()]
        cursor.execute(
            f"SELECT {', '.join(MATCH_FIELDS)} FROM {Match._meta.db_table}"
            f" WHERE tournament_id = %s ORDER BY round, position, id", [tournament.pk])
        matches = [dict(zip(MATCH_FIELDS, row, strict=True)) for row in cursor.fetchall()]
        cursor.execute(
            f"SELECT round, position, version_id FROM {TournamentBye._meta.db_table}"
            f" WHERE tournament_id = %s ORDER BY round, position, id", [tournament.pk])
        byes = [tuple(row) for row in cursor.fetchall()]
    for m in matches:  # JSON arrives as its text (Django reads jsonb as text on PostgreSQL)
        if isinstance(m["points"], str):
            m["points"] = json.loads(m["points"])
    return TournamentRead(entrants, matches, byes)  # type: ignore[arg-type]


def tournament_table(*, tournament: Tournament,
                     read: TournamentRead | None = None) -> list[TableRow]:
    """Standings: points (win 1, draw or void ½, bye 1), then Buchholz (the points of the
    opponents met), then games won, then seed. `read`: the tournament's rows
    (tournament_read) when the caller has them."""
    read = read or tournament_read(tournament=tournament)
    rows = {v: TableRow(v, name, seed, eliminated_round=eliminated, final_rank=rank,
                        bot_id=bot_id, withdrawn=withdrawn, version_number=number)
            for v, name, bot_id, number, seed, eliminated, rank, withdrawn in read.entrants}
    ended = (Match.Status.FINISHED, Match.Status.VOID, Match.Status.FAILED)
    if tournament.players > 2:
        return _three_table(tournament, rows, read.byes,
                            [m for m in read.matches if m["status"] in ended])
    for m in read.matches:
        if m["status"] in ended:
            a, b, score = m["version_a_id"], m["version_b_id"], _outcome(m["score"])
            _tally(rows[a], score, m["games_a"] or 0, b)
            _tally(rows[b], 1.0 - score, m["games_b"] or 0, a)
    for _, _, version_id in read.byes:
        rows[version_id].byes += 1
        rows[version_id].points += 1.0
    for row in rows.values():
        row.buchholz = sum(rows[o].points for o in row.opponents)
    return sorted(rows.values(),
                  key=lambda r: (-r.points, -r.buchholz, -r.games_won, r.seed or 10**6))


def shares(m: dict[str, Any]) -> list[float]:
    """Each side's share of a three-player match's points (A, B, C): even for a match
    without points (void, failed)."""
    points = m.get("points") or {}
    values = [float(points.get(side, 0.0)) for side in "ABC"]
    total = sum(values)
    return [v / total for v in values] if total > 0 else [1 / 3] * 3


def _members(m: dict[str, Any]) -> list[int]:
    return [m["version_a_id"], m["version_b_id"], m["version_c_id"]]


def _three_table(tournament: Tournament, rows: dict[int, TableRow],
                 byes: list[tuple[int, int | None, int]],
                 done: list[dict[str, Any]]) -> list[TableRow]:
    """Standings of a three-player game: each match gives each side its share of the points
    (a third each when unplayed), a bye 2/3; a win is a match topped alone, a draw one topped
    jointly. Ties: Buchholz, games won, seed."""
    for m in done:
        members, share = _members(m), shares(m)
        games = [m["games_a"] or 0, m["games_b"] or 0, m["games_c"] or 0]
        top = max(share)
        for i, v in enumerate(members):
            row = rows[v]
            row.played += 1
            row.points += share[i]
            row.games_won += games[i]
            row.opponents.extend(o for o in members if o != v)
            first = share[i] == top
            alone = first and share.count(top) == 1
            row.wins += alone
            row.draws += first and not alone
            row.losses += not first
    bye = bye_points(tournament.game)
    for _, _, version_id in byes:
        rows[version_id].byes += 1
        rows[version_id].points += bye
    for row in rows.values():
        row.points = round(row.points, 6)
        row.buchholz = round(sum(rows[o].points for o in row.opponents), 6)
    return sorted(rows.values(),
                  key=lambda r: (-r.points, -r.buchholz, -r.games_won, r.seed or 10**6))


def tournament_progress(*, tournament: Tournament) -> dict[str, int]:
    """Matches done of the total the format will play."""
    n = tournament.entrants.count()
    done = tournament.matches.exclude(status__in=[Match.Status.QUEUED,
                                                  Match.Status.RUNNING]).count()
    if tournament.players > 2:
        return _progress_counts(tournament, n, tournament.matches.count(), done)
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        total = tournament.rounds * n * (n - 1) // 2
    elif tournament.format == Tournament.Format.SWISS:
        total = tournament.rounds * (n // 2)
    else:
        total = max(n - 1, 0)  # every match of a knockout knocks one entrant out
    if tournament.status == Tournament.Status.FINISHED:
        total = tournament.matches.count()  # Swiss may stop early when no pairing is left
    return {"done": done, "total": max(total, done)}


@dataclass(frozen=True)
class BracketResult:
    position: int
    winner: int
    loser: int | None


def _points_margin(match: Match) -> int:
    """A's total game points minus B's over the replay: a knockout draw's first tie-break."""
    replay = match.replay() or {}
    margin = 0
    for game in replay.get("games", []):
        team_a = 0 if game["seats"][0] == "A" else 1
        score = game["result"]["score"]
        margin += score[team_a] - score[1 - team_a]
    return margin


def _knockout_winner(match: Match, seeds: dict[int, int]) -> tuple[int, int]:
    a, b = match.version_a_id, match.version_b_id
    if match.score is not None and match.score != 0.5:  # (also a walkover, a void match)
        return (a, b) if match.score > 0.5 else (b, a)
    margin = _points_margin(match) if match.status == Match.Status.FINISHED else 0
    if margin:
        return (a, b) if margin > 0 else (b, a)
    return (a, b) if seeds[a] < seeds[b] else (b, a)  # then the better seed


def knockout_round_results(*, tournament: Tournament, round: int) -> list[BracketResult]:
    """Who goes through from each place of a knockout round, in bracket order."""
    seeds = dict(tournament.entrants.values_list("version_id", "seed"))
    out = [BracketResult(b.position or 0, b.version_id, None)
           for b in TournamentBye.objects.filter(tournament=tournament, round=round)]
    for match in tournament.matches.filter(round=round):
        winner, loser = _knockout_winner(match, seeds)
        out.append(BracketResult(match.position or 0, winner, loser))
    return sorted(out, key=lambda r: r.position)


def three_knockout_round_results(*, tournament: Tournament, round: int
                                 ) -> tuple[list[int], list[int]]:
    """A three-player knockout round: (who goes through, who goes out). A group's winner goes
    through (its top two in the group that sends two): most points, then most ups (read from
    the replay, only on equal points), then the better seed. A bye goes through."""
    seeds = dict(tournament.entrants.values_list("version_id", "seed"))
    through = list(TournamentBye.objects.filter(tournament=tournament, round=round)
                   .values_list("version_id", flat=True))
    matches = list(tournament.matches.filter(round=round).order_by("position"))
    players = sorted(through + [v for m in matches for v in m.version_ids],
                     key=lambda v: seeds[v])
    advance = {frozenset(g.members): g.advance
               for g in triples.knockout_groups(players=players) if not g.bye}
    out: list[int] = []
    for match in matches:
        order = _group_order(match, seeds)
        count = advance.get(frozenset(order), 1)
        through += order[:count]
        out += order[count:]
    return through, out


def _group_order(match: Match, seeds: dict[int, int]) -> list[int]:
    members = match.version_ids
    share = shares({"points": match.points})
    ups = [0, 0, 0]
    if match.status == Match.Status.FINISHED and len(set(share)) < 3:
        result = (match.replay() or {}).get("result", {})
        ups = [int(result.get("ups", {}).get(side, 0)) for side in "ABC"]
    return triples.group_order([triples.GroupResult(v, share[i], ups[i], seeds[v])
                                for i, v in enumerate(members)])


def tournament_ranking(*, tournament: Tournament) -> list[int]:
    """The final order of the entrants' versions: by table, or for a knockout by how
    far each went (the champion first), then the table."""
    table = tournament_table(tournament=tournament)
    if tournament.format != Tournament.Format.KNOCKOUT:
        return [r.version_id for r in table]
    position = {r.version_id: i for i, r in enumerate(table)}
    far = 10**6
    return sorted(position, key=lambda v: (
        -(next(r for r in table if r.version_id == v).eliminated_round or far), position[v]))


OPEN_STATUSES = (Match.Status.QUEUED, Match.Status.RUNNING)


@dataclass
class Side:
    version_id: int
    name: str
    bot_id: int | None
    games: int | None = None
    won: bool = False
    points: float | None = None  # a three-player game's points


@dataclass
class Bout:
    """One pairing: a match (with its id), a bye, or a place still to be decided."""

    a: Side | None
    b: Side | None
    match_id: int | None = None
    status: str = ""
    fault: str = ""
    bye: bool = False
    c: Side | None = None  # the third player of a three-player game


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
    matches: list[dict[str, Any]]
    byes: list[tuple[int, int | None, int]]  # (round, place, version id)


def _progress(tournament: Tournament, n: int, matches: list[dict[str, Any]]) -> dict[str, int]:
    """tournament_progress, from the rows already read."""
    done = sum(m["status"] not in OPEN_STATUSES for m in matches)
    return _progress_counts(tournament, n, len(matches), done)


def _side(row: TableRow | None, version_id: int, games: int | None) -> Side:
    return Side(version_id, row.name if row else "?", row.bot_id if row else None, games)


def _bout(m: dict[str, Any], rows: dict[int, TableRow]) -> Bout:
    if m.get("version_c_id"):
        return _bout_three(m, rows)
    a = _side(rows.get(m["version_a_id"]), m["version_a_id"], m["games_a"])
    b = _side(rows.get(m["version_b_id"]), m["version_b_id"], m["games_b"])
    score = m["score"]
    if score is not None and score != 0.5:
        (a if score > 0.5 else b).won = True
    fault = f"{m['forfeit_player']}: {m['forfeit_reason']}" if m["forfeit_player"] else ""
    return Bout(a, b, m["id"], m["status"], fault)


def _bout_three(m: dict[str, Any], rows: dict[int, TableRow]) -> Bout:
    """A match of three: each side with its games won and its points; the top share won
    (the knockout marks who went through instead)."""
    games = [m["games_a"], m["games_b"], m["games_c"]]
    sides = [_side(rows.get(v), v, games[i]) for i, v in enumerate(_members(m))]
    if m["points"]:
        share = shares(m)
        for i, side in enumerate(sides):
            side.won = share[i] == max(share) and m["status"] not in OPEN_STATUSES
            side.points = m["points"].get("ABC"[i])
    fault = f"{m['forfeit_player']}: {m['forfeit_reason']}" if m["forfeit_player"] else ""
    return Bout(sides[0], sides[1], m["id"], m["status"], fault, c=sides[2])


def _three_knockout_columns(read: TournamentRead, rows: dict[int, TableRow]) -> list[Column]:
    """Rounds of groups as columns: every place of the plan (knockout_plan), its match of
    three (those who went through marked), its bye, or a place still to be decided."""
    plan = triples.knockout_plan(len(rows))
    places: dict[tuple[int, int], Bout] = {}
    for m in read.matches:
        bout = _bout_three(m, rows)
        for side in (bout.a, bout.b, bout.c):
            if side is not None and m["status"] not in OPEN_STATUSES:
                side.won = rows[side.version_id].eliminated_round != m["round"]
        places[(m["round"], m["position"] or 0)] = bout
    _byes_placed(read, rows, places)
    columns = []
    for number, groups in enumerate(plan, start=1):
        title = "Final" if number == len(plan) else f"Round {number}"
        bouts = [places.get((number, p), Bout(None, None)) for p in range(len(groups))]
        columns.append(Column(number, title, bouts))
    return columns


def _byes_placed(read: TournamentRead, rows: dict[int, TableRow],
                 places: dict[tuple[int, int], Bout]) -> None:
    """Each bye of the bracket at its place, its bot through."""
    for number, position, version_id in read.byes:
        side = _side(rows.get(version_id), version_id, None)
        side.won = True
        places[(number, position or 0)] = Bout(side, None, bye=True)


def _knockout_winner_marked(bout: Bout, number: int, rows: dict[int, TableRow]) -> None:
    """A drawn knockout match goes to whoever was not eliminated in its round (the
    tie-breaks: game points, then the better seed)."""
    if bout.a is None or bout.b is None or bout.a.won or bout.b.won:
        return
    if bout.status in OPEN_STATUSES:
        return
    out_a = rows[bout.a.version_id].eliminated_round == number
    out_b = rows[bout.b.version_id].eliminated_round == number
    if out_a != out_b:
        (bout.b if out_a else bout.a).won = True


def _knockout_columns(read: TournamentRead, rows: dict[int, TableRow]) -> list[Column]:
    """Rounds as columns, each with every place of the bracket: its match, its bye, or a place
    still to be decided."""
    size = 1
    while size < len(rows):
        size *= 2
    rounds = max(size.bit_length() - 1, 1)
    places: dict[tuple[int, int], Bout] = {}
    for m in read.matches:
        bout = _bout(m, rows)
        _knockout_winner_marked(bout, m["round"], rows)
        places[(m["round"], m["position"] or 0)] = bout
    _byes_placed(read, rows, places)
    columns = []
    for number in range(1, rounds + 1):
        count = size >> number
        title = {1: "Final", 2: "Semi-finals", 3: "Quarter-finals"}.get(
            count, f"Round {number}")
        bouts = [places.get((number, p), Bout(None, None)) for p in range(count)]
        columns.append(Column(number, title, bouts))
    return columns


def _round_columns(read: TournamentRead, rows: dict[int, TableRow]) -> list[Column]:
    by_round: dict[int, Column] = {}
    for m in read.matches:
        number = m["round"] or 0
        by_round.setdefault(number, Column(number, f"Round {number}")).bouts.append(
            _bout(m, rows))
    for number, _, version_id in read.byes:
        side = _side(rows.get(version_id), version_id, None)
        by_round.setdefault(number, Column(number, f"Round {number}")).bouts.append(
            Bout(side, None, bye=True))
    return [by_round[n] for n in sorted(by_round)]


def _crosstable(table: list[TableRow], matches: list[dict[str, Any]]
                ) -> list[tuple[TableRow, list[Cell]]]:
    """Each row's matches against each column's bot, in table order: the games won by each
    side from the row's side, linked to the match."""
    index = {r.version_id: i for i, r in enumerate(table)}
    cells = [[Cell(self_cell=i == j) for j in range(len(table))] for i in range(len(table))]
    for m in matches:
        a, b = index.get(m["version_a_id"]), index.get(m["version_b_id"])
        if a is None or b is None:
            continue
        for row, col, mine, theirs, flip in ((a, b, "games_a", "games_b", False),
                                             (b, a, "games_b", "games_a", True)):
            cells[row][col].links.append((m["id"], *_cell_text(m, mine, theirs, flip)))
    return [(r, cells[i]) for i, r in enumerate(table)]


def _crosstable_three(table: list[TableRow], matches: list[dict[str, Any]]
                      ) -> list[tuple[TableRow, list[Cell]]]:
    """Pairwise: each row's points against each column's bot in every match of three they
    played together, from the row's side ("2–0.5"), linked to the match."""
    index = {r.version_id: i for i, r in enumerate(table)}
    cells = [[Cell(self_cell=i == j) for j in range(len(table))] for i in range(len(table))]
    for m in matches:
        members = _members(m)
        if any(v not in index for v in members):
            continue
        for x, row in enumerate(members):
            for y, col in enumerate(members):
                if x != y:
                    cells[index[row]][index[col]].links.append(
                        (m["id"], *_pair_text(m, "ABC"[x], "ABC"[y])))
    return [(r, cells[i]) for i, r in enumerate(table)]


def _number(value: float) -> str:
    return f"{value:g}"


def _pair_text(m: dict[str, Any], mine: str, theirs: str) -> tuple[str, str]:
    if m["status"] in OPEN_STATUSES:
        return "…", m["status"]
    if not m["points"]:
        return m["status"], "void"
    a, b = m["points"][mine], m["points"][theirs]
    outcome = "won" if a > b else "lost" if a < b else "drawn"
    text = f"{_number(a)}–{_number(b)}"
    return ("w/o " + text if m["status"] != Match.Status.FINISHED else text), outcome


def _cell_text(m: dict[str, Any], mine: str, theirs: str, flip: bool) -> tuple[str, str]:
    if m["status"] in OPEN_STATUSES:
        return "…", m["status"]
    score = m["score"]
    if score is None:
        return m["status"], "void"
    share = 1.0 - score if flip else score
    outcome = "won" if share > 0.5 else "lost" if share < 0.5 else "drawn"
    if m["status"] != Match.Status.FINISHED:  # a walkover
        return "w/o", outcome
    return f"{m[mine]}–{m[theirs]}", outcome


def tournament_view(*, tournament: Tournament) -> TournamentView:
    """Everything the tournament page shows."""
    read = tournament_read(tournament=tournament)
    matches = read.matches
    table = tournament_table(tournament=tournament, read=read)
    finished = tournament.status == Tournament.Status.FINISHED
    if tournament.format == Tournament.Format.KNOCKOUT:  # still in first, then how far
        table.sort(key=lambda r: (r.final_rank or 10**6, -(r.eliminated_round or 10**6),
                                  r.seed or 10**6))
    elif finished:
        table.sort(key=lambda r: r.final_rank or 10**6)
    rows = {r.version_id: r for r in table}
    knockout = tournament.format == Tournament.Format.KNOCKOUT
    started = tournament.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED)
    three = tournament.players > 2
    if knockout and started:
        columns = (_three_knockout_columns if three else _knockout_columns)(read, rows)
    else:
        columns = _round_columns(read, rows)
    crosstable = ((_crosstable_three if three else _crosstable)(table, matches)
                  if tournament.format == Tournament.Format.ROUND_ROBIN and started else [])
    champion = next((r for r in table if r.final_rank == 1), None) if finished else None
    return TournamentView(tournament, table, _progress(tournament, len(table), matches),
                          columns, crosstable, champion, matches, read.byes)


@dataclass(frozen=True)
class PageState:
    """What the tournament page needs before its body: the progress, the entrants' count, and
    a token that changes whenever the body can (a match made, started, finished or voided, an
    entry, a withdrawal, a rank or elimination written, the status or round moved)."""

    version: str
    progress: dict[str, int]
    entrants: int


_STATE_SQL = """
    SELECT m.n, m.done, m.running, m.top, m.last,
           e.n, e.entered, e.withdrawn, e.ranked, e.out, e.seeded
    FROM (SELECT COUNT(id) AS n,
                 COUNT(CASE WHEN status NOT IN (%s, %s) THEN 1 END) AS done,
                 COUNT(CASE WHEN status = %s THEN 1 END) AS running,
                 MAX(id) AS top, MAX(finished) AS last
          FROM {match} WHERE tournament_id = %s) m,
         (SELECT COUNT(id) AS n, MAX(entered) AS entered, COUNT(withdrawn) AS withdrawn,
                 COUNT(final_rank) AS ranked, COUNT(eliminated_round) AS out,
                 COUNT(seed) AS seeded
          FROM {entrant} WHERE tournament_id = %s) e"""


def tournament_state(*, tournament: Tournament) -> PageState:
    """One query of two aggregates: the matches' counts and newest changes, the entrants'.
    In SQL: the ORM's building of the two took about 1 ms of every view of the page (and of
    its live poll), their running a tenth of that."""
    sql = _STATE_SQL.format(match=Match._meta.db_table,
                            entrant=TournamentEntrant._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(sql, [*OPEN_STATUSES, Match.Status.RUNNING, tournament.pk,
                             tournament.pk])
        row = cursor.fetchone()
    t = tournament
    raw = f"{t.pk}:{t.created}:{t.status}:{t.current_round}:{t.rounds}:{t.name}:" \
          f"{t.cancel_reason}:{row}"
    entrants, made, done = row[5], row[0], row[1]
    progress = _progress_counts(tournament, entrants, made, done)
    return PageState(hashlib.sha256(raw.encode()).hexdigest(), progress, entrants)


def _progress_counts(tournament: Tournament, n: int, made: int, done: int) -> dict[str, int]:
    """Matches done of the total the format will play (tournament_progress)."""
    if tournament.status == Tournament.Status.FINISHED:
        total = made
    elif tournament.players > 2:
        total = _three_total(tournament, n)
    elif tournament.format == Tournament.Format.ROUND_ROBIN:
        total = tournament.rounds * n * (n - 1) // 2
    elif tournament.format == Tournament.Format.SWISS:
        total = tournament.rounds * (n // 2)
    else:
        total = max(n - 1, 0)
    return {"done": done, "total": max(total, done)}


def _three_total(tournament: Tournament, n: int) -> int:
    """The matches a three-player tournament of n entrants will play."""
    if n < 3:
        return 0
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        return tournament.rounds * len(triples.balanced_triples(n))
    if tournament.format == Tournament.Format.SWISS:
        return tournament.rounds * (n // 3)
    return sum(not g.bye for groups in triples.knockout_plan(n) for g in groups)


# The CSV's columns: the bot's name and its version as a person reads it ("v3"); the JSON's
# standings have the same keys and also the version's id and bare number (version_id,
# version_number).
RESULT_COLUMNS = ["rank", "bot", "bot_id", "version", "seed", "played", "wins", "draws",
                  "losses", "byes", "points", "buchholz", "games_won", "eliminated_round",
                  "withdrawn"]


def _version_label(number: int | None) -> str:
    return f"v{number}" if number is not None else ""


def tournament_results(*, tournament: Tournament) -> dict[str, Any]:
    """The tournament, its standings (final ranking once finished), its byes and every
    match."""
    view = tournament_view(tournament=tournament)
    standings = [{
        "rank": r.final_rank or i, "bot": r.name, "bot_id": r.bot_id,
        "version": _version_label(r.version_number), "version_id": r.version_id,
        "version_number": r.version_number, "seed": r.seed, "played": r.played,
        "wins": r.wins, "draws": r.draws, "losses": r.losses, "byes": r.byes,
        "points": r.points, "buchholz": r.buchholz,
        "games_won": r.games_won, "eliminated_round": r.eliminated_round,
        "withdrawn": r.withdrawn,
    } for i, r in enumerate(view.table, start=1)]
    names = {r.version_id: r.name for r in view.table}
    matches = [{
        "id": m["id"], "round": m["round"], "position": m["position"], "status": m["status"],
        "a": names.get(m["version_a_id"]), "b": names.get(m["version_b_id"]),
        "score": m["score"], "games_a": m["games_a"], "games_b": m["games_b"],
        "forfeit_player": m["forfeit_player"] or None,
        "forfeit_reason": m["forfeit_reason"] or None,
        # A three-player game's third side and each side's points.
        **({"c": names.get(m["version_c_id"]), "games_c": m["games_c"],
            "points": m["points"]} if m["version_c_id"] else {}),
    } for m in view.matches]
    byes = [{"round": number, "position": position, "bot": names.get(version_id),
             "version_id": version_id}
            for number, position, version_id in view.byes]
    t = tournament
    return {
        "tournament": {"id": t.pk, "name": t.name, "game": t.game, "format": t.format,
                       "status": t.status,
                       "rounds": t.rounds, "rules": t.rules,
                       "games_per_match": t.games_per_match, "move_ms": t.move_ms,
                       "bank_ms": t.bank_ms, "started": t.started, "finished": t.finished,
                       "champion": view.champion.name if view.champion else None},
        "standings": standings,
        "byes": byes,
        "matches": matches,
    }


def tournaments_open() -> list[Tournament]:
    """Tournaments open for entry whose deadline has not passed, soonest deadline first."""
    return list(Tournament.objects.filter(status=Tournament.Status.OPEN,
                                          entry_deadline__gt=timezone.now())
                .annotate(entrant_count=Count("entrants")).order_by("entry_deadline", "pk"))


def entered_bot_ids(*, tournaments: list[Tournament]) -> dict[int, set[int]]:
    """{tournament id: ids of the bots entered}."""
    out: dict[int, set[int]] = defaultdict(set)
    for tournament_id, bot_id in TournamentEntrant.objects.filter(
            tournament__in=tournaments).values_list("tournament_id", "version__bot_id"):
        out[tournament_id].add(bot_id)
    return out


def entries_owned(*, tournament: Tournament, user: Any) -> list[TournamentEntrant]:
    """The user's bots' entries in `tournament` (the page offers to withdraw them)."""
    if not getattr(user, "is_authenticated", False):
        return []
    return list(tournament.entrants.filter(version__bot__owner=user)
                .select_related("version__bot").order_by("version__bot__name"))


def enterable_versions(*, user: Any) -> list[BotVersion]:
    """The user's bots that could enter a tournament now (their playing versions)."""
    from bots.selectors import active_versions

    if not getattr(user, "is_authenticated", False):
        return []
    return list(active_versions().filter(bot__owner=user).order_by("bot__name"))


@dataclass(frozen=True)
class HistoryRow:
    tournament: Tournament
    version_number: int
    final_rank: int | None
    eliminated_round: int | None
    withdrawn: bool
    entrants: int


def bot_tournament_history(*, bot: Bot, limit: int = 50) -> list[HistoryRow]:
    """The tournaments the bot entered (any version), newest first."""
    entries = list(TournamentEntrant.objects.filter(version__bot=bot)
                   .select_related("tournament", "version")
                   .order_by("-tournament__created", "-pk")[:limit])
    counts = dict(TournamentEntrant.objects.filter(
        tournament_id__in=[e.tournament_id for e in entries]).values_list(
        "tournament_id").annotate(n=Count("id")).values_list("tournament_id", "n"))
    return [HistoryRow(e.tournament, e.version.number, e.final_rank, e.eliminated_round,
                       e.withdrawn is not None, counts.get(e.tournament_id, 0))
            for e in entries]


def _progress_total(t: Tournament) -> int:
    """The same totals as tournament_progress, from annotated counts."""
    n, done, made = t.entrant_count, t.done_count, t.match_count  # type: ignore[attr-defined]
    if t.status == Tournament.Status.FINISHED:
        return max(made, done)
    if t.players > 2:
        return max(_three_total(t, n), done)
    if t.format == Tournament.Format.ROUND_ROBIN:
        total = t.rounds * n * (n - 1) // 2
    elif t.format == Tournament.Format.SWISS:
        total = t.rounds * (n // 2)
    else:
        total = max(n - 1, 0)
    return int(max(total, done))


def tournaments_page() -> list[tuple[Tournament, dict[str, int]]]:
    open_ = [Match.Status.QUEUED, Match.Status.RUNNING]
    qs = Tournament.objects.select_related("ladder").annotate(
        entrant_count=Count("entrants", distinct=True),
        match_count=Count("matches", distinct=True),
        done_count=Count("matches", filter=~Q(matches__status__in=open_), distinct=True),
    ).order_by("-created")
    return [(t, {"done": t.done_count, "total": _progress_total(t)})  # type: ignore[attr-defined]
            for t in qs]
