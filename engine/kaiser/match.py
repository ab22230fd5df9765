"""Duplicate matches between two players A and B, producing a replay (docs/replay-format.md)."""

from __future__ import annotations

import functools
import gc
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from engine.builtin import RandomPlayer
from engine.faults import BotFault
from engine.kaiser.game import DealSource, GameState, ShuffledDeals, pair_deals
from engine.kaiser.rules import DEFAULT_RULES, Rules
from engine.players import Player, PlayerFactory, TimeControl
from engine.tables import StartFault, Tables

SIDES = ("A", "B")
# Marks replays whose deals come from engine.kaiser.game.pair_deals(seed): validate re-deals them.
DEALING = "kaiser-arena/1"
ProgressFn = Callable[[int, int], None]


def seat_sides(game: int) -> list[str]:
    """Who sits where: A at seats 0 and 2 in even games, at 1 and 3 in odd games."""
    return ["A", "B", "A", "B"] if game % 2 == 0 else ["B", "A", "B", "A"]


class _Forfeit(Exception):
    def __init__(self, record: dict[str, Any]) -> None:
        super().__init__(record["reason"])
        self.record = record


def _forfeit_record(fault: BotFault, seat: int, side: str) -> dict[str, Any]:
    return {"seat": seat, "player": side, "reason": fault.reason,
            "message_id": fault.message_id, "detail": fault.detail}


def player_seed(seed: str, side: str, slot: int, game: int) -> str:
    """A built-in player's seed: as it always was in game 0, and a game's own after."""
    return f"{seed}/{side}{slot}" + (f"/{game}" if game else "")


