"""Make every ladder's pair tallies (PairTally, what the fitted ratings read) again from the
rated matches: manage.py pair_tallies_rebuild.

For tallies that missed matches: an upgrade whose workers, still on the code from before the
tallies, finished matches after the migration that filled them. Safe while matches finish
(ladder.services.pair_tallies_rebuild); 10 to 15 s at a million matches."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from ladder.services import pair_tallies_rebuild


class Command(BaseCommand):
    help = "Make every ladder's pair tallies again from the rated matches."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"pair tallies rebuilt: {pair_tallies_rebuild()} pairs")
