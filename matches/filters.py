"""One vocabulary for filtering matches, the same on the /matches/ page and at
/api/v1/matches/: parsed here from the query string, applied here to the matches.

- `bot`, `opponent`: a bot's name (any case) or its id;
- `version`: with `bot`, that bot's version number (`2` or `v2`); alone, a version id;
- `ladder`: a ladder's slug; `tournament`: a tournament's id or its name (any case);
- `status`: queued, running, finished, ...; `result`: won, lost (from `bot`'s side), draw,
  decisive; `faults=1`: only matches a fault ended;
- `since`, `until`: finished at or after / before a date (YYYY-MM-DD) or ISO date-time;
- `mine=1`: only matches of the signed-in user's bots (none for an anonymous visitor).

An unknown parameter, or a value of the wrong form, is an error (a 400), never silently
ignored. A bot, version, ladder or tournament that does not exist is in `unknown`: the page
says so and lists nothing, the API answers a 400 naming it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.db.models.functions import Lower
from django.http import QueryDict
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from bots.models import Bot, BotVersion
from matches import selectors
from matches.models import Match, MatchSide

if TYPE_CHECKING:  # a hint only: this app does not import the ladder above it
    from ladder.models import Ladder

FILTERS = ("bot", "opponent", "version", "ladder", "tournament", "status", "result", "faults",
           "since", "until", "mine")
# Not filters, but understood: the page of a list, the API's page size and DRF's format.
OTHER_PARAMETERS = ("page", "page_size", "format")
# What each named filter names, for the messages about one that does not exist.
NAMED = {"bot": "bot called", "opponent": "bot called", "version": "version",
         "ladder": "ladder called", "tournament": "tournament"}
RESULTS = {"won": "won", "lost": "lost", "draw": "drawn", "decisive": "decisive"}
FLAGS = {"1": True, "true": True, "0": False, "false": False, "": False}
MAX_ID = 2**63 - 1


class FilterError(Exception):
    """Bad filter parameters: `errors` maps each parameter to what is wrong with it."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


@dataclass
class MatchFilters:
    bot: Bot | None = None
    opponent: Bot | None = None
    version: int | None = None
    ladder: Ladder | None = None
    tournament: int | None = None
    status: str | None = None
    result: str | None = None
    faults: bool = False
    since: datetime | None = None
    until: datetime | None = None
    mine: bool = False
    user: Any = None
    # Named things that do not exist (bot, opponent, version, ladder, tournament): the page
    # says so and lists nothing; the API answers a 400.
    unknown: dict[str, str] = field(default_factory=dict)


def match_filters_parse(*, params: QueryDict, user: Any) -> MatchFilters:
    """The filters of a query string; FilterError for unknown parameters or bad values."""
    errors = {name: f"unknown filter; the filters are {', '.join(FILTERS)}"
              for name in params if name not in FILTERS and name not in OTHER_PARAMETERS}
    filters = MatchFilters(user=user)
    readers = {"bot": _bot, "opponent": _bot, "ladder": _ladder,
               "tournament": _tournament, "status": _status, "result": _result, "faults": _flag,
               "since": _time, "until": _time, "mine": _flag}
    for name, read in readers.items():
        raw = params.get(name, "").strip()
        if raw == "" and name not in ("faults", "mine"):
            continue
        try:
            setattr(filters, name, read(raw))
        except LookupError:
            filters.unknown[name] = raw
        except ValueError as error:
            errors[name] = str(error)
    raw = params.get("version", "").strip()
    if raw and "bot" not in filters.unknown:
        try:
            filters.version = _version(raw, filters.bot)
        except LookupError:
            filters.unknown["version"] = raw
        except ValueError as error:
            errors["version"] = str(error)
    if filters.result in ("won", "lost") and filters.bot is None and "bot" not in filters.unknown:
        errors["result"] = f"{filters.result} is from a bot's side: give bot too"
    if errors:
        raise FilterError(errors)
    return filters


def _id(raw: str) -> int:
    if not (raw.isascii() and raw.isdecimal()) or int(raw) > MAX_ID:
        raise ValueError(f"{raw!r} is not an id (a whole number)")
    return int(raw)


def _bot(raw: str) -> Bot:
    """A bot by id or by name, in any case (a number is tried as an id first: a name may be
    all digits)."""
    found = None
    if raw.isascii() and raw.isdecimal() and int(raw) <= MAX_ID:
        found = Bot.objects.filter(pk=int(raw)).first()
    # LOWER(name), as the unique index bot_name_unique_ci has it (iexact's UPPER read all
    # 10,000 bots); the names are unique in any case, so at most one matches.
    found = found or Bot.objects.alias(lower=Lower("name")).filter(lower=raw.lower()).first()
    if found is None:
        raise LookupError(raw)
    return found


def bot_lookup(raw: str) -> Bot | None:
    """A bot by id or name, as the filters find it; None if there is none."""
    try:
        return _bot(raw)
    except LookupError:
        return None


