"""Writes of the play app: a person opens a game, posts moves, resigns; the worker plays it.

The worker's side (game_play) runs one game in engine.human.SingleGame: the person's seat is
a HumanPlayer whose moves come from Move rows, the bots are the same players the ladder's
matches use (bots.runner: sandboxed programs, house players in-process). After the moves up
to the person's turn (or up to a bot that may think, or the end) the worker publishes the
person's view, every move since listed in it, in the Table row (the record, which state/ reads)
and, with Redis (play.push), to the pages' event streams. The worker learns of a stored move
from a Redis wake-up (a blocking pop), or without Redis by looking at the database, backing
off.
"""

from __future__ import annotations

import logging
import secrets
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import JSONField, OuterRef, Subquery
from django.urls import reverse
from django.utils import timezone
from redis import RedisError

from bots.models import BotVersion, default_game
from engine.faults import InfrastructureError
from engine.games import get_game
from engine.human import HumanPlayer, Resigned, SeatName, SingleGame
from engine.players import Player, TimeControl
from kaiser_site.task_send import task_send
from play import push, selectors
from play.models import Move, Seat, Table

logger = logging.getLogger(__name__)
RECENT = 8  # moves listed in the view with the time each was made


class PlayError(ValueError):
    """A request the play app refuses, with the reason to show."""

    def __init__(self, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


# --- The person's side ---------------------------------------------------------------------


def connection_release() -> None:
    """Give the database connection back while nothing needs it (a long wait, a long stream).
    Inside a transaction it is not this code's to close (a test's, or a caller's): kept."""
    if not connection.in_atomic_block:
        connection.close()


def bot_seats(game: str) -> tuple[int, ...]:
    """The seats the bots take at a table of `game`: all but seat 0, the person's."""
    return tuple(range(1, get_game(game).seats))


def game_create(*, owner: Any, rules: str, length: str, seats: list[str],
                game: str = "") -> Table:
    """A new game of `game` with the person at seat 0 and `seats` ("builtin:NAME" or a bot
    version id of that game) at the other seats: Kaiser's 1, 2 (partner), 3, Sergeant
    Major's 1 and 2; sent to the play queue once committed. Refused beyond
    KAISER_PLAY_OPEN_GAMES open games."""
    game = game or default_game()
    tables = selectors.table_games()
    if game not in tables:
        raise PlayError(f"unknown game {game!r}; choose one of {', '.join(tables)}")
    presets = tables[game].presets
    if rules not in presets:
        raise PlayError(f"unknown rule set {rules!r}; choose one of {', '.join(presets)}")
    if length not in Table.Length.values:
        raise PlayError(f"length must be one of {', '.join(Table.Length.values)}")
    places = bot_seats(game)
    if len(seats) != len(places):
        raise PlayError(f"choose a player for each of the {len(places)} other seats")
    resolved = [_seat_resolve(value, game) for value in seats]
    limit = settings.KAISER_PLAY_OPEN_GAMES
    with transaction.atomic():
        # The person's row, locked: two requests at once cannot both pass the limit.
        get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
        if selectors.open_games(owner=owner).count() >= limit:
            raise PlayError(f"you have {limit} open game{'s' * (limit != 1)} already: finish "
                            f"or resign one first", status=409)
        row = Table.objects.create(
            owner=owner, game=game, rules=rules, length=length, seed=secrets.token_hex(8),
            move_seconds=settings.KAISER_PLAY_MOVE_SECONDS,
            bot_move_ms=settings.KAISER_PLAY_BOT_MOVE_MS,
            bot_bank_ms=settings.KAISER_PLAY_BOT_BANK_MS,
            bot_startup_ms=settings.KAISER_PLAY_BOT_STARTUP_MS)
        Seat.objects.bulk_create([Seat(game=row, seat=seat, version=version, builtin=spec)
                                  for seat, (version, spec) in zip(places, resolved, strict=True)])
        transaction.on_commit(lambda: _dispatch(row.pk))
    return row


def _dispatch(game_id: int) -> None:
    task_send("play.tasks.game_play", game_id, queue=settings.KAISER_PLAY_QUEUE)


def _seat_resolve(value: str, game: str) -> tuple[BotVersion | None, str]:
    if not isinstance(value, str) or not value:
        raise PlayError("choose a player for each seat")
    if value.startswith("builtin:"):
        if value.removeprefix("builtin:") not in get_game(game).builtin_players():
            raise PlayError(f"no house player {value!r} of {get_game(game).title}")
        return selectors.house_version(spec=value, game=game), value
    if not value.isdigit():
        raise PlayError(f"not a seat choice: {value!r}")
    version = (BotVersion.objects.select_related("bot")
               .filter(pk=int(value), status=BotVersion.Status.ACTIVE, bot__retired=False)
               .first())
    if version is None:
        raise PlayError(f"bot version {value} is not active")
    if version.bot.game != game:
        raise PlayError(f"{version.bot.name} plays {version.bot.get_game_display()}, not "
                        f"{get_game(game).title}")
    return version, ""


def move_submit(*, game: Table, user: Any, seq: Any, action: Any) -> dict[str, Any]:
    """The person's move number `seq`. Stored once: the same move posted again is answered
    as a duplicate and changes nothing; an illegal or stale move is refused (PlayError)."""
    _own(game, user)
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        raise PlayError("seq must be the number of the move (a whole number)")
    # The move if already stored, and the game as it is now, in one query.
    stored = Move.objects.filter(game_id=OuterRef("pk"), seq=seq).values("action")[:1]
    game.status, game.seq, game.view, earlier = Table.objects.filter(pk=game.pk).annotate(
        earlier=Subquery(stored, output_field=JSONField())).values_list(
        "status", "seq", "view", "earlier").get()
    if earlier is not None:
        return _duplicate(seq, earlier, action)
    if game.status != Table.Status.RUNNING or not game.view:
        raise PlayError(f"the game is {game.status}: no move is expected", status=409)
    view = game.view
    if seq != game.seq or not view.get("your_turn"):
        raise PlayError(f"move {seq} is not the one expected (it is move {game.seq}, "
                        f"{'yours' if view.get('your_turn') else 'a bot'} to play)", status=409)
    clean = _check_action(game.game, view, action)
    try:
        with transaction.atomic():
            Move.objects.create(game=game, seq=seq, action=clean)
            transaction.on_commit(lambda: push.wake(game.pk, f"move:{seq}"))
    except IntegrityError:  # the same move, posted twice at once
        earlier = Move.objects.filter(game=game, seq=seq).values_list("action", flat=True).first()
        return _duplicate(seq, earlier, action)
    return {"accepted": True, "seq": seq, "action": clean}


def _duplicate(seq: int, earlier: Any, action: Any) -> dict[str, Any]:
    if earlier != action:
        raise PlayError(f"move {seq} was already made ({earlier!r})", status=409)
    return {"accepted": True, "seq": seq, "action": earlier, "duplicate": True}


def _check_action(game: str, view: dict[str, Any], action: Any) -> Any:
    """The action if the view's decision allows it; PlayError saying why not."""
    try:
        return get_game(game).person_action(view, action)
    except ValueError as refused:
        raise PlayError(str(refused)) from None


def game_resign(*, game: Table, user: Any) -> Table:
    """The person gives up: the worker ends the game at its next wait (a forfeit by seat 0);
    a game no worker has started yet is void at once."""
    _own(game, user)
    if Table.objects.filter(pk=game.pk, status__in=Table.OPEN).update(resign_requested=True):
        push.wake(game.pk, "resign")
    _void_if(game.pk, Table.Status.QUEUED, "resigned before it began")
    game.refresh_from_db()
    push.publish(game.pk, game_message(game))
    return game


def _own(game: Table, user: Any) -> None:
    if game.owner_id != getattr(user, "pk", None):
        raise PlayError("this is not your game", status=403)


def game_message(game: Table, *, view: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the page is told of `game` (the state/ answer, and each pushed event): its view
    (`view` when the caller has the newer one in hand), status and, once over, the replay."""
    return {"seq": game.seq, "status": game.status,
            "view": game.view if view is None else view,
            "now": _now_ms(),  # the page's clock counts from it
            "void_reason": game.void_reason,
            "resigning": game.resign_requested and game.is_open,
            "replay": reverse("play-replay", args=[game.pk])
            if game.status == Table.Status.FINISHED else None}


# --- Void games ----------------------------------------------------------------------------


def _void_if(game_id: int, status: str, reason: str) -> bool:
    done = bool(Table.objects.filter(pk=game_id, status=status).update(
        status=Table.Status.VOID, void_reason=reason, finished=timezone.now()))
    if done:
        _publish_ended(game_id)
    return done


def _publish_ended(game_id: int) -> None:
    """The pages learn that the game ended (finished or void); its wake-up list goes."""
    push.forget(game_id)
    if push.enabled():
        game = Table.objects.defer("replay").get(pk=game_id)
        push.publish(game_id, game_message(game))


def game_is_stale(game: Table) -> bool:
    """What games_void_stale would void, judged from the row in hand (no write: the page
    polls several times a second)."""
    now = timezone.now()
    if game.status == Table.Status.RUNNING:
        return game.alive is not None and \
            game.alive < now - timedelta(seconds=settings.KAISER_PLAY_STALE_SECONDS)
    return game.status == Table.Status.QUEUED and \
        game.created < now - timedelta(seconds=settings.KAISER_PLAY_QUEUED_SECONDS)


def games_void_stale(*, game_id: int | None = None) -> int:
    """Void the games whose worker stopped (no heartbeat for KAISER_PLAY_STALE_SECONDS) and
    those no worker took (queued for KAISER_PLAY_QUEUED_SECONDS). Nothing else is lost: the
    bots' matches and ratings never depended on them."""
    now = timezone.now()
    games = Table.objects.all() if game_id is None else Table.objects.filter(pk=game_id)
    running = games.filter(status=Table.Status.RUNNING,
                           alive__lt=now - timedelta(seconds=settings.KAISER_PLAY_STALE_SECONDS))
    queued = games.filter(status=Table.Status.QUEUED,
                          created__lt=now - timedelta(seconds=settings.KAISER_PLAY_QUEUED_SECONDS))
    ids = [*running.values_list("pk", flat=True), *queued.values_list("pk", flat=True)] \
        if push.enabled() else []
    voided = (running.update(status=Table.Status.VOID, finished=now,
                             void_reason="the server playing it stopped; the game is void")
              + queued.update(status=Table.Status.VOID, finished=now,
                              void_reason="no server took the game in time; the game is void"))
    for pk in ids:  # the pages open on them say so at once
        _publish_ended(pk)
    return voided


# --- The worker's side ---------------------------------------------------------------------


def game_play(*, game_id: int, worker: str) -> str:
    """Play the game to its end. Safe to run twice: only a queued game is started; a running
    one met again was left by a worker that died, and is void."""
    now = timezone.now()
    taken = Table.objects.filter(pk=game_id, status=Table.Status.QUEUED).update(
        status=Table.Status.RUNNING, started=now, alive=now, worker=worker[:200])
    if not taken:
        if _void_if(game_id, Table.Status.RUNNING, "the server playing it stopped; the game "
                    "is void"):
            return "void"
        return "skipped"
    game = Table.objects.get(pk=game_id)
    try:
        replay = _play(game)
    except InfrastructureError as error:
        _void_if(game_id, Table.Status.RUNNING, f"the sandbox failed: {error}"[:200])
        return "void"
    except Exception as error:
        _void_if(game_id, Table.Status.RUNNING, f"the server failed: {type(error).__name__}")
        raise
    return game_finish(game_id=game_id, replay=replay)


def game_rules(game: Table) -> Any:
    """The game's rules; for one deal (practice), cut to one deal (the game's one_deal_rules:
    Sergeant Major's one hand, its point to the best total unless someone takes 12)."""
    spec = get_game(game.game)
    rules = spec.get_rules(game.rules)
    return spec.one_deal_rules(rules) if game.length == Table.Length.DEAL else rules


def _play(game: Table) -> dict[str, Any]:
    clock = TimeControl(move_ms=game.bot_move_ms, bank_ms=game.bot_bank_ms,
                        startup_ms=game.bot_startup_ms)
    seats = list(game.seats.select_related("version__bot").order_by("seat"))
    channel = Channel(game)
    names = [SeatName(game.owner.username, "person", human=True)]
    players: list[Player] = []
    try:
        for seat in seats:
            name, player = _bot_player(seat, clock, game.game)
            names.append(name)
            players.append(player)
    except BaseException:
        for player in players:
            player.close()
        raise
    single = SingleGame([], names, rules=game_rules(game), seed=game.seed, time=clock,
                        on_move=channel.publish, game=game.game)
    human = HumanPlayer(channel, move_seconds=game.move_seconds,
                        moves_made=lambda: len(single.moves), clock=time.monotonic,
                        game=game.game)
    single.players = [human, *players]
    channel.single = single
    channel.publish(single.state, None)
    return single.run()


def _bot_player(seat: Seat, clock: TimeControl, game: str) -> tuple[SeatName, Player]:
    from bots.runner import bot_version_player
    from engine.builtin import resolve_player

    if seat.version is not None:  # a bot (a house bot's built-in, by its bot's game)
        factory = bot_version_player(version=seat.version, time=clock)
    else:  # a house player of the game with no house bot, by its spec
        factory = resolve_player(seat.builtin, game=game, time=clock)  # type: ignore[assignment]
    # The factory's slot: which of its side's seats (engine.tables), as in a match's game 0.
    sides = get_game(game).seat_sides(0)
    slot = sides[:seat.seat].count(sides[seat.seat])
    return SeatName(factory.name, factory.version), factory(slot)


def game_finish(*, game_id: int, replay: dict[str, Any]) -> str:
    result = replay["games"][0]["result"]
    forfeit = result["forfeit"] or {}
    done = Table.objects.filter(pk=game_id, status=Table.Status.RUNNING).update(
        status=Table.Status.FINISHED, finished=timezone.now(), replay=replay,
        winner=result["winner"], score=result["score"],
        forfeit_reason=forfeit.get("reason", ""), forfeit_seat=forfeit.get("seat"))
    if done:
        Table.objects.filter(pk=game_id).update(view=_final_view(game_id, replay))
        _publish_ended(game_id)
    return "finished" if done else "void"


def _final_view(game_id: int, replay: dict[str, Any]) -> dict[str, Any]:
    view = Table.objects.values_list("view", flat=True).get(pk=game_id) or {}
    view.update(your_turn=False, decision=None, legal=[], deadline=None, over=True,
                result=replay["games"][0]["result"], at=_now_ms())
    return view


def _now_ms() -> int:
    return int(time.time() * 1000)


class Channel:
    """The worker's link to the page: publishes the person's view (the Table row, and the
    pages' event streams) once the instant bots' moves after a move are made, and waits for
    the person's moves (Move rows), beating the game's heartbeat meanwhile.

    With Redis the wait is a blocking pop on the game's wake-up list: no query until the web
    says a move is stored, and one look at the database each heartbeat (a wake-up lost). The
    database connection is closed for the wait, so that hundreds of waiting games hold none.
    Without Redis it looks for the Move row every KAISER_PLAY_POLL_MS, backing off to
    KAISER_PLAY_POLL_MAX_MS while the person thinks."""

    def __init__(self, game: Table) -> None:
        self.game = game
        self.spec = get_game(game.game)
        self.single: SingleGame | None = None
        self.poll = settings.KAISER_PLAY_POLL_MS / 1000
        self.poll_max = max(self.poll, settings.KAISER_PLAY_POLL_MAX_MS / 1000)
        self.beat = settings.KAISER_PLAY_HEARTBEAT_SECONDS
        self.recent: list[dict[str, Any]] = []
        self.held = 0  # moves made since the view was last published

    def publish(self, state: Any, move: dict[str, Any] | None) -> None:
        """After each move: the move joins `recent`, stamped with the time it was made; the
        view is published unless the move may be held (see _may_hold)."""
        seq = len(self.single.moves) if self.single else 0
        if move is not None:
            if move["decision"] in self.spec.person_hidden and move["seat"] != 0:
                # A bot's discards are hidden from the person (and, where the game has them,
                # the cards of an exchange): the game's person_hidden.
                move = {**move, "action": None}
            # The moves a page would not see one by one (held, or polled between two
            # publications), each stamped with the time it was made (the benches read them).
            self.recent = [*self.recent[-(RECENT - 1):], {**move, "seq": seq, "at": _now_ms()}]
            self.held += 1
            if self._may_hold(state):
                return
        self.held = 0
        view = self.spec.person_view(state, seq=seq, move=move, move_seconds=self.game.move_seconds,
                      names=[n.name for n in self.single.names] if self.single else [])
        view["recent"] = self.recent
        if Table.objects.filter(pk=self.game.pk, status=Table.Status.RUNNING).update(
                seq=seq, view=view, alive=timezone.now()):
            self.game.seq, self.game.status = seq, Table.Status.RUNNING
            push.publish(self.game.pk, game_message(self.game, view=view))

    def _may_hold(self, state: Any) -> bool:
        """Whether the view after this move may wait for the next move's: only while an
        instant built-in player is to move next (it answers within microseconds, so the moves
        reach the page together a moment later), and `recent` still lists every move held.
        One view, one write and one message for the lot: with three built-in bots, about a
        third as many as moves (bench/people_tables.py: the worker's CPU per bot move about
        halved). Published at once: the person's turn, the end, and before any seat that may
        think (a bot program, a searching built-in), so the page shows who is thinking."""
        if self.single is None or state.is_terminal() or state.seat == 0 \
                or self.held >= RECENT:
            return False
        return self.single.players[state.seat].instant

    def wait_move(self, *, seq: int, deadline: float) -> Any:
        # With Redis, no look first: a move stored since the view went out has its wake-up
        # waiting in the list, and the blocking pop returns it at once.
        found = None if push.enabled() else self._stored(seq)
        while found is None and time.monotonic() < deadline:
            if push.enabled():
                found = self._wait_pushed(seq, deadline)
            else:
                found = self._wait_polling(seq, deadline)
        return found

    def _wait_pushed(self, seq: int, deadline: float) -> Any:
        """Until the next heartbeat: block on the wake-up list, look when woken."""
        beat_at = min(deadline, time.monotonic() + self.beat)
        connection_release()  # nothing is read while it waits
        while (left := beat_at - time.monotonic()) > 0:
            try:
                message = push.wait_wake(self.game.pk, timeout=left)
            except RedisError as error:
                logger.warning("play: game %s waits on the database: Redis failed (%s)",
                               self.game.pk, error)
                return self._wait_polling(seq, beat_at)
            if message == f"move:{seq}":
                return self._stored(seq)
            if message == "resign":
                self._heartbeat()
        return self._beat_and_look(seq)

    def _wait_polling(self, seq: int, deadline: float) -> Any:
        """Until the next heartbeat (or `deadline`): look for the move, backing off."""
        beat_at, pause = min(deadline, time.monotonic() + self.beat), self.poll
        while time.monotonic() < beat_at:
            time.sleep(min(pause, max(0.0, beat_at - time.monotonic())))
            if (found := self._look(seq)) is not None:
                return found
            pause = min(pause * 1.5, self.poll_max)
        return self._beat_and_look(seq)

    def _look(self, seq: int) -> Any:
        """One query: the move if stored; Resigned if the person resigned (or the game was
        voided meanwhile)."""
        move = Move.objects.filter(game_id=OuterRef("pk"), seq=seq).values("action")[:1]
        status, resign, found = Table.objects.filter(pk=self.game.pk).annotate(
            move=Subquery(move, output_field=JSONField())).values_list(
            "status", "resign_requested", "move").get()
        if resign or status != Table.Status.RUNNING:
            raise Resigned()
        return found

    def _beat_and_look(self, seq: int) -> Any:
        self._heartbeat()
        return self._stored(seq)

    def _stored(self, seq: int) -> Any:
        return Move.objects.filter(game_id=self.game.pk, seq=seq).values_list(
            "action", flat=True).first()

    def _heartbeat(self) -> None:
        """The game is alive; a resignation (or the game voided meanwhile) ends the wait."""
        if not Table.objects.filter(pk=self.game.pk, status=Table.Status.RUNNING,
                                   resign_requested=False).update(alive=timezone.now()):
            raise Resigned()


__all__ = ["PlayError", "bot_seats", "game_create", "game_play", "game_resign", "move_submit",
           "games_void_stale"]
