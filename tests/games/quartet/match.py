"""Matches of Quartet between four players A, B, C and D, producing a replay
("quartet-replay").

A match is played in sets of four games over the same deals, the players' seats rotated (A at
seat 0, then 1, 2, 3): each player holds each hand of each deal once. A game's point goes to
its winner, a drawn game's is shared by all four; a forfeit's games are shared by the three
players not at fault.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

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
from tests.games.quartet.game import OVER, DealSequence, QuartetState, set_deals
from tests.games.quartet.rules import DEFAULT_RULES, GAME, QuartetRules

SIDES = ("A", "B", "C", "D")
FORMAT = "quartet-replay"
GAMES_PER_SET = 4


def seat_sides(game: int) -> list[str]:
    """Who sits where in game `game`: the sides rotated one seat a game (A at seat g % 4)."""
    shift = game % GAMES_PER_SET
    return [SIDES[(seat - shift) % 4] for seat in range(4)]


def player_seed(seed: str, side: str, slot: int, game: int) -> str:
    """A built-in player's seed: its side's and its game's."""
    return f"{seed}/{side}/{game}"


class QuartetMatch(MatchRunner):
    """A match of sets of four games (engine.runner plays its games table by table)."""

    def __init__(self, factories: dict[str, PlayerFactory], *, games: int, seed: str,
                 rules: QuartetRules, time: TimeControl) -> None:
        if set(factories) != set(SIDES):
            raise ValueError("a Quartet match has four players, A, B, C and D")
        if games < GAMES_PER_SET or games % GAMES_PER_SET:
            raise ValueError(f"a Quartet match is played in sets of four games (the seats "
                             f"rotated), not {games}")
        super().__init__(factories, games=games, seed=seed, rules=rules, time=time,
                         seat_sides=seat_sides,
                         seed_of=functools.partial(player_seed, str(seed)))
        self._set: tuple[int, DealSequence] | None = None

    def start_forfeit_game(self, game: int, seat: int,
                           record: dict[str, Any]) -> dict[str, Any]:
        return game_record(game, [], [0, 0, 0, 0], None, record)

    def play_game(self, game: int, players: list[Player]) -> dict[str, Any]:
        if game % GAMES_PER_SET == 0 or self._set is None:
            self._set = set_deals(self.seed, game // GAMES_PER_SET)
        dealer, deals = self._set
        state = QuartetState(self.rules, dealer=dealer, deals=deals.source(), game=game)
        wants = any(p.wants_notifications for p in players)
        try:
            _loop(state, players, notify if wants else None)
        except SeatFault as failed:
            seat = failed.seat
            record = forfeit_record(failed.fault, seat, seat_sides(game)[seat])
            done = state.records() + [state.partial_record()]
            self.games.append(game_record(game, done, list(state.score), None, record))
            raise Forfeit(record) from None
        notify(players, game_end(state, game))
        return game_record(game, state.records(), list(state.score), state.winner, None)

    def result(self) -> dict[str, Any]:
        return match_result(self.games, self.games_total, self.forfeit)

    def replay(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "version": 1, "game": GAME,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "players": {side: {"name": self.factories[side].name,
                               "version": self.factories[side].version} for side in SIDES},
            "games": self.games,
            "result": self.result(),
        }


def game_end(state: QuartetState, game: int) -> dict[str, Any]:
    return {"type": "game_end", "game": game, "winner": state.winner,
            "score": list(state.score)}


def game_record(game: int, deals: list[dict[str, Any]], score: list[int], winner: int | None,
                forfeit: dict[str, Any] | None) -> dict[str, Any]:
    return {"seats": seat_sides(game), "deals": deals,
            "result": {"winner": winner, "score": score, "forfeit": forfeit}}


def match_result(games: list[dict[str, Any]], total: int,
                 forfeit: dict[str, Any] | None) -> dict[str, Any]:
    """Games won outright by each side, each side's points (a game's winner 1, a draw 1/4
    each; a forfeit's game and the games not played shared by the three not at fault), each
    side's share of them, and the side with the most points, if one has."""
    won = dict.fromkeys(SIDES, 0)
    points = dict.fromkeys(SIDES, 0.0)
    for game in games:
        winner = game["result"]["winner"]
        if game["result"]["forfeit"] is not None:
            continue
        if winner is None:
            for side in SIDES:
                points[side] += 1 / len(SIDES)
        else:
            won[game["seats"][winner]] += 1
            points[game["seats"][winner]] += 1
    if forfeit is not None:
        counted = sum(1 for g in games if g["result"]["forfeit"] is None)
        for side in SIDES:
            if side != forfeit["player"]:
                points[side] += (total - counted) / (len(SIDES) - 1)
    top = max(points.values())
    best = [side for side in SIDES if abs(points[side] - top) < 1e-9]
    return {"winner": best[0] if len(best) == 1 else None,
            "score": {side: points[side] / total for side in SIDES},
            "games": won, "points": points, "forfeit": forfeit}


def _loop(state: QuartetState, players: list[Player],
          notify: Callable[[list[Player], dict[str, Any]], None] | None) -> None:
    """Play the game out; every action of an untrusted player is checked before it applies."""
    seen = 0
    while state.phase != OVER:
        seat = state.seat
        legal = state.legal_actions()
        player = players[seat]
        try:
            action = player.act(state, list(legal))
        except BotFault as fault:
            raise SeatFault(seat, fault) from None
        if not player.trusted and action not in legal:
            raise illegal(seat, action)
        state.apply(action)
        if notify is not None and len(state.log) > seen:
            entry = state.log[seen]
            notify(players, {"type": "deal_end", "game": state.game, "deal": seen,
                             "deal_record": entry.to_dict(), "score": list(state.score)})
            seen += 1


def run_match(factories: dict[str, PlayerFactory] | list[PlayerFactory], *, games: int = 4,
              seed: str | int = "0", rules: QuartetRules | None = None,
              time: TimeControl | None = None,
              on_progress: ProgressFn | None = None) -> dict[str, Any]:
    """Play a match of `games` games (sets of four, seats rotated); a bot's fault ends it with a
    forfeit in the replay."""
    if isinstance(factories, list):
        if len(factories) != len(SIDES):
            raise ValueError(f"a Quartet match has four players (A to D), not {len(factories)}")
        factories = dict(zip(SIDES, factories, strict=True))
    match = QuartetMatch(factories, games=games, seed=str(seed),
                         rules=rules or DEFAULT_RULES, time=time or TimeControl())
    return match.run(on_progress)


def one_game_replay(state: QuartetState, *, rules: QuartetRules, seed: str,
                    seat_players: list[dict[str, Any]],
                    forfeit: dict[str, Any] | None) -> dict[str, Any]:
    """The replay of game 0 alone (engine.human: a person at a seat), counted as a match of
    one game; `seat_players` names each seat's player (a side is a seat)."""
    if forfeit is None:
        deals, winner = state.records(), state.winner
    else:
        deals, winner = state.records() + [state.partial_record()], None
    sides = seat_sides(0)
    games = [game_record(0, deals, list(state.score), winner, forfeit)]
    return {
        "format": FORMAT, "version": 1, "game": GAME,
        "rules": rules.to_dict(), "seed": seed,
        "players": {side: {"name": p["name"], "version": p["version"]}
                    for side, p in zip(sides, seat_players, strict=True)},
        "seat_players": seat_players,
        "games": games,
        "result": match_result(games, 1, forfeit),
    }
