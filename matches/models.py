"""Matches: one match between two bot versions, its attempts, and play statistics.

A Match is the unit of work: a row made by the ladder scheduler, a tournament or a challenge,
played by one Celery task (matches.tasks.run_match), finished exactly once (the result, the
replay and, through matches.signals, the rating changes are written in one transaction).
PlayConditions, the rules and clock a match is played under, is shared by the ladder and
tournaments, which copy it onto each match they make.
"""

from __future__ import annotations

import gzip
import json
from functools import cached_property
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Prefetch

from bots.models import game_field, game_players
from matches.replay_store import replay_get

# One author's two bots could feed each other rating points (a deliberate loser): a challenge,
# whose pairing its author picks, is rated only between bots of different owners.
RATED_SAME_OWNER = ("a rated challenge needs an opponent of another owner; "
                    "challenge your own bots unrated")


def validate_preset(value: str) -> None:
    """A preset of some game; PlayConditions.clean checks it belongs to the row's game."""
    from engine.games import GAMES

    if not any(value in game.presets for game in GAMES.values()):
        names = [name for game in GAMES.values() for name in game.presets]
        raise ValidationError(f"unknown rules preset {value!r}; choose one of {', '.join(names)}")


def validate_games(value: int) -> None:
    """At least one set; PlayConditions.clean checks whole sets of the row's game."""
    if value < 2:
        raise ValidationError("games per match must be at least 2")


def validate_strict_ms(value: int) -> None:
    from engine.players import strict_ms_error

    error = strict_ms_error(value)
    if error:
        raise ValidationError(error)


def conditions_errors(*, game: str, rules: str, games_per_match: int) -> dict[str, str]:
    """What is wrong with these play conditions for this game, by field (empty: nothing).
    A match is whole sets of games over the same deals (Kaiser: pairs, both ways round;
    Sergeant Major: threes, the seats rotated), so its length is a multiple of the set."""
    from engine.games import GAMES

    if game not in GAMES:
        return {"game": f"unknown game {game!r}; choose one of {', '.join(GAMES)}"}
    spec = GAMES[game]
    errors = {}
    if rules not in spec.presets:
        errors["rules"] = (f"{rules!r} is not a {spec.title} preset; choose one of "
                           f"{', '.join(spec.presets)}")
    size = spec.games_per_set
    if games_per_match < size or games_per_match % size:
        errors["games_per_match"] = (f"a {spec.title} match is whole sets of {size} games: "
                                     f"{size}, {2 * size}, {3 * size}, ... (not {games_per_match})")
    return errors


def conditions_check(*, game: str, rules: str, games_per_match: int) -> None:
    """ValidationError (by field) unless the conditions suit the game."""
    errors = conditions_errors(game=game, rules=rules, games_per_match=games_per_match)
    if errors:
        raise ValidationError(errors)


class PlayConditions(models.Model):
    """What a match is played under: copied onto each match, so a match explains itself."""

    game = game_field()
    rules = models.CharField(max_length=20, default="official", validators=[validate_preset])
    games_per_match = models.PositiveIntegerField(default=2, validators=[validate_games])
    move_ms = models.PositiveIntegerField(default=1000)
    bank_ms = models.PositiveIntegerField(default=10000)
    startup_ms = models.PositiveIntegerField(default=5000)
    # Strict time (engine.slots; docs/protocol.md, "Strict time"): every decision a slot of
    # this many ms of wall time, so that no seat's clock tells how long another took. 0: off.
    strict_ms = models.PositiveIntegerField(
        default=0, validators=[validate_strict_ms],
        help_text="0: the normal clock. Else every decision gets exactly this many ms of wall "
                  "time and the next message goes out when the slot ends, so partners cannot "
                  "signal through their think time.")

    class Meta:
        abstract = True

    def clean(self) -> None:
        super().clean()
        conditions_check(game=self.game, rules=self.rules, games_per_match=self.games_per_match)

    @property
    def players(self) -> int:
        """The players of one match of this game (engine.games: its sides)."""
        return game_players(self.game)


# What Match.replay() reads, for querysets that load only some fields.
REPLAY_FIELDS = ("replay_key", "replay_sha256", "replay_gz")
# A match that holds a replay, in the store or (not moved yet) in the database.
HAS_REPLAY = models.Q(replay_gz__isnull=False) | ~models.Q(replay_key="")


