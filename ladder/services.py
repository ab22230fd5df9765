"""Writes of the ladder: its entries, the scheduler that keeps it playing, the Elo update of
a finished rated match and its pairs added to the ladder's tallies (called through
matches.signals, in the transaction that stores the result: a match counts once), the fitted
ratings' refresh, house bots and challenges."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import connection, connections, transaction
from django.db.models import (
    Case,
    Count,
    F,
    FloatField,
    Max,
    Min,
    Prefetch,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Exp, Greatest, Least
from django.db.models.lookups import GreaterThan
from django.utils import timezone

from bots.models import BotVersion, default_game
from engine.games import GAMES
from kaiser_site.page_cache import pages_changed
from ladder import pairing, ratings, selectors
from ladder.models import HOUSE_USER, Ladder, LadderEntry, PairTally, RatingChange
from matches.models import RATED_SAME_OWNER, Match, MatchSide, side_letter
from matches.services import OPEN, match_create, matches_dispatch, setting_int


def _entry_for(ladder_id: int, version_id: int) -> LadderEntry:
    entry, _ = LadderEntry.objects.get_or_create(ladder_id=ladder_id, version_id=version_id)
    return entry


def ratings_apply(match: Match) -> None:
    """The Elo update of one finished match, of any number of players: its pairwise outcomes
    (match_pairs) through ratings.elo_changes_pairwise. The entries are locked in a fixed
    order, so two matches of the same bot finishing together queue here instead of losing an
    update."""
    assert match.ladder_id and match.score is not None
    sides = {side_letter(i): v for i, v in enumerate(match.version_ids)}
    locked = {e.version_id: e for e in LadderEntry.objects.select_for_update()
              .filter(ladder_id=match.ladder_id, version_id__in=sides.values()).order_by("pk")}
    entries = {side: locked.get(v) or _entry_for(match.ladder_id, v) for side, v in sides.items()}
    pairs = match_pairs(match)
    changes = ratings.elo_changes_pairwise(
        ratings={side: e.elo for side, e in entries.items()},
        games={side: e.games for side, e in entries.items()},
        pinned=[side for side, e in entries.items() if e.pinned], pairs=pairs)
    for side, entry in entries.items():
        RatingChange.objects.create(match=match, entry=entry, before=entry.elo,
                                    after=entry.elo + changes[side])
        LadderEntry.objects.filter(pk=entry.pk).update(elo=F("elo") + changes[side],
                                                       games=F("games") + 1)
    _tallies_add(match, [(sides[x], sides[y], score) for x, y, score in pairs])


def match_pairs(match: Match) -> list[tuple[str, str, float]]:
    """A finished match's result as the ratings read it: each pair of sides (x, y) with x's
    actual score against y. Two players: A's outcome (match_outcome, from the boards where
    the game has them), stored on the match; more: their points and ups
    (ratings.pairwise_scores, the ups on the game's scale)."""
    sides = match.side_list
    if len(sides) == 2:
        outcome = match_outcome(match)
        Match.objects.filter(pk=match.pk).update(outcome=outcome)
        match.outcome = outcome
        return [("A", "B", outcome)]
    points = {side.letter: side.points for side in sides}
    ups = {side.letter: side.ups for side in sides}
    assert None not in points.values()
    return ratings.pairwise_scores(  # type: ignore[return-value]
        points, None if None in ups.values() else ups,
        ups_scale=selectors.ups_scale(match.game))


def match_outcome(match: Match) -> float:
    """A two-player match's actual score for the ratings: from its boards (computed from its
    replay), the games won for a forfeit or where no board was played at both tables
    (ratings.match_outcome). A match rated before and whose replay is pruned since keeps the
    outcome it was rated with (the boards went with the replay)."""
    from engine.games import get_game

    assert match.score is not None
    boards = match.board_comparison()
    if boards is None and match.outcome is not None and get_game(match.game).has_boards:
        return match.outcome
    return ratings.match_outcome(swings=ratings.board_swings(boards),
                                 games_score=match.score, forfeit=match.fault_side is not None)


def _tallies_add(match: Match, pairs: list[tuple[Any, Any, float]]) -> None:
    """Add a rated match to its ladder's pair tallies (PairTally): each pair (x, y, x's score)
    with the match's games, as ratings.pair_tallies adds a result. After the rating changes,
    which refuse a match already counted (rating_change_once), in the same transaction. One
    upsert a pair: two first matches of a pair finishing at once never both insert it."""
    games, rows = match.games_per_match, []
    for x, y, score in pairs:
        if x != y and games > 0:
            wins = score * games
            low, high, low_wins = (x, y, wins) if x < y else (y, x, games - wins)
            rows.append((match.ladder_id, low, high, games, low_wins))
    if not rows:
        return
    table = PairTally._meta.db_table
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {table} (ladder_id, low_id, high_id, games, low_wins) "
            f"VALUES (%s, %s, %s, %s, %s) ON CONFLICT (ladder_id, low_id, high_id) DO UPDATE "
            f"SET games = {table}.games + EXCLUDED.games, "
            f"low_wins = {table}.low_wins + EXCLUDED.low_wins", rows)


