"""The person's view (Kaiser's Game.person_view: engine.kaiser.person.person_view) carries
what the table needs to keep a completed trick on show: the trick itself, and a count of
tricks done that grows by one with every trick, across deals, so the page can tell a new
trick was completed."""

from __future__ import annotations

import random

import pytest

from engine.kaiser.game import GameState, pair_deals
from engine.kaiser.person import person_view
from engine.kaiser.rules import PRESETS, replace

NAMES = ["ada", "random", "greedy", "random"]


@pytest.mark.parametrize("rules", ["official", "saskatchewan"])
def test_tricks_done_grows_by_one_with_each_trick_and_last_trick_is_the_trick_completed(
    rules: str
) -> None:
    preset = replace(PRESETS[rules], max_deals=3)
    dealer, deals = pair_deals(preset, "5", 0)
    state = GameState(preset, dealer=dealer, deals=deals, game=0)
    rng = random.Random(1)
    done, completed = 0, 0
    while not state.is_terminal():
        seat = state.seat
        fourth = state.decision == "play" and len(state.trick) == 3
        state.apply(rng.choice(state.legal_actions()))
        view = person_view(state, seq=0, move=None, move_seconds=60, names=NAMES)
        if fourth:  # the card just played completed a trick: it is the view's last trick
            completed += 1
            assert view["tricks_done"] == done + 1
            last = view["last_trick"]
            assert len(last["cards"]) == 4 and (last["leader"] + 3) % 4 == seat
        else:
            assert view["tricks_done"] == done
        done = view["tricks_done"]
    assert done == completed == 8 * sum(1 for d in state.log if d.tricks)
