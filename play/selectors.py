"""Reads of the play app: the seats a person may fill, games, and the people-vs-bots records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, F, Q, QuerySet

from bots.models import BotVersion
from bots.selectors import active_versions
from engine.games import KAISER, SERGEANT_MAJOR, get_game
from play.models import Game, Seat


@dataclass(frozen=True)
class SeatChoice:
    value: str  # "builtin:NAME" or a BotVersion id
    label: str


def seat_choices(*, game: str = KAISER) -> list[SeatChoice]:
    """The house players of `game`, then the playing version of every bot of that game that
    is not retired."""
    choices = [SeatChoice(f"builtin:{name}", f"{name} (house)")
               for name in get_game(game).builtin_players()]
    versions = (active_versions().exclude(kind=BotVersion.Kind.BUILTIN)
                .filter(bot__game=game).order_by("bot__name"))
    choices += [SeatChoice(str(v.pk), f"{v.bot.name} v{v.number} by {v.bot.owner.username}")
                for v in versions]
    return choices


def house_version(*, spec: str, game: str = KAISER) -> BotVersion | None:
    """The house bot's version that plays `spec` (made by house_bots_ensure), if there is one:
    its page then lists the games people played with it."""
    return (BotVersion.objects.filter(kind=BotVersion.Kind.BUILTIN, builtin=spec,
                                      status=BotVersion.Status.ACTIVE, bot__retired=False,
                                      bot__game=game)
            .order_by("-number").first())


def open_games(*, owner: Any) -> QuerySet[Game]:
    return Game.objects.filter(owner=owner, status__in=Game.OPEN)


def games_of(*, owner: Any) -> QuerySet[Game]:
    return (Game.objects.filter(owner=owner).defer("replay", "view").select_related("owner")
            .prefetch_related("seats__version__bot"))


def games_with_version(*, version_ids: list[int]) -> QuerySet[Game]:
    return (Game.objects.filter(seats__version_id__in=version_ids).distinct()
            .defer("replay", "view").select_related("owner")
            .prefetch_related("seats__version__bot"))


@dataclass(frozen=True)
class PeopleRecord:
    """A bot version's finished games with people, from the bot's side: won, lost, drawn."""

    version: BotVersion
    won: int
    lost: int
    drawn: int

    @property
    def games(self) -> int:
        return self.won + self.lost + self.drawn


def people_records(*, version_ids: list[int]) -> list[PeopleRecord]:
    """Per bot version: its finished games with a person at the table (as partner or
    opponent), unrated and apart from the ladder. Void games count for nobody."""
    finished = Q(game__status=Game.Status.FINISHED)
    # Kaiser: the bot's team is seat % 2: team 0 sits with the person (seat 2), team 1
    # against. Sergeant Major: every seat plays for itself; the winner is a seat.
    kaiser, sm = Q(game__game=KAISER), Q(game__game=SERGEANT_MAJOR)
    won = kaiser & (Q(seat=2, game__winner=0) | (Q(seat__in=(1, 3)) & Q(game__winner=1))) | \
        sm & Q(game__winner=F("seat"))
    lost = kaiser & (Q(seat=2, game__winner=1) | (Q(seat__in=(1, 3)) & Q(game__winner=0))) | \
        sm & ~Q(game__winner=F("seat")) & Q(game__winner__isnull=False)
    rows = (Seat.objects.filter(finished, version_id__in=version_ids)
            .values("version_id")
            .annotate(won=Count("game", filter=won, distinct=True),
                      lost=Count("game", filter=lost, distinct=True),
                      drawn=Count("game", filter=Q(game__winner=None), distinct=True))
            .order_by())
    versions = {v.pk: v for v in BotVersion.objects.filter(pk__in=[r["version_id"] for r in rows])
                .select_related("bot")}
    return sorted((PeopleRecord(versions[r["version_id"]], r["won"], r["lost"], r["drawn"])
                   for r in rows), key=lambda r: -r.version.number)