def pair_tallies_rebuild(*, match_model: Any = Match, tally_model: Any = PairTally,
                         using: str = "default") -> int:
    """Every ladder's pair tallies made again from its rated results, in the database: one
    INSERT ... SELECT ... GROUP BY, no match read into Python. The migration that made the
    table ran a copy of it frozen at its schema, bench/scale_sim.py after
    its bulk load, `manage.py pair_tallies_rebuild` on demand. The table is locked against
    writes first: a match finishing meanwhile waits, then adds itself to the new tallies
    (its result was not committed when they were counted). Returns the pairs written."""
    part, params = _pair_rows(match_model.objects.using(using)).query.get_compiler(
        using=using).as_sql()
    table = tally_model._meta.db_table
    sql = (f"INSERT INTO {table} (ladder_id, low_id, high_id, games, low_wins) "
           f"SELECT t_ladder, t_low, t_high, SUM(t_games), SUM(t_wins) FROM ({part}) AS pairs "
           f"GROUP BY t_ladder, t_low, t_high")
    with transaction.atomic(using=using), connections[using].cursor() as cursor:
        if connections[using].vendor == "postgresql":  # (SQLite: one writer at a time anyway)
            cursor.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
        cursor.execute(f"DELETE FROM {table}")
        cursor.execute(sql, params)
        return int(cursor.rowcount)


def ratings_rebuild(*, ladder: Ladder) -> int:
    """The ladder's ratings made again from its stored results: each rated two-player
    match's outcome again from its boards (match_outcome), then Elo replayed in the order
    the matches were rated (their first RatingChange), every RatingChange and entry rewritten,
    an anchor from its pinned rating. Then the pair tallies (pair_tallies_rebuild). On a
    ladder whose ratings were applied match by match under the same rule, it writes the same
    numbers. The entries stay locked meanwhile: a match finishing waits, then counts on top.
    Returns the matches replayed."""
    with transaction.atomic():
        entries = {e.version_id: e for e in LadderEntry.objects.select_for_update()
                   .filter(ladder=ladder).order_by("pk")}
        state = {v: (e.elo if e.pinned else ratings.START, 0) for v, e in entries.items()}
        rated = (Match.objects.filter(ladder=ladder, rated=True, status=Match.Status.FINISHED)
                 .annotate(first_change=Min("rating_changes__id"))
                 .order_by(F("first_change").asc(nulls_last=True), "finished", "pk")
                 .prefetch_related(Prefetch("sides", queryset=MatchSide.objects.defer("stderr")
                                            .order_by("order"))))
        replayed = 0
        for match in rated.iterator(chunk_size=500):
            _rebuild_one(match, entries, state)
            replayed += 1
        for version, (elo, games) in state.items():
            LadderEntry.objects.filter(pk=entries[version].pk).update(elo=elo, games=games)
    pair_tallies_rebuild()
    pages_changed()
    return replayed


def _rebuild_one(match: Match, entries: dict[int, LadderEntry],
                 state: dict[int, tuple[float, int]]) -> None:
    """One match of ratings_rebuild: its outcome, its changes, written as ratings_apply does."""
    for v in match.version_ids:
        if v not in entries:
            entries[v] = _entry_for(match.ladder_id, v)
            state[v] = (ratings.START, 0)
    sides = {side_letter(i): v for i, v in enumerate(match.version_ids)}
    now = {side: state[v] for side, v in sides.items()}
    by_side = ratings.elo_changes_pairwise(
        ratings={side: rating for side, (rating, _) in now.items()},
        games={side: games for side, (_, games) in now.items()},
        pinned=[side for side, v in sides.items() if entries[v].pinned],
        pairs=match_pairs(match))
    for side, v in sides.items():
        rating, games = now[side]
        RatingChange.objects.update_or_create(match=match, entry=entries[v], defaults={
            "before": rating, "after": rating + by_side[side]})
        state[v] = (rating + by_side[side], games + 1)