class Match(PlayConditions):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"
        FAILED = "failed"  # our own bug, not retried; never scored
        VOID = "void"  # retry budget spent or cancelled; never scored
        # Never played, yet scored: the sides still in win it, those who withdrew lose it
        # (matches.services.match_walkover; each side's share and fault on its MatchSide).
        WALKOVER = "walkover"

    class Kind(models.TextChoices):
        LADDER = "ladder"
        CHALLENGE = "challenge"
        TOURNAMENT = "tournament"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    # No index of their own on ladder, tournament and status: the indexes below that begin
    # with them serve their reads (each index is some 20 bytes more a match, issue 42).
    ladder = models.ForeignKey(
        "ladder.Ladder", null=True, blank=True, on_delete=models.PROTECT,
        related_name="matches", db_index=False,
    )
    tournament = models.ForeignKey(
        "tournaments.Tournament", null=True, blank=True, on_delete=models.PROTECT,
        related_name="matches", db_index=False,
    )
    round = models.PositiveIntegerField(null=True, blank=True)
    position = models.PositiveIntegerField(null=True, blank=True)  # place in a knockout bracket
    rated = models.BooleanField(default=True)  # moves the ladder's Elo when finished
    # Its players are MatchSide rows (`sides`), one a side, as many as the game seats: each
    # side's version, games won, points, ups, stderr and fault are stored there only.
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="challenges", db_index=False,  # (match_requested_by: challenges only)
    )
    seed = models.CharField(max_length=40)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    # The result: A's share (Kaiser: of the games; Sergeant Major: of the points); each
    # side's part of it is on its MatchSide row.
    score = models.FloatField(null=True, blank=True)
    # A's actual score for the ratings (Kaiser: from the boards, ladder.ratings.match_outcome;
    # the games won for a forfeit), set by the ladder when it rates the match; null otherwise.
    outcome = models.FloatField(null=True, blank=True)
    # The fault that ended it, as the replay gives it (player, reason, seat, detail); the
    # side at fault has its reason on its row (MatchSide.fault).
    forfeit = models.JSONField(null=True, blank=True)
    # The replay: an object in the replay store (matches.replay_store) named by replay_key,
    # whose bytes hash to replay_sha256; replay_gz holds it instead for a match finished
    # before replays left the database and not moved yet (manage.py replays_to_store).
    replay_key = models.CharField(max_length=200, blank=True, editable=False)
    replay_sha256 = models.CharField(max_length=64, blank=True, editable=False)
    replay_gz = models.BinaryField(null=True, blank=True, editable=False)
    replay_size = models.PositiveIntegerField(default=0)  # uncompressed bytes
    # Each decision's counted, wall and sleep time by side (matches.times_store: the fair-play
    # check's input), an object beside the replay in the replay store, checked against
    # times_sha256 like it; empty where no side was a bot program, and once pruned.
    times_key = models.CharField(max_length=200, blank=True, default="", db_default="",
                                 editable=False)
    times_sha256 = models.CharField(max_length=64, blank=True, default="", db_default="",
                                    editable=False)
    error = models.TextField(blank=True)
    # Scheduling and the lease that decides which worker plays (not the broker).
    created = models.DateTimeField(auto_now_add=True)
    dispatched = models.DateTimeField(null=True, blank=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    play_ms = models.PositiveIntegerField(null=True, blank=True)  # engine time, last attempt
    attempts = models.PositiveIntegerField(default=0)
    # The running attempt's token (MatchAttempt.token); emptied when the match ends.
    lease_token = models.CharField(max_length=32, blank=True)
    lease_expires = models.DateTimeField(null=True, blank=True)
    # The match's play statistics by side (matches.stats.replay_stats), written with its
    # result and kept only until play_stats_fold has added them to the versions' totals: the
    # fold empties them and sets stats_folded (the replay and the times hold them again).
    stats = models.JSONField(null=True, blank=True, editable=False)
    stats_folded = models.BooleanField(default=False)

    class Meta:
        # The table it had when the tournaments app held it (docs/architecture.md).
        db_table = "tournaments_match"
        ordering = ["-created", "-id"]
        verbose_name_plural = "matches"
        indexes = [
            # Partial, so that a finished match (nearly all of them) has no entry in them,
            # some 20 to 40 bytes a match each (issue 42): the dispatcher and the stale-match
            # sweep read open matches only; a tournament's matches and a user's challenges are
            # read by their id (which implies the condition).
            models.Index(fields=["status", "dispatched"], name="match_open_dispatched",
                         condition=models.Q(status__in=["queued", "running"])),
            models.Index(fields=["ladder", "status"]),
            models.Index(fields=["tournament", "round"], name="match_tournament_round",
                         condition=models.Q(tournament__isnull=False)),
            models.Index(fields=["requested_by"], name="match_requested_by",
                         condition=models.Q(requested_by__isnull=False)),
            models.Index(fields=["status", "finished"]),
            # What the pages read of a match beside its sides (a bot's matches: head to
            # head, the leaderboard's statistics, the bot page's token), joined from the
            # sides by key: index-only on PostgreSQL, not a heap read of a million-row table
            # a side (the included columns are PostgreSQL's; SQLite ignores them).
            models.Index(fields=["id"], name="match_side_facts",
                         include=["status", "ladder", "score", "finished", "started"]),
            # The matches whose statistics wait for play_stats_fold: a few rows at any time.
            models.Index(fields=["id"], name="match_stats_to_fold",
                         condition=models.Q(stats_folded=False, stats__isnull=False)),
        ]

    def __str__(self) -> str:
        return f"match {self.pk}: {' vs '.join(map(str, self.version_ids))} ({self.status})"

    @cached_property
    def side_list(self) -> list[MatchSide]:
        """Its sides in order (A, B, ...): prefetched (`sides_with_bots`) or read once, with
        their versions and bots."""
        if "sides" in getattr(self, "_prefetched_objects_cache", {}):
            return list(self.sides.all())
        return list(self.sides.select_related("version__bot").order_by("order"))

    def refresh_from_db(self, *args: Any, **kwargs: Any) -> None:
        self.__dict__.pop("side_list", None)  # its sides are read again too, when next asked
        super().refresh_from_db(*args, **kwargs)

    @property
    def version_ids(self) -> list[int]:
        """The players' versions in side order."""
        return [side.version_id for side in self.side_list]

    @property
    def fault_side(self) -> MatchSide | None:
        """The side whose fault ended the match, if one did."""
        return next((side for side in self.side_list if side.fault), None)

    def clean(self) -> None:
        """The admin's forms check what the challenge service checks (see RATED_SAME_OWNER)."""
        super().clean()
        if self.kind != self.Kind.CHALLENGE or not self.rated or self.pk is None:
            return
        owners = [side.version.bot.owner_id for side in self.side_list]
        if len(set(owners)) < len(owners):
            raise ValidationError({"rated": RATED_SAME_OWNER})

    def replay_stored(self) -> bytes | None:
        """The replay's stored bytes (the gzip of its JSON), from the replay store (checked
        against replay_sha256; ReplayUnavailable if it cannot be had) or from replay_gz for a
        match not moved yet; None for a match without one (not finished, or pruned)."""
        if self.replay_key:
            return replay_get(key=self.replay_key, sha256=self.replay_sha256)
        return bytes(self.replay_gz) if self.replay_gz else None

    def replay(self) -> dict[str, Any] | None:
        text = self.replay_text()
        if text is None:
            return None
        data: dict[str, Any] = json.loads(text)
        return data

    def board_comparison(self) -> list[dict[str, Any]] | None:
        """The board comparison of its duplicate pairs (its game's board_comparison, in
        engine.games), computed from its replay when asked (about 0.3 ms: no row keeps it, the
        replay holds it); None without a replay (not finished, or pruned) or in a game without
        boards. Once per instance: match_finish hands over the one it computed."""
        from engine.games import get_game

        if "_board_comparison" not in self.__dict__:
            replay = self.replay()
            self.board_comparison_known(None if replay is None
                                        else get_game(self.game).board_comparison(replay))
        known: list[dict[str, Any]] | None = self.__dict__["_board_comparison"]
        return known

    def board_comparison_known(self, boards: list[dict[str, Any]] | None) -> None:
        """What board_comparison answers for this instance, where the caller has it already."""
        self.__dict__["_board_comparison"] = boards

    def replay_text(self) -> str | None:
        """The replay as stored (canonical JSON, one line)."""
        blob = self.replay_stored()
        return gzip.decompress(blob).decode() if blob is not None else None


def side_letter(order: int) -> str:
    """A side's letter from its place in the match: 0 is A, 1 is B, 2 is C, ..."""
    return chr(ord("A") + order)


class MatchSide(models.Model):
    """One player of a match, a row a side: its version in side order (A, B, C, ...), and,
    once the match is finished, the games it won, its points, its stderr and its fault.

    Written with the match (`match_create`) and with its result (`match_finish`,
    `match_sides_result`): the only record of a match's players (issue 42 dropped the
    columns that held them beside these rows). A game with any number of players has as
    many rows."""

    # (no index of their own: matchside_order_once and matchside_version_recent begin with
    # them, and the planner took the narrower plain one, then read the table)
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="sides",
                              db_index=False)
    order = models.PositiveSmallIntegerField()  # 0 for A, 1 for B, ...
    version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT,
                                related_name="match_sides", db_index=False)
    games = models.PositiveIntegerField(null=True, blank=True)  # games won
    # Its points where the game scores each side (Sergeant Major); null else.
    points = models.FloatField(null=True, blank=True)
    # Its ups and downs over every hand of a match of three or more played to its end (the
    # pairs' rated outcomes read them: ladder.ratings.pairwise_scores); null else.
    ups = models.FloatField(null=True, blank=True)
    stderr = models.TextField(blank=True, default="")
    fault = models.CharField(max_length=20, blank=True)  # why it forfeited the match, if it did

    class Meta:
        ordering = ["match_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["match", "order"], name="matchside_order_once"),
            # A bot version plays a match once (Match's match_not_self, for any number).
            models.UniqueConstraint(fields=["match", "version"], name="matchside_version_once"),
        ]
        indexes = [
            # A bot's matches newest first (its page, the lists, head to head): on
            # PostgreSQL an index-only scan of the bot's few hundred rows, carrying what the
            # pages read of its side.
            models.Index(fields=["version", "-match"], name="matchside_version_recent",
                         include=["order", "games", "points"]),
        ]

    def __str__(self) -> str:
        return f"match {self.match_id} {self.letter}: version {self.version_id}"

    @property
    def letter(self) -> str:
        return side_letter(self.order)


