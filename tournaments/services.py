"""Writes of tournaments: creating, entering (and taking an entry back before the start),
starting, cancelling, advancing round by round (through matches.signals.match_ended, in the
transaction that ends a match) and finishing them, and withdrawing a retired bot's entries."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from bots.models import Bot, BotVersion
from kaiser_site.page_cache import pages_changed
from ladder import ratings
from ladder.models import Ladder, LadderEntry
from matches.models import Match
from matches.services import OPEN, match_create
from tournaments import pairing
from tournaments.models import Tournament, TournamentBye, TournamentEntrant


def tournament_create(
    *, name: str, format: str, versions: Sequence[BotVersion] = (), rounds: int = 1,
    created_by: AbstractBaseUser | None = None, ladder: Ladder | None = None,
    start: bool = True, entry_deadline: datetime | None = None, **conditions: Any,
) -> Tournament:
    """A tournament of these versions (one per bot), seeded by their Elo on `ladder` (else in
    the given order), started at once unless `start` is False. With `entry_deadline` it is
    open for entry instead: authors enter their bots (`tournament_enter`) until then, and
    `tournaments_start_due` starts it with whoever entered."""
    if entry_deadline is None and len(versions) < 2:
        raise ValidationError({"entrants": "a tournament needs at least two entrants"})
    if entry_deadline is not None and entry_deadline <= timezone.now():
        raise ValidationError({"entry_deadline": "the entry deadline must be in the future"})
    if len({v.bot_id for v in versions}) != len(versions):
        raise ValidationError({"entrants": "one version per bot"})
    if rounds < 1:
        raise ValidationError({"rounds": "at least one round"})
    for version in versions:
        _check_playable(version, "entrants")
    status = Tournament.Status.OPEN if entry_deadline else Tournament.Status.DRAFT
    with transaction.atomic():
        tournament = Tournament(name=name, format=format, rounds=rounds, ladder=ladder,
                                created_by=created_by, entry_deadline=entry_deadline,
                                status=status, **conditions)
        tournament.full_clean()
        tournament.save()
        TournamentEntrant.objects.bulk_create(
            TournamentEntrant(tournament=tournament, version=v, seed=i)
            for i, v in enumerate(versions, start=1)
        )
        if start and entry_deadline is None:
            tournament_start(tournament=tournament)
        pages_changed("tournaments")
    return tournament


def _check_playable(version: BotVersion, field: str) -> None:
    if version.status != BotVersion.Status.ACTIVE or version.bot.retired:
        raise ValidationError({field: f"{version.bot.name} has no active version to play"})


def tournament_enter(
    *, tournament: Tournament, version: BotVersion, user: AbstractBaseUser
) -> TournamentEntrant:
    """The author enters their bot's version in a tournament open for entry."""
    if not version.bot.is_owned_by(user):
        raise ValidationError({"bot": "you can only enter your own bot"})
    _check_playable(version, "bot")
    with transaction.atomic():
        # The tournament's row lock: entries never race the start or each other.
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.status != Tournament.Status.OPEN:
            raise ValidationError({"tournament": f"{locked.name} is not open for entry"})
        if locked.entry_deadline and locked.entry_deadline <= timezone.now():
            raise ValidationError({"tournament": "the entry deadline has passed"})
        if locked.entrants.filter(version__bot_id=version.bot_id).exists():
            raise ValidationError({"bot": f"{version.bot.name} has already entered"})
        pages_changed("tournaments")
        return TournamentEntrant.objects.create(tournament=locked, version=version)


class EntryClosed(Exception):
    """The tournament is no longer open for entry, so an entry cannot be withdrawn."""


def tournament_withdraw(*, tournament: Tournament, bot: Bot, user: AbstractBaseUser) -> None:
    """The bot's owner (or staff) takes its entry back while the tournament is open for entry:
    the entrant row goes. Once it has started, only retiring the bot withdraws it
    (tournament_entries_withdraw), so its opponents get walkovers rather than holes."""
    if not (bot.is_owned_by(user) or getattr(user, "is_staff", False)):
        raise PermissionDenied("Only the bot's owner may withdraw it.")
    with transaction.atomic():
        # The tournament's row lock: a withdrawal never races the start.
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.status == Tournament.Status.RUNNING:
            raise EntryClosed(f"{locked.name} has started: an entry can no longer be "
                              f"withdrawn (retiring the bot withdraws it, its remaining "
                              f"matches lost by walkover).")
        if locked.status != Tournament.Status.OPEN:
            raise EntryClosed(f"{locked.name} is {locked.status}: its entries stay as they are.")
        deleted, _ = locked.entrants.filter(version__bot=bot).delete()
        if not deleted:
            raise ValidationError({"bot": f"{bot.name} is not entered in {locked.name}"})
        pages_changed("tournaments")


def tournament_cancel(*, tournament: Tournament, reason: str = "cancelled by staff") -> bool:
    """Cancel a tournament before it starts (a draft or open for entry). False if it already
    started (or ended)."""
    cancelled = bool(Tournament.objects.filter(
        pk=tournament.pk, status__in=[Tournament.Status.DRAFT, Tournament.Status.OPEN]
    ).update(status=Tournament.Status.CANCELLED, finished=timezone.now(),
             cancel_reason=reason[:200]))
    if cancelled:
        pages_changed("tournaments")
    return cancelled


