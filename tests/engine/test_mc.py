"""builtin:mc (engine/kaiser/mc.py), its sampler (engine/kaiser/sampling.py), the noisy greedy
players (engine/kaiser/strength.py) and the uploadable copy of mc (bots/examples/mc)."""

from __future__ import annotations

import random
import zipfile
from dataclasses import replace
from typing import Any

import pytest

from engine.builtin import BuiltinFactory, resolve_player
from engine.kaiser.cards import (
    FIVE_HEARTS,
    NO_TRUMP,
    SUIT_MASKS,
    THREE_SPADES,
    cards_mask,
    deck,
    mask_cards,
)
from engine.kaiser.game import GameState, pair_deals
from engine.kaiser.greedy import GreedyPlayer, hand_points
from engine.kaiser.match import run_match
from engine.kaiser.mc import MCPlayer, fast_hand_points
from engine.kaiser.rules import PRESETS, Rules
from engine.kaiser.sampling import EXTRA, sample_deal, view_from_observation
from engine.kaiser.strength import NoisyGreedyPlayer
from engine.players import TimeControl
from engine.runner import replay_json
from engine.validate import validate_replay
from tests.engine.sandbox_support import EXAMPLES, program

OFFICIAL = PRESETS["official"]
# Short games keep these tests quick: a game ends after three deals at the latest.
SHORT = {name: replace(rules, max_deals=3) for name, rules in PRESETS.items()}
LIGHT_MC = BuiltinFactory("mc", "1", MCPlayer, {"effort": 0.1})


def started(player: MCPlayer | GreedyPlayer, rules: Rules, seed: str = "t") -> Any:
    player.start(seat=0, rules=rules, games=2, time=TimeControl(), seed=seed)
    return player


# --- playing -------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["official", "saskatchewan", "pagat"])
@pytest.mark.parametrize("opponent", ["builtin:greedy", "builtin:random"])
def test_mc_finishes_a_match_with_every_action_legal(preset: str, opponent: str) -> None:
    replay = run_match(LIGHT_MC, resolve_player(opponent), games=2, seed=f"legal-{preset}",
                       rules=SHORT[preset])

    assert replay["result"]["forfeit"] is None
    # The runner trusts built-in players; the validator re-checks every bid, discard and card.
    assert validate_replay(replay) == []


def test_mc_beats_random() -> None:
    replay = run_match(LIGHT_MC, resolve_player("builtin:random"), games=2, seed="beat")

    assert replay["result"]["games"] == {"A": 2, "B": 0}


def test_mc_plays_the_same_match_again_for_the_same_seed() -> None:
    first = run_match(LIGHT_MC, resolve_player("builtin:greedy"), games=2, seed="again",
                      rules=SHORT["saskatchewan"])
    second = run_match(LIGHT_MC, resolve_player("builtin:greedy"), games=2, seed="again",
                       rules=SHORT["saskatchewan"])

    assert replay_json(first) == replay_json(second)


def test_builtin_mc_is_registered() -> None:
    factory = resolve_player("builtin:mc")

    assert (factory.name, type(factory(0))) == ("mc", MCPlayer)


# --- no cheating ---------------------------------------------------------------------------------
class ObservationOnly:
    """What a seat may see of a game, and nothing else: no hands, no deal source."""

    def __init__(self, state: GameState) -> None:
        self._obs = state.observation(state.seat)
        self.seat = state.seat
        self.decision = state.decision
        self.rules = state.rules

    def observation(self, seat: int) -> dict[str, Any]:
        assert seat == self.seat, "asked for another seat's observation"
        return self._obs


def greedy_until(state: GameState, *, seat: int, tricks: int) -> list[Any]:
    """Play greedy for everyone until `seat` must play with `tricks` tricks done; the actions."""
    greedy = started(GreedyPlayer(), state.rules)
    actions = []
    while not (state.decision == "play" and state.seat == seat and len(state.tricks) >= tricks
               and len(state.legal_actions()) > 1):
        action = greedy.act(state, state.legal_actions())
        actions.append(action)
        state.apply(action)
        assert state.deal_index == 0, "no multi-choice decision reached in the first deal"
    return actions


def same_view_other_hands(state: GameState, dealer: int, actions: list[Any], seat: int,
                          rng: random.Random) -> GameState:
    """A game with the same history as `state` in which the other seats hold other cards."""
    view = view_from_observation(state.observation(seat), state.rules)
    sampled = sample_deal(view, rng)
    hands = list(sampled[:4])
    for leader, cards, _ in state.tricks:
        for i, c in enumerate(cards):
            hands[(leader + i) % 4] |= 1 << c
    for i, c in enumerate(state.trick):
        hands[(state.leader + i) % 4] |= 1 << c
    hands[seat] = state.dealt[seat]
    other = GameState(state.rules, dealer=dealer, deals=lambda: (tuple(hands), sampled[EXTRA]))
    for action in actions:
        assert action in other.legal_actions()
        other.apply(action)
    return other


@pytest.mark.parametrize("tricks", [0, 3, 5])
def test_mc_decides_the_same_whatever_the_hidden_hands(tricks: int) -> None:
    dealer, deals = pair_deals(OFFICIAL, "hidden", 0)
    state = GameState(OFFICIAL, dealer=dealer, deals=deals)
    actions = greedy_until(state, seat=1, tricks=tricks)
    other = same_view_other_hands(state, dealer, actions, 1, random.Random(tricks))

    assert other.observation(1) == state.observation(1)
    assert [other.hands[s] for s in (0, 2, 3)] != [state.hands[s] for s in (0, 2, 3)]
    decisions = {started(MCPlayer(effort=0.3), OFFICIAL).act(s, s.legal_actions())
                 for s in (state, other)}
    assert len(decisions) == 1


