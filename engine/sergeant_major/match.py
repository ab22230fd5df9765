"""Matches of Sergeant Major between three players A, B and C, producing a replay
(docs/replay-format.md, "Sergeant Major").

A match is played in sets of three games over the same deals, the players' seats rotated
(A B C, then C A B, then B C A): each player holds each seat of each deal once, so the cards'
luck cancels as duplicate play cancels it in Kaiser.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from engine.builtin import RandomPlayer
from engine.faults import BotFault
from engine.players import Player, PlayerFactory, TimeControl
from engine.runner import (
    Forfeit,
    MatchRunner,
    ProgressFn,
    SeatFault,
    forfeit_record,
    illegal,
    notify,
)
from engine.sergeant_major.game import OVER, DealSequence, SMState, set_deals
from engine.sergeant_major.rules import DEFAULT_RULES, GAME, SMRules

SIDES = ("A", "B", "C")
FORMAT = "sergeant-major-replay"
# Marks replays whose deals come from set_deals(seed): validate re-deals them.
DEALING = "sergeant-major-arena/1"


def seat_sides(game: int) -> list[str]:
    """Who sits where in game `game`: A B C at seats 0 1 2, rotated one seat a game."""
    shift = game % 3
    return [SIDES[(seat - shift) % 3] for seat in range(3)]


def forfeit_points(seat: int) -> list[float]:
    """A game lost by a fault at `seat`: the other two share its point."""
    return [0.0 if s == seat else 0.5 for s in range(3)]


def player_seed(seed: str, side: str, slot: int, game: int) -> str:
    """A built-in player's seed: as it always was in game 0, and a game's own after."""
    return f"{seed}/{side}" + (f"/{game}" if game else "")


class SMMatch(MatchRunner):
    """A match of sets of three games (engine.runner plays its games table by table: no
    process plays two games of a set)."""

    def __init__(self, factories: dict[str, PlayerFactory], *, games: int, seed: str,
                 rules: SMRules, time: TimeControl) -> None:
        if set(factories) != set(SIDES):
            raise ValueError("a Sergeant Major match has three players, A, B and C")
        if games < 3 or games % 3:
            raise ValueError(f"a Sergeant Major match is played in sets of three games (the "
                             f"seats rotated): games must be a multiple of 3, not {games}")
        super().__init__(factories, games=games, seed=seed, rules=rules, time=time,
                         seat_sides=seat_sides,
                         seed_of=functools.partial(player_seed, str(seed)))
        self._set: tuple[int, DealSequence] | None = None

    def start_forfeit_game(self, game: int, seat: int,
                           record: dict[str, Any]) -> dict[str, Any]:
        return _game_record(game, [], [0, 0, 0], None, forfeit_points(seat), record)

    def play_game(self, game: int, players: list[Player]) -> dict[str, Any]:
        if game % 3 == 0 or self._set is None:
            self._set = set_deals(self.seed, game // 3)
        dealer, deals = self._set
        state = SMState(self.rules, dealer=dealer, deals=deals.source(), game=game)
        try:
            _loop(state, players, notify if any(
                p.wants_notifications for p in players) else None)
        except SeatFault as failed:
            seat = failed.seat
            record = forfeit_record(failed.fault, seat, seat_sides(game)[seat])
            done = state.records() + [state.partial_record()]
            self.games.append(_game_record(game, done, list(state.score), None,
                                           forfeit_points(seat), record))
            raise Forfeit(record) from None
        notify(players, game_end(state, game))
        return _game_record(game, state.records(), list(state.score), state.winner,
                            state.points or [], None)

    def result(self) -> dict[str, Any]:
        return match_result(self.games, self.games_total, self.forfeit)

    def replay(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "version": 1, "game": GAME,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "dealing": DEALING,
            "players": {side: {"name": self.factories[side].name,
                               "version": self.factories[side].version} for side in SIDES},
            "games": self.games,
            "result": self.result(),
        }


def game_end(state: SMState, game: int) -> dict[str, Any]:
    return {"type": "game_end", "game": game, "winner": state.winner,
            "score": list(state.score), "points": state.points}


def _game_record(game: int, deals: list[dict[str, Any]], score: list[int], winner: int | None,
                 points: list[float], forfeit: dict[str, Any] | None) -> dict[str, Any]:
    return {"seats": seat_sides(game), "deals": deals,
            "result": {"winner": winner, "score": score, "points": points,
                       "forfeit": forfeit}}


def match_result(games: list[dict[str, Any]], total: int,
                 forfeit: dict[str, Any] | None) -> dict[str, Any]:
    """Games won, points (a game's point is shared on equal totals or after a fault), each
    side's share of the points, and its ups and downs over every hand played."""
    won = dict.fromkeys(SIDES, 0)
    points = dict.fromkeys(SIDES, 0.0)
    ups = dict.fromkeys(SIDES, 0)
    for game in games:
        seats, result = game["seats"], game["result"]
        if result["winner"] is not None:
            won[seats[result["winner"]]] += 1
        for seat, side in enumerate(seats):
            points[side] += result["points"][seat]
            ups[side] += result["score"][seat]
    if forfeit is not None:  # the games not played: the two others share each one
        for side in SIDES:
            if side != forfeit["player"]:
                points[side] += 0.5 * (total - len(games))
    return {"games": won, "points": points,
            "score": {side: points[side] / total for side in SIDES},
            "ups": ups, "forfeit": forfeit}


def _loop(state: SMState, players: list[Player],
          notify: Callable[[list[Player], dict[str, Any]], None] | None) -> None:
    acts = [p.act for p in players]
    trusted = [p.trusted for p in players]
    randoms = all(type(p) is RandomPlayer for p in players)
    seen = 0
    while state.phase != OVER:
        seat = state.seat
        legal = state.legal_actions()
        if randoms:  # RandomPlayer.act, without a call a decision
            state.apply(legal[int(players[seat].random() * len(legal))])  # type: ignore[attr-defined]
            continue
        try:
            action = acts[seat](state, legal)  # type: ignore[arg-type]
        except BotFault as fault:
            raise SeatFault(seat, fault) from None
        if not trusted[seat] and action not in legal:
            raise illegal(seat, action)
        state.apply(action)
        if notify is not None and len(state.log) > seen:
            for i in range(seen, len(state.log)):
                entry = state.log[i]
                notify(players, {"type": "deal_end", "game": state.game, "deal": i,
                                 "deal_record": entry.to_dict(), "score": list(entry.score or ())})
            seen = len(state.log)


def run_match(factories: dict[str, PlayerFactory] | list[PlayerFactory], *, games: int = 3,
              seed: str | int = "0", rules: SMRules | None = None,
              time: TimeControl | None = None,
              on_progress: ProgressFn | None = None) -> dict[str, Any]:
    """Play a match of `games` games (sets of three, seats rotated); a bot's fault ends it
    with a forfeit in the replay."""
    if isinstance(factories, list):
        if len(factories) != 3:
            raise ValueError("a Sergeant Major match has three players")
        factories = dict(zip(SIDES, factories, strict=True))
    match = SMMatch(factories, games=games, seed=str(seed), rules=rules or DEFAULT_RULES,
                    time=time or TimeControl())
    return match.run(on_progress)


def one_game_replay(state: SMState, *, rules: SMRules, seed: str,
                    seat_players: list[dict[str, Any]],
                    forfeit: dict[str, Any] | None) -> dict[str, Any]:
    """The replay of game 0 alone (engine.human: a person at a seat), counted as a match of
    one game; `seat_players` names each seat's player (a side is a seat)."""
    if forfeit is None:
        deals, winner, points = state.records(), state.winner, state.points
    else:
        deals, winner = state.records() + [state.partial_record()], None
        points = forfeit_points(forfeit["seat"])
    sides = seat_sides(0)
    games = [{"seats": sides, "deals": deals,
              "result": {"winner": winner, "score": list(state.score), "points": points,
                         "forfeit": forfeit}}]
    return {
        "format": FORMAT, "version": 1, "game": GAME,
        "rules": rules.to_dict(), "seed": seed, "dealing": DEALING,
        "players": {side: {"name": p["name"], "version": p["version"]}
                    for side, p in zip(sides, seat_players, strict=True)},
        "seat_players": seat_players,
        "games": games,
        "result": match_result(games, 1, forfeit),
    }