def tournaments_start_due() -> dict[str, int]:
    """The beat's tick: start each open tournament whose entry deadline has passed, with
    whoever entered; one with fewer than two playable entrants is cancelled."""
    counts = {"started": 0, "cancelled": 0}
    due = Tournament.objects.filter(status=Tournament.Status.OPEN,
                                    entry_deadline__lte=timezone.now())
    for tournament in due.order_by("entry_deadline", "pk"):
        with transaction.atomic():
            locked = Tournament.objects.select_for_update().filter(
                pk=tournament.pk, status=Tournament.Status.OPEN).first()
            if locked is None:
                continue  # started or cancelled meanwhile
            _entrants_unplayable_remove(locked)
            if locked.entrants.count() < 2:
                counts["cancelled"] += tournament_cancel(
                    tournament=locked, reason="fewer than two entrants by the deadline")
            else:
                tournament_start(tournament=locked)
                counts["started"] += 1
    return counts


def _entrants_unplayable_remove(tournament: Tournament) -> None:
    """Entrants whose bot was retired (or its version disabled) before the start go."""
    tournament.entrants.exclude(version__status=BotVersion.Status.ACTIVE).delete()
    tournament.entrants.filter(version__bot__retired=True).delete()


def _entrants_seed(tournament: Tournament) -> list[BotVersion]:
    """Seeds 1..n: by the ladder's Elo when the tournament has a ladder, else the seeds given,
    then entry order. Returns the versions, best seed first."""
    entrants = list(tournament.entrants.select_related("version__bot").order_by(
        F("seed").asc(nulls_last=True), "entered", "pk"))
    versions = _by_rating([e.version for e in entrants], tournament.ladder)
    position = {v.pk: i for i, v in enumerate(versions, start=1)}
    tournament.entrants.update(seed=None)  # (the seed is unique per tournament)
    for entrant in entrants:
        entrant.seed = position[entrant.version_id]
    TournamentEntrant.objects.bulk_update(entrants, ["seed"])
    return versions


def _by_rating(versions: Sequence[BotVersion], ladder: Ladder | None) -> list[BotVersion]:
    if ladder is None:
        return list(versions)
    elo = dict(LadderEntry.objects.filter(ladder=ladder, version__in=versions)
               .values_list("version_id", "elo"))
    return sorted(versions, key=lambda v: -elo.get(v.pk, ratings.START))


def tournament_start(*, tournament: Tournament) -> Tournament:
    """Draft (or open for entry) to running, the entrants seeded, and the first round's
    matches (all rounds for a round robin)."""
    startable = [Tournament.Status.DRAFT, Tournament.Status.OPEN]
    with transaction.atomic():
        if not Tournament.objects.filter(pk=tournament.pk, status__in=startable).update(
            status=Tournament.Status.RUNNING, started=timezone.now(), current_round=1
        ):
            tournament.refresh_from_db()
            return tournament
        pages_changed("tournaments")
        tournament.refresh_from_db()
        seeds = _entrants_seed(tournament)
        if len(seeds) < 2:
            raise ValidationError({"entrants": "a tournament needs at least two entrants"})
        if tournament.format == Tournament.Format.ROUND_ROBIN:
            rounds = pairing.round_robin_rounds(entrants=seeds, repeats=tournament.rounds)
            for number, pairs in enumerate(rounds, start=1):
                _round_create(tournament, number, pairs)
        elif tournament.format == Tournament.Format.SWISS:
            _swiss_round_create(tournament, 1)
        else:
            _knockout_round_create(tournament, 1, pairing.knockout_first_round(seeds=seeds))
    return tournament


def _round_create(tournament: Tournament, number: int, pairs: Sequence[tuple[Any, Any]]) -> None:
    withdrawn = _withdrawn_ids(tournament)
    for a, b in pairs:
        match = match_create(version_a=a, version_b=b, kind=Match.Kind.TOURNAMENT,
                             conditions=tournament, tournament=tournament, round=number,
                             rated=False)
        _walkover_if_withdrawn(match, withdrawn)


def _withdrawn_ids(tournament: Tournament) -> set[int]:
    return set(tournament.entrants.filter(withdrawn__isnull=False)
               .values_list("version_id", flat=True))


def _walkover_if_withdrawn(match: Match, withdrawn: set[int]) -> None:
    """A match of an entrant that withdrew (its bot retired) is never played: the other side
    wins it. Stored as a void match with the score and the withdrawal as its fault."""
    loser = next((v for v in (match.version_a_id, match.version_b_id) if v in withdrawn), None)
    if loser is None:
        return
    side = "A" if loser == match.version_a_id else "B"
    Match.objects.filter(pk=match.pk, status=Match.Status.QUEUED).update(
        status=Match.Status.VOID, finished=timezone.now(), score=0.0 if side == "A" else 1.0,
        forfeit_player=side, forfeit_reason="withdrawn", lease_token="", lease_expires=None,
        error="walkover: the bot was retired during the tournament")


