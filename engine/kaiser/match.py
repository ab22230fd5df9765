"""Duplicate matches between two players A and B, producing a replay (docs/replay-format.md)."""

from __future__ import annotations

import functools
from typing import Any

from engine.builtin import RandomPlayer
from engine.faults import BotFault
from engine.kaiser.game import DealSource, GameState, ShuffledDeals, pair_deals
from engine.kaiser.rules import DEFAULT_RULES, Rules
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

SIDES = ("A", "B")
# Marks replays whose deals come from engine.kaiser.game.pair_deals(seed): validate re-deals them.
DEALING = "kaiser-arena/1"
FORMAT = "kaiser-replay"


def seat_sides(game: int) -> list[str]:
    """Who sits where: A at seats 0 and 2 in even games, at 1 and 3 in odd games."""
    return ["A", "B", "A", "B"] if game % 2 == 0 else ["B", "A", "B", "A"]


def player_seed(seed: str, side: str, slot: int, game: int) -> str:
    """A built-in player's seed: as it always was in game 0, and a game's own after."""
    return f"{seed}/{side}{slot}" + (f"/{game}" if game else "")


class Match(MatchRunner):
    """A duplicate match between A and B (engine.runner plays its games table by table)."""

    def __init__(self, a: PlayerFactory, b: PlayerFactory, *, games: int, seed: str,
                 rules: Rules, time: TimeControl) -> None:
        if games < 2 or games % 2:
            raise ValueError(f"a match is played in duplicate pairs: games must be a positive "
                             f"even number, not {games}")
        super().__init__({"A": a, "B": b}, games=games, seed=seed, rules=rules, time=time,
                         seat_sides=seat_sides,
                         seed_of=functools.partial(player_seed, str(seed)))
        self._pair: tuple[int, ShuffledDeals] | None = None

    def start_forfeit_game(self, game: int, seat: int,
                           record: dict[str, Any]) -> dict[str, Any]:
        return self._game_record(game, [], [0, 0], 1 - seat % 2, record)

    def play_game(self, game: int, players: list[Player]) -> dict[str, Any]:
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
        except SeatFault as failed:
            seat, fault = failed.seat, failed.fault
            record = forfeit_record(fault, seat, seat_sides(game)[seat])
            deals_done = state.records() + [state.partial_record()]
            self.games.append(self._game_record(game, deals_done, list(state.score),
                                                1 - seat % 2, record))
            raise Forfeit(record) from None
        deals_done = state.records()
        result = self._game_record(game, deals_done, list(state.score), state.winner, None)
        notify(players, game_end(state, game))
        return result

    def _loop_notifying(self, state: GameState, players: list[Player]) -> None:
        seen = 0
        while not state.is_terminal():
            step(state, players)
            if len(state.log) > seen:
                for i in range(seen, len(state.log)):
                    entry = state.log[i]
                    notify(players, {
                        "type": "deal_end", "game": state.game, "deal": i,
                        "deal_record": entry.to_dict(),
                        "score": list(entry.score) if entry.score else list(state.score)})
                seen = len(state.log)

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
            "format": FORMAT, "version": 1,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "dealing": DEALING,
            "players": {side: {"name": f.name, "version": f.version}
                        for side, f in self.factories.items()},
            "games": self.games,
            "result": self.result(),
        }


def step(state: GameState, players: list[Player]) -> None:
    seat = state.seat
    legal = state.legal_actions()
    player = players[seat]
    try:
        action = player.act(state, legal)  # type: ignore[arg-type]
    except BotFault as fault:
        raise SeatFault(seat, fault) from None
    if not player.trusted and action not in legal:
        raise illegal(seat, action)
    state.apply(action)


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
    # step, inlined: every action of an untrusted player is checked before it is applied.
    trusted = [p.trusted for p in players]
    while state.phase != 5:  # OVER
        seat = state.seat
        legal = legal_actions()
        try:
            action = acts[seat](state, legal)  # type: ignore[arg-type]
        except BotFault as fault:
            raise SeatFault(seat, fault) from None
        if not trusted[seat] and action not in legal:
            raise illegal(seat, action)
        apply(action)


def run_match(a: PlayerFactory, b: PlayerFactory, *, games: int = 2, seed: str | int = "0",
              rules: Rules | None = None, time: TimeControl | None = None,
              on_progress: ProgressFn | None = None) -> dict[str, Any]:
    """Play a duplicate match of `games` games; a bot's fault is a forfeit in the replay."""
    match = Match(a, b, games=games, seed=str(seed), rules=rules or DEFAULT_RULES,
                  time=time or TimeControl())
    return match.run(on_progress)


def game_end(state: GameState, game: int) -> dict[str, Any]:
    return {"type": "game_end", "game": game, "winner": state.winner, "score": list(state.score)}


def one_game_replay(state: GameState, *, rules: Rules, seed: str,
                    seat_players: list[dict[str, Any]],
                    forfeit: dict[str, Any] | None) -> dict[str, Any]:
    """The replay of game 0 alone (engine.human: a person at a seat), counted as a match of
    one game; `seat_players` names each seat's player."""
    sides = seat_sides(0)
    if forfeit is None:
        deals, winner = state.records(), state.winner
    else:
        deals = state.records() + [state.partial_record()]
        winner = 1 - forfeit["seat"] % 2
    won = {"A": 0, "B": 0}
    if winner is not None:
        won[sides[winner]] = 1
    return {
        "format": FORMAT, "version": 1,
        "rules": rules.to_dict(),
        "seed": seed,
        "dealing": DEALING,
        "players": {side: _side_player(side, seat_players) for side in SIDES},
        "seat_players": seat_players,
        "games": [{"seats": sides, "deals": deals,
                   "result": {"winner": winner, "score": list(state.score),
                              "forfeit": forfeit}}],
        "result": {"games": won, "score": won["A"] + (0.5 if winner is None else 0),
                   "forfeit": forfeit},
    }


def _side_player(side: str, seat_players: list[dict[str, Any]]) -> dict[str, str]:
    seats = [p for s, p in enumerate(seat_players) if seat_sides(0)[s] == side]
    if seats[0] == seats[1]:
        return {"name": seats[0]["name"], "version": seats[0]["version"]}
    # Two players (a person and a bot, or two bots): the side has no one version; each
    # seat's own is in seat_players, which readers use to name the seats.
    return {"name": " & ".join(p["name"] for p in seats), "version": ""}
