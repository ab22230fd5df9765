"""manage.py arena_backup DEST: the database, the replay store's objects, the archived replays
and media in one tar."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from operations.backup import BackupError, backup_create


class Command(BaseCommand):
    help = ("Back up the site: the database (pg_dump custom format, or an SQLite copy), the "
            "replay store's objects, the archive of pruned replays and MEDIA_ROOT, in one tar "
            "with a manifest of row counts and SHA-256 sums. DEST: a file, or a folder for "
            "kaiser-backup-<UTC>.tar.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dest", help="archive file, or an existing folder (or one ending in /)")
        parser.add_argument("--without-store", action="store_true",
                            help="leave the replay store's objects out (a store backed up by "
                            "its own means, such as a versioned S3 bucket)")

    def handle(self, *args: Any, **options: Any) -> None:
        dest = Path(options["dest"])
        if options["dest"].endswith("/"):  # a folder, made if missing (Path drops the "/")
            dest.mkdir(parents=True, exist_ok=True)
        try:
            path, manifest = backup_create(target=dest,
                                           include_store=not options["without_store"])
        except BackupError as error:
            raise CommandError(str(error)) from error
        counts = manifest["counts"]
        self.stdout.write(
            f"{path}: {manifest['vendor']}, {sum(counts.values())} rows in {len(counts)} "
            f"tables, {len(manifest['files']) - 1} files beside the database")
        store = manifest["store"]
        if not store["included"]:
            self.stdout.write(f"the replay store's {store['objects']} objects are NOT in it "
                              "(--without-store): back the store up by its own means")
        elif store["missing"]:
            self.stderr.write(f"{len(store['missing'])} replays named by the database were "
                              f"not in the store (pruned meanwhile?): {store['missing'][:5]}")
