"""Matches, the ladder and challenges through the services, in-process (the real worker is in
test_worker.py)."""

from __future__ import annotations

import random

import pytest
from django.core.exceptions import ValidationError

from engine.faults import InfrastructureError
from engine.validate import validate_replay
from ladder import selectors
from ladder import services as ladder_services
from ladder.models import LadderEntry, RatingChange
from matches import services as match_services
from matches.models import Match, MatchAttempt
from tests.tournaments import sides
from tournaments import services


def _ladder_match(ladder, a, b):
    for v in (a, b):
        LadderEntry.objects.get_or_create(ladder=ladder, version=v)
    return match_services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                 conditions=ladder, ladder=ladder, rated=True)


def test_a_played_match_stores_a_valid_replay_and_moves_ratings_zero_sum(ladder, make_builtin):
    greedy, rnd = make_builtin("greedy1"), make_builtin("random1", "builtin:random")
    match = _ladder_match(ladder, greedy, rnd)
    assert match_services.match_play(match_id=match.pk, worker="w1") == "finished"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    replay = match.replay()
    assert validate_replay(replay) == []
    assert replay["seed"] == match.seed
    assert match.score == replay["result"]["score"]
    assert sum(sides.games(match)) <= 2
    a, b = (LadderEntry.objects.get(ladder=ladder, version=v) for v in (greedy, rnd))
    assert (a.games, b.games) == (1, 1)
    assert a.elo + b.elo == pytest.approx(3000.0)
    assert a.elo != 1500.0
    assert RatingChange.objects.filter(match=match).count() == 2
    attempt = MatchAttempt.objects.get(match=match)
    assert (attempt.worker, attempt.outcome) == ("w1", MatchAttempt.Outcome.FINISHED)


def test_a_finished_match_is_never_played_or_counted_again(ladder, make_builtin):
    match = _ladder_match(ladder, make_builtin("g1"), make_builtin("g2"))
    match_services.match_play(match_id=match.pk, worker="w1")
    before = list(LadderEntry.objects.values_list("elo", "games"))
    assert match_services.match_play(match_id=match.pk, worker="w2") == "skipped"
    assert list(LadderEntry.objects.values_list("elo", "games")) == before
    assert MatchAttempt.objects.filter(match=match).count() == 1


def test_a_late_result_from_a_worker_that_lost_its_lease_is_discarded(ladder, make_builtin):
    match = _ladder_match(ladder, make_builtin("g1"), make_builtin("g2"))
    _, old_token = match_services.match_start(match_id=match.pk, worker="slow")
    Match.objects.filter(pk=match.pk).update(lease_expires=match.created)  # lease ran out
    assert match_services.match_play(match_id=match.pk, worker="fresh") == "finished"
    replay = Match.objects.get(pk=match.pk).replay()
    assert match_services.match_finish(match_id=match.pk, token=old_token, replay=replay) is False
    outcomes = dict(MatchAttempt.objects.values_list("worker", "outcome"))
    assert outcomes == {"slow": "superseded", "fresh": "finished"}
    assert RatingChange.objects.filter(match=match).count() == 2


def test_an_infrastructure_error_requeues_the_match_then_voids_it_unscored(
    ladder, make_builtin, monkeypatch
):
    match = _ladder_match(ladder, make_builtin("g1"), make_builtin("g2"))

    def broken(*, match):
        raise InfrastructureError("bwrap: no space left on device")

    monkeypatch.setattr("matches.runner.match_play_engine", broken)
    for attempt in range(1, match_services.max_attempts() + 1):
        with pytest.raises(InfrastructureError):
            match_services.match_play(match_id=match.pk, worker=f"w{attempt}")
        match.refresh_from_db()
        expected = Match.Status.QUEUED if attempt < match_services.max_attempts() else "void"
        assert match.status == expected
    assert "gave up after 3 attempts" in match.error
    assert not RatingChange.objects.exists()
    assert set(MatchAttempt.objects.values_list("outcome", flat=True)) == {"infrastructure"}


def test_a_dead_workers_match_is_requeued_and_then_finishes_once(ladder, make_builtin):
    match = _ladder_match(ladder, make_builtin("g1"), make_builtin("g2"))
    match_services.match_start(match_id=match.pk, worker="dead")
    assert match_services.matches_requeue_stale()["requeued"] == 0  # its lease is still live
    Match.objects.filter(pk=match.pk).update(lease_expires=match.created)
    assert match_services.matches_requeue_stale()["requeued"] == 1
    assert match_services.match_play(match_id=match.pk, worker="alive") == "finished"
    assert dict(MatchAttempt.objects.values_list("worker", "outcome")) == {
        "dead": "lost", "alive": "finished"}
    assert RatingChange.objects.filter(match=match).count() == 2


