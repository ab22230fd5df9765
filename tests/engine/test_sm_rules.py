"""Sergeant Major's rules (docs/rules-sergeant-major.md) on fixed deals: the targets by seat
rotating with the deal, the exchange's order and its forced returns, the kitty in both
presets, the 12-trick win and the fixed-length preset.

The expected values are written out from the rules, not taken from the engine."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine.sergeant_major.cards import CARD_NAMES, CARD_OF
from engine.sergeant_major.game import Deal, SMState, set_deals
from engine.sergeant_major.rules import PRESETS, SMRules

SPADES = [r + "S" for r in "23456789TJQKA"]
HEARTS = [r + "H" for r in "23456789TJQKA"]
DIAMONDS = [r + "D" for r in "23456789TJQKA"]
CLUBS = [r + "C" for r in "23456789TJQKA"]
RULES = PRESETS["952"]


def mask(cards: list[str]) -> int:
    out = 0
    for card in cards:
        out |= 1 << CARD_OF[card]
    return out


def names(cards: tuple[int, ...] | list[int]) -> list[str]:
    return sorted(CARD_NAMES[c] for c in cards)


def fixed(hands: list[list[str]], kitty: list[str]) -> Callable[[], Deal]:
    """Always the same deal (the hands by seat), checked to be the whole pack."""
    assert sorted(sum(hands, []) + kitty) == sorted(SPADES + HEARTS + DIAMONDS + CLUBS)
    assert [len(h) for h in hands] == [16, 16, 16] and len(kitty) == 4
    deal = ((mask(hands[0]), mask(hands[1]), mask(hands[2])), mask(kitty))
    return lambda: deal


def big_deal() -> tuple[list[list[str]], list[str]]:
    seat0 = SPADES[1:] + ["AH", "AD", "AC", "2H"]
    seat1 = HEARTS[1:7] + DIAMONDS[0:5] + CLUBS[0:5]
    seat2 = HEARTS[7:12] + DIAMONDS[5:11] + CLUBS[5:10]
    used = set(seat0 + seat1 + seat2)
    kitty = [c for c in SPADES + HEARTS + DIAMONDS + CLUBS if c not in used]
    return [seat0, seat1, seat2], kitty


def play_out(state: SMState, choose: Callable[[SMState], object] | None = None,
             seed: int = 0, until_hands: int | None = None) -> None:
    """Every decision from `choose` if it returns one, else a random legal action; each one
    checked against legal_actions()."""
    rng = random.Random(seed)
    while not state.is_terminal() and (until_hands is None or len(state.log) < until_hands):
        legal = state.legal_actions()
        action = choose(state) if choose else None
        if action is None:
            action = legal[rng.randrange(len(legal))]
        assert action in legal, (state.decision, action)
        state.apply(action)  # type: ignore[arg-type]


# --- targets -------------------------------------------------------------------------------
@pytest.mark.parametrize("preset, by_offset", [("952", (9, 5, 2)), ("853", (8, 5, 3))])
def test_the_targets_go_with_the_seats_and_rotate_with_the_deal(preset: str,
                                                                 by_offset: tuple) -> None:
    rules = PRESETS[preset]
    state = SMState(rules, dealer=1, deals=set_deals("targets", 0)[1].source())
    play_out(state, seed=3, until_hands=4)
    dealers = [hand.dealer for hand in state.log[:4]]
    assert dealers == [1, 2, 0, 1]  # the deal passes to the left (seat + 1)
    for hand in state.log[:4]:
        dealer = hand.dealer
        expected = [0, 0, 0]
        expected[dealer] = by_offset[0]  # the dealer
        expected[(dealer + 1) % 3] = by_offset[1]  # the dealer's left
        expected[(dealer + 2) % 3] = by_offset[2]  # the dealer's right
        assert list(hand.targets) == expected
        assert sum(hand.taken) == 16 and sum(hand.delta) == 0
        assert [t - g for t, g in zip(hand.taken, hand.targets, strict=True)] == list(hand.delta)


def test_the_player_on_the_dealers_left_leads_the_first_trick() -> None:
    state = SMState(RULES, dealer=2, deals=set_deals("lead", 0)[1].source())
    play_out(state, seed=1, until_hands=1)
    assert state.log[0].tricks[0][0] == 0


# --- the exchange --------------------------------------------------------------------------
def exchanges_in_order(state: SMState) -> list[tuple[int, int, int]]:
    """(giver, receiver, count) of the exchanges of the hand, played with random gifts."""
    seen = []
    rng = random.Random(0)
    while state.decision in ("give", "return"):
        if state.decision == "give":
            seen.append(tuple(state.exchanges[-1][:3]))
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    assert state.decision == "trump"
    return seen


def test_no_exchange_before_the_first_hand() -> None:
    state = SMState(RULES, dealer=0, deals=set_deals("first", 0)[1].source())
    assert state.decision == "trump" and state.seat == 0 and state.exchanges == []


def test_no_exchange_when_everyone_made_their_target() -> None:
    state = SMState(RULES, dealer=0, deals=set_deals("even", 0)[1].source(), last=(0, 0, 0))
    assert state.decision == "trump"


def test_one_up_gives_first_to_the_down_player_of_lower_target() -> None:
    # Dealer 0: targets 9 (seat 0), 5 (seat 1), 2 (seat 2). Seat 0 was up 3; seat 1 down 1,
    # seat 2 down 2: seat 2 (target 2) gets its 2 cards first, then seat 1 its one.
    state = SMState(RULES, dealer=0, deals=set_deals("x", 0)[1].source(), last=(3, -1, -2))
    assert exchanges_in_order(state) == [(0, 2, 2), (0, 1, 1)]


def test_one_up_facing_two_downs_with_targets_the_other_way_round() -> None:
    # Dealer 1: targets 2 (seat 0), 9 (seat 1), 5 (seat 2). Seat 0 up 4; seats 1 and 2 down
    # 2 each: seat 2 (target 5) before seat 1 (target 9).
    state = SMState(RULES, dealer=1, deals=set_deals("y", 0)[1].source(), last=(4, -2, -2))
    assert exchanges_in_order(state) == [(0, 2, 2), (0, 1, 2)]


def test_of_two_up_players_the_higher_target_exchanges_first() -> None:
    # Dealer 2: targets 5 (seat 0), 2 (seat 1), 9 (seat 2). Seats 0 (+1) and 1 (+2) were up,
    # seat 2 down 3: seat 0 (target 5) gives before seat 1 (target 2).
    state = SMState(RULES, dealer=2, deals=set_deals("z", 0)[1].source(), last=(1, 2, -3))
    assert exchanges_in_order(state) == [(0, 2, 1), (1, 2, 2)]
    # Dealer 0 instead: seat 1 has target 5, seat 0 target 9: seat 0 first.
    state = SMState(RULES, dealer=0, deals=set_deals("z", 0)[1].source(), last=(1, 2, -3))
    assert exchanges_in_order(state) == [(0, 2, 1), (1, 2, 2)]
    state = SMState(RULES, dealer=1, deals=set_deals("z", 0)[1].source(), last=(1, 2, -3))
    assert exchanges_in_order(state) == [(1, 2, 2), (0, 2, 1)]  # seat 1 has 9, seat 0 has 2


def exchange_state(last: tuple[int, int, int]) -> SMState:
    hands, kitty = big_deal()
    return SMState(RULES, dealer=0, deals=fixed(hands, kitty), last=last)


def give_and_return(state: SMState, given: list[str]) -> list[str]:
    """The giver gives `given`; the receiver's only legal return is what comes back."""
    assert state.decision == "give"
    state.apply(tuple(sorted(CARD_OF[c] for c in given)))
    assert state.decision == "return"
    legal = state.legal_actions()
    assert len(legal) == 1, "the return is forced"
    state.apply(legal[0])
    return names(legal[0])


