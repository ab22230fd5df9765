"""Bots and their versions. A version's program bytes live in the database (BotProgram), so a
worker on another machine needs only PostgreSQL and Redis to run it."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models.functions import Lower

BOT_NAME_VALIDATOR = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,39}$",
    "2 to 40 characters: letters, digits, '_', '.', '-', starting with a letter or digit.",
)


def game_choices() -> list[tuple[str, str]]:
    """The games a bot plays, as (name, title): the engine's registry (engine.games.GAMES),
    read when asked, so that a game registered later is a choice too. A bot plays one game,
    chosen when it is made."""
    from engine.games import GAMES

    return [(name, game.title) for name, game in GAMES.items()]


def default_game() -> str:
    """The name of the registry's first game (engine.games.default_game): what a bot, a ladder
    or a tournament plays unless told."""
    from engine.games import default_game as first

    return first().name


def game_title(name: str) -> str:
    """A game's title for people ("Sergeant Major (9-5-2)"); the name itself if unknown."""
    from engine.games import GAMES

    return GAMES[name].title if name in GAMES else name


def game_players(name: str) -> int:
    """The players of one match of the game `name` (engine.games: its sides)."""
    from engine.games import get_game

    return len(get_game(name).sides)


def game_field() -> models.CharField:
    """The `game` column of bots and play conditions. db_default too: raw SQL and COPY
    inserts that predate games (bench scripts, restores of old dumps) still make rows of the
    default game."""
    return models.CharField(max_length=20, choices=game_choices, default=default_game,
                            db_default=default_game())


class Bot(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bots"
    )
    name = models.CharField(max_length=40, unique=True, validators=[BOT_NAME_VALIDATOR])
    description = models.TextField(blank=True, max_length=2000)
    # Set when the bot is made, never changed: each of its versions plays this game.
    game = game_field()
    retired = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    # The version the owner chose to play (bots.services.bot_version_play); null: the newest
    # checked one plays. Only ever a checked (active) version of this bot.
    playing_version = models.ForeignKey(
        "BotVersion", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(Lower("name"), name="bot_name_unique_ci")]

    def __str__(self) -> str:
        return self.name

    def is_owned_by(self, user: object) -> bool:
        return getattr(user, "pk", None) == self.owner_id


class BotProgram(models.Model):
    """The uploaded bytes, stored once per content (keyed by SHA-256)."""

    sha256 = models.CharField(max_length=64, primary_key=True)
    content = models.BinaryField()
    size = models.PositiveIntegerField()
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.sha256[:12]


class BotVersion(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        CHECKING = "checking"
        ACTIVE = "active"
        REJECTED = "rejected"

    class Kind(models.TextChoices):
        PYTHON = "py", "Python file"
        ZIP = "zip", "zip archive"
        BUILTIN = "builtin", "built-in player"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=8, choices=Kind.choices)
    # Null only for built-in house players (kind=builtin), which have `builtin` instead.
    program = models.ForeignKey(BotProgram, on_delete=models.PROTECT, null=True, blank=True)
    builtin = models.CharField(max_length=40, blank=True)
    filename = models.CharField(max_length=200, blank=True)
    size = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    reason = models.TextField(blank=True)
    check_stderr = models.TextField(blank=True)
    check_summary = models.JSONField(null=True, blank=True)
    check_replay = models.JSONField(null=True, blank=True)
    check_attempts = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    checked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["bot_id", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="bot_version_number_unique")
        ]
        indexes = [models.Index(fields=["bot", "status", "-number"])]

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"

    @property
    def sha256(self) -> str:
        return self.program_id or ""

    def is_owned_by(self, user: object) -> bool:
        return self.bot.is_owned_by(user)