def _version(raw: str, bot: Bot | None) -> int:
    """A version id: `bot`'s version number `raw` (2 or v2), or without a bot a version id."""
    number = raw[1:] if raw[:1] in ("v", "V") else raw
    if bot is None:
        if number != raw:
            raise ValueError(f"{raw!r} is a version number: give bot too (whose version?)")
        return _id(raw)
    found = BotVersion.objects.filter(bot=bot, number=_id(number)).values_list("pk", flat=True)
    if not found:
        raise LookupError(raw)
    return found[0]


def _tournament(raw: str) -> int:
    """A tournament by id or by name, in any case."""
    if raw.isascii() and raw.isdecimal():
        return _id(raw)
    # Through the matches (this app does not import the tournaments above it): a tournament
    # without matches has none to list anyway.
    found = (Match.objects.filter(tournament__name__iexact=raw)
             .values_list("tournament_id", flat=True)[:1])
    if not found:
        raise LookupError(raw)
    return found[0]


def _ladder(raw: str) -> Ladder:
    # The model through the match's foreign key, which matches.models names by its label
    # (this app does not import the ladder above it).
    ladders: Any = Match._meta.get_field("ladder").related_model
    found: Ladder | None = ladders.objects.filter(slug=raw).first()
    if found is None:
        raise LookupError(raw)
    return found


def _status(raw: str) -> str:
    if raw not in Match.Status.values:
        raise ValueError(f"one of {', '.join(Match.Status.values)}")
    return raw


def _result(raw: str) -> str:
    if raw not in RESULTS:
        raise ValueError(f"one of {', '.join(RESULTS)}")
    return raw


def _flag(raw: str) -> bool:
    if raw.lower() not in FLAGS:
        raise ValueError("1 or 0 (true or false)")
    return FLAGS[raw.lower()]


def _time(raw: str) -> datetime:
    try:
        value = parse_datetime(raw)
        if value is None and (day := parse_date(raw)) is not None:
            value = datetime(day.year, day.month, day.day)
    except ValueError:
        value = None
    if value is None:
        raise ValueError(f"{raw!r} is not a date (YYYY-MM-DD) or an ISO date-time")
    return timezone.make_aware(value) if value.tzinfo is None else value


def matches_filtered(*, filters: MatchFilters) -> QuerySet[Match]:
    """The matches the filters select (not ordered: the page and the API order them)."""
    if filters.unknown or (filters.mine and not getattr(filters.user, "is_authenticated", False)):
        return Match.objects.none()
    qs = selectors.match_list(version=filters.version, ladder=filters.ladder,
                              tournament=filters.tournament, status=filters.status,
                              since=filters.since, until=filters.until).order_by()
    mine: Any = []
    # By version ids (in a subquery, no round trip of their own): an index lookup a side
    # instead of a join. Unordered: BotVersion's own ordering is nothing to a subquery of IN.
    versions = BotVersion.objects.order_by()
    if filters.bot is not None:
        mine = versions.filter(bot=filters.bot).values("pk")
        qs = _played_by(qs, mine)
    if filters.opponent is not None:
        qs = _played_by(qs, versions.filter(bot=filters.opponent).values("pk"))
    if filters.mine:
        qs = _played_by(qs, versions.filter(bot__owner=filters.user).values("pk"))
    if filters.faults:
        qs = qs.filter(Exists(MatchSide.objects.filter(match=OuterRef("pk")).exclude(fault="")))
    return _by_result(qs, filters.result, mine)


def _played_by(qs: QuerySet[Match], versions: Any) -> QuerySet[Match]:
    """The matches of `qs` that any of `versions` played, on any side: the ids from the
    sides' (version, -match) index. A walk of every match newest first looking for the bot's
    took 7 s at a million matches (bench/scale_sim.py); this costs the bot's own matches.
    Written in SQL around the versions' subquery: a queryset built and compiled for it cost
    a part of a millisecond of every filtered list."""
    inner, params = versions.query.sql_with_params()
    return qs.filter(id__in=RawSQL(
        f"SELECT match_id FROM {MatchSide._meta.db_table} WHERE version_id IN ({inner})",
        params))


def _by_result(qs: QuerySet[Match], result: str | None, mine: Any) -> QuerySet[Match]:
    if result == "draw":
        return qs.filter(score=0.5)
    if result == "decisive":
        return qs.exclude(score=0.5).filter(score__isnull=False)
    if result in ("won", "lost"):
        a_won, b_won = Q(score__gt=0.5), Q(score__lt=0.5)
        if result == "lost":
            a_won, b_won = b_won, a_won
        # A's share decides it: A won above a half, B below (one filter: one join of sides;
        # a match seats one version of a bot at most).
        return qs.filter(Q(sides__version_id__in=mine, sides__order=0) & a_won
                         | Q(sides__version_id__in=mine, sides__order=1) & b_won)
    return qs