def _ups_scales() -> dict[str, float]:
    """Each registered game's ups scale, for the games whose ups are rated (Game.ups_scale)."""
    return {name: game.ups_scale for name, game in GAMES.items() if game.ups_scale > 0}


def _pair_rows(matches: QuerySet[Any]) -> QuerySet[Any]:
    """The rows (ladder, low, high, games, low's wins) that the rated results add to the
    tallies, as _tallies_add adds them: one a pair of sides (x before y) of each rated
    match. A two-player match's (and any match's without points: A and B only) scored by
    A's outcome; a match of more, by the pair's points (0.5 each when neither took any),
    mixed with their ups where it has them (ratings.pairwise_scores)."""
    rated = MatchSide.objects.filter(
        match__in=matches.filter(rated=True, status="finished", ladder__isnull=False,
                                 games_per_match__gt=0, score__isnull=False).order_by()
    ).order_by()
    # One filter() call: the other side (y) is one join, which the annotations reuse.
    by_outcome = Q(order=0, match__sides__order=1) & (
        Q(points__isnull=True) | Q(match__sides__points__isnull=True))
    by_points = Q(points__isnull=False, match__sides__points__isnull=False)
    pairs = rated.filter(Q(match__sides__order__gt=F("order")) & (by_outcome | by_points))
    x, y = F("version_id"), F("match__sides__version_id")
    px, py = F("points"), F("match__sides__points")
    share = Case(When(GreaterThan(px + py, 0.0), then=px / (px + py)), default=Value(0.5),
                 output_field=FloatField())
    scales = _ups_scales()  # ups on each game's own scale; a game without one: points alone
    scale = Case(*[When(match__game=name, then=Value(s)) for name, s in scales.items()],
                 default=Value(1.0), output_field=FloatField())
    gap = (F("ups") - F("match__sides__ups")) / scale
    mixed = (1.0 - ratings.UPS_WEIGHT) * share + ratings.UPS_WEIGHT / (1.0 + Exp(-gap))
    score = Case(
        When(Q(points__isnull=True) | Q(match__sides__points__isnull=True),
             then=Coalesce("match__outcome", "match__score")),
        When(Q(ups__isnull=True) | Q(match__sides__ups__isnull=True)
             | ~Q(match__game__in=list(scales)), then=share),
        default=mixed, output_field=FloatField())
    games = F("match__games_per_match")
    wins = score * games
    return pairs.annotate(
        t_ladder=F("match__ladder_id"), t_low=Least(x, y), t_high=Greatest(x, y),
        t_games=games,
        t_wins=Case(When(Q(version_id__lt=y), then=wins), default=games - wins,
                    output_field=FloatField()),
    ).values_list("t_ladder", "t_low", "t_high", "t_games", "t_wins")


def ladder_entries_sync(*, ladder: Ladder) -> None:
    """Every playing version of a bot of the ladder's game is on the ladder; its older
    versions stop being scheduled. A ladder never holds another game's bots."""
    from bots.selectors import active_versions

    playing = set(active_versions().filter(bot__game=ladder.game).values_list("pk", flat=True))
    have = dict(LadderEntry.objects.filter(ladder=ladder).values_list("version_id", "active"))
    added = LadderEntry.objects.bulk_create(
        [LadderEntry(ladder=ladder, version_id=v) for v in playing - have.keys()],
        ignore_conflicts=True,
    )
    # The changes found here, so that a tick with none writes nothing (an UPDATE ... NOT IN
    # 10,000 versions took 0.5 s: bench/scale_sim.py); each UPDATE still checks the flag.
    leaving = [v for v, active in have.items() if active and v not in playing]
    returning = [v for v, active in have.items() if not active and v in playing]
    left = LadderEntry.objects.filter(ladder=ladder, active=True, version_id__in=leaving
                                      ).update(active=False) if leaving else 0
    back = LadderEntry.objects.filter(ladder=ladder, active=False, version_id__in=returning
                                      ).update(active=True) if returning else 0
    if added or left or back:
        pages_changed()