def sides_with_bots() -> Prefetch:
    """A match's sides with their versions and bots, in one query for any number of matches
    (`Match.side_list` reads them); stderr left unread (only its owner sees it)."""
    return Prefetch("sides", queryset=MatchSide.objects.select_related("version__bot")
                    .defer("stderr").order_by("order"))


class MatchAttempt(models.Model):
    class Outcome(models.TextChoices):
        RUNNING = "running"
        FINISHED = "finished"  # this attempt's result was stored
        SUPERSEDED = "superseded"  # finished after losing its lease: result discarded
        INFRASTRUCTURE = "infrastructure"  # sandbox or host failure: retried
        ERROR = "error"  # a bug in our code
        LOST = "lost"  # the worker died (found by the stale-match sweep)

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="attempt_rows")
    # Unique by a constraint, not unique=True: on PostgreSQL that would add a second index
    # (varchar_pattern_ops, for LIKE) that no query uses: some 50 bytes a match (issue 42).
    token = models.CharField(max_length=32)
    worker = models.CharField(max_length=200, blank=True)
    started = models.DateTimeField()
    ended = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome.choices, default=Outcome.RUNNING)
    error = models.TextField(blank=True)

    class Meta:
        db_table = "tournaments_matchattempt"
        ordering = ["match_id", "started"]
        constraints = [models.UniqueConstraint(fields=["token"], name="matchattempt_token_once")]


