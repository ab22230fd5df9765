"""One game with a person at a seat: the human player, and the single game it sits in.

A match is sets of games between the game's players; a person sits down for one game (or one
deal of it) with bots, so this module plays a single game of any game (engine.games) seat by
seat, and the game builds its replay in its standard format (one game listed and counted).
Where the person's moves come from (a web page, a terminal) is the caller's MoveSource;
nothing here knows of the site.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from engine.botproc import seats_rest
from engine.faults import BotFault
from engine.games import Game, default_game, get_game
from engine.players import Player, TimeControl

if TYPE_CHECKING:
    from collections.abc import Sequence


class Resigned(Exception):
    """The person gave the game up."""


class MoveSource(Protocol):
    """Where a person's moves come from."""

    def wait_move(self, *, seq: int, deadline: float) -> Any:
        """The wire form of move number `seq` of the game (the protocol's actions of its game),
        or None once time.monotonic() passes `deadline`. Raises Resigned."""


class HumanPlayer(Player):
    """A seat played by a person: each decision waits for the MoveSource, up to `move_seconds`.
    A move that is not legal (the site checks before it stores one) is the seat's fault."""

    def __init__(self, source: MoveSource, *, move_seconds: float,
                 moves_made: Callable[[], int], clock: Callable[[], float],
                 game: str | None = None) -> None:
        self.source = source
        self.move_seconds = move_seconds
        self.moves_made = moves_made
        self.clock = clock
        self.from_wire = _game(game).action_from_wire

    def act(self, state: Any, legal: Sequence[Any]) -> Any:
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


OnMove = Callable[[Any, dict[str, Any]], None]


def _game(name: str | None) -> Game:
    return default_game() if name is None else get_game(name)


class SingleGame:
    """One game of `game` (None: the default game), its seats' sides as in a match's game 0.

    `on_move(state, move)` is called after every action is applied, with the move as
    {"seat", "decision", "action" (wire form)}; `moves` keeps them all.
    """

    def __init__(self, players: list[Player], names: list[SeatName], *,
                 rules: Any,
                 seed: str, time: TimeControl, on_move: OnMove | None = None,
                 game: str | None = None) -> None:
        self.players = players
        self.names = names
        self.rules = rules  # the game's own rules object
        self.seed = seed
        self.time = time
        self.on_move = on_move
        self.moves: list[dict[str, Any]] = []
        self.forfeit: dict[str, Any] | None = None
        self.game: Game = _game(game)
        self.sides = self.game.seat_sides(0)
        self.state: Any = self.game.new_state(rules, seed=seed, game=0)

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
            seed = self.game.player_seed(self.seed, seat, 0)  # as in a match's game 0
            try:
                player.start(seat=seat, rules=self.rules, games=1, time=self.time, seed=seed)
                player.begin_game(0)
            except BotFault as fault:
                raise _SeatFailed(sides, seat, fault.reason, fault.detail,
                                  fault.message_id) from None

    def _loop(self) -> None:
        state, seen = self.state, 0
        to_wire = self.game.action_to_wire
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
        self._notify(self.game.game_end(state, 0))

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
        return self.game.one_game_replay(
            self.state, rules=self.rules, seed=self.seed, forfeit=self.forfeit,
            seat_players=[{"name": n.name, "version": n.version, "human": n.human}
                          for n in self.names])


class _SeatFailed(Exception):
    def __init__(self, sides: list[str], seat: int, reason: str, detail: str,
                 message_id: int | None) -> None:
        super().__init__(f"seat {seat}: {reason}")
        self.record = {"seat": seat, "player": sides[seat], "reason": reason,
                       "message_id": message_id, "detail": detail}
