"""Deal files: one board of a match, to play again at home (docs/replay-format.md, "Deal
files"): `python3 kaiser-engine.pyz deal FILE mybot.py OPPONENT`.

A deal file holds the four hands, the kitty, the dealer, the rules, the match's seed and the
board's place in it, and each table's score before the deal. `deal_play` plays the board at
both tables of the duplicate pair (A at seats 0 and 2 at the first table, B at the second),
each from its own score, one deal only, and returns both tables and A's swing
(engine.kaiser.boards.swing).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from engine.kaiser.boards import board, finished, score_before
from engine.kaiser.cards import CARD_OF, deck
from engine.kaiser.game import Deal, GameState
from engine.kaiser.match import player_seed, seat_sides, step
from engine.kaiser.rules import Rules
from engine.players import PlayerFactory, TimeControl
from engine.runner import SeatFault, notify
from engine.tables import StartFault, Tables

FORMAT = "kaiser-deal"
MAX_BYTES = 64 * 1024  # a deal file is about 1 kB


def deal_file(replay: dict[str, Any], game: int, index: int, *,
              games: int | None = None) -> dict[str, Any]:
    """The deal file of board (game, index) of a match's replay: `game` is either game of the
    pair; `games` the match's number of games (else the games in the replay). IndexError when
    the replay has no such deal."""
    first = game - game % 2
    pair_games = replay["games"][first:first + 2]
    played = [g["deals"][index] for g in pair_games if index < len(g["deals"])]
    if not played or index < 0:
        raise IndexError(f"game {game} has no deal {index}")
    deal = played[0]
    pair = [g["deals"][index] if index < len(g["deals"]) else None for g in pair_games]
    compared = board(first, index, pair[0], pair[1] if len(pair) > 1 else None, pair_games)
    return {
        "format": FORMAT, "version": 1,
        "rules": dict(replay["rules"]), "seed": replay["seed"],
        "games": games or max(2, len(replay["games"]) + len(replay["games"]) % 2),
        "game": first, "deal": index,
        "dealer": deal["dealer"], "hands": [list(hand) for hand in deal["hands"]],
        "kitty": list(deal["kitty"]),
        "scores": [score_before(g, index) for g in pair_games]
        + [[0, 0]] * (2 - len(pair_games)),
        "players": replay.get("players", {}),
        "played": {"deltas": [t["delta"] if t else None for t in compared["tables"]],
                   "swing": compared["swing"]},
    }


def deal_file_problems(data: Any) -> list[str]:
    """What is wrong with a deal file (empty when it is valid), each a sentence."""
    if not isinstance(data, dict):
        return ["a deal file is a JSON object"]
    if data.get("format") != FORMAT or data.get("version") != 1:
        return [f'not a deal file: "format" must be "{FORMAT}" and "version" 1']
    try:
        rules = Rules.from_dict(data.get("rules"))  # type: ignore[arg-type]
    except (TypeError, ValueError) as error:
        return [f"rules: {error}"]
    problems = [f"{name} must be {what}" for name, what, ok in (
        ("seed", "a string", isinstance(data.get("seed"), str)),
        ("games", "an even number of at least 2", _int(data.get("games"), 2, 10_000)
         and data["games"] % 2 == 0),
        ("game", "an even game number below games", _int(data.get("game"), 0, 9_999)
         and data["game"] % 2 == 0 and data["game"] < (data.get("games") or 0)),
        ("deal", "a deal number from 0", _int(data.get("deal"), 0, rules.max_deals * 4)),
        ("dealer", "a seat, 0 to 3", _int(data.get("dealer"), 0, 3)),
        ("scores", "two scores [team 0, team 1], one per table", _scores(data.get("scores"))),
    ) if not ok]
    return problems + _cards_problems(rules, data.get("hands"), data.get("kitty"))


def _int(value: Any, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


def _scores(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 2 and all(
        isinstance(pair, list) and len(pair) == 2
        and all(_int(s, -10_000, 10_000) for s in pair) for pair in value))


def _cards_problems(rules: Rules, hands: Any, kitty: Any) -> list[str]:
    per_hand = 8
    if not (isinstance(hands, list) and len(hands) == 4
            and all(isinstance(h, list) and len(h) == per_hand for h in hands)):
        return [f"hands must be four lists of {per_hand} cards, by seat"]
    if not isinstance(kitty, list) or len(kitty) != rules.kitty:
        return [f"kitty must be a list of {rules.kitty} cards under these rules"]
    cards = [c for hand in hands for c in hand] + kitty
    unknown = [c for c in cards if not isinstance(c, str) or c not in CARD_OF]
    if unknown:
        return [f"not a card: {json.dumps(unknown[0])}"]
    pack = {CARD_OF[c] for c in cards}
    if len(pack) < len(cards):
        return ["a card is dealt twice"]
    if pack != set(deck(rules)):
        return [f"the cards are not the {rules.deck}-card pack of these rules"]
    return []


def deal_file_load(text: str) -> dict[str, Any]:
    """A deal file from its text; ValueError saying what is wrong."""
    if len(text.encode()) > MAX_BYTES:
        raise ValueError(f"a deal file is at most {MAX_BYTES // 1024} kB")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON: {error}") from None
    problems = deal_file_problems(data)
    if problems:
        raise ValueError("; ".join(problems))
    return data  # type: ignore[no-any-return]


def _the_deal(data: dict[str, Any]) -> Deal:
    masks = [sum(1 << CARD_OF[c] for c in hand) for hand in data["hands"]]
    hands = (masks[0], masks[1], masks[2], masks[3])
    return hands, sum(1 << CARD_OF[c] for c in data["kitty"])


def deal_play(data: dict[str, Any], a: PlayerFactory, b: PlayerFactory, *,
              time: TimeControl | None = None) -> dict[str, Any]:
    """Play a (valid) deal file's board at both tables: {"tables": [deal record or None, ...],
    "forfeits": [fault or None, ...], "swing": A's swing or None}."""
    rules = Rules.from_dict(data["rules"])
    tables, forfeits = [], []
    for table in (0, 1):
        record, forfeit = _table_play(data, rules, data["game"] + table, {"A": a, "B": b},
                                      time or TimeControl())
        tables.append(record)
        forfeits.append(forfeit)
    games = [{"seats": seat_sides(data["game"] + t), "deals": [r] if r else []}
             for t, r in enumerate(tables)]
    compared = board(data["game"], 0, tables[0], tables[1], games)
    return {"tables": [r if finished(r) else None for r in tables], "forfeits": forfeits,
            "swing": compared["swing"], "board": compared}


