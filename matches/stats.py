"""Why a bot wins or loses: statistics of each version's play, taken from a match's replay once,
when the match finishes (match_finish stores them with its result, Match.stats), then added
by play_stats_fold (the beat, every few seconds) to the stored totals of its two versions and
of all bots (PlayStats). Pages read the totals; no page reads a replay for them.

A side's statistics (a plain dict of counts, so that totals are sums) are its game's
(engine.games: stats_empty, stats_count; Kaiser's in engine/kaiser/stats.py), with what this
module adds for every game:
- matches; faults by reason (the game counts its games won, lost and drawn);
- the wall time of its decisions (bot programs: built-in players take none), as counts in
  DECISION_BUCKETS, so that totals are sums and the median and 95th percentile can be read
  off them. The engine measures it (engine.botproc); it is not in the replay, so it is kept
  from the match's stored statistics when they are rebuilt from the replays.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from typing import Any

from django.db import transaction
from django.utils import timezone

from bots.models import BotVersion, default_game
from engine.games import game_of_replay, get_game
from kaiser_site.fragments import fragment
from kaiser_site.page_cache import STATS, pages_changed
from matches.models import Match, MatchSide, PlayStats, side_letter

ALL = "all"
# Upper bounds (ms) of the decision time histogram's buckets; the last one is everything more.
DECISION_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
STATS_COLUMNS = 4  # versions side by side on the bot page


def decision_histogram(times_ms: list[int]) -> list[int]:
    """Counts of decisions by DECISION_BUCKETS (and one more bucket for longer ones)."""
    counts = [0] * (len(DECISION_BUCKETS) + 1)
    for ms in times_ms:
        counts[bisect.bisect_left(DECISION_BUCKETS, ms)] += 1
    return counts


def decision_percentile(counts: list[int], fraction: float) -> str | None:
    """The bucket the given share of decisions falls in, as text ("≤ 20 ms"), or None."""
    total = sum(counts)
    if not total:
        return None
    seen = 0
    for index, count in enumerate(counts):
        seen += count
        if seen >= fraction * total:
            if index == len(DECISION_BUCKETS):
                return f"> {DECISION_BUCKETS[-1]} ms"
            return f"≤ {DECISION_BUCKETS[index]} ms"
    return None  # pragma: no cover - the loop always reaches the total


def replay_stats(replay: dict[str, Any], *, decisions: dict[str, list[int]] | None = None,
                 game: str = "") -> dict[str, dict[str, Any]]:
    """The statistics of each side in one replay, counted by its game (engine.games:
    stats_count; `game`, the match's, else the replay's format names it), and the decision
    times the engine measured for each side, where it gives them."""
    spec = get_game(game) if game else game_of_replay(replay)
    out = _sides_started({side: spec.stats_empty() for side in spec.sides}, decisions)
    spec.stats_count(out, replay)
    return _fault_counted(out, replay)


def _sides_started(out: dict[str, dict[str, Any]],
                   decisions: dict[str, list[int]] | None) -> dict[str, dict[str, Any]]:
    """Each side's counts at the start of a replay: one match, its decision times."""
    for side, times in (decisions or {}).items():
        if times and side in out:
            out[side]["decision_ms"] = decision_histogram(times)
    for side in out.values():
        side["matches"] = 1
    return out