def test_the_ladder_keeps_its_queue_at_depth_and_never_pairs_a_bot_with_itself(
    ladder, make_builtin, play_queued
):
    for i in range(5):
        make_builtin(f"bot{i}", "builtin:random" if i % 2 else "builtin:greedy", own=True)
    assert ladder_services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(1)) == 4
    assert ladder_services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(2)) == 0
    for _ in range(5):
        play_queued()
        ladder_services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(3))
    matches = Match.objects.filter(ladder=ladder)
    assert matches.count() == 24
    assert all(len({s.version.bot_id for s in sides.sides(m)}) == 2 for m in matches)
    games = sorted(LadderEntry.objects.filter(ladder=ladder).values_list("games", flat=True))
    assert sum(games) == 2 * 20 and games[-1] - games[0] <= 4
    stored = {e.version_id: e.elo for e in LadderEntry.objects.filter(ladder=ladder)}
    replayed = selectors.ratings_recomputed(ladder=ladder)
    assert {k: round(v[0], 6) for k, v in replayed.items()} == {
        k: round(v, 6) for k, v in stored.items()}
    assert sum(stored.values()) == pytest.approx(1500.0 * 5)


def test_a_new_version_replaces_the_old_one_on_the_ladder(ladder, make_builtin,
                                                          builtin_version):
    old = make_builtin("evolving", "builtin:random")
    make_builtin("rival")
    ladder_services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(0))
    new = builtin_version(bot=old.bot)
    ladder_services.ladder_entries_sync(ladder=ladder)
    entries = dict(LadderEntry.objects.filter(ladder=ladder).values_list("version_id", "active"))
    assert entries[old.pk] is False and entries[new.pk] is True


def test_a_pinned_anchor_keeps_its_rating(ladder, make_builtin):
    anchor, other = make_builtin("anchor"), make_builtin("other", "builtin:random")
    ladder_services.ladder_anchor_set(ladder=ladder, version=anchor, rating=1200.0)
    match = _ladder_match(ladder, anchor, other)
    match_services.match_play(match_id=match.pk, worker="w")
    entries = {e.version_id: e for e in LadderEntry.objects.filter(ladder=ladder)}
    assert entries[anchor.pk].elo == 1200.0 and entries[anchor.pk].games == 1
    assert entries[other.pk].elo != 1500.0


def test_dispatch_is_fair_between_competitions_and_caps_each_bot(ladder, make_builtin,
                                                                 settings):
    settings.KAISER_DISPATCH_DEPTH = 3
    bots = [make_builtin(f"b{i}") for i in range(6)]
    slow = bots[0]
    ladder_matches = [_ladder_match(ladder, slow, b) for b in bots[1:]]
    t = services.tournament_create(name="cup", format="round_robin", versions=bots[2:5])
    sent = match_services.matches_dispatch()
    assert len(sent) == 3
    sent_matches = Match.objects.filter(pk__in=sent)
    assert {m.kind for m in sent_matches} == {"ladder", "tournament"}
    assert sum(slow.pk in sides.versions(m) for m in sent_matches) <= 2
    assert match_services.matches_dispatch() == []  # the depth is full
    assert t.matches.count() == 3 and len(ladder_matches) == 5


def test_challenges_are_limited_per_user(ladder, make_builtin, make_program, owner, settings):
    settings.KAISER_CHALLENGES_PER_HOUR = 2
    mine = make_program("mine", b"print('hi')\n", owner=owner)
    opponent = make_builtin("target")
    for rated in (True, False):
        match = ladder_services.challenge_create(user=owner, version=mine, opponent=opponent,
                                          rated=rated, ladder=ladder)
        assert (match.kind, match.rated, match.requested_by) == ("challenge", rated, owner)
    with pytest.raises(ladder_services.RateLimited, match="at most 2 challenges an hour"):
        ladder_services.challenge_create(user=owner, version=mine, opponent=opponent, rated=False,
                                  ladder=ladder)


