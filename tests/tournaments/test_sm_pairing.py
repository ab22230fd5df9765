"""Pairing in matches of three (tournaments.triples): round robin balance, Swiss without
repeated triples while avoidable, knockout groups whose winner goes through."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from tournaments import triples


def _pair_counts(rounds: list[list[tuple]]) -> Counter:
    return Counter(frozenset(p) for r in rounds for t in r for p in combinations(t, 2))


@pytest.mark.parametrize("n", [*range(3, 14), 15, 16, 17, 19, 21, 25])
def test_round_robin_every_pair_meets_equally_often_and_nobody_twice_a_round(n: int) -> None:
    names = [f"bot{i}" for i in range(n)]
    rounds = triples.round_robin_triples(entrants=names)
    counts = _pair_counts(rounds)
    assert set(counts) == {frozenset(p) for p in combinations(names, 2)}
    assert len(set(counts.values())) == 1
    for r in rounds:
        seated = [p for t in r for p in t]
        assert len(seated) == len(set(seated))
        assert all(len(set(t)) == 3 for t in r)
    played = Counter(p for r in rounds for t in r for p in t)
    assert len(set(played.values())) == 1  # hence nobody's byes change the standings


def test_round_robin_plays_all_triples_of_a_small_field_and_fewer_of_a_large_one() -> None:
    assert len(triples.balanced_triples(8)) == 56  # every triple: each pair meets 6 times
    assert len(triples.balanced_triples(9)) < 84
    assert len(triples.balanced_triples(13)) == 26  # a Steiner system: each pair once
    assert _pair_counts([[t] for t in triples.balanced_triples(13)]).most_common(1)[0][1] == 1


def test_round_robin_repeats_meet_again_with_the_sides_rotated() -> None:
    rounds = triples.round_robin_triples(entrants=["a", "b", "c", "d"], repeats=2)
    first, second = rounds[:len(rounds) // 2], rounds[len(rounds) // 2:]
    assert _pair_counts(rounds) == Counter({p: 4 for p in _pair_counts(first)})
    assert [sorted(t) for r in first for t in r] == [sorted(t) for r in second for t in r]
    assert [t for r in first for t in r] != [t for r in second for t in r]


def _repeat_free_exists(keys: list, met: set, byes: int) -> bool:
    """Brute force: can some grouping (any byes) avoid every triple met before?"""
    def split(rest: list) -> bool:
        if not rest:
            return True
        first = rest[0]
        for i, j in combinations(range(1, len(rest)), 2):
            if frozenset((first, rest[i], rest[j])) not in met and split(
                    [k for x, k in enumerate(rest) if x not in (0, i, j)]):
                return True
        return False
    return any(split([k for k in keys if k not in out]) for out in combinations(keys, byes))


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 8, 9])
def test_swiss_repeats_a_triple_only_when_no_grouping_avoids_it(n: int) -> None:
    rng = random.Random(n)
    keys = list(range(n))
    points = dict.fromkeys(keys, 0.0)
    played: list[tuple] = []
    had_bye: list[int] = []
    for _ in range(6):
        standings = [triples.Standing(k, points[k], -k) for k in keys]
        round_triples, byes = triples.swiss_triples(standings=standings, played=played,
                                                    had_bye=had_bye)
        met = {frozenset(t) for t in played}
        seated = [p for t in round_triples for p in t] + byes
        assert sorted(seated) == keys and len(byes) == n % 3
        repeats = [t for t in round_triples if frozenset(t) in met]
        if repeats:
            assert not _repeat_free_exists(keys, met, n % 3)
        for t in round_triples:
            share = [rng.random() for _ in t]
            for k, s in zip(t, share, strict=True):
                points[k] += s / sum(share)
        played += round_triples
        had_bye += byes


def test_swiss_groups_neighbours_in_the_standings_and_gives_the_lowest_the_bye() -> None:
    standings = [triples.Standing(k, p) for k, p in
                 [("a", 3.0), ("b", 2.5), ("c", 2.0), ("d", 1.5), ("e", 1.0), ("f", 0.5),
                  ("g", 0.0)]]
    round_triples, byes = triples.swiss_triples(standings=standings)
    assert round_triples == [("a", "b", "c"), ("d", "e", "f")] and byes == ["g"]
    again, byes = triples.swiss_triples(standings=standings, played=[("a", "b", "c")],
                                        had_bye=["g"])
    assert ("a", "b", "c") not in again and byes == ["f"]


@pytest.mark.parametrize("n", range(3, 41))
def test_knockout_brings_any_field_to_one_champion_in_groups_of_three(n: int) -> None:
    rounds = triples.knockout_plan(n)
    twos = 0
    players = n
    for groups in rounds:
        assert sum(len(g.members) for g in groups) == players
        assert all(len(g.members) in (1, 3) for g in groups)
        twos += sum(g.advance == 2 for g in groups)
        players = sum(g.advance for g in groups)
    assert players == 1
    assert twos == (1 if n % 2 == 0 else 0)  # an even field needs one group sending two


def test_knockout_byes_go_to_the_top_seeds_and_groups_are_snake_seeded() -> None:
    groups = triples.knockout_groups(players=list("abcdefghijk"))  # 11: down to 9
    assert [g.members for g in groups if g.bye] == [(x,) for x in "abcdefgh"]
    assert [g.members for g in groups if not g.bye] == [("i", "j", "k")]
    groups = triples.knockout_groups(players=list("abcdefg"))  # 7: down to 3
    assert [g.members for g in groups if not g.bye] == [("b", "e", "f"), ("c", "d", "g")]
