"""One game with a person at a seat: the human player, and the single game it sits in.

A match (engine.kaiser.match) is duplicate pairs of games between two players; a person sits down
for one game (or one deal of it) with three bots, so this module plays a single game through
GameState, seat by seat, and builds its replay in the standard format (one game listed and
counted). Where the person's moves come from (a web page, a terminal) is the caller's
MoveSource; nothing here knows of the site.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from engine.botproc import seats_rest
from engine.faults import BotFault
from engine.games import KAISER, Game, get_game
from engine.kaiser.game import GameState, pair_deals
from engine.kaiser.match import DEALING, seat_sides
from engine.kaiser.protocol import action_from_wire, action_to_wire
from engine.players import Player, TimeControl

if TYPE_CHECKING:
    from collections.abc import Sequence

    from engine.kaiser.game import Action
    from engine.kaiser.rules import Rules
    from engine.sergeant_major.rules import SMRules


class Resigned(Exception):
    """The person gave the game up."""


class MoveSource(Protocol):
    """Where a person's moves come from."""

    def wait_move(self, *, seq: int, deadline: float) -> Any:
        """The wire form of move number `seq` of the game (protocol actions: "8N", "H",
        ["7C", "8D"], "AS"), or None once time.monotonic() passes `deadline`. Raises Resigned."""


class HumanPlayer(Player):
    """A seat played by a person: each decision waits for the MoveSource, up to `move_seconds`.
    A move that is not legal (the site checks before it stores one) is the seat's fault."""

    def __init__(self, source: MoveSource, *, move_seconds: float,
                 moves_made: Callable[[], int], clock: Callable[[], float],
                 game: str = KAISER) -> None:
        self.source = source
        self.move_seconds = move_seconds
        self.moves_made = moves_made
        self.clock = clock
        self.from_wire = action_from_wire if game == KAISER else get_game(game).action_from_wire

    def act(self, state: GameState, legal: Sequence[Action]) -> Action:
        seq = self.moves_made()
        seats_rest()  # the bots of the table do not think on the person's time
        wire = self.source.wait_move(seq=seq, deadline=self.clock() + self.move_seconds)
        if wire is None:
            raise BotFault("timeout", f"no move within {self.move_seconds:g} s", seq)
        try:
            return self.from_wire(state, wire)
        except ValueError as error:
            raise BotFault("illegal", str(error), seq) from None


@dataclass(frozen=True)
class SeatName:
    name: str
    version: str
    human: bool = False


OnMove = Callable[[GameState, dict[str, Any]], None]


