"""Move the replays still held in the database to the replay store: manage.py replays_to_store.

Stop it at any moment (Ctrl-C, a kill, --limit) and run it again: it goes on where it was,
and no replay is lost or moved twice (matches.services.replays_to_store)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.replay_store import ReplayUnavailable
from matches.services import replays_to_store


class Command(BaseCommand):
    help = ("Move replays from the database (Match.replay_gz) to the replay store, a batch at "
            "a time; safe to stop and run again.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=int, default=200,
                            help="matches read from the database at once (default 200)")
        parser.add_argument("--limit", type=int, default=None,
                            help="stop after moving this many (default: all)")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["batch"] < 1 or (options["limit"] is not None and options["limit"] < 0):
            raise CommandError("--batch must be at least 1 and --limit at least 0")

        def progress(line: str) -> None:
            self.stdout.write(line)
            self.stdout.flush()

        try:
            moved = replays_to_store(batch=options["batch"], limit=options["limit"],
                                     progress=progress)
        except ReplayUnavailable as error:
            raise CommandError(f"{error}; run the command again once the store answers "
                               "(the replays moved so far stay moved)") from error
        self.stdout.write(f"done: {moved} replays moved to the store")
