"""A person's table against bots (three at Kaiser, two at Sergeant Major): the table (one
game, of the engine's game `game`), its seats, and the moves the person posts."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from bots.models import game_field


class Table(models.Model):
    """A table: one game with a person at seat 0 and bots at the others (its `game`: a game of
    the registry, engine.games.Game). The worker publishes `view` (what the person may see)
    after every move; the page polls it. `alive` is the worker's heartbeat."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"
        VOID = "void"

    class Length(models.TextChoices):
        DEAL = "deal", "one deal (practice)"
        GAME = "game", "a whole game"

    OPEN = (Status.QUEUED, Status.RUNNING)

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="play_games")
    game = game_field()  # a game of the registry (engine.games)
    rules = models.CharField(max_length=20, default="official")
    length = models.CharField(max_length=4, choices=Length.choices, default=Length.DEAL)
    seed = models.CharField(max_length=40)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    move_seconds = models.PositiveIntegerField()
    bot_move_ms = models.PositiveIntegerField(default=1000)
    bot_bank_ms = models.PositiveIntegerField(default=10000)
    bot_startup_ms = models.PositiveIntegerField(default=5000)
    # The published state: seq counts the moves made; view is the person's view after them.
    seq = models.PositiveIntegerField(default=0)
    view = models.JSONField(null=True, blank=True)
    resign_requested = models.BooleanField(default=False)
    # Kaiser: the winning team, 0 the person's (seats 0 and 2); Sergeant Major: the winning
    # seat, 0 the person's. Null while open, for a draw (a shared point), or when void.
    winner = models.SmallIntegerField(null=True, blank=True)
    score = models.JSONField(null=True, blank=True)
    forfeit_reason = models.CharField(max_length=12, blank=True)
    forfeit_seat = models.SmallIntegerField(null=True, blank=True)
    void_reason = models.CharField(max_length=200, blank=True)
    replay = models.JSONField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    alive = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["owner", "status"]),
                   models.Index(fields=["status", "alive"])]

    def __str__(self) -> str:
        return f"game {self.pk} of {self.owner_id} ({self.status})"

    @property
    def is_open(self) -> bool:
        return self.status in self.OPEN

    @property
    def person_won(self) -> bool | None:
        return None if self.winner is None else self.winner == 0


class Seat(models.Model):
    """A bot's seat (Kaiser: 1, 2 or 3; Sergeant Major: 1 or 2) in a game: a bot version, or
    a house player by its spec."""

    game = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, null=True,
                                blank=True, related_name="play_seats")
    builtin = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["game_id", "seat"]
        constraints = [models.UniqueConstraint(fields=["game", "seat"], name="play_seat_once")]

    def __str__(self) -> str:
        return f"{self.game_id}/{self.seat}: {self.label}"

    @property
    def label(self) -> str:
        if self.version_id:
            return f"{self.version.bot.name} v{self.version.number}"
        return self.builtin

    @property
    def partner(self) -> bool:
        """The person's partner: where the game seats sides alternately, two seats or more
        a side (Kaiser: North, across the table from South, seat 0), a seat of the person's."""
        from engine.games import get_game

        spec = get_game(self.game.game)
        return len(spec.sides) < spec.seats and self.seat % len(spec.sides) == 0


class Move(models.Model):
    """A move the person posted: one per (game, seq), so a move posted twice counts once."""

    game = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    action = models.JSONField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="play_move_once")]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq}: {self.action}"
