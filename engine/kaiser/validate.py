"""Re-check a replay against the rules alone, reporting the first violation and where it is.

Every deal is replayed through GameState from its recorded hands: each bid, trump, discard
and card must be legal when made, and every winner, point, delta, score and result must be
what the rules give. Replays made by this engine (marked with "dealing": DEALING) must also
hold exactly the deals their seed produces.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.kaiser.cards import CARD_OF, SUITS, bid_str, deck
from engine.kaiser.game import BID, DISCARD, MISDEAL, PLAY, TRUMP, Deal, GameState, pair_deals
from engine.kaiser.match import DEALING, FORMAT, SIDES, seat_sides
from engine.kaiser.protocol import action_from_wire
from engine.kaiser.rules import Rules
from engine.pack import cards_mask as deck_mask
from engine.violation import (
    Violation,
    act,
    cards_mask,
    check_forfeit_fault,
    check_scored,
    check_seeded_deals,
    check_sets,
    check_tricks,
    first_violation,
    listed_games,
    replay_rules,
)

# The cards a deal record holds, as check_sets and check_seeded_deals compare them.
DEALT = ("hands", "kitty")


def validate_replay(replay: Any) -> list[str]:
    """[] when the replay is valid, else [the first violation] (engine.validate.validate_replay
    checks a replay of any game)."""
    return first_violation(_check_replay, replay)


def _check_replay(replay: Any) -> None:
    rules = replay_rules(replay, header={"format": FORMAT, "version": 1},
                         wrong_header=f"not a {FORMAT} of version 1",
                         rules_from_dict=Rules.from_dict)
    for number, game in listed_games(replay, SIDES):
        _check_game(rules, number, game)
    games = replay["games"]
    check_sets(games, 2, "a duplicate pair must share its first dealer", dealt=DEALT)
    if replay.get("dealing") == DEALING:
        _check_seeded_deals(rules, str(replay["seed"]), games)
    _check_result(replay)


def _cards(names: list[str], game: int, deal: int) -> int:
    return cards_mask(names, CARD_OF, game, deal)


def _recorded_deals(rules: Rules, game: int, deals: list[dict[str, Any]]) -> Iterator[Deal]:
    full = deck_mask(deck(rules))
    for number, record in enumerate(deals):
        hands = record["hands"]
        if len(hands) != 4 or any(len(h) != 8 for h in hands):
            raise Violation("every hand must hold 8 cards", game=game, deal=number)
        if len(record["kitty"]) != rules.kitty:
            raise Violation(f"the kitty must hold {rules.kitty} cards", game=game, deal=number)
        masks = [_cards(h, game, number) for h in hands]
        kitty = _cards(record["kitty"], game, number)
        if sum(bin(m).count("1") for m in [*masks, kitty]) != rules.deck or \
                (masks[0] | masks[1] | masks[2] | masks[3] | kitty) != full:
            raise Violation("the hands and kitty are not exactly the pack (a card is missing "
                            "or dealt twice)", game=game, deal=number)
        yield (masks[0], masks[1], masks[2], masks[3]), kitty


def _check_game(rules: Rules, number: int, game: dict[str, Any]) -> None:
    if game["seats"] != seat_sides(number):
        raise Violation(f"seats must be {seat_sides(number)}", game=number)
    deals = game["deals"]
    result = game["result"]
    forfeit = result["forfeit"]
    if not deals:
        if forfeit is None:
            raise Violation("a game without deals must end in a forfeit", game=number)
        _check_forfeit(number, game, [0, 0])
        return
    source = _recorded_deals(rules, number, deals)

    def next_deal() -> Deal:
        for deal in source:
            return deal
        raise Violation("the game ends before a team has won", game=number)

    state = GameState(rules, dealer=deals[0]["dealer"], deals=next_deal, game=number)
    for index, record in enumerate(deals):
        last = index == len(deals) - 1
        _check_deal(state, number, index, record, partial=last and forfeit is not None)
    if forfeit is None:
        if not state.is_terminal():
            raise Violation("the game ends before a team has won", game=number)
        if result["winner"] != state.winner or result["score"] != state.score:
            raise Violation(f"result should be winner {state.winner}, score {state.score}",
                            game=number)
    else:
        _check_interrupted(number, len(deals) - 1, deals[-1])
        _check_forfeit(number, game, list(state.score))


def _check_interrupted(number: int, index: int, record: dict[str, Any]) -> None:
    """A forfeit stops its game in the middle of a deal: no points, delta or score there."""
    if any(key in record for key in ("points", "delta", "score")):
        raise Violation("the deal a forfeit interrupts has no points, delta or score",
                        game=number, deal=index)
    if len(record["tricks"]) == 8 and len(record["tricks"][-1]["cards"]) == 4:
        raise Violation("the deal a forfeit interrupts cannot be complete", game=number,
                        deal=index)


def _check_forfeit(number: int, game: dict[str, Any], score: list[int]) -> None:
    result = game["result"]
    seat = check_forfeit_fault(number, game, 4)
    if result["winner"] != 1 - seat % 2 or result["score"] != score:
        raise Violation(f"a forfeit by seat {seat} gives winner {1 - seat % 2} and the score "
                        f"before the deal, {score}", game=number)


def _check_deal(state: GameState, game: int, index: int, record: dict[str, Any],
                partial: bool) -> None:
    if state.is_terminal():
        raise Violation("a deal after the game was over", game=game, deal=index)
    if state.deal_index != index or record["dealer"] != state.dealer:
        raise Violation(f"the dealer should be seat {state.dealer}", game=game, deal=index)
    misdeal = record["misdeal"]
    while state.phase == MISDEAL:
        throw = misdeal is not None and misdeal["seat"] == state.seat
        state.apply(throw)
        if throw:
            if record["bids"] or record["tricks"] or record["contract"] is not None or \
                    record["discards"] or any(k in record for k in ("points", "delta", "score")):
                raise Violation("a thrown-in deal has no bids, contract, discards, tricks or "
                                "points", game=game, deal=index)
            return
    if misdeal is not None:
        raise Violation(f"seat {misdeal['seat']} may not throw this hand in", game=game,
                        deal=index, seat=misdeal["seat"])
    _replay_bidding(state, game, index, record, partial)
    if state.phase in (BID, TRUMP, DISCARD):
        if partial:
            return
        raise Violation("the deal stops before play", game=game, deal=index)
    check_tricks(state, action_from_wire, game, index, record, tricks=8, seats=4,
                 partial=partial, play=PLAY)
    if partial:
        return
    check_scored(state, game, index, record, keys=("points", "delta", "score"),
                 last_trick="8th")


def _act(state: GameState, value: Any, game: int, deal: int) -> None:
    act(state, action_from_wire, value, game, deal)


def _replay_bidding(state: GameState, game: int, index: int, record: dict[str, Any],
                    partial: bool) -> None:
    for entry in record["bids"]:
        if state.phase != BID or entry["seat"] != state.seat:
            raise Violation(f"seat {state.seat} should bid now", game=game, deal=index,
                            seat=entry["seat"])
        _act(state, entry["bid"], game, index)
    contract = record["contract"]
    if state.contract_seat < 0:
        if contract is not None or not partial:
            raise Violation("the bidding is not finished", game=game, deal=index)
        return
    if contract is None or contract["seat"] != state.contract_seat or \
            contract["bid"] != bid_str(state.high_bid):
        raise Violation(f"the contract should be {bid_str(state.high_bid)} by seat "
                        f"{state.contract_seat}", game=game, deal=index)
    if state.phase == TRUMP:
        if contract["trump"] is None:
            if partial:
                return
            raise Violation("a suit contract needs a trump", game=game, deal=index)
        _act(state, contract["trump"], game, index)
    elif contract["trump"] is not None:
        raise Violation("a no-trump contract has no trump", game=game, deal=index)
    if state.phase == DISCARD and (record["discards"] or not partial):
        _act(state, record["discards"], game, index)
    elif record["discards"] and state.rules.kitty == 0:
        raise Violation("there is no kitty to discard from", game=game, deal=index)


def _check_seeded_deals(rules: Rules, seed: str, games: list[dict[str, Any]]) -> None:
    """Replays from this engine: the deals are exactly those the seed produces."""
    check_seeded_deals(seed, games, CARD_OF,
                       lambda number: pair_deals(rules, seed, number // 2), dealt=DEALT)


def _check_result(replay: dict[str, Any]) -> None:
    games = replay["games"]
    result = replay["result"]
    won = {"A": 0, "B": 0}
    draws = 0
    for game in games:
        winner = game["result"]["winner"]
        if winner is None:
            draws += 1
        else:
            won[game["seats"][winner]] += 1
    forfeit = games[-1]["result"]["forfeit"]
    if result["forfeit"] != forfeit:
        raise Violation("the match's forfeit must repeat the last game's")
    total = result["games"]["A"] + result["games"]["B"] + draws
    if forfeit is not None:
        other = "B" if forfeit["player"] == "A" else "A"
        won[other] += total - len(games)
    # A match is played in duplicate pairs; a single game (a person's game against bots) is
    # one game listed and counted.
    single = total == len(games) == 1
    if (total % 2 and not single) or total < len(games) or \
            (forfeit is None and total != len(games)):
        raise Violation(f"result.games counts {total} games for {len(games)} listed")
    score = (won["A"] + draws / 2) / total
    if result["games"] != won or abs(result["score"] - score) > 1e-9:
        raise Violation(f"match result should be games {won}, score {score}")


__all__ = ["validate_replay", "Violation", "SUITS"]