def _fault_counted(out: dict[str, dict[str, Any]],
                   replay: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The fault that ended the match, if any, counted for its side."""
    forfeit = replay["result"].get("forfeit")
    if forfeit:
        faults = out[forfeit["player"]]["faults"]
        faults[forfeit["reason"]] = faults.get(forfeit["reason"], 0) + 1
    return out


def add(total: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """total + more, key by key (numbers, lists of numbers, dicts of those)."""
    result = dict(total)
    for key, value in more.items():
        mine = result.get(key)
        if isinstance(value, dict):
            result[key] = add(mine or {}, value)
        elif isinstance(value, list):
            mine = mine or [0] * len(value)
            result[key] = [a + b for a, b in zip(mine, value, strict=True)]
        else:
            result[key] = (mine or 0) + value
    return result


def play_stats_fold(*, limit: int = 1000) -> int:
    """Add the statistics of finished matches not yet counted to their versions' totals and to
    all bots', and mark those matches counted; the number of matches. Run by the beat
    (tournaments.tasks.play_stats_fold), so a worker's time per match grows only by
    replay_stats: a few queries per batch of matches, instead of per match. Matches are
    claimed with SKIP LOCKED and totals locked in key order: two folds never count a match
    twice nor deadlock."""
    with transaction.atomic():
        claimed = list(Match.objects.select_for_update(skip_locked=True)
                       .filter(stats_folded=False, stats__isnull=False).order_by("id")
                       .values_list("pk", "game", "stats")[:limit])
        if not claimed:
            return 0
        players: dict[int, dict[str, int]] = defaultdict(dict)
        for match_id, order, version_id in MatchSide.objects.filter(
                match_id__in=[row[0] for row in claimed]).values_list(
                "match_id", "order", "version_id"):
            players[match_id][side_letter(order)] = version_id
        adds: dict[str, tuple[int | None, dict[str, Any]]] = {}
        for match_id, game, sides in claimed:
            versions = players[match_id]
            both = add(sides["A"], sides["B"])
            for side in sides.keys() - {"A", "B"}:
                both = add(both, sides[side])
            # All bots' totals are of one game: Kaiser's under ALL, another's under its own.
            folds = [(all_key(game), None, both)]
            folds += [(_key(versions[side]), versions[side], counts)
                      for side, counts in sides.items()]
            for key, version, counts in folds:
                before = adds.get(key)
                adds[key] = (version, add(before[1], counts) if before else counts)
        _totals_add(adds)
        # Counted: the row keeps no copy (the replay and the times hold them, should the
        # totals ever be rebuilt: play_stats_rebuild).
        Match.objects.filter(pk__in=[row[0] for row in claimed]).update(stats_folded=True,
                                                                         stats=None)
        pages_changed(STATS)  # the bots' pages show the totals
    return len(claimed)


def _totals_add(adds: dict[str, tuple[int | None, dict[str, Any]]]) -> None:
    rows = _locked(adds)
    if len(rows) < len(adds):  # a version's first match (or the site's)
        PlayStats.objects.bulk_create(
            [PlayStats(key=k, version_id=v, data={})
             for k, (v, _) in adds.items() if k not in rows], ignore_conflicts=True)
        rows = _locked(adds)
    now = timezone.now()
    for key, (_, counts) in adds.items():
        rows[key].data = add(rows[key].data, counts)
        rows[key].updated = now
    PlayStats.objects.bulk_update(list(rows.values()), ["data", "updated"])


def _locked(adds: dict[str, Any]) -> dict[str, PlayStats]:
    found = PlayStats.objects.select_for_update().filter(key__in=list(adds)).order_by("key")
    return {row.key: row for row in found}


def all_key(game: str) -> str:
    """The key of all bots' totals of a game (the default game's is the first game's key)."""
    return ALL if game == default_game() else f"{ALL}:{game}"


def _key(version_id: int) -> str:
    return f"version:{version_id}"


def version_stats(*, version_id: int) -> dict[str, Any] | None:
    row = PlayStats.objects.filter(key=_key(version_id)).values_list("data", flat=True).first()
    return row


def all_stats(*, game: str = "") -> dict[str, Any] | None:
    """All bots' totals of `game` (the default game if none)."""
    key = all_key(game or default_game())
    return PlayStats.objects.filter(key=key).values_list("data", flat=True).first()


def figures(data: dict[str, Any], game: str) -> dict[str, Any]:
    """The figures a page shows of a side's stored totals: its game's (rates and averages,
    engine.games: stats_figures) and the decision times' median and 95th percentile."""
    return {**get_game(game).stats_figures(data),
            "decision_median": decision_percentile(data.get("decision_ms") or [], 0.5),
            "decision_p95": decision_percentile(data.get("decision_ms") or [], 0.95)}


def bot_stats_context(*, version_ids: list[int], playing_id: int | None,
                      game: str = "") -> dict[str, Any]:
    """The bot page's statistics: a column for each of the newest versions that played (and
    the playing one), one for all bots of its game, and the game's chart (if it has one) of
    the playing version (else the newest)."""
    rows = dict(PlayStats.objects.filter(version_id__in=version_ids)
                .values_list("version_id", "data"))
    numbers = dict(BotVersion.objects.filter(pk__in=rows).values_list("pk", "number"))
    newest = sorted(rows, key=lambda v: -numbers[v])
    shown_ids = newest[:STATS_COLUMNS] + [v for v in newest[STATS_COLUMNS:] if v == playing_id]
    game = game or default_game()
    columns = [{"label": f"v{numbers[v]}", "playing": v == playing_id, "data": rows[v],
                "figures": figures(rows[v], game)} for v in shown_ids]
    everyone = all_stats(game=game)
    shown = next((c for c in columns if c["playing"]), columns[0] if columns else None)
    return {
        "game": game,
        "columns": columns,
        "everyone": {"data": everyone, "figures": figures(everyone, game)} if everyone else None,
        # A game with a chart of its own (Kaiser: the contracts held) draws it.
        "chart": stats_chart(shown["data"], game) if shown else "",
        "chart_label": shown["label"] if shown else "",
        "game_rows": game_rows(columns, everyone, game),
    }


def game_rows(columns: list[dict[str, Any]], everyone: dict[str, Any] | None,
              game: str) -> list[dict[str, Any]]:
    """The game's own figures (stats_figures) as rows, for a game whose package brings no
    rows of the table (templates/games/any/stats_rows.html): a plugin outside the project
    has no templates folder of its own, and its figures are still shown, by their names."""
    spec = get_game(game)
    names = list(spec.stats_figures(columns[0]["data"] if columns else spec.stats_empty()))
    mean = spec.stats_figures(everyone) if everyone else {}
    return [{"name": name, "label": name.replace("_", " ").capitalize(),
             "cells": [column["figures"].get(name) for column in columns],
             "everyone": mean.get(name)} for name in names]


def stats_chart(data: dict[str, Any], game: str) -> str:
    """The game's chart of a side's totals (engine.games: stats_chart; Kaiser's: contracts
    held, light, and made, dark, per bid), with the counts; plain SVG drawn by
    matches/jinja2/matches/contracts_chart.svg from the numbers here. "" for none."""
    rows = get_game(game).stats_chart(data)
    if not rows:
        return ""
    width, height, top, bottom = 40 * len(rows) + 20, 160, 16, 24
    scale = (height - top - bottom) / max(r["held"] for r in rows)
    bars = [{"bid": r["key"], "words": r["words"], "label": r["label"],
             "held": r["held"], "made": r["made"], "x": 20 + 40 * i,
             "held_h": r["held"] * scale, "made_h": r["made"] * scale}
            for i, r in enumerate(rows)]
    return fragment("matches/contracts_chart.svg", {
        "width": width, "height": height, "base": height - bottom, "bars": bars})
