"""Tournaments: a format (round robin, Swiss, knockout), its entrants, byes and rounds.

Its matches are matches.Match rows with `tournament` set; standings are worked out from them
(tournaments.standings, read by tournaments.selectors).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from bots.models import game_players
from matches.models import PlayConditions
from tournaments import standings


def bye_points(game: str) -> float:
    """What a bye is worth in the standings of a tournament of `game`: twice a match's even
    share, 2 / players. A two-player bye counts as a match won (1 point, where an even match
    gives each its share, 1/2); with three players, 2/3 (docs/tournaments.md)."""
    return 2 / game_players(game)


def min_entrants(game: str) -> int:
    """The fewest entrants a tournament of `game` can start with: one match's players."""
    return game_players(game)


class Tournament(PlayConditions):
    class Format(models.TextChoices):
        ROUND_ROBIN = standings.ROUND_ROBIN, "round robin"
        SWISS = standings.SWISS, "Swiss"
        KNOCKOUT = standings.KNOCKOUT, "knockout"

    class Status(models.TextChoices):
        DRAFT = "draft"
        OPEN = "open", "open for entry"  # authors enter until entry_deadline, then it starts
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    name = models.CharField(max_length=80)
    format = models.CharField(max_length=12, choices=Format.choices)
    # Round robin: how many matches each pair plays. Swiss: the number of rounds.
    rounds = models.PositiveIntegerField(default=1)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    current_round = models.PositiveIntegerField(default=0)
    # Seeds come from this ladder's ratings when given (else entry order).
    ladder = models.ForeignKey("ladder.Ladder", null=True, blank=True, on_delete=models.SET_NULL)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    # Open entry: authors enter their bots until then; the beat's task then starts it.
    entry_deadline = models.DateTimeField(null=True, blank=True)
    cancel_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["status", "entry_deadline"])]

    def __str__(self) -> str:
        return self.name


class TournamentEntrant(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="+")
    # 1 is the best. Blank until the start, which seeds by the ladder's rating (if the
    # tournament has a ladder) or else by the seeds given, then entry order.
    seed = models.PositiveIntegerField(null=True, blank=True)
    eliminated_round = models.PositiveIntegerField(null=True, blank=True)
    final_rank = models.PositiveIntegerField(null=True, blank=True)
    entered = models.DateTimeField(auto_now_add=True, null=True)
    # The bot was retired while the tournament ran: its remaining matches are walkovers.
    withdrawn = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament_id", "seed"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "version"], name="entrant_unique"),
            models.UniqueConstraint(fields=["tournament", "seed"], name="entrant_seed_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.version} in {self.tournament}"


class TournamentBye(models.Model):
    """A round an entrant did not play (odd numbers): it scores the round as a win."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="byes")
    round = models.PositiveIntegerField()
    version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="+")
    position = models.PositiveIntegerField(null=True, blank=True)  # place in a knockout bracket

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "round", "version"], name="bye_unique")
        ]


ORGANISERS_GROUP = "Organisers"


class OrganiserRequest(models.Model):
    """An account's request to organise tournaments, answered by staff from the site
    (tournaments.organisers): granted, the account joins the Organisers group."""

    class Status(models.TextChoices):
        PENDING = "pending", "waiting for staff"
        GRANTED = "granted", "granted"
        REFUSED = "refused", "refused"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="organiser_requests")
    reason = models.CharField(max_length=500)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    created = models.DateTimeField(auto_now_add=True)
    decided = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    answer = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-created"]
        constraints = [models.UniqueConstraint(
            fields=["user"], condition=models.Q(status="pending"),
            name="organiser_request_one_pending")]

    def __str__(self) -> str:
        return f"{self.user} asks to organise ({self.status})"
