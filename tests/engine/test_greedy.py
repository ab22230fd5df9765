"""builtin:greedy: beats random in duplicate matches, and plays the heuristics it claims."""

from __future__ import annotations

import random

import pytest
from helpers import PACK_32, ScriptedDeals, act

from engine.builtin import resolve_player
from engine.kaiser.cards import PASS, card_str, parse_bid, parse_card
from engine.kaiser.game import GameState
from engine.kaiser.greedy import GreedyPlayer
from engine.kaiser.match import run_match
from engine.kaiser.rules import PRESETS
from engine.players import TimeControl

GREEDY = resolve_player("builtin:greedy")
RANDOM = resolve_player("builtin:random")
OFFICIAL = PRESETS["official"]


def test_greedy_wins_at_least_80_percent_of_200_duplicate_games_versus_random() -> None:
    replay = run_match(GREEDY, RANDOM, games=200, seed="greedy-200")
    result = replay["result"]
    assert result["forfeit"] is None and len(replay["games"]) == 200
    assert result["games"]["A"] >= 160, result
    assert result["score"] >= 0.8


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("seed", ["s1", "s2"])
def test_greedy_beats_random_under_every_preset_and_seed(preset: str, seed: str) -> None:
    replay = run_match(RANDOM, GREEDY, games=16, seed=seed, rules=PRESETS[preset])
    assert replay["result"]["games"]["B"] >= 13, replay["result"]


def test_greedy_against_itself_is_even_over_duplicate_pairs() -> None:
    replay = run_match(GREEDY, GREEDY, games=40, seed="mirror")
    assert 0.3 <= replay["result"]["score"] <= 0.7, replay["result"]


def greedy() -> GreedyPlayer:
    player = GreedyPlayer()
    player.start(seat=0, rules=OFFICIAL, games=2, time=TimeControl(), seed="t")
    return player


def filled(partial: list[list[str]], seed: int = 0) -> list[list[str]]:
    """The given cards at their seats, the rest of the pack dealt out to make 8 each."""
    partial = partial + [[]] * (4 - len(partial))
    rest = [c for c in PACK_32 if not any(c in hand for hand in partial)]
    random.Random(seed).shuffle(rest)
    hands = []
    for hand in partial:
        need = 8 - len(hand)
        hands.append([*hand, *rest[:need]])
        rest = rest[need:]
    return hands


def state_of(hands: list[list[str]], dealer: int = 0) -> GameState:
    return GameState(OFFICIAL, dealer=dealer, deals=ScriptedDeals(OFFICIAL, [(hands, [])]))


def test_greedy_takes_the_five_of_hearts_when_it_can() -> None:
    # Seat 1 bids 7 in clubs and leads the 5H; seat 3 covers with KH; greedy (seat 0, last to
    # play) holds AH and must win the trick.
    hands = filled([["AH", "8H", "7C", "7D", "8D", "9D", "TD", "JD"],
                    ["5H", "AC", "KC", "QC", "JC", "TC", "9C", "8C"],
                    ["9H"], ["KH"]], seed=1)
    state = state_of(hands)
    for bid in ("7", "pass", "pass", "pass"):
        act(state, parse_bid(bid))
    act(state, 0)
    for card in ("5H", "9H", "KH"):
        act(state, parse_card(card))
    assert state.seat == 0
    assert card_str(greedy().act(state, list(state.legal_actions()))) == "AH"  # type: ignore


def test_greedy_gives_the_three_of_spades_to_the_opponents() -> None:
    # Seat 1 leads AD in a clubs contract; greedy (seat 0, last) has no diamonds and no clubs
    # and cannot win: it throws the 3S to the opponents' trick.
    hands = filled([["3S", "AS", "KS", "QS", "AH", "KH", "QH", "JH"],
                    ["AD", "AC", "KC", "QC", "JC", "TC", "9C", "8C"],
                    ["7D"], ["8D"]], seed=2)
    state = state_of(hands)
    for bid in ("7", "pass", "pass", "pass"):
        act(state, parse_bid(bid))
    act(state, 0)
    for card in ("AD", "7D", "8D"):
        act(state, parse_card(card))
    assert card_str(greedy().act(state, list(state.legal_actions()))) == "3S"  # type: ignore


def test_greedy_bids_a_strong_hand_and_names_its_long_suit() -> None:
    hands = filled([[], ["AC", "KC", "QC", "JC", "TC", "9C", "AH", "AS"]], seed=3)
    state = state_of(hands)
    player = greedy()
    bid = player.act(state, list(state.legal_actions()))
    assert bid != PASS and bid in state.legal_actions()
    act(state, bid)
    for _ in range(3):
        act(state, PASS)
    assert state.decision == "trump" and state.seat == 1
    assert player.act(state, list(state.legal_actions())) == 0  # clubs


def test_greedy_passes_a_weak_hand() -> None:
    hands = filled([[], ["7C", "8C", "7D", "8D", "9D", "8H", "9S", "TS"]], seed=4)
    state = state_of(hands)
    assert greedy().act(state, list(state.legal_actions())) == PASS
