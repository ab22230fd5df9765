"""A Trio match: sets of three games over the same weights, the sides moved one seat on
each game, so every side plays every seat of the set."""

from __future__ import annotations

from typing import Any

from engine.faults import BotFault
from engine.players import Player, PlayerFactory, TimeControl
from engine.runner import Forfeit, MatchRunner, SeatFault, forfeit_record, illegal, notify
from trio_arena.game import TrioState

SIDES = ("A", "B", "C")
FORMAT = "trio-replay"


def seat_sides(game: int) -> list[str]:
    return [SIDES[(seat + game) % 3] for seat in range(3)]


def player_seed(seed: str, side: str, slot: int, game: int) -> str:
    return f"{seed}/{side}/{slot}/{game}"


def game_result(state: TrioState, sides: list[str]) -> dict[str, Any]:
    winner = None if state.winner is None else sides[state.winner]
    return {"totals": {sides[s]: state.totals[s] for s in range(3)}, "winner": winner}


def game_end(state: TrioState, game: int) -> dict[str, Any]:
    return {"type": "game_end", "game": game, "winner": state.winner, "totals": state.totals}


def match_result(games: list[dict[str, Any]], forfeit: dict[str, Any] | None) -> dict[str, Any]:
    won = {side: 0 for side in SIDES}
    share = {side: 0.0 for side in SIDES}
    points = {side: 0 for side in SIDES}
    for record in games:
        result = record["result"]
        for side, total in result.get("totals", {}).items():
            points[side] += total
        if record.get("forfeit"):
            continue
        if result["winner"] is None:
            for side in SIDES:
                share[side] += 1 / 3
        else:
            won[result["winner"]] += 1
            share[result["winner"]] += 1
    if forfeit is not None:
        loser = forfeit["player"]
        share = {side: (0.0 if side == loser else 0.5) for side in SIDES}
        points[loser] = 0
    else:
        played = max(len(games), 1)
        share = {side: round(value / played, 6) for side, value in share.items()}
    best = max(share.values())
    leaders = [side for side in SIDES if share[side] == best]
    return {"games": won, "score": share, "points": points,
            "winner": leaders[0] if len(leaders) == 1 else None, "forfeit": forfeit}


class TrioMatch(MatchRunner):
    def play_game(self, game: int, players: list[Player]) -> dict[str, Any]:
        state = TrioState(self.rules, seed=self.seed, game=game)
        sides = seat_sides(game)
        try:
            while not state.is_terminal():
                seat = state.seat
                legal = state.legal_actions()
                player = players[seat]
                try:
                    action = player.act(state, legal)
                except BotFault as fault:
                    raise SeatFault(seat, fault) from None
                if not player.trusted and action not in legal:
                    raise illegal(seat, action)
                state.apply(action)
        except SeatFault as fault:
            record = forfeit_record(fault.fault, fault.seat, sides[fault.seat])
            self.games.append({"seats": sides, **state.partial_record(),
                               "result": game_result(state, sides), "forfeit": record})
            raise Forfeit(record) from None
        notify(players, game_end(state, game))
        return {"seats": sides, **state.records()[0], "result": game_result(state, sides)}

    def start_forfeit_game(self, game: int, seat: int,
                           record: dict[str, Any]) -> dict[str, Any]:
        state = TrioState(self.rules, seed=self.seed, game=game)
        sides = seat_sides(game)
        return {"seats": sides, **state.partial_record(), "result": game_result(state, sides),
                "forfeit": record}

    def replay(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": 1, "game": "trio", "rules": self.rules.to_dict(),
                "seed": self.seed,
                "players": {side: {"name": f.name, "version": f.version}
                            for side, f in self.factories.items()},
                "games": self.games, "result": match_result(self.games, self.forfeit)}


def run_match(players: list[PlayerFactory], *, games: int, seed: str, rules: Any,
              time: TimeControl, on_progress: Any = None) -> dict[str, Any]:
    factories = dict(zip(SIDES, players, strict=True))
    runner = TrioMatch(factories, games=games, seed=seed, rules=rules, time=time,
                       seat_sides=seat_sides,
                       seed_of=lambda side, slot, game: player_seed(seed, side, slot, game))
    return runner.run(on_progress)


def one_game_replay(state: TrioState, *, rules: Any, seed: str,
                    seat_players: list[dict[str, Any]],
                    forfeit: dict[str, Any] | None) -> dict[str, Any]:
    sides = seat_sides(0)
    if forfeit:
        record = {"seats": sides, **state.partial_record(), "result": game_result(state, sides),
                  "forfeit": forfeit}
    else:
        record = {"seats": sides, **state.records()[0], "result": game_result(state, sides)}
    games = [record]
    return {"format": FORMAT, "version": 1, "game": "trio", "rules": rules.to_dict(),
            "seed": str(seed),
            "players": {sides[s]: {"name": p["name"], "version": p.get("version", "")}
                        for s, p in enumerate(seat_players)},
            "games": games, "result": match_result(games, forfeit)}