def test_only_the_owner_can_challenge_with_a_bot(ladder, make_builtin, other):
    with pytest.raises(ValidationError, match="your own bot"):
        ladder_services.challenge_create(user=other, version=make_builtin("a"),
                                  opponent=make_builtin("b"), rated=False, ladder=ladder)


@pytest.mark.django_db(transaction=True)
def test_the_lease_is_renewed_while_the_engine_plays(ladder, make_builtin, settings):
    import time

    settings.KAISER_MATCH_LEASE_SECONDS = 2  # renewed every 2/3 s
    match = _ladder_match(ladder, make_builtin("g1"), make_builtin("g2"))
    _, token = match_services.match_start(match_id=match.pk, worker="w")
    first = Match.objects.get(pk=match.pk).lease_expires
    with match_services.lease_kept(match_id=match.pk, token=token):
        time.sleep(2.5)  # longer than the lease itself
        renewed = Match.objects.get(pk=match.pk).lease_expires
    assert renewed > first
    assert match_services.match_start(match_id=match.pk, worker="thief") is None


def test_a_running_match_past_its_attempt_budget_is_voided_not_taken_over(ladder, make_builtin):
    match = _ladder_match(ladder, make_builtin("g1"), make_builtin("g2"))
    Match.objects.filter(pk=match.pk).update(
        status="running", attempts=match_services.max_attempts(), lease_expires=match.created)
    assert match_services.match_start(match_id=match.pk, worker="late") is None
    assert match_services.matches_requeue_stale()["voided"] == 1
    match.refresh_from_db()
    assert match.status == "void" and "worker lost 3 times" in match.error


def test_arena_seed_puts_the_house_bots_on_the_main_ladder_with_greedy_anchored(db):
    import io

    from django.core.management import call_command

    from ladder.models import Ladder

    for _ in range(2):  # idempotent
        call_command("arena_seed", stdout=io.StringIO())
    main = Ladder.objects.get(slug="main")
    entries = {e.version.bot.name: e for e in LadderEntry.objects.filter(ladder=main)}
    assert set(entries) == {"random", "greedy"}
    assert entries["greedy"].pinned and entries["greedy"].elo == 1500.0
    assert not entries["random"].pinned
    # The house bots alone never play each other: their results would rate nobody.
    assert ladder_services.ladder_schedule(ladder_id=main.pk, rng=random.Random(0)) == 0


@pytest.mark.django_db(transaction=True)
def test_two_matches_of_one_bot_stored_at_the_same_instant_both_count(ladder, make_builtin):
    import threading
    import time

    from django.db import connection, transaction

    from matches.runner import match_play_engine

    hub = make_builtin("hub")
    rivals = [make_builtin(f"r{i}", "builtin:random") for i in range(2)]
    matches = [_ladder_match(ladder, hub, rival) for rival in rivals]
    claims = [match_services.match_start(match_id=m.pk, worker=f"w{i}")
              for i, m in enumerate(matches)]
    replays = [match_play_engine(match=match).replay for match, _ in claims]
    stored = []

    def finish(i: int) -> None:
        try:
            stored.append(match_services.match_finish(match_id=claims[i][0].pk, token=claims[i][1],
                                                replay=replays[i]))
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(i,)) for i in range(2)]
    with transaction.atomic():
        # Hold the hub's rating row: both finishing transactions start and meet it at once.
        LadderEntry.objects.select_for_update().get(ladder=ladder, version=hub)
        for t in threads:
            t.start()
        time.sleep(1.0)  # (not a measurement: lets both threads reach the row)
    for t in threads:
        t.join()
    assert stored == [True, True]
    entry = LadderEntry.objects.get(ladder=ladder, version=hub)
    chain = list(RatingChange.objects.filter(entry=entry).order_by("id"))
    assert entry.games == 2 and len(chain) == 2
    assert all(c.after != c.before for c in chain)  # greedy beats random: ratings move
    assert chain[1].before == pytest.approx(chain[0].after)  # the second saw the first
    assert entry.elo == pytest.approx(chain[1].after)


def test_house_bots_bring_back_the_main_ladder_if_it_is_gone(db):
    from ladder.models import Ladder

    Ladder.objects.filter(slug="main").delete()
    ladder_services.house_bots_ensure()
    main = Ladder.objects.get(slug="main")
    assert (main.rules, main.games_per_match, main.active) == ("official", 2, True)
    assert LadderEntry.objects.filter(ladder=main).count() == 2