def test_the_receiver_returns_its_highest_card_of_the_suit_received() -> None:
    # Seat 0 (up 1) gives 2H to seat 2 (down 1), who holds 9H..KH: KH comes back.
    state = exchange_state((1, 0, -1))
    assert give_and_return(state, ["2H"]) == ["KH"]
    assert state.hands[0] & mask(["KH"]) and not state.hands[0] & mask(["2H"])
    assert state.hands[2] & mask(["2H"]) and not state.hands[2] & mask(["KH"])


def test_the_same_card_comes_back_when_no_higher_one_is_held() -> None:
    # Seat 0 gives AH to seat 2 (hearts 9..K, none higher than the ace): the AH comes back.
    state = exchange_state((1, 0, -1))
    assert give_and_return(state, ["AH"]) == ["AH"]
    assert state.hands[0] == mask(big_deal()[0][0])  # nothing changed hands


def test_the_same_card_comes_back_when_the_suit_is_not_held() -> None:
    # Seat 0 gives 3S to seat 1, who holds no spade: the 3S comes back.
    state = exchange_state((1, -1, 0))
    assert give_and_return(state, ["3S"]) == ["3S"]


def test_two_cards_of_one_suit_bring_back_the_two_highest_or_themselves() -> None:
    # Seat 0 gives 2H and AH to seat 1 (hearts 3..8): for AH no higher heart (AH back), for
    # 2H the highest heart, 8H.
    state = exchange_state((2, -2, 0))
    assert give_and_return(state, ["2H", "AH"]) == ["8H", "AH"]


