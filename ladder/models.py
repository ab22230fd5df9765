"""The ladder: who is on it (an entry per bot version) and every rating change.

RatingChange rows are the history: replaying them in order gives the stored ratings back.
"""

from __future__ import annotations

from django.db import models

from ladder import ratings
from matches.models import PlayConditions

# The user who owns the house bots (ladder.services.house_bots_install).
HOUSE_USER = "house"


class Ladder(PlayConditions):
    name = models.CharField(max_length=80)
    slug = models.SlugField(max_length=40, unique=True)
    description = models.TextField(blank=True)
    active = models.BooleanField(default=True)
    # Matches waiting or running at once for this ladder: keeps the queue fed, never flooded.
    queue_depth = models.PositiveIntegerField(default=4)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        # The table it had when the tournaments app held it (docs/architecture.md).
        db_table = "tournaments_ladder"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class LadderEntry(models.Model):
    """One bot version's standing on one ladder. Each version is rated on its own: a new
    version starts provisional at 1500 and the bot's older versions stop playing."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="entries")
    version = models.ForeignKey(
        "bots.BotVersion", on_delete=models.CASCADE, related_name="ladder_entries"
    )
    elo = models.FloatField(default=ratings.START)
    games = models.PositiveIntegerField(default=0)  # rated matches played
    pinned = models.BooleanField(default=False)  # an anchor: its rating never moves
    active = models.BooleanField(default=True)  # still scheduled (the bot's playing version)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "tournaments_ladderentry"
        ordering = ["-elo"]
        constraints = [
            models.UniqueConstraint(fields=["ladder", "version"], name="ladder_entry_unique")
        ]
        indexes = [
            # A page of the leaderboard: the playing entries by Elo, walked in the index.
            models.Index(fields=["ladder", "-elo", "id"], name="ladder_entry_board",
                         condition=models.Q(active=True), include=["games", "pinned"]),
        ]
        verbose_name_plural = "ladder entries"

    def __str__(self) -> str:
        return f"{self.version} on {self.ladder}"

    @property
    def provisional(self) -> bool:
        return not self.pinned and ratings.elo_is_provisional(games=self.games)


class RatingChange(models.Model):
    """One rating change of one entry by one match: the rating history."""

    # (no index of its own: rating_change_once begins with it)
    match = models.ForeignKey("matches.Match", on_delete=models.CASCADE,
                              related_name="rating_changes", db_index=False)
    entry = models.ForeignKey(LadderEntry, on_delete=models.CASCADE, related_name="changes")
    before = models.FloatField()
    after = models.FloatField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "tournaments_ratingchange"
        ordering = ["id"]
        constraints = [
            # The database itself refuses to count a match twice for the same entry.
            models.UniqueConstraint(fields=["match", "entry"], name="rating_change_once")
        ]
        indexes = [
            # An entry's last ratings (the leaderboard's trends, the bot page's history):
            # read from the index alone, newest first.
            models.Index(fields=["entry", "-id"], name="rating_change_recent",
                         include=["before", "after", "created"]),
        ]

    @property
    def delta(self) -> float:
        return self.after - self.before


class PairTally(models.Model):
    """A ladder's rated results between two versions, added up: what the fitted ratings read
    (ladder.selectors.ladder_tallies), so that no fit reads every match. `low` is the lower
    version id; `low_wins` is its share of the `games` (a three-player match adds each of its
    pairs, scored by the pair's points: ratings.pairwise_scores). Written with the rating
    changes, in the transaction that stores the result (services.ratings_apply): a match
    counts once, here as there."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="+",
                               db_index=False)  # (the unique constraint's index leads with it)
    low = models.ForeignKey("bots.BotVersion", on_delete=models.CASCADE, related_name="+")
    high = models.ForeignKey("bots.BotVersion", on_delete=models.CASCADE, related_name="+")
    games = models.PositiveIntegerField(default=0)
    low_wins = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["ladder", "low", "high"], name="pair_tally_once"),
            models.CheckConstraint(condition=models.Q(low__lt=models.F("high")),
                                   name="pair_tally_low_first"),
        ]

    def __str__(self) -> str:
        return f"{self.low_id} vs {self.high_id} on ladder {self.ladder_id}: {self.games} games"
