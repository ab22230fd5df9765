"""The words of the tournament pages and downloads: the titles of rounds, the text of a
crosstable's cell and of a bout's fault, a version as people read it. Rules are
tournaments.standings', reads tournaments.selectors'."""

from __future__ import annotations

from math import comb

from matches.models import Match
from tournaments.standings import MatchRow, letter, shares

WALKOVER = Match.Status.WALKOVER
KNOCKOUT_TITLES = {1: "Final", 2: "Semi-finals", 4: "Quarter-finals"}


def knockout_round_title(number: int, places: int) -> str:
    """A round of a knockout bracket, by how many matches it has."""
    return KNOCKOUT_TITLES.get(places, f"Round {number}")


def groups_round_title(number: int, rounds: int) -> str:
    """A round of a knockout in groups (of three): the last is the final."""
    return "Final" if number == rounds else f"Round {number}"


def round_title(number: int) -> str:
    return f"Round {number}"


def number(value: float) -> str:
    return f"{value:g}"


def cell_text(match: MatchRow, mine: int, theirs: int) -> tuple[str, str]:
    """A crosstable cell's link, from side `mine` against side `theirs`: (text, outcome).
    The games each won ("2–0"), or, where the game scores sides, their points ("2–0.5");
    a walkover is "w/o"; "…" while it is to be played; the status of a match without a
    result (void, failed)."""
    if not match.ended:
        return "…", match.status
    if not match.played and match.status != WALKOVER:
        return match.status, "void"
    share = shares(match)
    outcome = ("won" if share[mine] > share[theirs] else "lost" if share[mine] < share[theirs]
               else "drawn")
    a, b = match.sides[mine], match.sides[theirs]
    if len(match.sides) == 2:
        text = "" if match.status == WALKOVER else f"{a.games}–{b.games}"
    else:
        text = f"{number(a.points or 0.0)}–{number(b.points or 0.0)}"
    return ("w/o " + text).strip() if match.status == WALKOVER else text, outcome


def fault_text(match: MatchRow) -> str:
    """The fault that ended a match, if one did: "B: crash"."""
    for i, side in enumerate(match.sides):
        if side.fault:
            return f"{letter(i)}: {side.fault}"
    return ""


def version_label(number: int | None) -> str:
    """A bot's version as people read it: "v3"."""
    return f"v{number}" if number is not None else ""


def format_line(*, format: str, players: int, entrants: int, rounds: int) -> str:
    """The format as the page says it: "Round robin, each pair 2×" (in a game of three, how
    often each pair really meets: every triple of a small field plays, so each pair meets
    entrants − 2 times a round), "Swiss, 5 rounds", "Knockout"."""
    from tournaments.models import Tournament
    from tournaments.triples import ALL_TRIPLES_MAX

    title = str(Tournament.Format(format).label)
    if format == Tournament.Format.SWISS:
        return f"{title}, {rounds} round{'s' if rounds != 1 else ''}"
    if format != Tournament.Format.ROUND_ROBIN:
        return title
    if players == 2:
        return f"{title}, each pair {rounds}×"
    if entrants < players:
        return f"{title} in matches of {players}, each pair as often as the others"
    if comb(entrants, 3) <= ALL_TRIPLES_MAX:
        return (f"{title} in matches of {players}: every {players} entrants meet once"
                f"{' a round' if rounds > 1 else ''}, so each pair meets "
                f"{(entrants - 2) * rounds}×")
    return f"{title} in matches of {players}, each pair as often as the others"
