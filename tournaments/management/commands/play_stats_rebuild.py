"""Recompute every play statistic from the stored replays: manage.py play_stats_rebuild.

For a database whose matches finished before the statistics existed, or to check them: the
totals come out equal to those match_finish added up match by match."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from tournaments.models import Match, PlayStats
from tournaments.stats import play_stats_record


class Command(BaseCommand):
    help = "Recompute the play statistics of every version from the stored replays."

    def handle(self, *args: Any, **options: Any) -> None:
        finished = (Match.objects.filter(status=Match.Status.FINISHED, replay_gz__isnull=False)
                    .order_by("id").values_list("pk", "version_a_id", "version_b_id"))
        with transaction.atomic():
            PlayStats.objects.all().delete()
            count = 0
            for pk, version_a, version_b in finished.iterator(chunk_size=200):
                replay = Match.objects.only("replay_gz").get(pk=pk).replay()
                if replay is not None:
                    play_stats_record(replay=replay, version_a_id=version_a,
                                      version_b_id=version_b)
                    count += 1
        self.stdout.write(f"play statistics rebuilt from {count} replays")