class PlayStats(models.Model):
    """Totals of play statistics (matches.stats) from every finished match: of one version
    (key "version:<id>") or of all bots (key "all"). Each match is added once, by
    play_stats_fold, from the statistics match_finish stored with its result."""

    key = models.CharField(max_length=40, unique=True)
    version = models.OneToOneField("bots.BotVersion", on_delete=models.CASCADE, null=True,
                                   blank=True, related_name="play_stats")
    data = models.JSONField(default=dict)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "tournaments_playstats"

    def __str__(self) -> str:
        return self.key


class BoardLoss(models.Model):
    """A board that cost a version points: one of the biggest negative swings it had in a
    match (matches.boards.BOARD_LOSSES_PER_MATCH at most per side and match), written by
    match_finish with the result, so that "a bot's costliest boards" is one index scan."""

    # Six rows a match: no index of their own on the versions and the bot (the two below
    # begin with the version; the others are read through it, and bots are never deleted).
    # No index on the match either (six entries a match, some 120 bytes, issue 42): no read
    # goes from a match to its losses; only deleting a match does (the admin, a bench), which
    # then scans this table.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="board_losses",
                              db_index=False)
    version = models.ForeignKey("bots.BotVersion", on_delete=models.CASCADE, related_name="+",
                                db_index=False)
    opponent = models.ForeignKey("bots.BotVersion", on_delete=models.CASCADE, related_name="+",
                                 db_index=False)
    # The opponent's bot, copied: "against this bot" is an index scan, without a join.
    opponent_bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="+",
                                     db_index=False)
    side = models.CharField(max_length=1)  # the version's side in the match, "A" or "B"
    # Small counts in two bytes each (issue 42: six rows a match).
    game = models.PositiveSmallIntegerField()  # the pair's first game (even), from 0
    deal = models.PositiveSmallIntegerField()  # from 0
    swing = models.SmallIntegerField()  # from the version's side: always negative
    # What decided it: the first difference's kind and viewer step (engine.kaiser.boards).
    kind = models.CharField(max_length=10, blank=True)
    step = models.PositiveSmallIntegerField(default=0)

    class Meta:
        indexes = [
            models.Index(fields=["version", "swing", "-match"], name="boardloss_costliest"),
            models.Index(fields=["version", "opponent_bot", "swing"],
                         name="boardloss_costliest_against"),
        ]

    def __str__(self) -> str:
        return f"match {self.match_id} game {self.game} deal {self.deal}: {self.swing}"