def _recent_opponents(ladder: Ladder) -> dict[int, tuple[int, ...]]:
    recent: dict[int, list[int]] = {}
    newest = Match.objects.filter(ladder=ladder, kind=Match.Kind.LADDER).order_by("-id")
    for players in reversed(_players_of(newest.values_list("pk", flat=True)[:200])):
        for v in players:
            recent.setdefault(v, []).extend(o for o in players if o != v)
    return {k: tuple(v[-3:]) for k, v in recent.items()}


def _ladder_entrants(ladder: Ladder) -> list[pairing.Entrant]:
    # Plain rows, not models: 10,000 entries with their versions and bots as objects took
    # seconds of a tick (bench/scale_sim.py).
    entries = list(LadderEntry.objects.filter(ladder=ladder, active=True).values_list(
        "version_id", "elo", "games", "pinned", "version__bot__owner_id"))
    pending = Counter(MatchSide.objects.filter(match__status__in=OPEN).values_list(
        "version_id", flat=True))
    recent = _recent_opponents(ladder)
    house = set(BotVersion.objects.filter(bot__owner__username=HOUSE_USER)
                .values_list("pk", flat=True))
    # The house's bots are not one owner: each may sit with another of them, so a lone
    # author's bot of a three-player game has a table (pairing still never seats house bots
    # alone together, and a bot never meets its own owner's).
    return [pairing.Entrant(key=version, rating=elo, games=games, pending=pending[version],
                            recent=recent.get(version, ()), house=pinned or version in house,
                            owner=None if version in house else owner)
            for version, elo, games, pinned, owner in entries]


def _players_of(match_ids: Any) -> list[list[int]]:
    """Each match's versions in side order, in the order of `match_ids` (a list or a
    values_list of ids): one query."""
    ids = list(match_ids)
    players: dict[int, list[int]] = {pk: [] for pk in ids}
    for match_id, version_id in MatchSide.objects.filter(match_id__in=ids).order_by(
            "match_id", "order").values_list("match_id", "version_id"):
        players[match_id].append(version_id)
    return [players[pk] for pk in ids]


def _meetings_on(ladder: Ladder) -> Callable[[Any], dict[Any, int]]:
    """meetings(version_id): the rated matches it finished against each opponent on the
    ladder. One grouped read from the version's sides (matchside_version_recent) to their
    matches' other sides: a bot's own matches only, never the whole ladder's
    (bench/ladder_schedule_cost.py: one GROUP BY over the ladder took 250 ms at 100,000)."""
    def meetings(version_id: Any) -> dict[Any, int]:
        rows = (MatchSide.objects.filter(
            match__sides__version_id=version_id, match__ladder=ladder, match__rated=True,
            match__status=Match.Status.FINISHED).exclude(version_id=version_id)
            .values_list("version_id").annotate(n=Count("pk")).order_by())
        return dict(rows)

    return meetings


def _ladder_fill(ladder: Ladder, rng: random.Random, sync: bool) -> int:
    with transaction.atomic():
        # The ladder's row lock: the beat tick and a finishing match never both fill it.
        Ladder.objects.select_for_update().filter(pk=ladder.pk).first()
        if sync:
            ladder_entries_sync(ladder=ladder)
        waiting = Match.objects.filter(ladder=ladder, kind=Match.Kind.LADDER,
                                       status__in=OPEN).count()
        slots = ladder.queue_depth - waiting
        if slots <= 0:
            return 0
        # Groups of the game's players: pairs for Kaiser, threes for Sergeant Major.
        groups: list[tuple[Any, ...]] = list(pairing.ladder_groups(
            size=ladder.players, entrants=_ladder_entrants(ladder), slots=slots, rng=rng,
            met=_meetings_on(ladder),
            settled_after=setting_int("KAISER_LADDER_PAIR_SETTLED", pairing.SETTLED_MATCHES)))
        versions = BotVersion.objects.select_related("bot").in_bulk(
            [k for g in groups for k in g])
        for group in groups:
            match_create(versions=[versions[k] for k in group], kind=Match.Kind.LADDER,
                         conditions=ladder, ladder=ladder, rated=True)
        return len(groups)


