"""The rating of three-player results (pairwise outcomes, K halved) and the pairing of
triples, as plain functions; the scheduler on a Sergeant Major ladder makes matches of three
bots of the game only."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from ladder import ratings
from ladder import services as ladder_services
from ladder.pairing import Entrant, ladder_groups


def test_pairwise_scores_are_shares_of_the_two_players_points() -> None:
    assert ratings.pairwise_scores({"a": 2.0, "b": 1.0, "c": 0.0}) == [
        ("a", "b", pytest.approx(2 / 3)), ("a", "c", 1.0), ("b", "c", 1.0)]
    assert ratings.pairwise_scores({"a": 3.0, "b": 0.0, "c": 0.0})[2] == ("b", "c", 0.5)


def test_a_clean_sweep_moves_about_as_much_as_a_two_player_win() -> None:
    level = {"a": 1500.0, "b": 1500.0, "c": 1500.0}
    played = {"a": 30, "b": 30, "c": 30}
    changes = ratings.elo_changes_multi(ratings=level, points={"a": 3, "b": 0, "c": 0},
                                        games=played)
    two_player, _ = ratings.elo_changes(rating_a=1500, rating_b=1500, score=1.0,
                                        played_a=30, played_b=30)
    assert changes == {"a": pytest.approx(two_player), "b": pytest.approx(-two_player / 2),
                       "c": pytest.approx(-two_player / 2)}


def test_changes_add_up_to_zero_and_an_anchor_never_moves() -> None:
    rated = {"a": 1620.0, "b": 1480.0, "c": 1390.0}
    points = {"a": 0.0, "b": 1.5, "c": 1.5}
    played = {"a": 3, "b": 40, "c": 40}
    changes = ratings.elo_changes_multi(ratings=rated, points=points, games=played)
    assert sum(changes.values()) == pytest.approx(0.0)
    assert changes["a"] < 0 < changes["c"]  # the favourite took nothing
    pinned = ratings.elo_changes_multi(ratings=rated, points=points, games=played,
                                       pinned=["b"])
    assert pinned["b"] == 0.0 and pinned["a"] == changes["a"]


def test_the_replay_and_the_fit_take_three_player_results() -> None:
    results = [ratings.MultiResult({"s": 2.5, "m": 0.5, "w": 0.0}, games=3)] * 8
    replayed = ratings.elo_replay(results=results)
    assert replayed["s"][0] > replayed["m"][0] > replayed["w"][0]
    assert [g for _, g in replayed.values()] == [8, 8, 8]
    fitted = ratings.ratings_fit(results=results)
    assert fitted["s"].rating > fitted["m"].rating > fitted["w"].rating
    assert fitted["s"].games == 48  # two pairs a match, three games each


def _entrants(n: int, **extra: Any) -> list[Entrant]:
    return [Entrant(key=i, rating=1500 + 10 * i, owner=i, **extra) for i in range(n)]


def test_triples_are_three_different_entrants_and_spread_evenly() -> None:
    rng = random.Random(3)
    played: Counter[int] = Counter()
    for _ in range(200):
        for group in ladder_groups(size=3, entrants=_entrants(7), slots=1, rng=rng):
            assert len(set(group)) == 3
            played.update(group)
    assert min(played.values()) >= 0.6 * max(played.values())


def test_triples_respect_owners_house_bots_and_pending_matches() -> None:
    rng = random.Random(5)
    field = [Entrant(0, 1500, owner="ann"), Entrant(1, 1500, owner="ann"),
             Entrant(2, 1500, house=True, owner="house-1"),
             Entrant(3, 1500, house=True, owner="house-2"), Entrant(4, 1500, owner="bob")]
    for _ in range(100):
        for group in ladder_groups(size=3, entrants=field, slots=2, rng=rng):
            owners = [field[k].owner for k in group]
            assert len(set(owners)) == 3
            assert not all(field[k].house for k in group)
    only_house = [Entrant(0, 1500, house=True, owner=1), Entrant(1, 1500, house=True, owner=2),
                  Entrant(2, 1500, house=True, owner=3)]
    assert ladder_groups(size=3, entrants=only_house, slots=3, rng=rng) == []
    busy = _entrants(3, pending=2)
    assert ladder_groups(size=3, entrants=busy, slots=3, rng=rng) == []


@pytest.mark.django_db
def test_the_scheduler_makes_triples_of_bots_of_the_game_only(
        make_sm_builtin: Callable[..., Any], make_builtin: Callable[..., Any]) -> None:
    from ladder.models import Ladder, LadderEntry
    from ladder.services import ladder_schedule
    from matches.models import Match

    sm = [make_sm_builtin(f"sm-{i}", "builtin:random") for i in range(4)]
    kaiser = [make_builtin(f"k-{i}", "builtin:random", own=True) for i in range(2)]
    Ladder.objects.filter(slug="main").update(active=False)
    ladder = ladder_services.game_ladder_ensure("sergeant-major")
    # Four entrants, at most two matches waiting each: two tables of three.
    assert ladder_schedule(ladder_id=ladder.pk, rng=random.Random(1)) == 2
    entries = set(LadderEntry.objects.filter(ladder=ladder).values_list("version_id", flat=True))
    assert entries == {v.pk for v in sm}
    for match in Match.objects.filter(ladder=ladder):
        assert match.game == "sergeant-major" and match.rules == "952-six-hands"
        assert set(match.version_ids) <= entries and len(set(match.version_ids)) == 3
    assert not LadderEntry.objects.filter(version__in=kaiser, ladder=ladder).exists()


@pytest.mark.django_db
def test_sergeant_major_house_bots_join_their_ladder_with_greedy_anchored() -> None:
    from ladder.models import LadderEntry
    from ladder.services import house_bots_ensure

    for _ in range(2):  # idempotent
        made = house_bots_ensure("sergeant-major")
    assert {v.bot.game for v in made} == {"sergeant-major"}
    entries = {e.version.bot.name: e for e in LadderEntry.objects.filter(
        ladder=ladder_services.game_ladder_ensure("sergeant-major"))}
    assert set(entries) == {"sm-random", "sm-greedy"}
    assert entries["sm-greedy"].pinned and not entries["sm-random"].pinned
    house_bots_ensure()
    main = {e.version.bot.name for e in LadderEntry.objects.filter(ladder__slug="main")}
    assert main == {"random", "greedy"}


@pytest.mark.django_db
def test_the_starter_is_a_download_linked_from_the_docs(client: Any) -> None:
    page = client.get("/docs/bot-authors/").content.decode()
    assert "/docs/starter/sergeant_major_bot.py" in page
    download = client.get("/docs/starter/sergeant_major_bot.py")
    assert download.status_code == 200
    assert b'"game": "sergeant-major"' in b"".join(download.streaming_content)
    ratings_page = client.get("/docs/ratings/").content.decode()
    assert "K halved" in ratings_page
