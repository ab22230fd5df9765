"""The board comparison of a duplicate match (docs/replay-format.md, "Board comparison").

Games 2j and 2j + 1 of a match deal the same cards, deal after deal, with the players moved
one seat: deal i of both games is one **board**. For each board played to its end in both
games this says what each table did with the same cards and the **swing**: how many points of
score A gained (positive) or lost (negative) against B by playing it differently. With the
same cards, A's change of score at one table is compared with B's at the other:

    swing(A) = (A's delta - B's delta with the cards of seats 0, 2)
             + (A's delta - B's delta with the cards of seats 1, 3)

It also finds the first decision (a bid, the trump, the discards, a card, a throw-in) where
the two tables differ, and the replay viewer's step that shows it. Pure and standard library:
it reads replays, whether from run_match or from a file.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import zip_longest
from typing import Any

Decision = tuple[str, int, Any]  # (kind, seat, action)


def board_comparison(replay: dict[str, Any]) -> list[dict[str, Any]]:
    """Every board of the match's duplicate pairs, in order (see `board`)."""
    games = replay.get("games") or []
    boards: list[dict[str, Any]] = []
    for first in range(0, len(games), 2):
        pair = games[first:first + 2]
        count = max(len(g["deals"]) for g in pair)
        for index in range(count):
            deals = [_deal_at(g, index) for g in pair] + [None] * (2 - len(pair))
            boards.append(board(first, index, deals[0], deals[1], pair))
    return boards


def _deal_at(game: dict[str, Any], index: int) -> dict[str, Any] | None:
    deals = game["deals"]
    return deals[index] if index < len(deals) else None


def finished(deal: dict[str, Any] | None) -> bool:
    """Played to its end: scored, or thrown in (a misdeal scores nothing)."""
    return deal is not None and (deal.get("points") is not None or bool(deal.get("misdeal")))


def board(game: int, index: int, first: dict[str, Any] | None, second: dict[str, Any] | None,
          pair: list[dict[str, Any]]) -> dict[str, Any]:
    """One board: `game` is the pair's first game (even), `index` the deal's place in both.

    `tables` are the two games' tables (null where the deal was not played to its end);
    `status` "both", or which game alone has it ("first only", "second only": the other game
    ended earlier, or a fault cut the deal short); `swing` A's gain (null unless both);
    `difference` the first differing decision (null when both tables played alike)."""
    done = [finished(first), finished(second)]
    status = "both" if all(done) else "first only" if done[0] else \
        "second only" if done[1] else "neither"
    tables = [_table(deal, pair[t]["seats"]) if deal is not None and done[t] else None
              for t, deal in enumerate((first, second))]
    record: dict[str, Any] = {"game": game, "deal": index, "status": status,
                              "tables": tables, "swing": None, "difference": None}
    if status == "both":
        assert first is not None and second is not None
        record["swing"] = swing(first, second, pair[0]["seats"], pair[1]["seats"])
        record["difference"] = first_difference(first, second)
    return record


def _table(deal: dict[str, Any], seats: list[str]) -> dict[str, Any]:
    contract = deal.get("contract")
    tricks = [0, 0]
    for trick in deal.get("tricks") or []:
        tricks[trick["winner"] % 2] += 1
    return {
        "seats": [seats[0], seats[1]],  # the side of team 0 and of team 1 at this table
        "misdeal": deal["misdeal"]["seat"] if deal.get("misdeal") else None,
        "contract": None if not contract or deal.get("misdeal") else {
            "seat": contract["seat"], "bid": contract["bid"], "trump": contract["trump"],
            "side": seats[contract["seat"]]},
        "tricks": tricks,
        "points": list(deal.get("points") or [0, 0]),
        "delta": list(deal.get("delta") or [0, 0]),
    }


def side_deltas(deal: dict[str, Any], seats: list[str]) -> dict[int, tuple[str, int]]:
    """By team (the cards of seats 0, 2 and of seats 1, 3): the side holding them, its delta."""
    delta = deal.get("delta") or [0, 0]
    return {team: (seats[team], delta[team]) for team in (0, 1)}


def swing(first: dict[str, Any], second: dict[str, Any], seats_first: list[str],
          seats_second: list[str]) -> int:
    """A's gain on the board: for each team's cards, the delta A made with them minus B's."""
    total = 0
    here, there = side_deltas(first, seats_first), side_deltas(second, seats_second)
    for team in (0, 1):
        for side, delta in (here[team], there[team]):
            total += delta if side == "A" else -delta
    return total


def decisions(deal: dict[str, Any]) -> Iterator[Decision]:
    """The deal's decisions in the order they were made: a throw-in, the bids, the trump (a
    contract in a suit), the discards (with a kitty), then the cards."""
    if deal.get("misdeal"):
        yield ("misdeal", deal["misdeal"]["seat"], True)
        return
    for bid in deal.get("bids") or []:
        yield ("bid", bid["seat"], bid["bid"])
    contract = deal.get("contract")
    if contract is None:
        return
    if contract["bid"][-1:] not in ("N", "L"):
        yield ("trump", contract["seat"], contract["trump"])
    if deal.get("discards"):
        yield ("discard", contract["seat"], sorted(deal["discards"]))
    for trick in deal.get("tricks") or []:
        for place, card in enumerate(trick["cards"]):
            yield ("card", (trick["leader"] + place) % 4, card)


def first_difference(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any] | None:
    """The first decision where two tables of a board differ: its number (0 = the first
    decision of the deal), kind, seat, the two actions (null where a table made none) and the
    viewer's step; None when they made the same decisions throughout."""
    if first["dealer"] != second["dealer"]:  # a throw-in earlier in one game only
        return {"decision": 0, "kind": "dealer", "seat": None,
                "actions": [first["dealer"], second["dealer"]], "step": 0}
    # Lazily: tables usually part within the first few decisions.
    for number, (mine, other) in enumerate(zip_longest(decisions(first), decisions(second))):
        if mine != other:
            made = mine or other
            return {"decision": number, "kind": made[0], "seat": made[1],
                    "actions": [mine[2] if mine else None, other[2] if other else None],
                    "step": viewer_step(first if mine else second, number)}
    return None


def viewer_step(deal: dict[str, Any], decision: int) -> int:
    """The replay viewer's step (static/js/replay.js dealSteps; the #g1d1s<step> of its
    address) that shows decision number `decision` of the deal being made."""
    if deal.get("misdeal"):
        return 1
    bids = len(deal.get("bids") or [])
    if decision < bids:
        return 1 + decision
    contract = deal.get("contract") or {}
    suited = contract.get("bid", "")[-1:] not in ("N", "L")
    after = decision - bids - suited  # decisions after the auction and the trump
    if after < 0:
        return 1 + bids  # the trump: the contract step names it
    first_card = 2 + bids
    if deal.get("discards"):
        if after == 0:
            return first_card
        after -= 1
        first_card += 1
    trick, place = divmod(after, 4)
    return first_card + 5 * trick + place  # each trick: its four cards, then "won"


def score_before(game: dict[str, Any], index: int) -> list[int]:
    """Each team's score before deal `index` of the game."""
    for deal in reversed(game["deals"][:index]):
        if deal.get("score") is not None:
            return list(deal["score"])
    return [0, 0]