def test_each_suit_received_is_answered_in_its_own_suit() -> None:
    # Seat 0 gives 2H, AD and 3S to seat 2 (9H..KH, 7D..KD, no spade): KH for the 2H, the AD
    # itself (no higher diamond), the 3S itself (no spade).
    state = exchange_state((3, 0, -3))
    assert give_and_return(state, ["2H", "AD", "3S"]) == ["3S", "AD", "KH"]


def test_a_giver_facing_two_receivers_gives_from_the_hand_the_first_exchange_left() -> None:
    state = exchange_state((2, -1, -1))  # dealer 0: seat 2 (target 2) first, then seat 1
    assert give_and_return(state, ["2H"]) == ["KH"]  # from seat 2
    assert state.exchanges[-1][:3] == [0, 1, 1]
    assert give_and_return(state, ["KH"]) == ["KH"]  # seat 1's hearts are 3H..8H
    assert state.decision == "trump" and state.seat == 0


def test_the_observation_shows_an_exchanges_cards_only_to_its_two_players() -> None:
    state = exchange_state((1, 0, -1))
    give_and_return(state, ["2H"])
    seen = {seat: state.observation(seat)["exchanges"] for seat in range(3)}
    assert seen[0] == seen[2] == [{"giver": 0, "receiver": 2, "count": 1, "given": ["2H"],
                                   "returned": ["KH"]}]
    assert seen[1] == [{"giver": 0, "receiver": 2, "count": 1, "given": None,
                        "returned": None}]


# --- trump and the kitty -------------------------------------------------------------------
def test_the_dealer_discards_before_taking_the_kitty_unseen() -> None:
    hands, kitty = big_deal()
    state = SMState(RULES, dealer=0, deals=fixed(hands, kitty))
    assert state.decision == "trump" and state.seat == 0
    state.apply(3)  # spades
    assert state.decision == "discard"
    legal = state.legal_actions()
    assert len(legal) == 1820  # 4 of the 16 dealt cards: C(16, 4)
    assert all(not mask(names(combo)) & mask(kitty) for combo in list(legal)[:50])
    assert tuple(CARD_OF[c] for c in kitty) not in legal
    state.apply(tuple(sorted(CARD_OF[c] for c in ["3S", "4S", "5S", "6S"])))
    assert state.hands[0] == mask(hands[0]) & ~mask(["3S", "4S", "5S", "6S"]) | mask(kitty)
    assert state.decision == "play" and state.seat == 1
    assert state.observation(0)["discards"] == ["3S", "4S", "5S", "6S"]
    assert state.observation(1)["discards"] is None


def test_the_kitty_first_preset_lets_the_dealer_discard_any_4_of_20() -> None:
    hands, kitty = big_deal()
    state = SMState(PRESETS["952-kitty-first"], dealer=0, deals=fixed(hands, kitty))
    assert state.hands[0] == mask(hands[0]) | mask(kitty)  # taken before trump is named
    state.apply(3)
    legal = state.legal_actions()
    assert len(legal) == 4845  # C(20, 4)
    kitty_cards = tuple(sorted(CARD_OF[c] for c in kitty))
    assert kitty_cards in legal  # the kitty may go straight back
    state.apply(kitty_cards)
    assert state.hands[0] == mask(hands[0])


# --- the end of the game --------------------------------------------------------------------
def dealer_plays_spades(state: SMState) -> object:
    """Seat 0, dealing the first hand of big_deal(), names spades and keeps 9 of them."""
    if state.log or state.dealer != 0:
        return None
    if state.decision == "trump":
        return 3
    if state.decision == "discard":
        return tuple(sorted(CARD_OF[c] for c in ["2H", "3S", "4S", "5S"]))
    return None


def test_twelve_tricks_in_one_hand_win_the_game() -> None:
    # Seat 0 deals itself every spade but the 2 and three aces; with spades trump, each of
    # its 9 spades left after the discard and each ace takes a trick: at least 12.
    hands, kitty = big_deal()
    state = SMState(RULES, dealer=0, deals=fixed(hands, kitty))
    play_out(state, dealer_plays_spades, seed=5)
    assert len(state.log) == 1 and state.log[0].taken[0] >= 12
    assert state.is_terminal() and state.winner == 0 and state.points == [1.0, 0.0, 0.0]


