"""The repeated rows of the tournament page (standings, crosstable, bracket and rounds), built
here as the match list's rows are (views.match_rows_html): a template loop took about 0.1 ms
a row, most of a 64-bot Swiss page's time; this takes a few microseconds. Every text from the
database (bot names, fault reasons) is escaped here."""

from __future__ import annotations

from html import escape

from django.utils.safestring import SafeString, mark_safe

from tournaments.selectors import TableRow
from tournaments.tournament_selectors import Bout, Cell, Side
from tournaments.views import _link, _Links


def _bot(links: _Links, bot_id: int | None, name: str) -> str:
    return f'<a href="{_link(links.bot, bot_id)}">{escape(name)}</a>'


def _num(value: object) -> str:
    return f'<td class="num">{"" if value is None else value}</td>'


def standings_html(table: list[TableRow], *, knockout: bool, finished: bool,
                   links: _Links) -> SafeString:
    """The <tr>s of #standings; the columns follow the template's header."""
    out = []
    for i, r in enumerate(table, start=1):
        badge = ' <small class="badge">withdrawn</small>' if r.withdrawn else ""
        cells = [f"<td>{r.final_rank or i}</td>",
                 f"<td>{_bot(links, r.bot_id, r.name)}{badge}</td>", _num(r.seed), _num(r.played),
                 _num(r.wins), _num(r.draws), _num(r.losses)]
        if not knockout:
            cells.append(_num(r.byes))
        cells.append(f'<td class="num"><strong>{r.points}</strong></td>')
        if not knockout:
            cells.append(_num(r.buchholz))
        cells.append(_num(r.games_won))
        if knockout:
            out_in = (f"round {r.eliminated_round}" if r.eliminated_round
                      else "<strong>champion</strong>" if finished else "—")
            cells.append(f"<td>{out_in}</td>")
        out.append(f'<tr data-version="{r.version_id}">{"".join(cells)}</tr>\n')
    return mark_safe("".join(out))  # escaped above


def crosstable_html(rows: list[tuple[TableRow, list[Cell]]], *, links: _Links) -> SafeString:
    out = []
    for i, (r, cells) in enumerate(rows, start=1):
        tds = []
        for c in cells:
            inner = " ".join(
                f'<a href="{_link(links.match, match_id)}" class="x-{outcome}" '
                f'data-match="{match_id}">{escape(text)}</a>'
                for match_id, text, outcome in c.links)
            tds.append(f'<td class="x{" x-self" if c.self_cell else ""}">{inner}</td>')
        out.append(f'<tr data-version="{r.version_id}"><td>{i}</td>'
                   f'<td>{_bot(links, r.bot_id, r.name)}</td>{"".join(tds)}'
                   f'<td class="num"><strong>{r.points}</strong></td></tr>\n')
    return mark_safe("".join(out))  # escaped above


def _side(s: Side, links: _Links) -> str:
    games = f" <b>{s.games}</b>" if s.games is not None else ""
    return (f'<span class="{"winner" if s.won else ""}" data-version="{s.version_id}">'
            f'{_bot(links, s.bot_id, s.name)}{games}</span>')


def bouts_html(bouts: list[Bout], *, links: _Links) -> SafeString:
    """The pairings of one round: a match (linked to its page and its replay), a bye, or a
    place of the bracket still to be decided."""
    out = []
    for b in bouts:
        if b.bye and b.a is not None:
            out.append(f'<div class="bout bye" data-bye="{b.a.version_id}"><span>'
                       f'{_bot(links, b.a.bot_id, b.a.name)}<small class="muted">bye</small>'
                       "</span></div>\n")
        elif b.match_id and b.a is not None and b.b is not None:
            url = _link(links.match, b.match_id)
            status = escape(b.status)
            tail = (f' · <a href="{url}#viewer" class="replay-link">replay</a>'
                    if b.status == "finished"
                    else f' <span class="status status-{status}">{status}</span>')
            fault = f' <span class="badge fault">fault {escape(b.fault)}</span>' if b.fault else ""
            out.append(f'<div class="bout status-row-{status}" data-match="{b.match_id}">\n'
                       f"{_side(b.a, links)}\n{_side(b.b, links)}\n"
                       f'<small><a href="{url}" class="match-link">match #{b.match_id}</a>'
                       f"{tail}{fault}</small></div>\n")
        else:
            out.append('<div class="bout tbd"><span class="muted">to be decided</span></div>\n')
    return mark_safe("".join(out))  # escaped above
