"""The game-state API (decision, seat, legal_actions, apply, terminal, observation) and the
misdeal rule, on fixed and seeded deals."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from helpers import PACK_32, PACK_34, ScriptedDeals, act, play_random_game, play_script, split

from engine.kaiser.cards import CARD_NAMES, parse_bid, parse_card
from engine.kaiser.game import GameState, pair_deals
from engine.kaiser.protocol import action_from_wire, action_to_wire, legal_to_wire
from engine.kaiser.rules import PRESETS, Rules

PAGAT = PRESETS["pagat"]
# No A, K, Q, J, 5H or 3S: the only kind of hand that may be thrown in.
WEAK = ["TC", "9C", "8C", "7C", "TD", "9D", "8D", "7D"]


def deal_with(seat: int, hand: list[str], pack: list[str] = PACK_32,
              seed: int = 0) -> tuple[list[list[str]], list[str]]:
    """`hand` at `seat`, the rest of the pack shuffled among the other seats (and the kitty)."""
    rest = [c for c in pack if c not in hand]
    random.Random(seed).shuffle(rest)
    hands: list[list[str]] = []
    for s in range(4):
        if s == seat:
            hands.append(list(hand))
        else:
            hands.append(rest[:8])
            rest = rest[8:]
    return hands, rest


def misdeal_game(rules: Rules = PAGAT, dealer: int = 3, seat: int = 2,
                 hand: list[str] = WEAK) -> GameState:
    first = deal_with(seat, hand)
    second = deal_with(seat, hand, seed=1)  # a weak hand again, so it can be thrown in again
    return GameState(rules, dealer=dealer, deals=ScriptedDeals(rules, [first, second]))


# --- the misdeal (pagat) ----------------------------------------------------------------------
def test_qualifying_hand_is_asked_before_bidding() -> None:
    state = misdeal_game()
    assert state.decision == "misdeal" and state.seat == 2
    assert list(state.legal_actions()) == [True, False]


def test_declining_the_misdeal_starts_the_bidding_left_of_the_dealer() -> None:
    state = misdeal_game()
    act(state, False)
    assert state.decision == "bid" and state.seat == 0
    assert state.log == []


def test_throwing_in_redeals_with_the_same_dealer() -> None:
    state = misdeal_game(dealer=1, seat=3)
    before = state.dealt
    act(state, True)
    assert state.dealer == 1
    assert state.dealt != before  # the next deal of the source: a new shuffle
    assert state.decision == "misdeal" and state.seat == 3  # the new hand is weak too
    record = state.log[0].to_dict()
    assert record["misdeal"] == {"seat": 3}
    assert record["dealer"] == 1 and record["bids"] == [] and record["tricks"] == []
    assert "points" not in record and "score" not in record
    assert state.score == [0, 0] and state.deals_played == 0
    assert state.observation(0)["deal"] == 1


@pytest.mark.parametrize("extra", ["5H", "3S", "AC", "KD", "QH", "JS"])
def test_hand_with_an_honour_5h_or_3s_is_not_asked(extra: str) -> None:
    hand = [*WEAK[:7], extra]
    state = misdeal_game(hand=hand)
    assert state.decision == "bid" and state.seat == 0


def test_presets_without_the_misdeal_never_ask() -> None:
    for name in ("official", "bga"):
        state = misdeal_game(rules=PRESETS[name])
        assert state.decision == "bid"


@pytest.mark.parametrize("dealer,order", [(2, [3, 1]), (0, [1, 3])])
def test_qualifying_seats_are_asked_in_bidding_order(dealer: int, order: list[int]) -> None:
    # 34 cards hold 16 cards below the jack (T 9 8 7 of each suit): two weak hands at once.
    rules = Rules(preset="misdeal-34", deck=34, kitty=2, lockout=45, lose_at=None,
                  low_no_trump=True, misdeal=True)
    hands = [["AC", "KC", "QC", "JC", "AD", "KD", "QD", "JD"],
             ["TC", "9C", "8C", "7C", "TD", "9D", "8D", "7D"],
             ["AH", "KH", "QH", "JH", "AS", "KS", "QS", "JS"],
             ["TH", "9H", "8H", "7H", "TS", "9S", "8S", "7S"]]
    state = GameState(rules, dealer=dealer, deals=ScriptedDeals(rules, [(hands, ["5H", "3S"])]))
    asked = []
    while state.decision == "misdeal":
        asked.append(state.seat)
        act(state, False)
    assert asked == order
    assert state.decision == "bid" and state.seat == (dealer + 1) % 4


def test_thrown_in_deals_do_not_count_towards_max_deals() -> None:
    rules = replace(PAGAT, max_deals=1)
    script = split(0, 6, True, True, bid="7")
    state = GameState(rules, dealer=3, deals=ScriptedDeals(rules, [
        deal_with(2, WEAK), (script.hands(), [])]))
    act(state, True)
    assert not state.is_terminal()
    play_script(state, script)
    assert state.is_terminal() and state.winner == 0
    assert [r["misdeal"] for r in state.records()] == [{"seat": 2}, None]
    assert state.deals_played == 1


# --- the state API ----------------------------------------------------------------------------
def test_decisions_follow_bid_trump_play() -> None:
    _, source = pair_deals(PRESETS["official"], "api", 0)
    state = GameState(PRESETS["official"], dealer=0, deals=source)
    seen = []
    while not state.log:
        if not seen or seen[-1] != state.decision:
            seen.append(state.decision)
        legal = state.legal_actions()
        state.apply(legal[1] if state.decision == "bid" and not state.bids else legal[0])
    assert seen == ["bid", "trump", "play"]


def test_saskatchewan_decisions_include_the_discard() -> None:
    _, source = pair_deals(PRESETS["saskatchewan"], "api", 0)
    state = GameState(PRESETS["saskatchewan"], dealer=0, deals=source)
    seen = []
    while not state.log:
        if not seen or seen[-1] != state.decision:
            seen.append(state.decision)
        state.apply(state.legal_actions()[0])
    assert seen[:2] == ["bid", "trump"] and seen[2:] == ["discard", "play"]


def test_terminal_state_has_no_decision_and_refuses_actions() -> None:
    state = GameState(PRESETS["official"], dealer=0, deals=pair_deals(
        PRESETS["official"], "t", 0)[1])
    play_random_game(state, random.Random(1))
    assert state.is_terminal() and state.decision is None
    assert list(state.legal_actions()) == []
    assert state.winner in (0, 1, None)
    with pytest.raises(ValueError):
        state.apply(parse_bid("7"))


def test_records_hold_every_finished_deal_in_replay_form() -> None:
    state = GameState(PRESETS["bga"], dealer=2, deals=pair_deals(PRESETS["bga"], "r", 0)[1])
    play_random_game(state, random.Random(2))
    records = state.records()
    assert len(records) == len(state.log) >= 1
    assert records[-1]["score"] == state.score
    json.dumps(records)  # plain JSON


def test_pair_deals_repeat_for_the_same_seed_and_pair() -> None:
    rules = PRESETS["saskatchewan"]
    first = pair_deals(rules, "s", 2)
    second = pair_deals(rules, "s", 2)
    assert first[0] == second[0]
    assert [first[1]() for _ in range(5)] == [second[1]() for _ in range(5)]
    other = pair_deals(rules, "s", 3)[1]
    assert [other() for _ in range(3)] != [pair_deals(rules, "s", 2)[1]() for _ in range(3)]


# --- observation ----------------------------------------------------------------------------------
def visible_cards(observation: dict[str, object]) -> set[str]:
    text = json.dumps(observation)
    return {name for name in CARD_NAMES if f'"{name}"' in text}


def assert_hides_other_hands(state: GameState) -> None:
    played = {CARD_NAMES[c] for _, cards, _ in state.tricks for c in cards}
    played |= {CARD_NAMES[c] for c in state.trick}
    for seat in range(4):
        observation = state.observation(seat)
        own = {CARD_NAMES[c] for c in range(40) if state.hands[seat] >> c & 1}
        assert observation["seat"] == seat
        assert set(observation["hand"]) == own
        assert visible_cards(observation) <= own | played, (seat, observation)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_observation_never_shows_another_seats_hand(preset: str) -> None:
    rules = PRESETS[preset]
    rng = random.Random(preset)
    state = GameState(rules, dealer=1, deals=pair_deals(rules, preset, 0)[1])
    steps = 0
    while not state.is_terminal() and steps < 400:
        assert_hides_other_hands(state)
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
        steps += 1
    assert steps > 40


def test_observation_hides_the_kitty_from_everyone_but_the_contractor_after_pickup() -> None:
    rules = PRESETS["saskatchewan"]
    hands, kitty = deal_with(0, PACK_34[:8], pack=PACK_34, seed=4)
    state = GameState(rules, dealer=3, deals=ScriptedDeals(rules, [(hands, kitty)]))
    for seat in range(4):
        assert not set(kitty) & visible_cards(state.observation(seat))
    for text in ("8", "pass", "pass", "pass"):
        act(state, parse_bid(text))
    act(state, 1)
    assert set(kitty) <= set(state.observation(0)["hand"])
    for seat in (1, 2, 3):
        assert not set(kitty) & visible_cards(state.observation(seat))


def test_observation_shows_the_public_state() -> None:
    state = GameState(PRESETS["official"], dealer=3, deals=pair_deals(
        PRESETS["official"], "o", 0)[1], game=5)
    for text in ("pass", "8", "pass", "pass"):
        act(state, parse_bid(text))
    act(state, 0)
    observation = state.observation(2)
    assert set(observation) == {"game", "deal", "seat", "dealer", "score", "hand", "bids",
                                "contract", "tricks", "trick"}  # the protocol's state
    assert observation["game"] == 5 and observation["deal"] == 0 and observation["dealer"] == 3
    assert observation["bids"][1] == {"seat": 1, "bid": "8"}
    assert observation["contract"] == {"seat": 1, "bid": "8", "trump": "C"}
    assert observation["trick"] == {"leader": 1, "cards": []}
    assert observation["score"] == [0, 0] and observation["tricks"] == []


# --- the protocol boundary ------------------------------------------------------------------------
def trump_state() -> GameState:
    """Official, seat 0 bid 7 in spades and leads; seats 1 and 3 hold no clubs."""
    hands = [["AC", "QC", "JC", "TC", "9C", "8C", "7C", "AD"],
             ["7D", "KD", "QD", "JD", "8S", "AH", "KH", "QH"],
             ["KC", "TD", "9D", "8D", "JH", "TH", "9H", "8H"],
             ["9S", "AS", "KS", "QS", "JS", "TS", "3S", "5H"]]
    rules = PRESETS["official"]
    state = GameState(rules, dealer=3, deals=ScriptedDeals(rules, [(hands, [])]))
    return state


def test_wire_bids_are_checked_against_the_bidding() -> None:
    state = trump_state()
    assert action_from_wire(state, "8N") == parse_bid("8N")
    act(state, parse_bid("8N"))
    for value, reason in (("8", "not allowed"), ("8N", "not allowed"), ("6", "not allowed"),
                          ("13", "not allowed"), ("9L", "not allowed"), ("9X", "not a bid"),
                          (9, "not a bid"), (None, "not a bid")):
        with pytest.raises(ValueError, match=reason):
            action_from_wire(state, value)
    assert action_from_wire(state, "pass") == parse_bid("pass")
    assert legal_to_wire(state, state.legal_actions())[:3] == ["pass", "9", "9N"]


def test_wire_forced_dealer_may_not_pass() -> None:
    state = trump_state()
    for _ in range(3):
        act(state, parse_bid("pass"))
    with pytest.raises(ValueError, match="not allowed"):
        action_from_wire(state, "pass")


def test_wire_trump_must_be_a_suit_letter() -> None:
    state = trump_state()
    for text in ("7", "pass", "pass", "pass"):
        act(state, parse_bid(text))
    assert state.decision == "trump"
    assert action_from_wire(state, "S") == 3
    assert legal_to_wire(state, state.legal_actions()) == ["C", "D", "H", "S"]
    for value in ("s", "N", "", "SS", 3, None, ["S"]):
        with pytest.raises(ValueError, match="not a suit"):
            action_from_wire(state, value)


def test_wire_cards_must_be_in_hand_and_follow_suit() -> None:
    state = trump_state()
    for text in ("7", "pass", "pass", "pass"):
        act(state, parse_bid(text))
    act(state, 3)
    assert legal_to_wire(state, state.legal_actions())[0] == "AC"
    with pytest.raises(ValueError, match="may not be played"):
        action_from_wire(state, "KC")  # seat 2's card
    act(state, action_from_wire(state, "AC"))
    act(state, action_from_wire(state, "8S"))
    assert legal_to_wire(state, state.legal_actions()) == ["KC"]
    with pytest.raises(ValueError, match="may not be played"):
        action_from_wire(state, "JH")  # in hand, but seat 2 must follow clubs
    for value in ("10C", "kc", "", 21, None):
        with pytest.raises(ValueError, match="not a card"):
            action_from_wire(state, value)
    assert action_from_wire(state, "KC") == parse_card("KC")


def kitty_state() -> GameState:
    rules = PRESETS["saskatchewan"]
    hands = [["5H", "AC", "KC", "QC", "JC", "TC", "9C", "8C"],
             ["7C", "AD", "KD", "QD", "JD", "TD", "9D", "8D"],
             ["7D", "AH", "KH", "QH", "JH", "TH", "9H", "8H"],
             ["7H", "AS", "KS", "QS", "JS", "TS", "9S", "8S"]]
    state = GameState(rules, dealer=3, deals=ScriptedDeals(rules, [(hands, ["3S", "7S"])]))
    for text in ("7N", "pass", "pass", "pass"):
        act(state, parse_bid(text))
    assert state.decision == "discard" and state.seat == 0
    return state


def test_wire_discards_are_two_distinct_cards_of_the_hand_never_5h_or_3s() -> None:
    state = kitty_state()
    assert action_from_wire(state, ["7S", "AC"]) == tuple(sorted(map(parse_card, ["7S", "AC"])))
    wire = legal_to_wire(state, state.legal_actions())
    assert "5H" not in wire and "3S" not in wire and "7S" in wire and len(wire) == 8
    for value, reason in ((["5H", "AC"], "never be discarded"),
                          (["3S", "AC"], "never be discarded"),
                          (["AD", "AC"], "not in the hand"),
                          (["AC", "AC"], "twice"),
                          (["AC"], "list of 2"), (["AC", "KC", "QC"], "list of 2"),
                          ("AC KC", "list of 2"), (None, "list of 2"),
                          (["AC", "XX"], "not a card")):
        with pytest.raises(ValueError, match=reason):
            action_from_wire(state, value)


def test_wire_misdeal_answer_is_a_boolean() -> None:
    state = misdeal_game()
    assert action_from_wire(state, True) is True
    assert action_from_wire(state, False) is False
    assert legal_to_wire(state, state.legal_actions()) == [True, False]
    for value in (1, 0, "true", None, "yes"):
        with pytest.raises(ValueError, match="true or false"):
            action_from_wire(state, value)


def test_wire_actions_after_the_game_are_refused() -> None:
    state = GameState(PRESETS["official"], dealer=0, deals=pair_deals(
        PRESETS["official"], "end", 0)[1])
    play_random_game(state, random.Random(3))
    with pytest.raises(ValueError, match="no decision"):
        action_from_wire(state, "pass")


@pytest.mark.parametrize("decision,action,wire", [
    ("play", "AS", "AS"), ("bid", "7N", "7N"), ("trump", 2, "H"), ("misdeal", True, True)])
def test_actions_go_to_the_wire_in_protocol_form(decision: str, action: object,
                                                 wire: object) -> None:
    value = parse_card(action) if decision == "play" else parse_bid(action) \
        if decision == "bid" else action
    assert action_to_wire(decision, value) == wire  # type: ignore[arg-type]
    assert action_to_wire("discard", (parse_card("7S"), parse_card("AC"))) == ["7S", "AC"]
