"""Kaiser's boards in words, for the board pages (the site asks through engine.games.Game:
board_table_words, board_difference_text): a table's contract, points and changes, and the
first decision where the two tables of a board went different ways."""

from __future__ import annotations

from typing import Any

from engine import words
from engine.kaiser import words as kaiser_words

SEAT_NAMES = kaiser_words.SEATS  # as the replay viewer names them
ACTION_WORDS = {"bid": "bid", "trump": "named trump", "discard": "discarded", "card": "played",
                "misdeal": "threw the hand in"}


def difference_text(difference: dict[str, Any] | None) -> str:
    """The first differing decision in words (engine.words, the pages' vocabulary): "West
    bid: 7 no trump at table 1, pass at table 2", "North named trump: ♣ clubs at table 1, ♦
    diamonds at table 2"."""
    if difference is None:
        return "the same decisions at both tables"
    kind, seat, (here, there) = difference["kind"], difference["seat"], difference["actions"]
    if kind == "dealer":
        return "a different dealer (a hand thrown in earlier at one table)"

    def said(action: Any) -> str:
        if action is None:
            return "nothing (the deal had ended)"
        if kind == "trump":
            return words.trump_text(action)
        if kind == "bid":
            return kaiser_words.bid_text(str(action))
        if kind == "card":
            return words.card_text(str(action))
        if kind == "discard":
            return words.cards_text(action)
        return "yes" if action is True else "no" if action is False else str(action)

    return (f"{SEAT_NAMES[seat]} {ACTION_WORDS.get(kind, kind)}: {said(here)} at table 1, "
            f"{said(there)} at table 2")




def table_words(table: dict[str, Any] | None, names: dict[str, str]) -> dict[str, Any] | None:
    """A table of a board from the sides' view, in words: the contract ("7 ♣ by greedy",
    its seat), made or set, the points taken ("11 to −1") and the changes of score
    ("+4 / −7"), A's first."""
    if table is None:
        return None
    team = {side: table["seats"].index(side) for side in ("A", "B")}
    contract = table["contract"]
    row = {"misdeal": None if table["misdeal"] is None else SEAT_NAMES[table["misdeal"]],
           "contract": contract, "seat": SEAT_NAMES[contract["seat"]] if contract else "",
           "made": None, "contract_text": ""}
    for side in ("A", "B"):
        row[f"points_{side}"] = table["points"][team[side]]
        row[f"delta_{side}"] = table["delta"][team[side]]
        row[f"tricks_{side}"] = table["tricks"][team[side]]
    row["points_text"] = words.score_text([row["points_A"], row["points_B"]])
    row["changes_text"] = words.changes_text([row["delta_A"], row["delta_B"]])
    if contract:
        row["made"] = table["points"][contract["seat"] % 2] >= int(contract["bid"].rstrip("NL"))
        row["contract_text"] = kaiser_words.contract_text(
            contract, names.get(contract["side"], contract["side"]))
    return row
