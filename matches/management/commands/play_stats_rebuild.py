"""Recompute every play statistic from the stored replays: manage.py play_stats_rebuild.

For a database whose matches finished before the statistics existed, or to check them: each
finished match's statistics are taken again from its replay (the decision times, which the
replay does not hold, from its times in the replay store, matches.times_store, or from its
statistics not folded yet; the fold empties a match's), the totals emptied and every match
folded again (matches.stats.play_stats_fold), as the beat does match by match."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from matches.models import HAS_REPLAY, REPLAY_FIELDS, Match, PlayStats
from matches.stats import play_stats_fold, replay_stats
from matches.times_store import match_times


def decision_ms(match: Match) -> dict[str, list[int]] | None:
    """Each side's counted time of each decision in whole ms, as the engine gave it to
    match_finish (engine.clock), from the match's stored times; None without them."""
    times = match_times(match)
    if times is None:
        return None
    return {side: [round(ms) for ms in clock.counted_ms] for side, clock in times.items()}


class Command(BaseCommand):
    help = "Recompute the play statistics of every version from the stored replays."

    def handle(self, *args: Any, **options: Any) -> None:
        finished = (Match.objects.filter(HAS_REPLAY, status=Match.Status.FINISHED)
                    .order_by("id").values_list("pk", flat=True))
        with transaction.atomic():
            PlayStats.objects.all().delete()
            for pk in finished.iterator(chunk_size=200):
                match = Match.objects.only("stats", "game", "times_key", "times_sha256",
                                           *REPLAY_FIELDS).get(pk=pk)
                replay = match.replay()
                stats = (replay_stats(replay, decisions=decision_ms(match), game=match.game)
                         if replay is not None else None)
                for side, old in (match.stats or {}).items():  # not in the replay: kept
                    if stats is not None and side in stats and old.get("decision_ms"):
                        stats[side]["decision_ms"] = old["decision_ms"]
                Match.objects.filter(pk=pk).update(stats=stats, stats_folded=False)
            count = 0
            while folded := play_stats_fold():
                count += folded
        self.stdout.write(f"play statistics rebuilt from {count} replays")
