"""Writes of tournaments: creating, entering (and taking an entry back before the start),
starting, cancelling, advancing round by round (through matches.signals.match_ended, in the
transaction that ends a match) and finishing them, and withdrawing a retired bot's entries."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from bots.models import Bot, BotVersion, default_game, game_players
from engine.games import get_game
from kaiser_site.page_cache import pages_changed
from ladder import ratings
from ladder.models import Ladder, LadderEntry
from matches.models import Match
from matches.services import OPEN, match_create, match_walkover
from tournaments import pairing, selectors, triples
from tournaments.models import (
    Tournament,
    TournamentBye,
    TournamentEntrant,
    min_entrants,
)

# A round robin of a three-player game larger than this (matches a repeat) is refused: the
# fields whose smallest balanced design is this large play a Swiss or a knockout instead.
ROUND_ROBIN_TRIPLES_MAX = triples.DESIGN_MATCHES_MAX


def tournament_create(
    *, name: str, format: str, versions: Sequence[BotVersion] = (), rounds: int = 1,
    created_by: AbstractBaseUser | None = None, ladder: Ladder | None = None,
    start: bool = True, entry_deadline: datetime | None = None, **conditions: Any,
) -> Tournament:
    """A tournament of these versions (one per bot), seeded by their Elo on `ladder` (else in
    the given order), started at once unless `start` is False. With `entry_deadline` it is
    open for entry instead: authors enter their bots (`tournament_enter`) until then, and
    `tournaments_start_due` starts it with whoever entered."""
    problems = tournament_problems(format=format, versions=versions, rounds=rounds,
                                   entry_deadline=entry_deadline,
                                   game=conditions.get("game") or default_game())
    if problems:
        raise ValidationError(problems)
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


def tournament_problems(*, format: str, versions: Sequence[BotVersion], rounds: int,
                        entry_deadline: datetime | None, game: str) -> dict[str, list[str]]:
    """Everything wrong with a tournament of these entrants, by field, all at once (a form
    shows them together, not one a submit); empty when tournament_create may make it."""
    problems: dict[str, list[str]] = {}

    def add(field: str, message: str | None) -> None:
        if message:
            problems.setdefault(field, []).append(message)

    if problem := game_not_offered(game):
        return {"game": [problem]}
    least = min_entrants(game)
    if entry_deadline is None and len(versions) < least:
        add("entrants", f"a {_title(game)} tournament needs at least {COUNT_WORDS[least]} entrants")
    if entry_deadline is not None and entry_deadline <= timezone.now():
        add("entry_deadline", "the entry deadline must be in the future")
    if len({v.bot_id for v in versions}) != len(versions):
        add("entrants", "one version per bot")
    if rounds < 1:
        add("rounds", "at least one round")
    for version in versions:
        add("entrants", _unplayable(version))
        add("entrants", _other_game(version, game))
    if format == Tournament.Format.ROUND_ROBIN and entry_deadline is None:
        add("format", _round_robin_too_big(game, len(versions)))
    return problems


# The formats pair two players a match, or group three (tournaments.triples).
PLAYERS_OFFERED = (2, 3)
COUNT_WORDS = {2: "two", 3: "three"}


def game_not_offered(game: str) -> str | None:
    """Why `game` has no tournaments (a match of more players than the formats seat), in
    people's words; None when it has."""
    players = game_players(game)
    if players in PLAYERS_OFFERED:
        return None
    return (f"tournaments of {_title(game)} are not offered: their formats play matches of two "
            f"or of three players, and a {_title(game)} match has {players}")


def _title(game: str) -> str:
    return str(get_game(game).title)


def _three_players(tournament: Tournament) -> bool:
    return tournament.players > 2


def _check_game(version: BotVersion, game: str, field: str) -> None:
    """Every entrant plays the tournament's game."""
    if problem := _other_game(version, game):
        raise ValidationError({field: problem})


def _other_game(version: BotVersion, game: str) -> str | None:
    if version.bot.game == game:
        return None
    return (f"{version.bot.name} plays {_title(version.bot.game)}, but this is a "
            f"{_title(game)} tournament: enter bots of that game")


def _round_robin_too_big(game: str, n: int) -> str | None:
    if game_players(game) == 2 or n < 3:
        return None
    size = len(triples.balanced_triples(n))
    if size <= ROUND_ROBIN_TRIPLES_MAX:
        return None
    return (f"a round robin of {n} entrants in matches of three needs {size} matches (every "
            f"pair meeting equally often); choose Swiss or knockout, or another number of "
            f"entrants")


def _check_playable(version: BotVersion, field: str) -> None:
    if problem := _unplayable(version):
        raise ValidationError({field: problem})


def _unplayable(version: BotVersion) -> str | None:
    if version.status != BotVersion.Status.ACTIVE or version.bot.retired:
        return f"{version.bot.name} has no active version to play"
    return None


def tournament_enter(
    *, tournament: Tournament, version: BotVersion, user: AbstractBaseUser
) -> TournamentEntrant:
    """The author enters their bot's version in a tournament open for entry."""
    if not version.bot.is_owned_by(user):
        raise ValidationError({"bot": "you can only enter your own bot"})
    _check_playable(version, "bot")
    _check_game(version, tournament.game, "bot")
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
            least = min_entrants(locked.game)
            if locked.entrants.count() < least:
                counts["cancelled"] += tournament_cancel(
                    tournament=locked,
                    reason=f"fewer than {COUNT_WORDS[least]} entrants by the deadline")
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
        least = min_entrants(tournament.game)
        if len(seeds) < least:
            raise ValidationError({"entrants": f"a tournament needs at least {COUNT_WORDS[least]} "
                                               f"entrants"})
        if _three_players(tournament):
            _three_start(tournament, seeds)
        elif tournament.format == Tournament.Format.ROUND_ROBIN:
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
    for pair in pairs:
        _match_make(tournament, number, pair, withdrawn=withdrawn)