def test_mc_acts_from_the_observation_alone() -> None:
    dealer, deals = pair_deals(OFFICIAL, "only", 0)
    state = GameState(OFFICIAL, dealer=dealer, deals=deals)
    greedy_until(state, seat=2, tricks=2)
    legal = list(state.legal_actions())

    # ObservationOnly has no hands at all: any peek at them would raise AttributeError.
    blind = started(MCPlayer(effort=0.3), OFFICIAL).act(ObservationOnly(state), legal)
    full = started(MCPlayer(effort=0.3), OFFICIAL).act(state, legal)
    assert blind == full and blind in legal


# --- sampling ------------------------------------------------------------------------------------
def test_sampled_deals_keep_the_own_hand_the_counts_and_the_shown_voids() -> None:
    rules = PRESETS["saskatchewan"]
    dealer, deals = pair_deals(rules, "sample", 0)
    state = GameState(rules, dealer=dealer, deals=deals)
    greedy_until(state, seat=3, tricks=4)
    view = view_from_observation(state.observation(3), rules)
    rng = random.Random(5)

    for _ in range(200):
        deal = sample_deal(view, rng)
        assert deal[3] == state.hands[3]
        assert [len(mask_cards(deal[s])) for s in range(4)] == [len(mask_cards(h))
                                                               for h in state.hands]
        assert not any(deal[s] & view.played for s in range(5))
        for s in range(4):
            for suit in range(4):
                if view.voids[s] >> suit & 1:
                    assert not deal[s] & SUIT_MASKS[suit]
        # The unknown discards (the contractor is not seat 3 here) are never 5H or 3S.
        if state.contract_seat != 3:
            assert not deal[EXTRA] & (1 << FIVE_HEARTS | 1 << THREE_SPADES)
        everything = deal[0] | deal[1] | deal[2] | deal[3] | deal[EXTRA] | view.played
        assert everything == cards_mask(deck(rules))


def test_a_seat_that_did_not_follow_suit_is_known_to_be_void() -> None:
    obs = {"game": 0, "deal": 0, "seat": 0, "dealer": 3, "score": [0, 0],
           "hand": ["AC", "KC", "QC", "JC", "TC", "9C", "8C"],
           "bids": [{"seat": 0, "bid": "7"}, {"seat": 1, "bid": "pass"},
                    {"seat": 2, "bid": "pass"}, {"seat": 3, "bid": "pass"}],
           "contract": {"seat": 0, "bid": "7", "trump": "C"},
           "tricks": [{"leader": 0, "cards": ["AH", "KH", "AD", "QH"], "winner": 0}],
           "trick": None}

    view = view_from_observation(obs, OFFICIAL)

    assert view.voids == [0, 0, 1 << 2, 0]  # seat 2 showed out of hearts
    assert view.counts == [7, 7, 7, 7]


# --- the bidding model and the noisy players -----------------------------------------------------
def test_fast_hand_points_gives_greedys_numbers() -> None:
    rng = random.Random(3)
    cards = deck(OFFICIAL)
    for _ in range(2000):
        hand = cards_mask(rng.sample(cards, 8))
        for trump in (0, 1, 2, 3, NO_TRUMP):
            assert fast_hand_points(hand, trump) == pytest.approx(hand_points(hand, trump))


def test_noisy_greedy_without_noise_plays_exactly_like_greedy() -> None:
    noisy = BuiltinFactory("greedy", "1", NoisyGreedyPlayer, {"noise": 0.0})
    plain = resolve_player("builtin:greedy")

    assert replay_json(run_match(noisy, plain, games=2, seed="n")) == \
        replay_json(run_match(plain, plain, games=2, seed="n"))


def test_more_noise_loses_more_often() -> None:
    def noisy(p: float) -> BuiltinFactory:
        return BuiltinFactory(f"noise{p}", "1", NoisyGreedyPlayer, {"noise": p})

    replay = run_match(noisy(0.0), noisy(0.6), games=40, seed="noise")

    assert validate_replay(replay) == []
    assert replay["result"]["score"] > 0.75


def test_noise_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match="noise must be between 0 and 1"):
        NoisyGreedyPlayer(noise=1.5)


# --- the uploadable bot --------------------------------------------------------------------------
def test_committed_mc_zip_matches_its_sources() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_zips", EXAMPLES / "build_zips.py")
    assert spec and spec.loader
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    with zipfile.ZipFile(EXAMPLES / "mc.zip") as archive:
        committed = {info.filename: archive.read(info) for info in archive.infolist()}

    assert committed == builder.zip_members("mc"), "run python bots/examples/build_zips.py"


@pytest.mark.sandbox
@pytest.mark.timeout(120)
def test_the_mc_bot_program_plays_a_legal_match_in_the_sandbox() -> None:
    bot = program(EXAMPLES / "mc.zip", time=TimeControl(move_ms=1000, bank_ms=10000,
                                                         startup_ms=5000))
    one_deal = replace(PRESETS["saskatchewan"], max_deals=1)

    replay = run_match(bot, resolve_player("builtin:greedy"), games=2, seed="bot",
                       rules=one_deal)

    assert replay["result"]["forfeit"] is None
    assert validate_replay(replay) == []