def tournament_entries_withdraw(*, bot_id: int) -> int:
    """A bot was retired: it leaves the tournaments not started yet, and in running ones its
    matches not started yet are walkovers (so are its pairings in later rounds; a Swiss
    pairs it no more). Returns the running tournaments it withdrew from."""
    versions = list(BotVersion.objects.filter(bot_id=bot_id).values_list("pk", flat=True))
    TournamentEntrant.objects.filter(version_id__in=versions, tournament__status__in=[
        Tournament.Status.DRAFT, Tournament.Status.OPEN]).delete()
    pages_changed("tournaments")
    running = TournamentEntrant.objects.filter(
        version_id__in=versions, withdrawn__isnull=True,
        tournament__status=Tournament.Status.RUNNING).values_list("pk", "tournament_id")
    for entrant_id, tournament_id in list(running):
        with transaction.atomic():
            Tournament.objects.select_for_update().filter(pk=tournament_id).first()
            TournamentEntrant.objects.filter(pk=entrant_id).update(withdrawn=timezone.now())
            queued = Match.objects.filter(tournament_id=tournament_id, status=Match.Status.QUEUED
                                          ).filter(Q(version_a_id__in=versions)
                                                   | Q(version_b_id__in=versions))
            for match in queued:
                _walkover_if_withdrawn(match, set(versions))
            tournament_advance(tournament_id=tournament_id)
    return len(running)


def _swiss_round_create(tournament: Tournament, number: int) -> bool:
    from tournaments.selectors import tournament_table

    withdrawn = _withdrawn_ids(tournament)
    table = [r for r in tournament_table(tournament=tournament) if r.version_id not in withdrawn]
    versions = {e.version_id: e.version for e in tournament.entrants.select_related("version")}
    played = tournament.matches.values_list("version_a_id", "version_b_id")
    had_bye = tournament.byes.values_list("version_id", flat=True)
    pairs, bye = pairing.swiss_round(
        standings=[pairing.Standing(r.version_id, r.points, -r.seed) for r in table],
        played=list(played), had_bye=list(had_bye),
    )
    if not pairs:
        return False
    if bye is not None:
        TournamentBye.objects.create(tournament=tournament, round=number, version_id=bye)
    _round_create(tournament, number, [(versions[a], versions[b]) for a, b in pairs])
    return True


def _knockout_round_create(
    tournament: Tournament, number: int, pairs: Sequence[tuple[Any, Any]]
) -> None:
    for position, (a, b) in enumerate(pairs):
        if a is not None and b is not None:
            match = match_create(version_a=a, version_b=b, kind=Match.Kind.TOURNAMENT,
                                 conditions=tournament, tournament=tournament, round=number,
                                 rated=False, position=position)
            _walkover_if_withdrawn(match, _withdrawn_ids(tournament))
        elif a is not None or b is not None:
            TournamentBye.objects.create(tournament=tournament, round=number,
                                         version=a if a is not None else b, position=position)


def tournament_advance(*, tournament_id: int) -> None:
    """Called whenever one of its matches ends: the next round once this one is complete, or
    the final ranking. The tournament's row lock makes it happen once. A round of walkovers
    only (withdrawn entrants) is complete at once, hence the loop."""
    with transaction.atomic():
        tournament = (Tournament.objects.select_for_update()
                      .filter(pk=tournament_id, status=Tournament.Status.RUNNING).first())
        while tournament is not None and not tournament.matches.filter(status__in=OPEN).exists():
            if not _next_round(tournament):
                _tournament_finish(tournament)
                return
            Tournament.objects.filter(pk=tournament.pk).update(current_round=F("current_round") + 1)
            tournament.refresh_from_db(fields=["current_round"])


def _next_round(tournament: Tournament) -> bool:
    """The next round's matches, if the format has one more; False when it is over."""
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        return False
    if tournament.format == Tournament.Format.SWISS:
        return tournament.current_round < tournament.rounds and _swiss_round_create(
            tournament, tournament.current_round + 1)
    return _knockout_advance(tournament)


def _knockout_advance(tournament: Tournament) -> bool:
    from tournaments.selectors import knockout_round_results

    number = tournament.current_round
    results = knockout_round_results(tournament=tournament, round=number)
    for loser in (r.loser for r in results if r.loser is not None):
        TournamentEntrant.objects.filter(tournament=tournament, version_id=loser).update(
            eliminated_round=number)
    winners = [r.winner for r in results]
    if len(winners) < 2:
        return False
    versions = BotVersion.objects.in_bulk(winners)
    pairs = pairing.knockout_next_round(winners=[versions[w] for w in winners])
    _knockout_round_create(tournament, number + 1, pairs)
    return True


def _tournament_finish(tournament: Tournament) -> None:
    from tournaments.selectors import tournament_ranking

    for rank, version_id in enumerate(tournament_ranking(tournament=tournament), start=1):
        TournamentEntrant.objects.filter(tournament=tournament, version_id=version_id).update(
            final_rank=rank)
    Tournament.objects.filter(pk=tournament.pk).update(
        status=Tournament.Status.FINISHED, finished=timezone.now())