def _withdrawn_ids(tournament: Tournament) -> set[int]:
    return set(tournament.entrants.filter(withdrawn__isnull=False)
               .values_list("version_id", flat=True))


def _match_make(tournament: Tournament, number: int, versions: Sequence[BotVersion],
                position: int | None = None, withdrawn: Collection[int] = ()) -> Match:
    """One match of the tournament, its players in side order; a walkover at once if one of
    them withdrew (its bot retired), never played."""
    match = match_create(versions=versions, kind=Match.Kind.TOURNAMENT, conditions=tournament,
                         tournament=tournament, round=number, rated=False, position=position)
    if withdrawn:
        match_walkover(match_id=match.pk, withdrawn=withdrawn)
    return match


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
            queued = Match.objects.filter(tournament_id=tournament_id, status=Match.Status.QUEUED,
                                          sides__version_id__in=versions).distinct()
            for match_id in queued.values_list("pk", flat=True):
                match_walkover(match_id=match_id, withdrawn=set(versions))
            tournament_advance(tournament_id=tournament_id)
    return len(running)


def _swiss_round_create(tournament: Tournament, number: int) -> bool:
    withdrawn = _withdrawn_ids(tournament)
    table = [r for r in selectors.tournament_table(tournament=tournament)
             if r.version_id not in withdrawn]
    versions = {e.version_id: e.version for e in tournament.entrants.select_related("version")}
    played = selectors.tournament_groups(tournament=tournament)
    had_bye = tournament.byes.values_list("version_id", flat=True)
    pairs, bye = pairing.swiss_round(
        standings=[pairing.Standing(r.version_id, r.points, -r.seed) for r in table],
        played=played, had_bye=list(had_bye),
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
            _match_make(tournament, number, (a, b), position, _withdrawn_ids(tournament))
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
        create = _three_swiss_round_create if _three_players(tournament) else _swiss_round_create
        return tournament.current_round < tournament.rounds and create(
            tournament, tournament.current_round + 1)
    if _three_players(tournament):
        return _three_knockout_advance(tournament)
    return _knockout_advance(tournament)


def _knockout_advance(tournament: Tournament) -> bool:
    number = tournament.current_round
    results = selectors.knockout_round_results(tournament=tournament, round=number)
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
    for rank, version_id in enumerate(selectors.tournament_ranking(tournament=tournament), start=1):
        TournamentEntrant.objects.filter(tournament=tournament, version_id=version_id).update(
            final_rank=rank)
    Tournament.objects.filter(pk=tournament.pk).update(
        status=Tournament.Status.FINISHED, finished=timezone.now())


# --- Three-player games (Sergeant Major): matches of three, tournaments.triples -------------

def _three_start(tournament: Tournament, seeds: list[BotVersion]) -> None:
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        if problem := _round_robin_too_big(tournament.game, len(seeds)):
            raise ValidationError({"format": problem})
        rounds = triples.round_robin_triples(entrants=seeds, repeats=tournament.rounds)
        for number, round_triples in enumerate(rounds, start=1):
            _triples_create(tournament, number, round_triples)
    elif tournament.format == Tournament.Format.SWISS:
        _three_swiss_round_create(tournament, 1)
    else:
        _three_knockout_round_create(tournament, 1, seeds)


def _triples_create(tournament: Tournament, number: int, round_triples: Sequence[Any],
                    positions: Sequence[int | None] | None = None) -> None:
    withdrawn = _withdrawn_ids(tournament)
    for i, group in enumerate(round_triples):
        _match_make(tournament, number, group, positions[i] if positions else None, withdrawn)


def _three_swiss_round_create(tournament: Tournament, number: int) -> bool:
    withdrawn = _withdrawn_ids(tournament)
    table = [r for r in selectors.tournament_table(tournament=tournament)
             if r.version_id not in withdrawn]
    versions = {e.version_id: e.version for e in tournament.entrants.select_related("version")}
    played = selectors.tournament_groups(tournament=tournament)
    round_triples, byes = triples.swiss_triples(
        standings=[triples.Standing(r.version_id, r.points, -(r.seed or 0)) for r in table],
        played=played, had_bye=list(tournament.byes.values_list("version_id", flat=True)),
    )
    if not round_triples:
        return False
    for version_id in byes:
        TournamentBye.objects.create(tournament=tournament, round=number, version_id=version_id)
    _triples_create(tournament, number,
                    [tuple(versions[k] for k in t) for t in round_triples])
    return True


def _three_knockout_round_create(tournament: Tournament, number: int,
                                 players: Sequence[BotVersion]) -> None:
    """One round of groups (players best seed first): matches of three, and byes."""
    groups = triples.knockout_groups(players=list(players))
    playing, positions = [], []
    for position, group in enumerate(groups):
        if group.bye:
            TournamentBye.objects.create(tournament=tournament, round=number,
                                         version=group.members[0], position=position)
        else:
            playing.append(group.members)
            positions.append(position)
    _triples_create(tournament, number, playing, positions)


def _three_knockout_advance(tournament: Tournament) -> bool:
    number = tournament.current_round
    through, out = selectors.groups_round_results(tournament=tournament, round=number)
    TournamentEntrant.objects.filter(tournament=tournament, version_id__in=out).update(
        eliminated_round=number)
    if len(through) < 2:
        return False
    seeds = dict(tournament.entrants.values_list("version_id", "seed"))
    versions = BotVersion.objects.in_bulk(through)
    players = [versions[v] for v in sorted(through, key=lambda v: seeds[v])]
    _three_knockout_round_create(tournament, number + 1, players)
    return True
