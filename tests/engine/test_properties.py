"""Property tests over seeded games (random and greedy players, every preset): every action is
legal, cards are conserved, points add up to 10, scores follow the rules (re-derived here from
docs/rules.md, not from the engine), replays re-validate and duplicate games share deals."""

from __future__ import annotations

import random
from typing import Any

from helpers import PACK_32, PACK_34
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.builtin import RandomPlayer, resolve_player
from engine.kaiser.cards import CARD_NAMES
from engine.kaiser.game import GameState, pair_deals
from engine.kaiser.greedy import GreedyPlayer
from engine.kaiser.match import run_match
from engine.kaiser.rules import PRESETS, Rules
from engine.players import Player, TimeControl
from engine.validate import validate_replay

PROPERTY = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
presets = st.sampled_from(sorted(PRESETS))
seeds = st.integers(min_value=0, max_value=2**32)
kinds = st.lists(st.sampled_from(["random", "greedy"]), min_size=4, max_size=4)


def players_of(rules: Rules, seed: int, names: list[str]) -> list[Player]:
    players: list[Player] = []
    for seat, name in enumerate(names):
        player = GreedyPlayer() if name == "greedy" else RandomPlayer()
        player.start(seat=seat, rules=rules, games=2, time=TimeControl(), seed=f"{seed}/{seat}")
        players.append(player)
    return players


def cards_in(mask: int) -> set[str]:
    return {CARD_NAMES[c] for c in range(40) if mask >> c & 1}


def check_conserved(state: GameState, pack: set[str]) -> None:
    """Mid-deal: hands, the kitty (until picked up), discards and played cards are the pack."""
    held = [cards_in(h) for h in state.hands]
    played = [CARD_NAMES[c] for _, cards, _ in state.tricks for c in cards]
    played += [CARD_NAMES[c] for c in state.trick]
    discarded = [CARD_NAMES[c] for c in state.discards]
    kitty = cards_in(state.kitty) if state.decision in ("misdeal", "bid", "trump") else set()
    everything = [c for hand in held for c in hand] + played + discarded + sorted(kitty)
    assert sorted(everything) == sorted(pack), state.decision


def play_checked(state: GameState, players: list[Player], pack: set[str]) -> None:
    steps = 0
    while not state.is_terminal():
        legal = list(state.legal_actions())
        assert legal, state.decision
        action = players[state.seat].act(state, legal)
        assert action in legal, (state.decision, action, legal)
        state.apply(action)
        steps += 1
        if steps % 7 == 0 and not state.is_terminal():
            check_conserved(state, pack)


def expected_points(record: dict[str, Any]) -> list[int]:
    points = [0, 0]
    for trick in record["tricks"]:
        team = trick["winner"] % 2
        points[team] += 1 + 5 * ("5H" in trick["cards"]) - 3 * ("3S" in trick["cards"])
    return points


def expected_delta(rules: Rules, record: dict[str, Any], before: list[int]) -> list[int]:
    bid = record["contract"]["bid"]
    number = int(bid.rstrip("NL"))
    double = 2 if bid[-1] in "NL" else 1
    bidders = record["contract"]["seat"] % 2
    others = 1 - bidders
    points = record["points"]
    delta = [0, 0]
    delta[bidders] = points[bidders] * double if points[bidders] >= number else -number * double
    delta[others] = points[others] if before[others] < rules.lockout else min(points[others], 0)
    return delta


def check_deal(rules: Rules, record: dict[str, Any], pack: list[str]) -> None:
    hands, kitty = record["hands"], record["kitty"]
    assert [len(h) for h in hands] == [8, 8, 8, 8] and len(kitty) == rules.kitty
    assert sorted(c for h in [*hands, kitty] for c in h) == sorted(pack)
    if record["misdeal"] is not None:
        assert record["bids"] == [] and record["tricks"] == []
        return
    played = [c for t in record["tricks"] for c in t["cards"]]
    assert len(record["tricks"]) == 8 and len(set(played)) == 32
    assert sorted(played + record["discards"]) == sorted(pack)
    assert not {"5H", "3S"} & set(record["discards"])
    contractor = record["contract"]["seat"]
    leader = contractor
    by_seat: list[list[str]] = [[], [], [], []]
    for trick in record["tricks"]:
        assert trick["leader"] == leader
        for i, card in enumerate(trick["cards"]):
            by_seat[(leader + i) % 4].append(card)
        leader = trick["winner"]
    for seat in range(4):
        dealt = set(hands[seat])
        if seat == contractor:
            dealt = (dealt | set(kitty)) - set(record["discards"])
        assert set(by_seat[seat]) == dealt
    assert record["points"] == expected_points(record)
    assert sum(record["points"]) == 10


