"""The ladder's pairing policy and the tournament formats' pairings."""

import random
from collections import Counter
from itertools import combinations

from ladder.pairing import Entrant, ladder_groups
from tournaments.pairing import (
    Standing,
    knockout_first_round,
    knockout_next_round,
    round_robin_rounds,
    swiss_round,
)


def _simulate_ladder(entrants, rounds, seed, slots=2):
    rng = random.Random(seed)
    games = Counter()
    opponents = Counter()
    for _ in range(rounds):
        pool = [Entrant(e.key, e.rating, games[e.key]) for e in entrants]
        for a, b in ladder_groups(size=2, entrants=pool, slots=slots, rng=rng):
            assert a != b
            games[a] += 1
            games[b] += 1
            opponents[frozenset((a, b))] += 1
    return games, opponents


def test_ladder_never_pairs_a_bot_with_itself_and_spreads_games_evenly():
    entrants = [Entrant(f"b{i}", 1500 + 37 * i) for i in range(9)]
    games, _ = _simulate_ladder(entrants, 300, seed=1)
    assert set(games) == {e.key for e in entrants}
    # ~133 games each: the gap stays a handful of games, it does not grow with time
    assert max(games.values()) - min(games.values()) <= 4


def test_ladder_prefers_close_ratings_but_still_explores():
    entrants = [Entrant(f"b{i}", 1000 + 100 * i) for i in range(10)]
    _, opponents = _simulate_ladder(entrants, 1000, seed=2)
    gap = {p: abs(int(a[1:]) - int(b[1:])) for p in opponents for a, b in [tuple(p)]}
    close = sum(n for p, n in opponents.items() if gap[p] <= 2)
    far = sum(n for p, n in opponents.items() if gap[p] >= 6)
    assert close > 4 * far
    assert far > 0


def test_a_new_version_gets_the_first_game():
    entrants = [Entrant(f"old{i}", 1500, games=50) for i in range(6)] + [Entrant("new", 1500)]
    for seed in range(10):
        pairs = ladder_groups(size=2, entrants=entrants, slots=1, rng=random.Random(seed))
        assert "new" in pairs[0]


def test_a_bot_with_matches_pending_gets_no_more():
    entrants = [Entrant("slow", 1500, pending=2), Entrant("a", 1500), Entrant("b", 1500)]
    pairs = ladder_groups(size=2, entrants=entrants, slots=5, rng=random.Random(0))
    assert pairs
    assert all("slow" not in p for p in pairs)
    per_bot = Counter(k for p in pairs for k in p)
    assert max(per_bot.values()) <= 2


def test_a_ladder_of_one_bot_makes_no_pairs():
    assert ladder_groups(size=2, entrants=[Entrant("solo", 1500)], slots=3,
                         rng=random.Random(0)) == []


def test_round_robin_meets_every_pair_k_times_from_both_sides():
    players = ["a", "b", "c", "d", "e"]
    rounds = round_robin_rounds(entrants=players, repeats=2)
    matches = [p for r in rounds for p in r]
    assert Counter(frozenset(p) for p in matches) == {
        frozenset(p): 2 for p in combinations(players, 2)
    }
    assert Counter(matches) == {p: 1 for p in matches}
    for r in rounds:
        in_round = [k for p in r for k in p]
        assert len(in_round) == len(set(in_round)) == 4  # one of five sits out


def test_swiss_pairs_by_score_without_rematches_and_gives_one_bye():
    standings = [Standing("a", 2), Standing("b", 2), Standing("c", 1), Standing("d", 1),
                 Standing("e", 0)]
    pairs, bye = swiss_round(standings=standings, played=[("a", "b")], had_bye=["e"])
    assert bye == "d"
    assert {frozenset(p) for p in pairs} == {frozenset("ac"), frozenset("be")}


def test_swiss_falls_back_to_a_rematch_only_when_nothing_else_is_possible():
    standings = [Standing("a", 1), Standing("b", 0)]
    pairs, bye = swiss_round(standings=standings, played=[("a", "b")])
    assert (pairs, bye) == ([("a", "b")], None)


def test_knockout_seeds_meet_in_bracket_order_with_byes_for_the_top_seeds():
    first = knockout_first_round(seeds=["s1", "s2", "s3", "s4", "s5"])
    assert first == [("s1", None), ("s4", "s5"), ("s2", None), ("s3", None)]
    assert knockout_next_round(winners=["s1", "s5", "s2", "s3"]) == [("s1", "s5"), ("s2", "s3")]


def test_knockout_of_eight_keeps_the_top_two_apart_until_the_final():
    first = knockout_first_round(seeds=list(range(1, 9)))
    assert first == [(1, 8), (4, 5), (2, 7), (3, 6)]


def test_by_information_a_pair_that_has_met_least_is_drawn_most():
    entrants = [Entrant("me", 1500, games=0)] + [Entrant(f"o{i}", 1500, games=30)
                                                  for i in range(3)]
    met = {"me": {"o0": 9, "o1": 1, "o2": 0}}
    drawn = Counter()
    rng = random.Random(3)
    for _ in range(600):
        (pair,) = ladder_groups(size=2, entrants=entrants, slots=1, rng=rng,
                               met=lambda key: met.get(key, {}))
        drawn[next(k for k in pair if k != "me")] += 1
    assert drawn["o2"] > drawn["o1"] > drawn["o0"] > 0


def test_by_information_a_new_version_meets_the_whole_field_and_a_settled_one_its_neighbours():
    # (the field has more games: "me" is drawn first)
    field = [Entrant(f"b{i}", 1000 + 100 * i, games=50) for i in range(10)]
    for games, far_share in ((0, (0.2, 1.0)), (40, (0.0, 0.05))):
        me = Entrant("me", 1450, games=games)
        rng = random.Random(4)
        gaps = []
        for _ in range(500):
            (pair,) = ladder_groups(size=2, entrants=[me, *field], slots=1, rng=rng, explore=0.0)
            other = next(e for e in field if e.key in pair)
            gaps.append(abs(other.rating - me.rating))
        share = sum(g >= 300 for g in gaps) / len(gaps)  # three steps of the field or more
        assert far_share[0] <= share <= far_share[1], (games, share)


def test_by_information_two_bots_of_one_owner_still_never_meet():
    entrants = [Entrant("a", 1500, owner="x"), Entrant("b", 1500, owner="x"),
                Entrant("c", 1900, games=50, owner="y")]
    rng = random.Random(5)
    for _ in range(50):
        for pair in ladder_groups(size=2, entrants=entrants, slots=1, rng=rng):
            assert set(pair) != {"a", "b"}