def ladder_schedule(
    *, ladder_id: int | None = None, rng: random.Random | None = None, sync: bool = True
) -> int:
    """Top up every active ladder (or one) to its queue depth; returns matches created.
    `sync` first brings the entries up to date with the bots' playing versions."""
    rng = rng or random.Random()
    ladders = Ladder.objects.filter(active=True)
    if ladder_id is not None:
        ladders = ladders.filter(pk=ladder_id)
    created = sum(_ladder_fill(ladder, rng, sync) for ladder in ladders)
    if not created:  # (new matches were dispatched when their transaction committed)
        matches_dispatch()
    return created


def ladder_fits_refresh() -> int:
    """Refit each ladder whose rated results or anchors changed since its last fit, and cache
    the fit (the beat runs this): pages and the API read these fits and never wait for a
    large ladder's. Returns the number of ladders refitted."""
    from ladder.selectors import ladder_fit, ladder_fit_is_current

    refitted = 0
    for ladder in Ladder.objects.order_by("pk"):
        if not ladder_fit_is_current(ladder=ladder):
            ladder_fit(ladder=ladder, compute=True)
            refitted += 1
    if refitted:
        pages_changed("board")  # the fitted ratings show on the leaderboards only
    return refitted


def ladder_anchor_set(*, ladder: Ladder, version: BotVersion, rating: float) -> LadderEntry:
    """Pin a (house) version's rating on a ladder: it becomes an anchor of the scale."""
    entry, _ = LadderEntry.objects.get_or_create(ladder=ladder, version=version)
    entry.elo, entry.pinned = rating, True
    entry.save(update_fields=["elo", "pinned", "updated"])
    pages_changed("board", f"bot:{version.bot_id}")
    return entry


def house_sets() -> tuple[tuple[str, str, dict[str, str], tuple[str, float]], ...]:
    """Each game's house bots, as (game, its home ladder's slug, bots, (anchor, rating)):
    the games' own (engine.games.Game: home_ladder, house_bots, house_anchor). A lone
    author's bot plays them, so a new bot plays its first rated match at once (issue 34)."""
    from engine.games import GAMES

    return tuple((game.name, game.home_ladder["slug"], game.house_bots,
                  (game.house_anchor, ratings.START))
                 for game in GAMES.values() if game.house_bots)


def house_bots_ensure(game: str = "") -> list[BotVersion]:
    """The house bots of `game` (by default the default game) exist, each with a built-in
    version, on the game's home ladder (made if missing), the anchor pinned there."""
    game = game or default_game()
    house_set = next((h for h in house_sets() if h[0] == game), (game, "", {}, ("", 0.0)))
    return _house_bots_ensure(house_set, game_ladder_ensure(game))


def house_bots_ensure_every_game() -> list[BotVersion]:
    """house_bots_ensure for every registered game: each gets its home ladder, with its house
    bots if it has any (a game without them got no ladder at all)."""
    from engine.games import GAMES

    return [version for game in GAMES for version in house_bots_ensure(game)]


def _house_bots_ensure(house_set: tuple[str, str, dict[str, str], tuple[str, float]],
                       ladder: Ladder) -> list[BotVersion]:
    from engine.builtin import resolve_player

    game, _, bots, _ = house_set
    for spec in bots.values():
        resolve_player(spec, game=game)  # ValueError for a name the game does not have
    versions = house_bots_install(only=(house_set,))
    ladder_entries_sync(ladder=ladder)
    pages_changed()
    return versions


def house_bots_install(*, apps: Any = None, only: Any = None) -> list[Any]:
    """The house bots of each game whose ladder exists: the user `house`, its bots with a
    built-in version each, on the ladder, the anchor pinned at its rating. Idempotent; a
    name a person's bot holds already stays that bot's (no house bot of that name).
    `apps`: a migration's historical models (ladder's 0007 runs this on every site, so a
    fresh or upgraded site has them, as it has the ladders); by default the current ones.
    `only`: these house sets (house_sets()'s shape) rather than every game's."""
    from django.apps import apps as current
    from django.conf import settings
    from django.contrib.auth.hashers import make_password

    models = apps or current
    user_model = models.get_model(settings.AUTH_USER_MODEL)
    bot_model = models.get_model("bots", "Bot")
    version_model = models.get_model("bots", "BotVersion")
    entry_model = models.get_model("ladder", "LadderEntry")
    house, _ = user_model.objects.get_or_create(
        username=HOUSE_USER, defaults={"password": make_password(None)})
    made: list[Any] = []
    for game, slug, bots, (anchor, rating) in only or house_sets():
        ladder = models.get_model("ladder", "Ladder").objects.filter(slug=slug).first()
        if ladder is None:
            continue
        for name, spec in bots.items():
            bot = bot_model.objects.filter(name__iexact=name).first()
            if bot is None:
                bot = bot_model.objects.create(owner=house, name=name, game=game,
                                               description=f"House player {spec}.")
            elif bot.owner_id != house.pk:
                continue  # a person's bot has this name
            version = bot.versions.filter(kind="builtin", builtin=spec).first()
            if version is None:
                number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
                version = version_model.objects.create(
                    bot=bot, number=number, kind="builtin", builtin=spec, status="active",
                    reason="built-in player", checked=timezone.now())
            entry, _ = entry_model.objects.get_or_create(ladder=ladder, version=version)
            if name == anchor and not entry.pinned:
                entry.elo, entry.pinned = rating, True
                entry.save(update_fields=["elo", "pinned", "updated"])
            made.append(version)
    return made


