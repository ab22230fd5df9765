"""docs/rules.md line by line: seats, cards, dealing, bidding, contract, kitty, play, points,
presets. Deals are fixed (helpers.Script or written-out hands) and driven with apply()."""

from __future__ import annotations

import random

import pytest
from helpers import (
    GROUPS,
    LOW_ORDER,
    PACK_32,
    PACK_34,
    Script,
    ScriptedDeals,
    act,
    game_of,
    mask,
    play_script,
    scripted,
    split,
    tricks_from_winners,
)

from engine.kaiser.cards import (
    FIVE_HEARTS,
    PASS,
    THREE_SPADES,
    TRICK_KEYS,
    bid_str,
    card_str,
    deck,
    parse_bid,
    parse_card,
)
from engine.kaiser.game import GameState, pair_deals
from engine.kaiser.rules import PRESETS, Rules, get_rules

OFFICIAL = PRESETS["official"]
SASK = PRESETS["saskatchewan"]


def names(cards: object) -> list[str]:
    return [card_str(c) for c in cards]  # type: ignore[attr-defined]


def bids(state: GameState, *texts: str) -> None:
    for text in texts:
        act(state, parse_bid(text))


def fresh(rules: Rules = OFFICIAL, dealer: int = 0, seed: int = 1) -> GameState:
    _, source = pair_deals(rules, str(seed), 0)
    return GameState(rules, dealer=dealer, deals=source)


# --- players, seats, teams ------------------------------------------------------------------------
def test_seats_0_and_2_are_team_0_and_seats_1_and_3_team_1() -> None:
    # Seat 2 wins every trick of one deal, seat 3 every trick of another.
    state = game_of(OFFICIAL, 3, [scripted(0, [2] * 8, bid="7"), scripted(1, [3] * 8, bid="7")])
    assert play_script(state, scripted(0, [2] * 8, bid="7"))["points"] == [10, 0]
    assert play_script(state, scripted(1, [3] * 8, bid="7"))["points"] == [0, 10]


@pytest.mark.parametrize("dealer", range(4))
def test_bidding_starts_left_of_the_dealer_and_goes_clockwise(dealer: int) -> None:
    state = fresh(dealer=dealer)
    seen = []
    while state.decision == "bid":
        seen.append(state.seat)
        legal = state.legal_actions()
        state.apply(PASS if PASS in legal else legal[0])
    assert seen == [(dealer + 1 + i) % 4 for i in range(4)]


def test_play_goes_clockwise_from_the_leader() -> None:
    script = scripted(2, [2, 3, 0, 1, 1, 2, 0, 3], bid="7")
    state = game_of(OFFICIAL, 0, [script])
    bids(state, "pass", "7", "pass", "pass")
    act(state, 2)  # hearts
    order = []
    for _, cards in script.tricks:
        for card in cards:
            order.append(state.seat)
            act(state, parse_card(card))
    record = state.log[0].to_dict()
    for number, trick in enumerate(record["tricks"]):
        leader = trick["leader"]
        assert order[4 * number:4 * number + 4] == [(leader + i) % 4 for i in range(4)]


# --- cards --------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["AS", "TH", "5H", "3S", "7C", "KD", "QH", "JS", "9C", "8D"])
def test_card_notation_is_rank_then_suit_and_round_trips(text: str) -> None:
    assert card_str(parse_card(text)) == text


@pytest.mark.parametrize("text", ["10H", "as", "SA", "A", "", "AX", "1S", "AS ", None, 5])
def test_bad_card_notation_is_rejected(text: object) -> None:
    with pytest.raises(ValueError):
        parse_card(text)


def test_32_card_deck_is_the_table_of_the_spec() -> None:
    assert sorted(names(deck(OFFICIAL))) == sorted(PACK_32)
    assert len(PACK_32) == 32
    for suit, ranks in (("C", "AKQJT987"), ("D", "AKQJT987"), ("H", "AKQJT985"),
                        ("S", "AKQJT983")):
        assert sorted(c[0] for c in names(deck(OFFICIAL)) if c[1] == suit) == sorted(ranks)


def test_34_card_deck_has_every_seven_plus_5h_and_3s() -> None:
    cards = names(deck(SASK))
    assert len(cards) == 34 and sorted(cards) == sorted(PACK_34)
    assert {"7C", "7D", "7H", "7S", "5H", "3S"} <= set(cards)


