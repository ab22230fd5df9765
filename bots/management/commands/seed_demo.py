"""Demo users with the example bots of bots/examples/, and the house bots: a living site for
the first README command. Idempotent: running it again adds nothing that is already there."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bots.models import Bot
from bots.services import bot_upload_check, bot_version_upload

EXAMPLES = Path(settings.BASE_DIR) / "bots" / "examples"
DEMO_PASSWORD = "kaiser-demo"
# The demo: user -> [{"bot", "file" (of bots/examples/), "game", "description"}]. Data, as
# the examples are: which game each example plays is theirs to say.
DEMO_FILE = EXAMPLES / "demo.json"


def demo_bots() -> dict[str, list[dict[str, str]]]:
    return json.loads(DEMO_FILE.read_text())  # type: ignore[no-any-return]


class Command(BaseCommand):
    help = "Create demo users (password: kaiser-demo) with the example bots, and the house bots."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true",
                            help="Seed even with DEBUG off (demo users have a known password).")
        parser.add_argument("--check-now", action="store_true",
                            help="Run the upload checks here instead of leaving them to a worker.")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG and not options["force"]:
            raise CommandError("DEBUG is off: demo users have a known password. Use --force.")
        self._house_bots()
        for username, bots in demo_bots().items():
            user = _demo_user(username)
            for bot in bots:
                self._seed_bot(user, bot, options["check_now"])

    def _house_bots(self) -> None:
        from ladder.services import house_bots_ensure_every_game

        # Every game's (the migrations make them too; this brings them back after a flush).
        for version in house_bots_ensure_every_game():
            self.stdout.write(f"house bot {version.bot.name}: {version.builtin}")

    def _seed_bot(self, user: User, demo: dict[str, str], check_now: bool) -> None:
        name, path = demo["bot"], EXAMPLES / demo["file"]
        if not path.is_file():
            self.stdout.write(f"{name}: skipped, {path.relative_to(settings.BASE_DIR)} is missing")
            return
        bot, _ = Bot.objects.get_or_create(
            name=name, defaults={"owner": user, "description": demo["description"],
                                 "game": demo["game"]}
        )
        content = path.read_bytes()
        sha256 = hashlib.sha256(content).hexdigest()
        existing = bot.versions.filter(program_id=sha256).first()
        if existing is not None:
            self.stdout.write(f"{name}: v{existing.number} already there ({existing.status})")
            return
        version = bot_version_upload(bot=bot, filename=path.name, content=content)
        if check_now:
            version = bot_upload_check(version_id=version.pk) or version
        self.stdout.write(f"{name}: uploaded {path.name} as v{version.number} ({version.status})")


def _demo_user(username: str) -> User:
    user, created = User.objects.get_or_create(
        username=username, defaults={"email": f"{username}@demo.invalid"}
    )
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save(update_fields=["password"])
    return user