def ladder_main_ensure() -> Ladder:
    """The default game's ladder (the data migration makes it; this brings it back after a
    flush)."""
    return game_ladder_ensure(default_game())


def game_ladder_ensure(game: str) -> Ladder:
    """The game's home ladder (engine.games.Game.home_ladder; ladder's migrations make the
    built-in games' ones), made if missing."""
    from engine.games import get_game

    home = get_game(game).home_ladder
    ladder, _ = Ladder.objects.get_or_create(
        slug=home["slug"], defaults={"game": game, **{k: home[k] for k in (
            "name", "rules", "games_per_match", "description")}})
    return ladder


class RateLimited(Exception):
    """Too many requests of one kind by one user; the message says when to come back."""


def opponent_field(side: int) -> str:
    """The challenge's field naming the bot of side number `side` (from 0): "bot" (A, the
    challenger's), "opponent" (B), then "opponent_c", "opponent_d", ..."""
    return ("bot", "opponent")[side] if side < 2 else f"opponent_{side_letter(side).lower()}"


def challenge_create(
    *, user: AbstractBaseUser, version: BotVersion, opponent: BotVersion, rated: bool,
    ladder: Ladder, more: Sequence[BotVersion] = (),
) -> Match:
    """A match the author of `version` asked for, under `ladder`'s conditions: against
    `opponent`, and in a game of more players against `more` too (sides C, D, ...: one for
    each seat past the second), every bot of the ladder's game. Rated challenges count on
    `ladder`, and only against bots of other owners (RATED_SAME_OWNER); unrated ones are open
    to all."""
    if not version.bot.is_owned_by(user):
        raise ValidationError({"bot": "you can only challenge with your own bot"})
    players = [(version, "bot"), (opponent, "opponent")]
    players += [(v, opponent_field(n)) for n, v in enumerate(more, start=2)]
    for v, field in players:
        if v.status != BotVersion.Status.ACTIVE or v.bot.retired:
            raise ValidationError({field: f"{v} is not an active version"})
        if v.bot.game != ladder.game:
            raise ValidationError({field: f"{v.bot.name} plays {v.bot.game}, but the ladder "
                                          f"{ladder.slug} is {ladder.game}"})
    if len(players) != ladder.players:
        wanted = ladder.players - 1
        raise ValidationError({opponent_field(min(len(players), ladder.players)):
                               f"a game of {ladder.players} players: name {wanted} "
                               f"opponent{'s' if wanted > 1 else ''}, not {len(players) - 1}"})
    if rated and any(version.bot.owner_id == v.bot.owner_id for v, _ in players[1:]):
        raise ValidationError({"rated": RATED_SAME_OWNER})
    limit = setting_int("KAISER_CHALLENGES_PER_HOUR", 10)
    since = timezone.now() - timedelta(hours=1)
    with transaction.atomic():
        # Serialise per user. By the user model, not type(user): request.user is a lazy
        # wrapper whose type has no manager.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        if Match.objects.filter(requested_by_id=user.pk, created__gte=since).count() >= limit:
            raise RateLimited(f"at most {limit} challenges an hour; try again later")
        if rated:
            for v, _ in players:
                _entry_for(ladder.pk, v.pk)
        return match_create(versions=[v for v, _ in players], kind=Match.Kind.CHALLENGE,
                            conditions=ladder, ladder=ladder, rated=rated, requested_by=user)