@pytest.mark.parametrize("preset,size", [("official", 32), ("pagat", 32), ("bga", 32),
                                         ("saskatchewan", 34)])
def test_each_preset_deals_its_deck(preset: str, size: int) -> None:
    rules = PRESETS[preset]
    state = fresh(rules)
    dealt = state.dealt[0] | state.dealt[1] | state.dealt[2] | state.dealt[3] | state.kitty
    assert bin(dealt).count("1") == size
    assert dealt == mask(PACK_34 if size == 34 else PACK_32)


def test_rank_order_is_a_k_q_j_t_9_8_7_5_3_with_the_ten_below_the_jack() -> None:
    # Groups where the BGA order (10 between K and A) would pick a different winner.
    groups = ("KC TC 9C 8C", "AC QC JC 7C", "JD TD 9D 7D", "AD KD QD 8D",
              "JH TH 8H 5H", "AH KH QH 9H", "QS TS 9S 3S", "AS KS JS 8S")
    winners = [1, 3, 0, 2, 0, 1, 2, 3]
    script = Script(tricks_from_winners(0, winners, groups), bid="7", trump="C")
    state = game_of(OFFICIAL, 3, [script])
    record = play_script(state, script)
    assert [t["winner"] for t in record["tricks"]] == winners
    assert record["tricks"][0]["cards"][1] == "KC"  # seat 1's king beats the ten


