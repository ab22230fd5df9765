"""Sergeant Major's builtin:mc: it decides from its own seat's view only, and it beats
builtin:greedy (bench/sergeant_major.py --mc measures by how much over more games)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.builtin import BuiltinFactory
from engine.players import TimeControl
from engine.sergeant_major.cards import CARD_OF
from engine.sergeant_major.game import Deal, SMState
from engine.sergeant_major.match import run_match
from engine.sergeant_major.mc import SMMCPlayer
from engine.sergeant_major.players import SMGreedyPlayer
from engine.sergeant_major.rules import PRESETS

GREEDY = BuiltinFactory("greedy", "1", SMGreedyPlayer, {})
MC = BuiltinFactory("mc", "1", SMMCPlayer, {})
PACK = [r + s for s in "CDHS" for r in "23456789TJQKA"]


def fixed(hands: list[list[str]], kitty: list[str]) -> Callable[[], Deal]:
    assert sorted(sum(hands, []) + kitty) == sorted(PACK)

    def mask(cards: list[str]) -> int:
        return sum(1 << CARD_OF[c] for c in cards)

    deal = ((mask(hands[0]), mask(hands[1]), mask(hands[2])), mask(kitty))
    return lambda: deal


def lead_of_seat_1(hands: list[list[str]], kitty: list[str]) -> int:
    """mc's lead at seat 1 after the dealer (seat 0) names spades and discards 2C 3C 4C 5C."""
    state = SMState(PRESETS["952"], dealer=0, deals=fixed(hands, kitty))
    state.apply(3)
    state.apply(tuple(sorted(CARD_OF[c] for c in ["2C", "3C", "4C", "5C"])))
    player = SMMCPlayer()
    player.start(seat=1, rules=PRESETS["952"], games=1, time=TimeControl(), seed="view")
    return int(player.act(state, state.legal_actions()))  # type: ignore[call-overload]


def test_mc_decides_from_what_its_seat_sees_only() -> None:
    seat0 = PACK[0:16]  # 2C..AC, 2D 3D 4D
    seat1 = PACK[16:32]
    seat2 = PACK[32:48]
    kitty = PACK[48:52]
    one = lead_of_seat_1([seat0, seat1, seat2], kitty)
    # The same view for seat 1, other hidden cards: the dealer's AC and seat 2's first card
    # change places, and a kitty card with a card of seat 2.
    other0 = [c for c in seat0 if c != "AC"] + [seat2[0]]
    other2 = [c for c in seat2[1:] if c != seat2[5]] + ["AC", kitty[0]]
    other_kitty = [seat2[5]] + kitty[1:]
    two = lead_of_seat_1([other0, seat1, other2], other_kitty)
    assert one == two


@pytest.mark.timeout(600)
def test_mc_beats_greedy() -> None:
    # Six sets of the fixed-length preset, mc at each seat of each set's deals against two
    # greedys: a third of the points and no ups or downs would be even.
    points, ups, hands = 0.0, 0, 0
    for number in range(6):
        side = "ABC"[number % 3]
        players = [MC if s == side else GREEDY for s in "ABC"]
        replay = run_match(players, games=3, seed=f"mc-{number}",
                           rules=PRESETS["952-six-hands"])
        points += replay["result"]["points"][side]
        ups += replay["result"]["ups"][side]
        hands += sum(len(game["deals"]) for game in replay["games"])
    assert points / 18 > 1 / 3, f"mc's points share {points / 18:.2f}"
    assert ups > 0, f"mc's ups and downs {ups} over {hands} hands"
