"""Reads of the play app: the seats a person may fill, games, and the people-vs-bots records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import QuerySet

from bots.models import BotVersion, default_game
from bots.selectors import active_versions
from engine.games import GAMES, get_game
from engine.games import Game as GameSpec
from play.models import Seat, Table


def table_games() -> dict[str, GameSpec]:
    """The games a person may sit down to with bots: those that label the bots' seats for
    them (Game.person_seat_labels; a game may have none: the play app offers it no table,
    and its bots no record with people)."""
    return {name: spec for name, spec in GAMES.items() if spec.person_seat_labels}


@dataclass(frozen=True)
class SeatChoice:
    value: str  # "builtin:NAME" or a BotVersion id
    label: str


def seat_choices(*, game: str = "") -> list[SeatChoice]:
    """The house players of `game` (the default game if none), then the playing version of
    every bot of that game that is not retired."""
    game = game or default_game()
    choices = [SeatChoice(f"builtin:{name}", f"{name} (house)")
               for name in get_game(game).builtin_players()]
    versions = (active_versions().exclude(kind=BotVersion.Kind.BUILTIN)
                .filter(bot__game=game).order_by("bot__name"))
    choices += [SeatChoice(str(v.pk), f"{v.bot.name} v{v.number} by {v.bot.owner.username}")
                for v in versions]
    return choices


def house_version(*, spec: str, game: str = "") -> BotVersion | None:
    """The house bot's version that plays `spec` (made by house_bots_ensure), if there is one:
    its page then lists the games people played with it."""
    return (BotVersion.objects.filter(kind=BotVersion.Kind.BUILTIN, builtin=spec,
                                      status=BotVersion.Status.ACTIVE, bot__retired=False,
                                      bot__game=game or default_game())
            .order_by("-number").first())


def open_games(*, owner: Any) -> QuerySet[Table]:
    return Table.objects.filter(owner=owner, status__in=Table.OPEN)


def games_of(*, owner: Any) -> QuerySet[Table]:
    return (Table.objects.filter(owner=owner).defer("replay", "view").select_related("owner")
            .prefetch_related("seats__version__bot"))


def games_with_version(*, version_ids: list[int]) -> QuerySet[Table]:
    return (Table.objects.filter(seats__version_id__in=version_ids).distinct()
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
    if not version_ids:
        return []
    # The bot won when the result's winner is its seat's (the game's winner_of_seat: Kaiser's
    # team, with the person or against; a Sergeant Major seat's own). In SQL: the ORM's
    # building of these conditions was 2 ms of every bot page, the query 0.2 ms.
    side, side_params = _winner_of_seat_sql()
    marks = ", ".join(["%s"] * len(version_ids))
    sql = (f"SELECT s.version_id, COUNT(DISTINCT CASE WHEN g.winner = {side} THEN g.id END), "
           f"COUNT(DISTINCT CASE WHEN g.winner <> {side} THEN g.id END), "
           f"COUNT(DISTINCT CASE WHEN g.winner IS NULL THEN g.id END) "
           f"FROM {Seat._meta.db_table} s JOIN {Table._meta.db_table} g ON g.id = s.game_id "
           f"WHERE g.status = %s AND s.version_id IN ({marks}) GROUP BY s.version_id")
    with connection.cursor() as cursor:
        cursor.execute(sql, [*side_params, *side_params, Table.Status.FINISHED, *version_ids])
        rows = cursor.fetchall()
    if not rows:
        return []
    versions = BotVersion.objects.select_related("bot").in_bulk([row[0] for row in rows])
    return sorted((PeopleRecord(versions[version], won, lost, drawn)
                   for version, won, lost, drawn in rows), key=lambda r: -r.version.number)


def _winner_of_seat_sql() -> tuple[str, list[Any]]:
    """A CASE giving the winner that means a bot's seat won (g.game, s.seat), by every game's
    winner_of_seat for each bot seat; NULL for any other (neither won nor lost)."""
    whens, params = [], []
    for name, spec in table_games().items():
        for seat in range(1, spec.seats):
            whens.append("WHEN g.game = %s AND s.seat = %s THEN %s")
            params += [name, seat, spec.winner_of_seat(seat)]
    return (f"(CASE {' '.join(whens)} END)" if whens else "NULL"), params
