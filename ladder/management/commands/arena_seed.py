"""Make each registered game's home ladder and put its house bots on it (engine.games.Game:
home_ladder, house_bots; a game without house bots gets its ladder all the same),
owned by a system user, the game's anchor pinned at 1500 as its scale's anchor: Kaiser's
`random` and `greedy` on the main ladder, `greedy` the anchor; Sergeant Major's `sm-random`
and `sm-greedy` on its ladder, `sm-greedy` the anchor. Idempotent."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from ladder.services import house_bots_ensure_every_game


class Command(BaseCommand):
    help = "Create each game's home ladder, its house bots and their anchor."

    def handle(self, *args: Any, **options: Any) -> None:
        for version in house_bots_ensure_every_game():
            self.stdout.write(f"house bot {version.bot.name} v{version.number} ({version.builtin})")