class SingleGame:
    """One game of Kaiser's four seats (seat 0, 2: side A; 1, 3: side B, as in a match's game
    0), or with `game="sergeant-major"` of its three (A, B, C at seats 0, 1, 2).

    `on_move(state, move)` is called after every action is applied, with the move as
    {"seat", "decision", "action" (wire form)}; `moves` keeps them all.
    """

    def __init__(self, players: list[Player], names: list[SeatName], *,
                 rules: Rules | SMRules,
                 seed: str, time: TimeControl, on_move: OnMove | None = None,
                 game: str = KAISER) -> None:
        self.players = players
        self.names = names
        self.rules: Any = rules  # Rules for Kaiser, SMRules for Sergeant Major
        self.seed = seed
        self.time = time
        self.on_move = on_move
        self.moves: list[dict[str, Any]] = []
        self.forfeit: dict[str, Any] | None = None
        self.game: Game = get_game(game)
        self.sides = self.game.seat_sides(0)
        self.state: Any
        if game == KAISER:
            kaiser_rules = cast("Rules", rules)
            dealer, deals = pair_deals(kaiser_rules, seed, 0)
            self.state = GameState(kaiser_rules, dealer=dealer, deals=deals, game=0)
        else:
            self.state = self.game.new_state(rules, seed=seed, game=0)

    def run(self) -> dict[str, Any]:
        """Play to the end (or a forfeit) and return the replay; every player is closed."""
        try:
            self._start()
            self._loop()
        except _SeatFailed as failed:
            self.forfeit = failed.record
        finally:
            for player in self.players:
                player.close()
        return self.replay()

    def _start(self) -> None:
        sides = self.sides
        for seat, player in enumerate(self.players):
            # A player's seed as in a match's game 0 (a Kaiser side has two seats).
            seed = f"{self.seed}/{sides[seat]}{seat // 2}" if self.game.name == KAISER \
                else f"{self.seed}/{sides[seat]}"
            try:
                player.start(seat=seat, rules=self.rules, games=1, time=self.time, seed=seed)
                player.begin_game(0)
            except BotFault as fault:
                raise _SeatFailed(sides, seat, fault.reason, fault.detail,
                                  fault.message_id) from None

    def _loop(self) -> None:
        state, seen = self.state, 0
        to_wire = action_to_wire if self.game.name == KAISER else self.game.action_to_wire
        while not state.is_terminal():
            seat, decision = state.seat, state.decision
            legal = state.legal_actions()
            player = self.players[seat]
            try:
                action = player.act(state, legal)
            except BotFault as fault:
                raise _SeatFailed(self.sides, seat, fault.reason, fault.detail,
                                  fault.message_id) from None
            except Resigned:
                raise _SeatFailed(self.sides, seat, "resign", "resigned",
                                  len(self.moves)) from None
            if not player.trusted and action not in legal:
                raise _SeatFailed(self.sides, seat, "illegal",
                                  f"{action!r} is not a legal action", None)
            state.apply(action)
            move = {"seat": seat, "decision": decision,
                    "action": to_wire(decision, action)}
            self.moves.append(move)
            seen = self._notify_deals(seen)
            if self.on_move is not None:
                self.on_move(state, move)
        end = {"type": "game_end", "game": 0, "winner": state.winner,
               "score": list(state.score)}
        if self.game.name != KAISER:
            end["points"] = state.points
        self._notify(end)

    def _notify_deals(self, seen: int) -> int:
        log = self.state.log
        for i in range(seen, len(log)):
            entry = log[i]
            self._notify({"type": "deal_end", "game": 0, "deal": i,
                          "deal_record": entry.to_dict(),
                          "score": list(entry.score) if entry.score else list(self.state.score)})
        return len(log)

    def _notify(self, message: dict[str, Any]) -> None:
        for player in self.players:
            if player.wants_notifications:
                player.notify(message)

    def replay(self) -> dict[str, Any]:
        if self.game.name != KAISER:
            return self._replay_three()
        state, sides = self.state, seat_sides(0)
        if self.forfeit is None:
            deals, winner = state.records(), state.winner
        else:
            deals = state.records() + [state.partial_record()]
            winner = 1 - self.forfeit["seat"] % 2
        won = {"A": 0, "B": 0}
        if winner is not None:
            won[sides[winner]] = 1
        return {
            "format": "kaiser-replay", "version": 1,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "dealing": DEALING,
            "players": {side: self._side_name(side) for side in ("A", "B")},
            "seat_players": [{"name": n.name, "version": n.version, "human": n.human}
                             for n in self.names],
            "games": [{"seats": sides, "deals": deals,
                       "result": {"winner": winner, "score": list(state.score),
                                  "forfeit": self.forfeit}}],
            "result": {"games": won, "score": won["A"] + (0.5 if winner is None else 0),
                       "forfeit": self.forfeit},
        }

    def _side_name(self, side: str) -> dict[str, str]:
        seats = [n for s, n in enumerate(self.names) if seat_sides(0)[s] == side]
        if seats[0] == seats[1]:
            return {"name": seats[0].name, "version": seats[0].version}
        # Two players (a person and a bot, or two bots): the side has no one version; each
        # seat's own is in seat_players, which readers use to name the seats.
        return {"name": " & ".join(n.name for n in seats), "version": ""}


    def _replay_three(self) -> dict[str, Any]:
        """Sergeant Major's replay of the one game (engine.sergeant_major.match's format)."""
        from engine.sergeant_major import match as sm

        state = self.state
        if self.forfeit is None:
            deals, winner, points = state.records(), state.winner, state.points
        else:
            deals, winner = state.records() + [state.partial_record()], None
            points = sm.forfeit_points(self.forfeit["seat"])
        games = [{"seats": self.sides, "deals": deals,
                  "result": {"winner": winner, "score": list(state.score), "points": points,
                             "forfeit": self.forfeit}}]
        return {
            "format": sm.FORMAT, "version": 1, "game": self.game.name,
            "rules": self.rules.to_dict(), "seed": self.seed, "dealing": sm.DEALING,
            "players": {side: {"name": n.name, "version": n.version}
                        for side, n in zip(self.sides, self.names, strict=True)},
            "seat_players": [{"name": n.name, "version": n.version, "human": n.human}
                             for n in self.names],
            "games": games,
            "result": sm.match_result(games, 1, self.forfeit),
        }


class _SeatFailed(Exception):
    def __init__(self, sides: list[str], seat: int, reason: str, detail: str,
                 message_id: int | None) -> None:
        super().__init__(f"seat {seat}: {reason}")
        self.record = {"seat": seat, "player": sides[seat], "reason": reason,
                       "message_id": message_id, "detail": detail}
