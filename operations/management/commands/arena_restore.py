"""manage.py arena_restore ARCHIVE [--force]: an arena_backup archive into an empty site."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from operations.backup import BackupError, backup_restore


class Command(BaseCommand):
    help = ("Restore an arena_backup archive into the configured database (empty: no accounts, "
            "bots or matches, unless --force) and folders, after checking every file's SHA-256; "
            "then check the restored row counts against the manifest.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archive", help="a file written by arena_backup")
        parser.add_argument("--force", action="store_true",
                            help="replace a database that holds data, and files that differ")

    def handle(self, *args: Any, **options: Any) -> None:
        archive = Path(options["archive"])
        if not archive.is_file():
            raise CommandError(f"{archive}: no such file")
        try:
            done = backup_restore(archive=archive, force=options["force"])
        except BackupError as error:
            raise CommandError(str(error)) from error
        counts = done["counts"]
        self.stdout.write(
            f"restored {archive}: {sum(counts.values())} rows in {len(counts)} tables, as the "
            f"manifest counts; {done['store']} replays in the store, {done['replays']} archived "
            f"replays, {done['media']} media files")
        if not done["store_included"]:
            self.stdout.write("the backup did not hold the replay store: restore it by the "
                              "means it was backed up with")
