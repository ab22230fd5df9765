"""What every game's match runner shares: the games of a match played table by table
(engine.tables), a bot's fault as the match's forfeit, the seats' notifications, the cyclic
collector paused while only in-process code runs, and the canonical text of a replay.

A game's match (engine.<game>.match) subclasses `MatchRunner` with how one game is played and
recorded (`play_game`, `start_forfeit_game`) and the replay it makes (`replay`); its per-
decision loop stays its own (the hot path).
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from engine.faults import BotFault
from engine.players import Player, PlayerFactory, TimeControl
from engine.tables import StartFault, Tables

ProgressFn = Callable[[int, int], None]


class Forfeit(Exception):
    """A seat's fault ends the match: `record` is the replay's forfeit."""

    def __init__(self, record: dict[str, Any]) -> None:
        super().__init__(record["reason"])
        self.record = record


class SeatFault(Exception):
    """The seat on move failed (a bot's fault, or an illegal action of an untrusted player)."""

    def __init__(self, seat: int, fault: BotFault) -> None:
        super().__init__(str(fault))
        self.seat = seat
        self.fault = fault


def illegal(seat: int, action: object) -> SeatFault:
    return SeatFault(seat, BotFault("illegal", f"{action!r} is not a legal action"))


def forfeit_record(fault: BotFault, seat: int, side: str) -> dict[str, Any]:
    return {"seat": seat, "player": side, "reason": fault.reason,
            "message_id": fault.message_id, "detail": fault.detail}


def notify(players: list[Player], message: dict[str, Any]) -> None:
    for player in players:
        if player.wants_notifications:
            player.notify(message)


class MatchRunner:
    """One match: each side's factory, the games played so far, and the forfeit if any.
    Every game has a table of new players (engine.tables): no seat remembers another game."""

    def __init__(self, factories: dict[str, PlayerFactory], *, games: int, seed: str,
                 rules: Any, time: TimeControl, seat_sides: Callable[[int], list[str]],
                 seed_of: Callable[[str, int, int], str]) -> None:
        self.factories = factories
        self.games_total = games
        self.seed = str(seed)
        self.rules = rules
        self.time = time
        self.tables = Tables(factories, seat_sides=seat_sides, seed_of=seed_of, games=games,
                             rules=rules, time=time)
        self.games: list[dict[str, Any]] = []
        self.forfeit: dict[str, Any] | None = None

    def run(self, on_progress: ProgressFn | None = None) -> dict[str, Any]:
        try:
            players = self._open(0)
            if not any(p.makes_cycles for p in players):
                # Only the engine and built-in players run: see collector_paused.
                with collector_paused():
                    self._play_games(players, on_progress)
            else:
                self._play_games(players, on_progress)
        except Forfeit as forfeit:
            self.forfeit = forfeit.record
        finally:
            self.tables.close_all()
        return self.replay()

    def _play_games(self, players: list[Player], on_progress: ProgressFn | None) -> None:
        for game in range(self.games_total):
            if game:
                players = self._open(game)
            self.games.append(self.play_game(game, players))
            self.tables.close()  # match_end: this table's processes leave; the next does not wait
            if on_progress:
                on_progress(game + 1, self.games_total)

    def _open(self, game: int) -> list[Player]:
        try:
            return self.tables.open(game)
        except StartFault as failed:
            record = forfeit_record(failed.fault, failed.seat, failed.side)
            self.games.append(self.start_forfeit_game(game, failed.seat, record))
            raise Forfeit(record) from None

    def play_game(self, game: int, players: list[Player]) -> dict[str, Any]:
        """Play game `game` and return its record; raise Forfeit (the game's record, up to
        the fault, appended to self.games) when a seat fails."""
        raise NotImplementedError

    def start_forfeit_game(self, game: int, seat: int,
                           record: dict[str, Any]) -> dict[str, Any]:
        """The record of game `game`, lost before its first deal by a fault at `seat`."""
        raise NotImplementedError

    def replay(self) -> dict[str, Any]:
        raise NotImplementedError


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while only in-process code runs (the engine and
    built-in players: MatchRunner.run).

    A match makes thousands of small lists and dicts that survive into the replay: the
    collector would keep running, rescanning the growing replay and finding nothing (two
    fifths of the time of a long random-vs-random match). The engine and the built-in players
    make no reference cycles (tests/engine/test_speed_paths.py checks it): reference counting
    frees everything, and the collector runs again once the match is over.

    At the end, the match's objects would all sit in the young generation, to be scanned by
    the next young collection (a fifth of the time of the match again) and again by the next
    middle one, only to be found alive. gc.freeze() then gc.unfreeze() moves every tracked
    object to the oldest generation without scanning anything; it is skipped when some
    objects are frozen already (a server may freeze its heap before forking), since unfreeze()
    would thaw those too.
    """
    if not gc.isenabled():
        yield
        return
    try:
        gc.disable()  # inside the try: an exception raised just after it still re-enables
        yield
    finally:
        try:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()  # everything now in the oldest generation, nothing frozen
        finally:
            gc.enable()


def replay_json(replay: dict[str, Any]) -> str:
    """The canonical text of a replay: same match, same bytes.

    No check for reference cycles (a tenth of the time): a replay is a tree, whether run_match
    made it or json.loads read it; a cyclic object would end in RecursionError, not ValueError.
    """
    return json.dumps(replay, separators=(",", ":"), ensure_ascii=False, check_circular=False)