def test_five_and_three_are_the_lowest_of_their_suits() -> None:
    for suit, low in (("H", "5H"), ("S", "3S")):
        order = sorted((c for c in PACK_32 if c[1] == suit),
                       key=lambda c: TRICK_KEYS[0][4][parse_card(c) // 10][parse_card(c)])
        assert order[0] == low


# --- dealing ------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", list(PRESETS))
def test_dealer_deals_8_cards_to_each_seat_and_the_kitty(preset: str) -> None:
    rules = PRESETS[preset]
    state = fresh(rules)
    assert [bin(h).count("1") for h in state.dealt] == [8, 8, 8, 8]
    assert bin(state.kitty).count("1") == rules.kitty


def test_first_dealer_comes_from_the_seed() -> None:
    dealers = {pair_deals(OFFICIAL, str(seed), 0)[0] for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert pair_deals(OFFICIAL, "x", 3)[0] == pair_deals(OFFICIAL, "x", 3)[0]


def test_deal_passes_left_after_each_deal() -> None:
    state = fresh(dealer=2)
    rng = random.Random(5)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    assert len(state.log) >= 3
    assert [entry.dealer for entry in state.log] == [(2 + i) % 4 for i in range(len(state.log))]


# --- bidding ------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset,first", [("official", "7"), ("pagat", "6"), ("bga", "6"),
                                          ("saskatchewan", "7")])
def test_bids_run_from_min_bid_to_12_in_order(preset: str, first: str) -> None:
    rules = PRESETS[preset]
    kinds = ["", "N", "L"] if rules.low_no_trump else ["", "N"]
    expected = ["pass"] + [f"{n}{k}" for n in range(int(first), 13) for k in kinds]
    assert [bid_str(b) for b in fresh(rules).legal_actions()] == expected


def test_low_no_trump_bids_exist_only_in_saskatchewan() -> None:
    for name, rules in PRESETS.items():
        has_low = any(bid_str(b).endswith("L") for b in fresh(rules).legal_actions())
        assert has_low == (name == "saskatchewan")


def test_bid_notation_round_trips_and_rejects_garbage() -> None:
    for text in ("pass", "7", "7N", "7L", "12", "12N", "12L", "6"):
        assert bid_str(parse_bid(text)) == text
    assert parse_bid("7") < parse_bid("7N") < parse_bid("7L") < parse_bid("8") < parse_bid("12N")
    for bad in ("PASS", "7X", "07", "N7", "", "7 N", "seven", None, 7):
        with pytest.raises(ValueError):
            parse_bid(bad)


def test_non_dealer_must_beat_the_highest_bid() -> None:
    state = fresh(dealer=3)
    bids(state, "8")
    legal = [bid_str(b) for b in state.legal_actions()]
    assert legal[:3] == ["pass", "8N", "9"]
    assert "8" not in legal and "7N" not in legal


def test_suit_bid_after_a_no_trump_bid_of_the_same_number_is_too_low() -> None:
    state = fresh(SASK, dealer=3)
    bids(state, "7N")
    assert [bid_str(b) for b in state.legal_actions()][:3] == ["pass", "7L", "8"]


def test_dealer_may_equal_the_high_bid_and_takes_the_contract() -> None:
    state = fresh(dealer=3)
    bids(state, "pass", "9", "pass")
    legal = [bid_str(b) for b in state.legal_actions()]
    assert state.seat == 3 and legal[:3] == ["pass", "9", "9N"]
    bids(state, "9")
    # The trump is not named yet: null until the dealer names it.
    assert state.observation(0)["contract"] == {"seat": 3, "bid": "9", "trump": None}
    assert state.decision == "trump" and state.seat == 3


def test_dealer_may_pass_and_the_high_bidder_takes_the_contract() -> None:
    state = fresh(dealer=0)
    bids(state, "7", "8N", "pass", "pass")
    assert state.observation(1)["contract"] == {"seat": 2, "bid": "8N", "trump": None}
    assert state.decision == "play" and state.seat == 2  # no trump: the contractor leads


def test_dealer_must_bid_after_three_passes() -> None:
    for rules in PRESETS.values():
        state = fresh(rules, dealer=1)
        bids(state, "pass", "pass", "pass")
        legal = state.legal_actions()
        assert state.seat == 1 and PASS not in legal
        assert bid_str(legal[0]) == str(rules.min_bid)


def test_each_seat_bids_exactly_once() -> None:
    state = fresh(dealer=2)
    bids(state, "7", "8", "9", "pass")
    assert state.decision != "bid"
    assert [(s, bid_str(b)) for s, b in state.bids] == [(3, "7"), (0, "8"), (1, "9"), (2, "pass")]


def test_twelve_no_trump_ends_the_bidding_for_the_others() -> None:
    state = fresh(dealer=0)
    bids(state, "12N")
    assert list(state.legal_actions()) == [PASS]
    bids(state, "pass", "pass")
    assert [bid_str(b) for b in state.legal_actions()] == ["pass", "12N"]


# --- contract -----------------------------------------------------------------------------------
def test_suit_contractor_names_any_of_the_four_suits() -> None:
    state = fresh(dealer=0)
    bids(state, "pass", "8", "pass", "pass")
    assert state.decision == "trump" and state.seat == 2
    assert list(state.legal_actions()) == [0, 1, 2, 3]
    act(state, 3)
    assert state.contract() == (2, parse_bid("8"), 3)
    assert state.decision == "play" and state.seat == 2


def test_no_trump_contract_names_no_trump() -> None:
    script = split(1, 7, True, True, bid="9N", trump=None)
    state = game_of(OFFICIAL, 3, [script])
    record = play_script(state, script)
    assert record["contract"] == {"seat": 1, "bid": "9N", "trump": None}


# --- the kitty ----------------------------------------------------------------------------------
def kitty_deal() -> GameState:
    # Seat 0 holds 5H and the kitty holds 3S and 7C: neither 5H nor 3S may be discarded.
    rng = random.Random(3)
    rest = [c for c in PACK_34 if c not in ("5H", "3S", "7C")]
    rng.shuffle(rest)
    hands = [["5H", *rest[0:7]], rest[7:15], rest[15:23], rest[23:31]]
    return GameState(SASK, dealer=3, deals=ScriptedDeals(SASK, [(hands, ["3S", "7C"])]))


def test_contractor_takes_the_kitty_after_naming_trump() -> None:
    state = kitty_deal()
    bids(state, "8", "pass", "pass", "pass")
    assert state.decision == "trump"
    act(state, 0)
    assert state.decision == "discard" and state.seat == 0
    hand = state.observation(0)["hand"]
    assert len(hand) == 10 and {"3S", "7C", "5H"} <= set(hand)


def test_kitty_discards_never_include_5h_or_3s() -> None:
    state = kitty_deal()
    bids(state, "7N", "pass", "pass", "pass")
    assert state.decision == "discard"  # no trump to name
    legal = state.legal_actions()
    assert len(legal) == 28  # any 2 of the 8 other cards
    assert all(len(combo) == 2 for combo in legal)
    assert not any(FIVE_HEARTS in combo or THREE_SPADES in combo for combo in legal)


def test_discards_leave_the_hand_and_count_for_nobody() -> None:
    # The kitty (AC, 7H) is picked up; the contractor plays the AC and discards 7H and 7S.
    script = Script(tricks_from_winners(0, [0, 2, 1, 3, 0, 1, 2, 3]), bid="7", trump="C",
                    kitty=["AC", "7H"], discards=["7H", "7S"])
    state = game_of(SASK, 3, [script])
    record = play_script(state, script)
    assert "AC" not in record["hands"][0] and "7S" in record["hands"][0]
    assert record["kitty"] == ["AC", "7H"]
    assert record["discards"] == ["7H", "7S"]
    played = [c for trick in record["tricks"] for c in trick["cards"]]
    assert "7H" not in played and "7S" not in played and "AC" in played
    assert sum(record["points"]) == 10


# --- play ---------------------------------------------------------------------------------------
TRUMP_HANDS = [
    ["AC", "QC", "JC", "TC", "9C", "8C", "7C", "AD"],
    ["7D", "KD", "QD", "JD", "8S", "AH", "KH", "QH"],
    ["KC", "TD", "9D", "8D", "JH", "TH", "9H", "8H"],
    ["9S", "AS", "KS", "QS", "JS", "TS", "3S", "5H"],
]


def trump_deal() -> GameState:
    """Seat 0 holds 7 clubs; seats 1 and 3 none; spades are trump, bid by seat 0."""
    state = GameState(OFFICIAL, dealer=3, deals=ScriptedDeals(OFFICIAL, [(TRUMP_HANDS, [])]))
    bids(state, "7", "pass", "pass", "pass")
    act(state, 3)
    return state


def play_trick(state: GameState, *cards: str) -> list[list[str]]:
    """Plays the cards, recording the legal plays offered before each one."""
    offered = []
    for card in cards:
        offered.append(sorted(names(state.legal_actions())))
        act(state, parse_card(card))
    return offered


def test_contractor_leads_the_first_trick() -> None:
    state = trump_deal()
    assert state.decision == "play" and state.seat == 0


def test_must_follow_suit_when_able_else_any_card() -> None:
    state = trump_deal()
    offered = play_trick(state, "AC", "8S", "KC", "9S")
    assert offered[1] == sorted(TRUMP_HANDS[1])  # void in clubs: anything
    assert offered[2] == ["KC"]  # must follow with the only club
    assert offered[3] == sorted(TRUMP_HANDS[3])


def test_highest_trump_wins_and_the_winner_leads_next() -> None:
    state = trump_deal()
    play_trick(state, "AC", "8S", "KC", "9S")
    assert state.observation(0)["tricks"][-1] == {"leader": 0, "cards": ["AC", "8S", "KC", "9S"],
                                                  "winner": 3}
    assert state.seat == 3


def test_without_trump_the_highest_card_of_the_suit_led_wins() -> None:
    state = trump_deal()
    play_trick(state, "AC", "8S", "KC", "9S")
    offered = play_trick(state, "5H", "AD", "QH", "8H")
    assert offered[2] == ["AH", "KH", "QH"]
    # QH beats 8H and 5H; the off-suit ace counts for nothing.
    assert state.observation(0)["tricks"][-1]["winner"] == 1


def test_lowest_trump_beats_the_suit_led() -> None:
    state = trump_deal()
    play_trick(state, "AC", "8S", "KC", "9S")
    play_trick(state, "5H", "AD", "QH", "8H")
    play_trick(state, "KD", "8D", "3S", "7C")
    assert state.observation(0)["tricks"][-1]["winner"] == 3


def test_low_no_trump_reverses_seven_to_ace_and_keeps_5_and_3_lowest() -> None:
    groups = ("AC KC QC 7C", "JC TC 9C 8C", "AD KD QD JD", "TD 9D 8D 7D",
              "AH KH QH 5H", "JH TH 9H 8H", "AS KS 3S QS", "JS TS 9S 8S")
    winners = [1, 3, 0, 2, 1, 0, 3, 2]
    script = Script(tricks_from_winners(0, winners, groups, order=LOW_ORDER), bid="7L",
                    trump=None, kitty=["7H", "7S"], discards=["7H", "7S"])
    state = game_of(SASK, 3, [script])
    record = play_script(state, script)
    assert [t["winner"] for t in record["tricks"]] == winners
    assert winning_card(record["tricks"][0]) == "7C"  # 7 beats A, K, Q
    assert winning_card(record["tricks"][1]) == "8C"
    assert winning_card(record["tricks"][4]) == "QH"  # Q beats K and A; the 5 stays lowest
    assert winning_card(record["tricks"][6]) == "QS"  # the 3 stays lowest


def winning_card(trick: dict[str, object]) -> str:
    cards, leader, winner = trick["cards"], trick["leader"], trick["winner"]
    return cards[(winner - leader) % 4]  # type: ignore[index,operator,no-any-return]


def test_low_no_trump_strength_table() -> None:
    for index, suit in enumerate("CDHS"):
        keys = TRICK_KEYS[1][4][index]  # low, no trump, this suit led
        cards = sorted((c for c in PACK_34 if c[1] == suit), key=lambda c: -keys[parse_card(c)])
        assert "".join(c[0] for c in cards) == "".join(
            r for r in LOW_ORDER if r + suit in PACK_34)


def test_high_order_in_a_suit_contract() -> None:
    script = Script(tricks_from_winners(2, [2, 1, 0, 3, 3, 2, 1, 0]), bid="8", trump="D")
    state = game_of(OFFICIAL, 1, [script])
    record = play_script(state, script)
    assert [t["winner"] for t in record["tricks"]] == [2, 1, 0, 3, 3, 2, 1, 0]


# --- points -------------------------------------------------------------------------------------
def test_points_are_tricks_plus_5_for_5h_minus_3_for_3s() -> None:
    # Team 1 takes 3 tricks with the 5H, team 0 five tricks with the 3S.
    winners = [0, 2, 1, 3, 0, 1, 2, 0]
    script = scripted(0, winners, bid="7")
    record = play_script(game_of(OFFICIAL, 3, [script]), script)
    assert [t["winner"] for t in record["tricks"]] == winners
    assert "5H" in record["tricks"][5]["cards"] and "3S" in record["tricks"][7]["cards"]
    assert record["points"] == [5 - 3, 3 + 5]


def test_every_deal_points_add_up_to_10() -> None:
    for winners in ([0] * 8, [1] * 8, [1, 1, 1, 1, 1, 1, 1, 0], [0, 1, 2, 3, 0, 1, 2, 3]):
        script = scripted(0, winners, bid="7")
        record = play_script(game_of(OFFICIAL, 3, [script]), script)
        assert sum(record["points"]) == 10


# --- presets ------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset,deck_size,min_bid,lockout,lose_at,kitty,low,after_nt,misdeal", [
    ("official", 32, 7, 47, -52, 0, False, None, False),
    ("pagat", 32, 6, 45, None, 0, False, None, True),
    ("bga", 32, 6, 45, None, 0, False, None, False),
    ("saskatchewan", 34, 7, 45, None, 2, True, 62, False),
])
def test_preset_table(preset: str, deck_size: int, min_bid: int, lockout: int,
                      lose_at: int | None, kitty: int, low: bool, after_nt: int | None,
                      misdeal: bool) -> None:
    rules = get_rules(preset)
    assert (rules.preset, rules.deck, rules.min_bid, rules.lockout, rules.lose_at, rules.kitty,
            rules.low_no_trump, rules.target_after_no_trump, rules.misdeal) == (
        preset, deck_size, min_bid, lockout, lose_at, kitty, low, after_nt, misdeal)
    assert (rules.max_bid, rules.no_trump, rules.target, rules.max_deals) == (12, True, 52, 100)


def test_official_is_the_default_preset() -> None:
    assert Rules() == PRESETS["official"]


def test_unknown_preset_is_a_one_line_error() -> None:
    with pytest.raises(ValueError) as error:
        get_rules("canasta")
    assert "\n" not in str(error.value) and "official" in str(error.value)


def test_rules_round_trip_through_their_dict() -> None:
    for rules in PRESETS.values():
        assert Rules.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize("change", [{"deck": 36}, {"kitty": 2}, {"min_bid": 13},
                                    {"max_deals": 0}, {"no_trump": False, "low_no_trump": True}])
def test_inconsistent_rules_are_refused(change: dict[str, object]) -> None:
    data = {**OFFICIAL.to_dict(), **change}
    with pytest.raises(ValueError):
        Rules.from_dict(data)


def test_rules_with_missing_keys_are_refused() -> None:
    data = OFFICIAL.to_dict()
    del data["lockout"]
    with pytest.raises(ValueError, match="lockout"):
        Rules.from_dict(data)


def test_groups_cover_the_32_cards_played() -> None:
    assert sorted(c for g in GROUPS for c in g.split()) == sorted(PACK_32)
