"""Make every ladder's ratings again from its stored results: manage.py ratings_rebuild.

Each rated match's outcome again from its stored boards (ladder.ratings.match_outcome), Elo
replayed in the order the matches were rated, the rating history and the pair tallies
rewritten (ladder.services.ratings_rebuild). For a change of the rating rule, or matches
rated before the outcome was stored; on ratings kept match by match it writes the same
numbers."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from ladder.models import Ladder
from ladder.services import ratings_rebuild


class Command(BaseCommand):
    help = "Make every ladder's ratings again from its stored results."

    def handle(self, *args: Any, **options: Any) -> None:
        for ladder in Ladder.objects.order_by("pk"):
            replayed = ratings_rebuild(ladder=ladder)
            self.stdout.write(f"{ladder.slug}: {replayed} rated matches replayed")
