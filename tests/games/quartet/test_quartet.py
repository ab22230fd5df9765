"""Quartet's rules on fixed cards (tests/games/quartet): the highest card of the suit led wins
a trick of four, the seat after the dealer leads, the sides rotate a seat a game, and a
match's points go to each game's winner, a draw's to all four, a forfeit's to the three not
at fault."""

from __future__ import annotations

from typing import Any

import pytest

from tests.games.quartet.cards import CARD_OF
from tests.games.quartet.game import QuartetState, trick_winner
from tests.games.quartet.match import match_result, seat_sides
from tests.games.quartet.rules import PRESETS


def cards(text: str) -> list[int]:
    return [CARD_OF[c] for c in text.split()]


def fixed(*hands: str) -> Any:
    masks = tuple(sum(1 << c for c in cards(h)) for h in hands)
    return lambda: masks


@pytest.mark.parametrize(("leader", "played", "winner"), [
    (0, "3S 5S 8H 4S", 1), (2, "3S 5S 8H 4S", 3), (1, "1H 2S 3S 4S", 1), (3, "2H 1H 8S 7H", 2)])
def test_the_highest_card_of_the_suit_led_wins(leader: int, played: str, winner: int) -> None:
    assert trick_winner(leader, cards(played)) == winner


def test_the_seat_after_the_dealer_leads_and_every_seat_plays_in_turn() -> None:
    state = QuartetState(PRESETS["short"], dealer=2,
                         deals=fixed("1S 2S 3S 4S", "5S 6S 7S 8S", "1H 2H 3H 4H",
                                     "5H 6H 7H 8H"))
    assert state.seat == 3
    state.apply(CARD_OF["8H"])
    assert [state.seat, state.legal_actions()] == [0, tuple(cards("1S 2S 3S 4S"))]
    for _ in range(15):
        state.apply(state.legal_actions()[-1])
    assert state.is_terminal() and sum(state.score) == 4 and state.score[3] == 4
    assert state.winner == 3


def test_the_sides_rotate_one_seat_a_game() -> None:
    assert [seat_sides(g) for g in range(4)] == [
        ["A", "B", "C", "D"], ["D", "A", "B", "C"], ["C", "D", "A", "B"], ["B", "C", "D", "A"]]


def _game(winner: int | None, number: int, forfeit: Any = None) -> dict[str, Any]:
    return {"seats": seat_sides(number), "deals": [],
            "result": {"winner": winner, "score": [0, 0, 0, 0], "forfeit": forfeit}}


def test_points_go_to_winners_a_draw_to_all_and_a_forfeit_to_the_others() -> None:
    played = [_game(0, 0), _game(None, 1), _game(0, 2), _game(2, 3)]
    result = match_result(played, 4, None)
    assert result["games"] == {"A": 1, "B": 0, "C": 1, "D": 1}
    assert result["points"] == {"A": 1.25, "B": 0.25, "C": 1.25, "D": 1.25}
    assert result["winner"] is None and result["score"]["A"] == pytest.approx(1.25 / 4)
    fault = {"player": "B", "seat": 1}
    forfeited = match_result([_game(0, 0), _game(None, 1, fault)], 4, fault)
    assert forfeited["points"] == {"A": 2.0, "B": 0.0, "C": 1.0, "D": 1.0}
    assert forfeited["winner"] == "A" and sum(forfeited["points"].values()) == 4
