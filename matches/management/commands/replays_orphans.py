"""Objects of the replay store that no match names: manage.py replays_orphans [--delete].

An attempt that wrote its replay and then lost its lease, or a prune stopped between dropping
a key and deleting its object, leaves one (matches.services.replays_orphans)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.services import replays_orphans


class Command(BaseCommand):
    help = "List (or with --delete remove) objects of the replay store that no match names."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--delete", action="store_true", help="remove them")
        parser.add_argument("--min-age-minutes", type=int, default=60,
                            help="only objects older than this (default 60)")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["min_age_minutes"] < 0:
            raise CommandError("--min-age-minutes must be at least 0")
        keys = replays_orphans(delete=options["delete"],
                               min_age=timedelta(minutes=options["min_age_minutes"]))
        for key in keys:
            self.stdout.write(key)
        verb = "deleted" if options["delete"] else "found (--delete removes them)"
        self.stdout.write(f"{len(keys)} orphan replay objects {verb}")
