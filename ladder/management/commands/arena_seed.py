"""Put the house bots on the ladders: `builtin:random` and `builtin:greedy`, owned by a system
user, with `greedy` pinned at 1500 on the main ladder as the scale's anchor; and Sergeant
Major's (`sm-random`, `sm-greedy`, the game's built-in players) on its ladder, `sm-greedy`
its anchor. Idempotent."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from ladder.services import house_bots_ensure, sm_house_bots_ensure


class Command(BaseCommand):
    help = "Create the house bots of each game and anchor their ladders."

    def handle(self, *args: Any, **options: Any) -> None:
        for version in house_bots_ensure() + sm_house_bots_ensure():
            self.stdout.write(f"house bot {version.bot.name} v{version.number} ({version.builtin})")