def test_the_win_takes_twelve_tricks_whatever_the_target() -> None:
    # The same hand dealt with seat 1 as dealer: seat 0 (the dealer's right, target 2) takes
    # its 12+ tricks as a defender and wins all the same. Trump is whatever seat 1 names.
    hands, kitty = big_deal()
    rules = SMRules(preset="test", win_tricks=12)
    state = SMState(rules, dealer=1, deals=fixed(hands, kitty))
    state.apply(3)  # seat 1 names spades: it holds none
    play_out(state, seed=2)
    assert state.log[-1].taken[0] >= 12 and state.winner == 0


def test_a_game_goes_on_while_no_one_takes_twelve() -> None:
    state = SMState(RULES, dealer=0, deals=set_deals("long", 0)[1].source())
    play_out(state, seed=11)
    assert all(max(hand.taken) < 12 for hand in state.log[:-1])
    assert max(state.log[-1].taken) >= 12 or len(state.log) == RULES.max_hands
    assert state.score == [sum(h.delta[s] for h in state.log) for s in range(3)]


def test_the_fixed_hands_preset_plays_its_hands_and_totals_the_ups_and_downs() -> None:
    rules = PRESETS["952-six-hands"]
    hands, kitty = big_deal()
    state = SMState(rules, dealer=0, deals=fixed(hands, kitty))
    play_out(state, dealer_plays_spades, seed=4)
    assert len(state.log) == 6  # twelve tricks in the first hand do not end it
    assert state.log[0].taken[0] >= 12
    totals = [sum(h.delta[s] for h in state.log) for s in range(3)]
    assert state.score == totals
    best = max(totals)
    top = [s for s in range(3) if totals[s] == best]
    assert state.points == [1 / len(top) if s in top else 0.0 for s in range(3)]
    assert state.winner == (top[0] if len(top) == 1 else None)


def test_a_shared_top_total_shares_the_point() -> None:
    from engine.sergeant_major.game import points_by_score

    assert points_by_score([3, 3, -6]) == [0.5, 0.5, 0.0]
    assert points_by_score([0, 0, 0]) == pytest.approx([1 / 3] * 3)
    assert points_by_score([-1, 4, -3]) == [0.0, 1.0, 0.0]


# --- following suit ------------------------------------------------------------------------
def test_a_player_must_follow_suit_and_may_play_anything_when_void() -> None:
    hands, kitty = big_deal()
    state = SMState(RULES, dealer=0, deals=fixed(hands, kitty))
    state.apply(3)
    state.apply(tuple(sorted(CARD_OF[c] for c in ["2H", "3S", "4S", "5S"])))
    state.apply(CARD_OF["3H"])  # seat 1 leads a heart
    assert names(state.legal_actions()) == sorted(["9H", "TH", "JH", "QH", "KH"])  # seat 2
    state.apply(CARD_OF["9H"])
    # Seat 0 holds AH: it must follow with it.
    assert names(state.legal_actions()) == ["AH"]
    state.apply(CARD_OF["AH"])
    assert state.tricks[-1] == (1, (CARD_OF["3H"], CARD_OF["9H"], CARD_OF["AH"]), 0)
    state.apply(CARD_OF["6S"])  # seat 0 leads a trump; seat 1 has none and may play anything
    assert len(state.legal_actions()) == 15


def test_the_highest_trump_wins_else_the_highest_card_of_the_suit_led() -> None:
    hands, kitty = big_deal()
    state = SMState(RULES, dealer=0, deals=fixed(hands, kitty))
    state.apply(1)  # diamonds trump
    state.apply(tuple(sorted(CARD_OF[c] for c in ["2H", "3S", "4S", "5S"])))
    state.apply(CARD_OF["2C"])  # seat 1 leads a club
    state.apply(CARD_OF["7C"])  # seat 2 follows
    state.apply(CARD_OF["AC"])  # seat 0 follows with the ace: highest club
    assert state.tricks[-1][2] == 0
    state.apply(CARD_OF["6S"])  # seat 0 leads a spade; neither other seat holds one
    state.apply(CARD_OF["2D"])  # seat 1 trumps with the lowest diamond
    state.apply(CARD_OF["KH"])  # seat 2 discards a heart
    assert state.tricks[-1][2] == 1


def test_received_cards_are_answered_highest_first() -> None:
    # Seat 0 gives 2H and 4H to seat 2 (hearts 9H..KH): the two highest, KH and QH, come back.
    state = exchange_state((2, 0, -2))
    assert give_and_return(state, ["2H", "4H"]) == ["KH", "QH"]