def _table_play(data: dict[str, Any], rules: Rules, game: int,
                factories: dict[str, PlayerFactory], time: TimeControl
                ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """One table, as engine.kaiser.match.Match plays a game, for one deal: new players made and
    started for this game's seats, with the seeds the match gave them."""
    tables = Tables(factories, seat_sides=seat_sides, games=data["games"], rules=rules,
                    time=time, seed_of=functools.partial(player_seed, data["seed"]), ahead=False)
    deal = _the_deal(data)
    try:
        players = tables.open(game)
        state = GameState(rules, dealer=data["dealer"], deals=lambda: deal, game=game,
                          first_deal=data["deal"])
        state.score = list(data["scores"][game % 2])
        while not state.log:  # one deal: scored, or thrown in
            step(state, players)
        record = state.log[0].to_dict()
        notify(players, {"type": "deal_end", "game": game, "deal": data["deal"],
                         "deal_record": record, "score": record.get("score") or state.score})
        return record, None
    except StartFault as failed:
        return None, {"player": failed.side, "reason": failed.fault.reason,
                      "detail": failed.fault.detail}
    except SeatFault as failed:
        side = seat_sides(game)[failed.seat]
        return None, {"seat": failed.seat, "player": side, "reason": failed.fault.reason,
                      "detail": failed.fault.detail}
    finally:
        tables.close_all()


__all__ = ["deal_file", "deal_file_load", "deal_file_problems", "deal_play", "score_before"]
