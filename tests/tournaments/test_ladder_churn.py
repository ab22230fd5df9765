"""A ladder that does not churn: house bots and anchors leave each other alone, and pairs whose
result is known are scheduled rarely, unsettled pairs first."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ladder import pairing, services
from ladder.models import LadderEntry
from ladder.pairing import Entrant, ladder_groups
from matches.models import Match
from tests.tournaments import sides

pytestmark = pytest.mark.django_db


def _scheduled_pairs(ladder) -> Counter:
    return Counter(frozenset(s.version.bot.name for s in sides.sides(m))
                   for m in Match.objects.filter(ladder=ladder))


def test_the_house_bots_alone_on_the_main_ladder_are_never_scheduled(owner, make_builtin,
                                                                     builtin_version):
    house = services.house_bots_ensure()
    builtin_version("builtin:mc", name="mc", owner=house[0].bot.owner)
    main = services.ladder_main_ensure()
    for seed in range(20):
        assert services.ladder_schedule(ladder_id=main.pk, rng=random.Random(seed)) == 0
    assert not Match.objects.exists()
    assert LadderEntry.objects.filter(ladder=main, active=True).count() == 3

    make_builtin("visitor", "builtin:random")  # a bot of someone else joins: it plays the house
    assert services.ladder_schedule(ladder_id=main.pk, rng=random.Random(0)) >= 1
    pairs = _scheduled_pairs(main)
    assert pairs and all("visitor" in pair for pair in pairs)


def test_two_pinned_anchors_are_never_paired(ladder, make_builtin):
    anchors = [make_builtin(f"anchor{i}") for i in range(3)]
    for i, version in enumerate(anchors):
        services.ladder_anchor_set(ladder=ladder, version=version, rating=1400.0 + 100 * i)
    for seed in range(10):
        assert services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(seed)) == 0
    make_builtin("climber", "builtin:random", own=True)
    services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(1))
    pairs = _scheduled_pairs(ladder)
    assert pairs and all("climber" in pair for pair in pairs)


def test_a_settled_pair_on_the_site_plays_rarely_and_the_unsettled_ones_first(
    ladder, make_builtin, play_queued, settings
):
    settings.KAISER_LADDER_PAIR_SETTLED = 3
    ladder.queue_depth = 1
    ladder.save(update_fields=["queue_depth"])
    a, b = make_builtin("alpha", own=True), make_builtin("beta", "builtin:random", own=True)
    for seed in range(3):  # alone on the ladder, alpha and beta settle their pair
        assert services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(seed)) == 1
        play_queued()
    assert _scheduled_pairs(ladder)[frozenset(("alpha", "beta"))] == 3
    created = sum(services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(100 + s))
                  for s in range(40) if not play_queued())
    assert created <= 8  # about 40 x 2 draws x 0.05, where an unsettled pair plays 40 times

    gamma = make_builtin("gamma", "builtin:random", own=True)
    last = Match.objects.order_by("-id").values_list("id", flat=True).first()
    for seed in range(30):
        services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(200 + seed))
        play_queued()
    new = [tuple(sides.versions(m)) for m in Match.objects.filter(pk__gt=last).order_by("id")]
    # gamma's pairs are unsettled until each has met 3 times: they come first
    assert all(gamma.pk in pair for pair in new[:6])
    assert sum(set(pair) == {a.pk, b.pk} for pair in new) <= 2


def test_the_pairing_prefers_unsettled_pairs_and_plays_a_settled_one_rarely():
    rng = random.Random(7)
    counts = {"a": {"b": pairing.SETTLED_MATCHES}, "b": {"a": pairing.SETTLED_MATCHES}}

    def met(key: str) -> dict[str, int]:
        return counts.get(key, {})

    trio = [Entrant("a", 1500), Entrant("b", 1500), Entrant("c", 1800)]
    seen: Counter = Counter()
    for _ in range(400):
        for pair in ladder_groups(size=2, entrants=trio, slots=1, rng=rng, met=met):
            seen[frozenset(pair)] += 1
    assert seen[frozenset(("a", "b"))] * 10 < seen[frozenset(("a", "c"))]
    assert seen[frozenset(("a", "b"))] * 10 < seen[frozenset(("b", "c"))]

    alone = [Entrant("a", 1500), Entrant("b", 1500)]
    made = sum(len(ladder_groups(size=2, entrants=alone, slots=1, rng=rng, met=met))
               for _ in range(400))
    assert 0 < made < 60  # an unsettled pair: 400


def test_house_entrants_are_paired_only_with_the_others():
    rng = random.Random(3)
    pool = [Entrant(f"house{i}", 1500 + i, house=True) for i in range(4)] + [
        Entrant("guest", 1500)]
    pairs = [p for _ in range(100) for p in ladder_groups(size=2, entrants=pool, slots=4, rng=rng)]
    assert pairs and all("guest" in p for p in pairs)
    assert ladder_groups(size=2, entrants=pool[:4], slots=4, rng=rng) == []


def test_two_bots_of_one_owner_never_meet_on_the_ladder(ladder, make_builtin):
    """A deliberate loser could feed its sibling rating: the ladder pairs them with others only
    (as rated challenges between one's own bots are refused)."""
    mine = [make_builtin("main-bot"), make_builtin("feeder", "builtin:random")]  # one owner
    for seed in range(20):
        assert services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(seed)) == 0
    make_builtin("stranger", "builtin:random", own=True)
    for seed in range(20):
        services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(seed))
    pairs = _scheduled_pairs(ladder)
    assert pairs and all("stranger" in pair for pair in pairs)
    assert {version.bot.owner_id for version in mine} == {mine[0].bot.owner_id}


def test_the_pairing_never_pairs_entrants_of_one_owner():
    pool = [Entrant(f"a{i}", 1500 + i, owner="ann") for i in range(3)] + [
        Entrant("b0", 1500, owner="bob")]
    pairs = ladder_groups(size=2, entrants=pool, slots=10, rng=random.Random(1), max_pending=10)
    assert pairs and all("b0" in pair for pair in pairs)