def check_game(rules: Rules, state: GameState) -> None:
    pack = PACK_34 if rules.deck == 34 else PACK_32
    score = [0, 0]
    target = rules.target
    played = 0
    records = state.records()
    for number, record in enumerate(records):
        check_deal(rules, record, pack)
        if record["misdeal"] is not None:
            continue
        played += 1
        delta = expected_delta(rules, record, score)
        assert record["delta"] == delta
        score = [score[0] + delta[0], score[1] + delta[1]]
        assert record["score"] == score
        bidders = record["contract"]["seat"] % 2
        made = record["points"][bidders] >= int(record["contract"]["bid"].rstrip("NL"))
        if made and record["contract"]["trump"] is None and rules.target_after_no_trump:
            target = rules.target_after_no_trump
        winner = game_winner(rules, score, bidders, target)
        last = number == len(records) - 1
        if winner is None and played == rules.max_deals:
            winner = None if score[0] == score[1] else int(score[1] > score[0])
            assert last and state.winner == winner
        elif winner is not None:
            assert last and state.winner == winner
        else:
            assert not last
    assert state.score == score


def game_winner(rules: Rules, score: list[int], bidders: int, target: int) -> int | None:
    others = 1 - bidders
    lose_at = rules.lose_at
    if score[bidders] >= target:
        return bidders
    if lose_at is not None and score[bidders] <= lose_at:
        return others
    if score[others] >= target:
        return others
    if lose_at is not None and score[others] <= lose_at:
        return bidders
    return None


@PROPERTY
@given(preset=presets, seed=seeds, names=kinds)
def test_seeded_playouts_are_legal_conserve_cards_and_score_by_the_rules(
        preset: str, seed: int, names: list[str]) -> None:
    rules = PRESETS[preset]
    dealer, deals = pair_deals(rules, str(seed), 0)
    state = GameState(rules, dealer=dealer, deals=deals)
    pack = set(PACK_34 if rules.deck == 34 else PACK_32)
    play_checked(state, players_of(rules, seed, names), pack)
    check_game(rules, state)


@PROPERTY
@given(preset=presets, seed=seeds, max_deals=st.integers(min_value=1, max_value=4))
def test_short_games_end_at_max_deals(preset: str, seed: int, max_deals: int) -> None:
    rules = Rules(**{**PRESETS[preset].to_dict(), "max_deals": max_deals})
    dealer, deals = pair_deals(rules, str(seed), 0)
    state = GameState(rules, dealer=dealer, deals=deals)
    play_checked(state, players_of(rules, seed, ["random"] * 4),
                 set(PACK_34 if rules.deck == 34 else PACK_32))
    check_game(rules, state)
    assert state.deals_played <= max_deals


@settings(max_examples=12, deadline=None)
@given(preset=presets, seed=seeds, a=st.sampled_from(["random", "greedy"]),
       b=st.sampled_from(["random", "greedy"]))
def test_match_replays_revalidate_and_duplicates_share_deals(preset: str, seed: int, a: str,
                                                             b: str) -> None:
    rules = PRESETS[preset]
    replay = run_match(resolve_player(f"builtin:{a}"), resolve_player(f"builtin:{b}"),
                       games=4, seed=str(seed), rules=rules)
    assert validate_replay(replay) == []
    games = replay["games"]
    for pair in (0, 2):
        first, second = games[pair]["deals"], games[pair + 1]["deals"]
        assert first[0]["dealer"] == second[0]["dealer"]
        for x, y in zip(first, second, strict=False):
            assert (x["hands"], x["kitty"]) == (y["hands"], y["kitty"])
    for game in games:
        assert game["result"]["score"] == game["deals"][-1]["score"]