class Match:
    """One match: the factories of A and B, the games played so far, and the result. Every
    game has a table of new players (engine.tables): no seat remembers another game."""

    def __init__(self, a: PlayerFactory, b: PlayerFactory, *, games: int, seed: str,
                 rules: Rules, time: TimeControl) -> None:
        if games < 2 or games % 2:
            raise ValueError(f"a match is played in duplicate pairs: games must be a positive "
                             f"even number, not {games}")
        self.factories = {"A": a, "B": b}
        self.games_total = games
        self.seed = str(seed)
        self.rules = rules
        self.time = time
        self.tables = Tables(self.factories, seat_sides=seat_sides,
                             seed_of=functools.partial(player_seed, self.seed), games=games,
                             rules=rules, time=time)
        self.games: list[dict[str, Any]] = []
        self.forfeit: dict[str, Any] | None = None
        self._pair: tuple[int, ShuffledDeals] | None = None

    def run(self, on_progress: ProgressFn | None = None) -> dict[str, Any]:
        try:
            players = self._open(0)
            if not any(p.makes_cycles for p in players):
                # Only the engine and built-in players run: see _collector_paused.
                with _collector_paused():
                    self._play_games(players, on_progress)
            else:
                self._play_games(players, on_progress)
        except _Forfeit as forfeit:
            self.forfeit = forfeit.record
        finally:
            self.tables.close_all()
        return self.replay()

    def _play_games(self, players: list[Player], on_progress: ProgressFn | None) -> None:
        for game in range(self.games_total):
            if game:
                players = self._open(game)
            self.games.append(self._play_game(game, players))
            self.tables.close()  # match_end: this table's processes end before the next plays
            if on_progress:
                on_progress(game + 1, self.games_total)

    def _open(self, game: int) -> list[Player]:
        try:
            return self.tables.open(game)
        except StartFault as failed:
            record = _forfeit_record(failed.fault, failed.seat, failed.side)
            self.games.append(self._game_record(game, [], [0, 0], 1 - failed.seat % 2, record))
            raise _Forfeit(record) from None

    def _play_game(self, game: int, players: list[Player]) -> dict[str, Any]:
        deals: DealSource
        if game % 2 == 0 or self._pair is None:
            self._pair = pair_deals(self.rules, self.seed, game // 2)
            dealer, deals = self._pair
        else:  # the second game of a pair: the first game's deals, not a second shuffle
            dealer, deals = self._pair[0], self._pair[1].again()
        state = GameState(self.rules, dealer=dealer, deals=deals, game=game)
        try:
            if any(p.wants_notifications for p in players):
                self._loop_notifying(state, players)
            else:
                _loop(state, players)
        except _SeatFault as failed:
            seat, fault = failed.seat, failed.fault
            record = _forfeit_record(fault, seat, seat_sides(game)[seat])
            deals_done = state.records() + [state.partial_record()]
            self.games.append(self._game_record(game, deals_done, list(state.score),
                                                1 - seat % 2, record))
            raise _Forfeit(record) from None
        deals_done = state.records()
        result = self._game_record(game, deals_done, list(state.score), state.winner, None)
        self._notify(players, {"type": "game_end", "game": game, "winner": state.winner,
                               "score": list(state.score)})
        return result

    def _loop_notifying(self, state: GameState, players: list[Player]) -> None:
        seen = 0
        while not state.is_terminal():
            _step(state, players)
            if len(state.log) > seen:
                for i in range(seen, len(state.log)):
                    entry = state.log[i]
                    self._notify(players, {
                        "type": "deal_end", "game": state.game, "deal": i,
                        "deal_record": entry.to_dict(),
                        "score": list(entry.score) if entry.score else list(state.score)})
                seen = len(state.log)

    @staticmethod
    def _notify(players: list[Player], message: dict[str, Any]) -> None:
        for player in players:
            if player.wants_notifications:
                player.notify(message)

    def _game_record(self, game: int, deals: list[dict[str, Any]], score: list[int],
                     winner: int | None, forfeit: dict[str, Any] | None) -> dict[str, Any]:
        return {"seats": seat_sides(game), "deals": deals,
                "result": {"winner": winner, "score": score, "forfeit": forfeit}}

    def result(self) -> dict[str, Any]:
        won = {"A": 0, "B": 0}
        draws = 0
        for game in self.games:
            winner = game["result"]["winner"]
            if winner is None:
                draws += 1
            else:
                won[game["seats"][winner]] += 1
        if self.forfeit is not None:
            # Games never played count for the player not at fault.
            other = "B" if self.forfeit["player"] == "A" else "A"
            won[other] += self.games_total - len(self.games)
        score = (won["A"] + draws / 2) / self.games_total
        return {"games": won, "score": score, "forfeit": self.forfeit}

    def replay(self) -> dict[str, Any]:
        return {
            "format": "kaiser-replay", "version": 1,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "dealing": DEALING,
            "players": {side: {"name": f.name, "version": f.version}
                        for side, f in self.factories.items()},
            "games": self.games,
            "result": self.result(),
        }


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while only in-process code runs (the engine and
    built-in players: Match.run).

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


class _SeatFault(Exception):
    def __init__(self, seat: int, fault: BotFault) -> None:
        super().__init__(str(fault))
        self.seat = seat
        self.fault = fault


def _step(state: GameState, players: list[Player]) -> None:
    seat = state.seat
    legal = state.legal_actions()
    player = players[seat]
    try:
        action = player.act(state, legal)  # type: ignore[arg-type]
    except BotFault as fault:
        raise _SeatFault(seat, fault) from None
    if not player.trusted and action not in legal:
        raise _illegal(seat, action)
    state.apply(action)


def _illegal(seat: int, action: object) -> _SeatFault:
    return _SeatFault(seat, BotFault("illegal", f"{action!r} is not a legal action"))


def _loop(state: GameState, players: list[Player]) -> None:
    """The loop for players that want no notifications: four random players in one call,
    trusted players unchecked, any other player's action checked before it is applied."""
    randoms = [p for p in players if type(p) is RandomPlayer]
    if len(randoms) == 4:
        # Four built-in random players: the same draws from their own generators as their
        # act(), without a call per decision.
        state.play_uniform([p.random for p in randoms])
        return
    acts = [p.act for p in players]
    legal_actions, apply = state.legal_actions, state.apply
    if all(p.trusted for p in players):
        while state.phase != 5:  # OVER
            apply(acts[state.seat](state, legal_actions()))  # type: ignore[arg-type]
        return
    # _step, inlined: every action of an untrusted player is checked before it is applied.
    trusted = [p.trusted for p in players]
    while state.phase != 5:  # OVER
        seat = state.seat
        legal = legal_actions()
        try:
            action = acts[seat](state, legal)  # type: ignore[arg-type]
        except BotFault as fault:
            raise _SeatFault(seat, fault) from None
        if not trusted[seat] and action not in legal:
            raise _illegal(seat, action)
        apply(action)


def run_match(a: PlayerFactory, b: PlayerFactory, *, games: int = 2, seed: str | int = "0",
              rules: Rules | None = None, time: TimeControl | None = None,
              on_progress: ProgressFn | None = None) -> dict[str, Any]:
    """Play a duplicate match of `games` games; a bot's fault is a forfeit in the replay."""
    match = Match(a, b, games=games, seed=str(seed), rules=rules or DEFAULT_RULES,
                  time=time or TimeControl())
    return match.run(on_progress)


def replay_json(replay: dict[str, Any]) -> str:
    """The canonical text of a replay: same match, same bytes.

    No check for reference cycles (a tenth of the time): a replay is a tree, whether run_match
    made it or json.loads read it; a cyclic object would end in RecursionError, not ValueError.
    """
    return json.dumps(replay, separators=(",", ":"), ensure_ascii=False, check_circular=False)