@settings(max_examples=20, deadline=None)
@given(preset=presets, seed=seeds)
def test_observations_never_show_another_seats_hand(preset: str, seed: int) -> None:
    rules = PRESETS[preset]
    dealer, deals = pair_deals(rules, str(seed), 0)
    state = GameState(rules, dealer=dealer, deals=deals)
    rng = random.Random(seed)
    for _ in range(60):
        if state.is_terminal():
            break
        public = {CARD_NAMES[c] for _, cards, _ in state.tricks for c in cards}
        public |= {CARD_NAMES[c] for c in state.trick}
        for seat in range(4):
            observation = state.observation(seat)
            own = cards_in(state.hands[seat])
            assert set(observation["hand"]) == own
            shown = {c for t in observation["tricks"] for c in t["cards"]}
            if observation["trick"]:
                shown |= set(observation["trick"]["cards"])
            assert shown <= public
            for other in range(4):
                if other != seat:
                    hidden = cards_in(state.hands[other]) - own
                    assert not hidden & (set(observation["hand"]) | shown)
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])


# --- untrusted replays never crash the validator -------------------------------------------------
def leaf_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    paths = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            paths += leaf_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            paths += leaf_paths(item, (*path, index))
    return paths


SMALL_REPLAY = run_match(resolve_player("builtin:random"), resolve_player("builtin:random"),
                         games=2, seed="fuzz", rules=Rules(**{**PRESETS["saskatchewan"].to_dict(),
                                                             "max_deals": 2}))
PATHS = leaf_paths(SMALL_REPLAY)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-100, 100) | st.floats(allow_nan=False)
    | st.text(max_size=4) | st.sampled_from(["AS", "5H", "3S", "pass", "12N", "7L", "H", "A"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                               max_size=3),
    max_leaves=6)


def _outbid(path: tuple[Any, ...]) -> bool:
    """Whether `path` is within a bid of SMALL_REPLAY's that another bid outbid."""
    if "bids" not in path or path.index("bids") + 1 >= len(path):
        return False
    at = path.index("bids")
    deal = SMALL_REPLAY
    for key in path[:at]:
        deal = deal[key]
    bid = deal["bids"][path[at + 1]]
    contract = deal.get("contract") or {}
    return (bid["seat"], bid["bid"]) != (contract.get("seat"), contract.get("bid"))


@settings(max_examples=150, deadline=None)
@given(index=st.integers(min_value=1, max_value=len(PATHS) - 1), value=json_values)
def test_validator_reports_any_corruption_without_crashing(index: int, value: Any) -> None:
    import copy

    replay = copy.deepcopy(SMALL_REPLAY)
    *parents, last = PATHS[index]
    target = replay
    for key in parents:
        target = target[key]
    original = target[last]
    target[last] = value
    errors = validate_replay(replay)
    assert isinstance(errors, list) and all(isinstance(e, str) and "\n" not in e for e in errors)
    # A changed value of the same type is caught, except where the replay stays consistent:
    # the players' names, the seeded-dealing marker, rule parameters that did not come into play,
    # and a bid that did not become the contract: another legal bid that leaves the contract as
    # it was (a deal's first bid "10N" made "pass" or "7L") is a history the game allows, so a
    # replay of it is valid. The contract's own bid is still caught.
    free = PATHS[index][0] in ("players", "rules", "dealing") or _outbid(PATHS[index])
    if value != original and type(value) is type(original) and not free:
        assert errors, (PATHS[index], value)


@settings(max_examples=25, deadline=None)
@given(preset=presets, seed=seeds, fault_at=st.integers(min_value=0, max_value=400),
       side=st.sampled_from(["A", "B"]))
def test_forfeit_at_any_decision_gives_a_valid_replay(preset: str, seed: int, fault_at: int,
                                                      side: str) -> None:
    from helpers import faulty_b

    faulty = faulty_b(fault_at)
    sides = (faulty, resolve_player("builtin:random"))
    a, b = sides if side == "A" else sides[::-1]
    replay = run_match(a, b, games=4, seed=str(seed), rules=PRESETS[preset])
    assert validate_replay(replay) == []
    forfeit = replay["result"]["forfeit"]
    if forfeit is None:
        return
    last = replay["games"][-1]
    assert forfeit["player"] == side and last["result"]["forfeit"] == forfeit
    assert not {"points", "delta", "score"} & set(last["deals"][-1])
    contract = last["deals"][-1]["contract"]
    if contract is not None and contract["trump"] is not None:
        assert contract["bid"][-1].isdigit()  # a suit was named for a suit bid
    other = "B" if side == "A" else "A"
    listed = sum(1 for g in replay["games"] if g["result"]["winner"] is not None
                 and g["seats"][g["result"]["winner"]] == other)
    assert replay["result"]["games"][other] == listed + 4 - len(replay["games"])
