"""Writes for matches, ratings, the ladder scheduler, tournaments and challenges.

Who plays a match is decided by the database, never by the broker: a task claims a match with
a guarded update that hands it a lease token, keeps the lease alive while the engine plays, and
stores the result only if its token still holds the match. Redis may deliver a task twice,
a worker may die: the second delivery finds nothing to claim, a dead worker's lease runs out
and `matches_requeue_stale` gives the match to someone else. The result, the replay and the
rating changes are written in one transaction, guarded by that token, so a match counts once.
"""

from __future__ import annotations

import gzip
import logging
import random
import secrets
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import DatabaseError, connection, transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from bots.models import BotVersion
from tournaments import pairing, ratings
from tournaments.models import (
    RATED_SAME_OWNER,
    Ladder,
    LadderEntry,
    Match,
    MatchAttempt,
    RatingChange,
    Tournament,
    TournamentBye,
    TournamentEntrant,
)
from tournaments.stats import replay_stats

logger = logging.getLogger(__name__)

OPEN = (Match.Status.QUEUED, Match.Status.RUNNING)
DONE = (Match.Status.FINISHED, Match.Status.FAILED, Match.Status.VOID)
STDERR_MAX = 64 * 1024


def _setting(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


def lease_seconds() -> int:
    return _setting("KAISER_MATCH_LEASE_SECONDS", 120)


def max_attempts() -> int:
    return _setting("KAISER_MATCH_MAX_ATTEMPTS", 3)


def dispatch_depth() -> int:
    """Matches handed to the broker (waiting or running) at once, over all competitions."""
    return _setting("KAISER_DISPATCH_DEPTH", 4)


def bot_in_flight_max() -> int:
    """Matches of one bot version in the broker at once: a slow bot cannot hog the workers."""
    return _setting("KAISER_BOT_IN_FLIGHT", 2)


class RateLimited(Exception):
    """Too many requests of one kind by one user; the message says when to come back."""


# --- Creating and dispatching matches --------------------------------------------------------


def match_create(
    *,
    version_a: BotVersion,
    version_b: BotVersion,
    kind: str,
    conditions: Ladder | Tournament,
    ladder: Ladder | None = None,
    tournament: Tournament | None = None,
    round: int | None = None,
    rated: bool = False,
    requested_by: AbstractBaseUser | None = None,
    position: int | None = None,
) -> Match:
    """A queued match, played under `conditions` (a ladder's or a tournament's settings).
    It reaches the broker through `matches_dispatch`, after commit."""
    if version_a.pk == version_b.pk or version_a.bot_id == version_b.bot_id:
        raise ValidationError("a bot cannot play itself")
    match = Match.objects.create(
        kind=kind, ladder=ladder, tournament=tournament, round=round, rated=rated,
        version_a=version_a, version_b=version_b, requested_by=requested_by,
        seed=secrets.token_hex(8), position=position,
        rules=conditions.rules, games_per_match=conditions.games_per_match,
        move_ms=conditions.move_ms, bank_ms=conditions.bank_ms,
        startup_ms=conditions.startup_ms,
    )
    _dispatch_on_commit()
    return match


def _dispatch_on_commit() -> None:
    """One dispatch after the transaction commits, however many matches it made."""
    pending = getattr(connection, "run_on_commit", [])
    if not any(entry[1] is matches_dispatch for entry in pending):
        transaction.on_commit(matches_dispatch)


def _source(match: dict[str, Any]) -> str:
    if match["tournament_id"]:
        return f"t{match['tournament_id']}"
    if match["ladder_id"] and match["kind"] == Match.Kind.LADDER:
        return f"l{match['ladder_id']}"
    return "challenges"


def _pick_fairly(
    waiting: list[dict[str, Any]], in_flight: list[dict[str, Any]], free: int
) -> list[int]:
    """Which waiting matches go to the broker now. The competition with the fewest matches in
    flight goes first (one ladder or tournament cannot starve another), oldest match first
    within it, and no bot version gets more than its share of the broker."""
    load = Counter(_source(m) for m in in_flight)
    busy = Counter(v for m in in_flight for v in (m["version_a_id"], m["version_b_id"]))
    cap = bot_in_flight_max()
    chosen: list[int] = []
    remaining = list(waiting)
    while len(chosen) < free:
        eligible = [m for m in remaining
                    if busy[m["version_a_id"]] < cap and busy[m["version_b_id"]] < cap]
        if not eligible:
            break
        pick = min(eligible, key=lambda m: (load[_source(m)], m["created"], m["id"]))
        remaining.remove(pick)
        chosen.append(pick["id"])
        load[_source(pick)] += 1
        busy[pick["version_a_id"]] += 1
        busy[pick["version_b_id"]] += 1
    return chosen


def matches_dispatch() -> list[int]:
    """Hand waiting matches to the broker, fairly, up to the dispatch depth."""
    fields = ("id", "kind", "ladder_id", "tournament_id", "version_a_id", "version_b_id",
              "created")
    in_flight = list(
        Match.objects.filter(status__in=OPEN, dispatched__isnull=False).values(*fields)
    )
    free = dispatch_depth() - len(in_flight)
    if free <= 0:
        return []
    waiting = list(
        Match.objects.filter(status=Match.Status.QUEUED, dispatched__isnull=True)
        .order_by("created", "id").values(*fields)[:500]
    )
    sent = []
    for match_id in _pick_fairly(waiting, in_flight, free):
        # Guarded: two dispatchers at once never send the same match twice.
        if Match.objects.filter(pk=match_id, dispatched__isnull=True).update(
            dispatched=timezone.now()
        ):
            sent.append(match_id)
    for match_id in sent:  # (at once in autocommit; never for a transaction rolled back)
        transaction.on_commit(lambda m=match_id: _enqueue(m))
    return sent


def _enqueue(match_id: int) -> None:
    from tournaments.tasks import run_match

    run_match.apply_async((match_id,), queue=getattr(settings, "KAISER_MATCH_QUEUE", None))


# --- Playing a match: claim, lease, finish ---------------------------------------------------


def match_start(*, match_id: int, worker: str) -> tuple[Match, str] | None:
    """Claim the match for this worker: (match, lease token), or None if it is not ours to
    play (finished, voided, or running under another worker's live lease)."""
    now = timezone.now()
    token = secrets.token_hex(16)
    # A running match whose lease ran out may be taken over directly (a redelivered task),
    # within the attempt budget; past it, the stale sweep voids it.
    claimable = Q(status=Match.Status.QUEUED) | Q(
        status=Match.Status.RUNNING, lease_expires__lt=now, attempts__lt=max_attempts())
    with transaction.atomic():
        claimed = Match.objects.filter(claimable, pk=match_id).update(
            status=Match.Status.RUNNING, lease_token=token,
            lease_expires=now + timedelta(seconds=lease_seconds()),
            started=now, attempts=F("attempts") + 1,
        )
        if not claimed:
            return None
        # A match taken over after its lease ran out had a worker that died.
        MatchAttempt.objects.filter(match_id=match_id, outcome=MatchAttempt.Outcome.RUNNING
                                    ).update(outcome=MatchAttempt.Outcome.LOST, ended=now)
        MatchAttempt.objects.create(match_id=match_id, token=token, worker=worker[:200],
                                    started=now)
    match = Match.objects.select_related("version_a__bot", "version_a__program",
                                         "version_b__bot", "version_b__program").get(pk=match_id)
    return match, token


@contextmanager
def lease_kept(*, match_id: int, token: str) -> Iterator[None]:
    """Renew the lease while the engine plays, from a thread with its own connection.
    If the worker dies, the renewals stop and the lease runs out."""
    stop = threading.Event()
    period = max(0.5, lease_seconds() / 3)

    def renew() -> None:
        try:
            while not stop.wait(period):
                expires = timezone.now() + timedelta(seconds=lease_seconds())
                Match.objects.filter(pk=match_id, status=Match.Status.RUNNING,
                                     lease_token=token).update(lease_expires=expires)
        except DatabaseError as error:  # the next renewal or the sweep sorts it out
            logger.warning("lease renewal of match %s failed: %s", match_id, error)
        finally:
            connection.close()

    thread = threading.Thread(target=renew, name=f"lease-{match_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _result_fields(replay: dict[str, Any]) -> dict[str, Any]:
    result = replay["result"]
    forfeit = result.get("forfeit")
    return {
        "score": float(result["score"]),
        "games_a": int(result["games"]["A"]),
        "games_b": int(result["games"]["B"]),
        "forfeit": forfeit,
        "forfeit_player": (forfeit or {}).get("player", "") or "",
        "forfeit_reason": (forfeit or {}).get("reason", "") or "",
    }


def match_finish(
    *, match_id: int, token: str, replay: dict[str, Any], stderr_a: str = "",
    stderr_b: str = "", play_ms: int = 0, decisions: dict[str, list[int]] | None = None,
) -> bool:
    """Store the result, the replay and the rating changes at once, if this attempt still holds
    the match. False (and nothing written but the attempt's outcome) otherwise."""
    from engine.match import replay_json

    text = replay_json(replay).encode()
    now = timezone.now()
    with transaction.atomic():
        won = Match.objects.filter(
            pk=match_id, status=Match.Status.RUNNING, lease_token=token
        ).update(
            status=Match.Status.FINISHED, finished=now, lease_expires=None,
            replay_gz=gzip.compress(text, compresslevel=6), replay_size=len(text),
            stderr_a=stderr_a[:STDERR_MAX], stderr_b=stderr_b[:STDERR_MAX], play_ms=play_ms,
            # counted into the totals by play_stats_fold
            stats=replay_stats(replay, decisions=decisions),
            **_result_fields(replay),
        )
        outcome = MatchAttempt.Outcome.FINISHED if won else MatchAttempt.Outcome.SUPERSEDED
        MatchAttempt.objects.filter(token=token).update(outcome=outcome, ended=now)
        if not won:
            return False
        match = Match.objects.get(pk=match_id)
        if match.rated and match.ladder_id:
            _ratings_apply(match)
        if match.tournament_id:
            tournament_advance(tournament_id=match.tournament_id)
    transaction.on_commit(lambda: _after_match(match))
    return True


def _after_match(match: Match) -> None:
    """Keep the pipeline fed: refill the match's ladder (new versions join it on the beat
    tick) and send the next waiting matches."""
    if match.kind == Match.Kind.LADDER and match.ladder_id:
        ladder_schedule(ladder_id=match.ladder_id, sync=False)
    else:
        matches_dispatch()


def _entry_for(ladder_id: int, version_id: int) -> LadderEntry:
    entry, _ = LadderEntry.objects.get_or_create(ladder_id=ladder_id, version_id=version_id)
    return entry


def _ratings_apply(match: Match) -> None:
    """The Elo update of one finished match. The entries are locked in a fixed order, so two
    matches of the same bot finishing together queue here instead of losing an update."""
    assert match.ladder_id and match.score is not None
    ids = [match.version_a_id, match.version_b_id]
    locked = {
        e.version_id: e for e in LadderEntry.objects.select_for_update()
        .filter(ladder_id=match.ladder_id, version_id__in=ids).order_by("pk")
    }
    a = locked.get(match.version_a_id) or _entry_for(match.ladder_id, match.version_a_id)
    b = locked.get(match.version_b_id) or _entry_for(match.ladder_id, match.version_b_id)
    deltas = ratings.elo_changes(
        rating_a=a.elo, rating_b=b.elo, score=match.score, games_a=a.games, games_b=b.games,
        pinned_a=a.pinned, pinned_b=b.pinned,
    )
    for entry, delta in ((a, deltas[0]), (b, deltas[1])):
        RatingChange.objects.create(match=match, entry=entry, before=entry.elo,
                                    after=entry.elo + delta)
        LadderEntry.objects.filter(pk=entry.pk).update(elo=F("elo") + delta,
                                                       games=F("games") + 1)


def match_release(*, match_id: int, token: str, error: str) -> str:
    """An attempt failed for the server's reasons (InfrastructureError, a time limit): the
    match goes back to the queue, or is void once the retry budget is spent. Returns the
    match's new status ('' if this attempt no longer held it)."""
    now = timezone.now()
    with transaction.atomic():
        MatchAttempt.objects.filter(token=token).update(
            outcome=MatchAttempt.Outcome.INFRASTRUCTURE, ended=now, error=error[:2000]
        )
        held = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_token=token)
        if held.filter(attempts__gte=max_attempts()).exists():
            return _void(held, error=f"gave up after {max_attempts()} attempts: {error}")
        if held.update(status=Match.Status.QUEUED, lease_token="", lease_expires=None):
            return Match.Status.QUEUED
    return ""


def match_fail(*, match_id: int, token: str, error: str) -> bool:
    """Our own code failed while playing the match: it is failed, kept for staff, not scored."""
    now = timezone.now()
    with transaction.atomic():
        MatchAttempt.objects.filter(token=token).update(
            outcome=MatchAttempt.Outcome.ERROR, ended=now, error=error[:2000]
        )
        failed = Match.objects.filter(
            pk=match_id, status=Match.Status.RUNNING, lease_token=token
        ).update(status=Match.Status.FAILED, finished=now, lease_expires=None, error=error[:2000])
        if failed:
            _tournament_of_match_advance(match_id)
    return bool(failed)


def match_void(*, match: Match, reason: str) -> bool:
    """Cancel a match that has not finished (staff): it is never played or scored."""
    with transaction.atomic():
        return bool(_void(Match.objects.filter(pk=match.pk, status__in=OPEN), error=reason))


def _void(matches: Any, *, error: str) -> str:
    ids = list(matches.values_list("pk", flat=True))
    if not matches.update(status=Match.Status.VOID, finished=timezone.now(), lease_token="",
                          lease_expires=None, error=error[:2000]):
        return ""
    for match_id in ids:
        _tournament_of_match_advance(match_id)
    return Match.Status.VOID


def _tournament_of_match_advance(match_id: int) -> None:
    tournament_id = Match.objects.filter(pk=match_id).values_list("tournament_id", flat=True)
    if tournament_id and tournament_id[0]:
        tournament_advance(tournament_id=tournament_id[0])


def match_play(
    *, match_id: int, worker: str, release_on: tuple[type[BaseException], ...] = ()
) -> str:
    """Claim, play and store one match. Returns what happened, for the task's log:
    'skipped' (not ours), 'finished', 'superseded', 'failed', 'released'.
    InfrastructureError propagates after the match is released, for the task to retry;
    `release_on` errors (the task's time limit) release it without a retry (the stale sweep
    sends it again later, and the attempt budget ends it)."""
    from engine.faults import InfrastructureError
    from tournaments.runner import match_play_engine

    claim = match_start(match_id=match_id, worker=worker)
    if claim is None:
        return "skipped"
    match, token = claim
    try:
        with lease_kept(match_id=match_id, token=token):
            played = match_play_engine(match=match)
    except InfrastructureError as error:
        match_release(match_id=match_id, token=token, error=f"infrastructure: {error}")
        raise
    except release_on as error:
        match_release(match_id=match_id, token=token, error=f"{type(error).__name__}")
        return "released"
    except Exception as error:
        logger.exception("match %s failed", match_id)
        match_fail(match_id=match_id, token=token, error=f"{type(error).__name__}: {error}")
        return "failed"
    stored = match_finish(match_id=match_id, token=token, replay=played.replay,
                          stderr_a=played.stderr_a, stderr_b=played.stderr_b,
                          play_ms=played.play_ms, decisions=played.decisions)
    return "finished" if stored else "superseded"


def matches_requeue_stale() -> dict[str, int]:
    """Give matches whose worker died to another one (or void them once the retry budget is
    spent), and send again matches whose broker message seems lost."""
    now = timezone.now()
    counts = {"requeued": 0, "voided": 0, "redispatched": 0}
    stale = list(Match.objects.filter(status=Match.Status.RUNNING, lease_expires__lt=now)
                 .values_list("pk", "attempts"))
    for match_id, attempts in stale:
        with transaction.atomic():
            held = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING,
                                        lease_expires__lt=now)
            MatchAttempt.objects.filter(match_id=match_id, outcome=MatchAttempt.Outcome.RUNNING,
                                        started__lt=now).update(
                outcome=MatchAttempt.Outcome.LOST, ended=now, error="the worker stopped renewing")
            if attempts >= max_attempts():
                counts["voided"] += bool(_void(held, error=f"worker lost {attempts} times"))
            elif held.update(status=Match.Status.QUEUED, lease_token="", lease_expires=None,
                             dispatched=now):
                counts["requeued"] += 1
                transaction.on_commit(lambda m=match_id: _enqueue(m))
    lost_before = now - timedelta(seconds=_setting("KAISER_DISPATCH_LOST_SECONDS", 900))
    counts["redispatched"] = Match.objects.filter(
        status=Match.Status.QUEUED, dispatched__lt=lost_before
    ).update(dispatched=None)
    matches_dispatch()
    return counts


# --- The ladder ------------------------------------------------------------------------------


def ladder_entries_sync(*, ladder: Ladder) -> None:
    """Every bot's playing version is on the ladder; its older versions stop being scheduled."""
    from bots.selectors import active_versions

    playing = set(active_versions().values_list("pk", flat=True))
    have = set(LadderEntry.objects.filter(ladder=ladder).values_list("version_id", flat=True))
    LadderEntry.objects.bulk_create(
        [LadderEntry(ladder=ladder, version_id=v) for v in playing - have],
        ignore_conflicts=True,
    )
    LadderEntry.objects.filter(ladder=ladder, active=True).exclude(
        version_id__in=playing).update(active=False)
    LadderEntry.objects.filter(ladder=ladder, active=False, version_id__in=playing).update(
        active=True)


def _recent_opponents(ladder: Ladder) -> dict[int, tuple[int, ...]]:
    recent: dict[int, list[int]] = {}
    rows = (Match.objects.filter(ladder=ladder, kind=Match.Kind.LADDER)
            .order_by("-id").values_list("version_a_id", "version_b_id")[:200])
    for a, b in reversed(rows):
        recent.setdefault(a, []).append(b)
        recent.setdefault(b, []).append(a)
    return {k: tuple(v[-3:]) for k, v in recent.items()}


def _ladder_entrants(ladder: Ladder) -> list[pairing.Entrant]:
    entries = list(LadderEntry.objects.filter(ladder=ladder, active=True)
                   .select_related("version__bot"))
    pending: Counter[int] = Counter()
    for a, b in Match.objects.filter(status__in=OPEN).values_list("version_a_id",
                                                                   "version_b_id"):
        pending[a] += 1
        pending[b] += 1
    recent = _recent_opponents(ladder)
    house = set(BotVersion.objects.filter(
        pk__in=[e.version_id for e in entries], bot__owner__username=HOUSE_USER,
    ).values_list("pk", flat=True))
    return [pairing.Entrant(key=e.version_id, rating=e.elo, games=e.games,
                            pending=pending[e.version_id], recent=recent.get(e.version_id, ()),
                            house=e.pinned or e.version_id in house,
                            owner=e.version.bot.owner_id)
            for e in entries]


def _meetings_on(ladder: Ladder) -> Callable[[Any], dict[Any, int]]:
    """meetings(version_id): the rated matches it finished against each opponent on the
    ladder. Two grouped reads on the (version, -id) indexes, one a side: a bot's own matches
    only, never the whole ladder's (bench/ladder_schedule_cost.py: +4 ms a fill at 100 bots
    and 100,000 matches, where one GROUP BY over the ladder took 250 ms)."""
    def meetings(version_id: Any) -> dict[Any, int]:
        done = Match.objects.filter(ladder=ladder, rated=True, status=Match.Status.FINISHED)
        met: Counter[Any] = Counter()
        for mine, theirs in (("version_a_id", "version_b_id"), ("version_b_id", "version_a_id")):
            rows = (done.filter(**{mine: version_id}).values_list(theirs)
                    .annotate(n=Count("pk")).order_by())
            for opponent, n in rows:
                met[opponent] += n
        return dict(met)

    return meetings


def _ladder_fill(ladder: Ladder, rng: random.Random, sync: bool) -> int:
    with transaction.atomic():
        # The ladder's row lock: the beat tick and a finishing match never both fill it.
        Ladder.objects.select_for_update().filter(pk=ladder.pk).first()
        if sync:
            ladder_entries_sync(ladder=ladder)
        waiting = Match.objects.filter(ladder=ladder, kind=Match.Kind.LADDER,
                                       status__in=OPEN).count()
        slots = ladder.queue_depth - waiting
        if slots <= 0:
            return 0
        pairs = pairing.ladder_pairs(
            entrants=_ladder_entrants(ladder), slots=slots, rng=rng, met=_meetings_on(ladder),
            settled_after=_setting("KAISER_LADDER_PAIR_SETTLED", pairing.SETTLED_MATCHES))
        versions = BotVersion.objects.in_bulk([k for p in pairs for k in p])
        for a, b in pairs:
            match_create(version_a=versions[a], version_b=versions[b], kind=Match.Kind.LADDER,
                         conditions=ladder, ladder=ladder, rated=True)
        return len(pairs)


def ladder_schedule(
    *, ladder_id: int | None = None, rng: random.Random | None = None, sync: bool = True
) -> int:
    """Top up every active ladder (or one) to its queue depth; returns matches created.
    `sync` first brings the entries up to date with the bots' playing versions."""
    rng = rng or random.Random()
    ladders = Ladder.objects.filter(active=True)
    if ladder_id is not None:
        ladders = ladders.filter(pk=ladder_id)
    created = sum(_ladder_fill(ladder, rng, sync) for ladder in ladders)
    if not created:  # (new matches were dispatched when their transaction committed)
        matches_dispatch()
    return created


def ladder_fits_refresh() -> int:
    """Refit each ladder whose rated results or anchors changed since its last fit, and cache
    the fit (the beat runs this): pages and the API read these fits and never wait for a
    large ladder's. Returns the number of ladders refitted."""
    from tournaments.selectors import ladder_fit, ladder_fit_is_current

    refitted = 0
    for ladder in Ladder.objects.order_by("pk"):
        if not ladder_fit_is_current(ladder=ladder):
            ladder_fit(ladder=ladder, compute=True)
            refitted += 1
    return refitted


# --- Replay retention ------------------------------------------------------------------------


def replays_prune(*, now: datetime | None = None, batch: int = 500) -> int:
    """Drop the replays of matches finished more than KAISER_REPLAY_RETENTION_DAYS ago (0, the
    default: keep every replay), writing each first to KAISER_REPLAY_ARCHIVE_DIR/<id>.json.gz
    when that is set. The Match row, its result and its rating changes stay: only replay_gz
    goes, and a finished match without one reads as "replay pruned". Returns how many."""
    days = _setting("KAISER_REPLAY_RETENTION_DAYS", 0)
    if days <= 0:
        return 0
    archive = getattr(settings, "KAISER_REPLAY_ARCHIVE_DIR", None)
    cutoff = (now or timezone.now()) - timedelta(days=days)
    old = Match.objects.filter(status=Match.Status.FINISHED, finished__lt=cutoff,
                               replay_gz__isnull=False)
    pruned = 0
    while ids := list(old.order_by("pk").values_list("pk", flat=True)[:batch]):
        if archive:
            _replays_archive(Path(archive), ids)
        pruned += Match.objects.filter(pk__in=ids, replay_gz__isnull=False).update(replay_gz=None)
    return pruned


def _replays_archive(folder: Path, ids: list[int]) -> None:
    """Each replay as stored (gzip of its canonical JSON), written whole before it is dropped."""
    folder.mkdir(parents=True, exist_ok=True)
    for match_id, blob in Match.objects.filter(pk__in=ids).values_list("pk", "replay_gz"):
        if blob is None:
            continue
        partial = folder / f".{match_id}.json.gz.partial"
        partial.write_bytes(bytes(blob))
        partial.replace(folder / f"{match_id}.json.gz")


def ladder_anchor_set(*, ladder: Ladder, version: BotVersion, rating: float) -> LadderEntry:
    """Pin a (house) version's rating on a ladder: it becomes an anchor of the scale."""
    entry, _ = LadderEntry.objects.get_or_create(ladder=ladder, version=version)
    entry.elo, entry.pinned = rating, True
    entry.save(update_fields=["elo", "pinned", "updated"])
    return entry


# --- Challenges ------------------------------------------------------------------------------


def challenge_create(
    *, user: AbstractBaseUser, version: BotVersion, opponent: BotVersion, rated: bool,
    ladder: Ladder,
) -> Match:
    """A match the author of `version` asked for. Rated challenges count on `ladder`, and
    only between bots of different owners (RATED_SAME_OWNER); unrated ones are open to all."""
    if not version.bot.is_owned_by(user):
        raise ValidationError({"bot": "you can only challenge with your own bot"})
    for v, field in ((version, "bot"), (opponent, "opponent")):
        if v.status != BotVersion.Status.ACTIVE or v.bot.retired:
            raise ValidationError({field: f"{v} is not an active version"})
    if rated and version.bot.owner_id == opponent.bot.owner_id:
        raise ValidationError({"rated": RATED_SAME_OWNER})
    limit = _setting("KAISER_CHALLENGES_PER_HOUR", 10)
    since = timezone.now() - timedelta(hours=1)
    with transaction.atomic():
        # Serialise per user. By the user model, not type(user): request.user is a lazy
        # wrapper whose type has no manager.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        if Match.objects.filter(requested_by_id=user.pk, created__gte=since).count() >= limit:
            raise RateLimited(f"at most {limit} challenges an hour; try again later")
        if rated:
            _entry_for(ladder.pk, version.pk)
            _entry_for(ladder.pk, opponent.pk)
        return match_create(version_a=version, version_b=opponent, kind=Match.Kind.CHALLENGE,
                            conditions=ladder, ladder=ladder, rated=rated, requested_by=user)


# --- Tournaments -----------------------------------------------------------------------------


def tournament_create(
    *, name: str, format: str, versions: Sequence[BotVersion] = (), rounds: int = 1,
    created_by: AbstractBaseUser | None = None, ladder: Ladder | None = None,
    start: bool = True, entry_deadline: datetime | None = None, **conditions: Any,
) -> Tournament:
    """A tournament of these versions (one per bot), seeded by their Elo on `ladder` (else in
    the given order), started at once unless `start` is False. With `entry_deadline` it is
    open for entry instead: authors enter their bots (`tournament_enter`) until then, and
    `tournaments_start_due` starts it with whoever entered."""
    if entry_deadline is None and len(versions) < 2:
        raise ValidationError({"entrants": "a tournament needs at least two entrants"})
    if entry_deadline is not None and entry_deadline <= timezone.now():
        raise ValidationError({"entry_deadline": "the entry deadline must be in the future"})
    if len({v.bot_id for v in versions}) != len(versions):
        raise ValidationError({"entrants": "one version per bot"})
    if rounds < 1:
        raise ValidationError({"rounds": "at least one round"})
    for version in versions:
        _check_playable(version, "entrants")
    status = Tournament.Status.OPEN if entry_deadline else Tournament.Status.DRAFT
    with transaction.atomic():
        tournament = Tournament(name=name, format=format, rounds=rounds, ladder=ladder,
                                created_by=created_by, entry_deadline=entry_deadline,
                                status=status, **conditions)
        tournament.full_clean()
        tournament.save()
        TournamentEntrant.objects.bulk_create(
            TournamentEntrant(tournament=tournament, version=v, seed=i)
            for i, v in enumerate(versions, start=1)
        )
        if start and entry_deadline is None:
            tournament_start(tournament=tournament)
    return tournament


def _check_playable(version: BotVersion, field: str) -> None:
    if version.status != BotVersion.Status.ACTIVE or version.bot.retired:
        raise ValidationError({field: f"{version.bot.name} has no active version to play"})


def tournament_enter(
    *, tournament: Tournament, version: BotVersion, user: AbstractBaseUser
) -> TournamentEntrant:
    """The author enters their bot's version in a tournament open for entry."""
    if not version.bot.is_owned_by(user):
        raise ValidationError({"bot": "you can only enter your own bot"})
    _check_playable(version, "bot")
    with transaction.atomic():
        # The tournament's row lock: entries never race the start or each other.
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.status != Tournament.Status.OPEN:
            raise ValidationError({"tournament": f"{locked.name} is not open for entry"})
        if locked.entry_deadline and locked.entry_deadline <= timezone.now():
            raise ValidationError({"tournament": "the entry deadline has passed"})
        if locked.entrants.filter(version__bot_id=version.bot_id).exists():
            raise ValidationError({"bot": f"{version.bot.name} has already entered"})
        return TournamentEntrant.objects.create(tournament=locked, version=version)


def tournament_cancel(*, tournament: Tournament, reason: str = "cancelled by staff") -> bool:
    """Cancel a tournament before it starts (a draft or open for entry). False if it already
    started (or ended)."""
    return bool(Tournament.objects.filter(
        pk=tournament.pk, status__in=[Tournament.Status.DRAFT, Tournament.Status.OPEN]
    ).update(status=Tournament.Status.CANCELLED, finished=timezone.now(),
             cancel_reason=reason[:200]))


def tournaments_start_due() -> dict[str, int]:
    """The beat's tick: start each open tournament whose entry deadline has passed, with
    whoever entered; one with fewer than two playable entrants is cancelled."""
    counts = {"started": 0, "cancelled": 0}
    due = Tournament.objects.filter(status=Tournament.Status.OPEN,
                                    entry_deadline__lte=timezone.now())
    for tournament in due.order_by("entry_deadline", "pk"):
        with transaction.atomic():
            locked = Tournament.objects.select_for_update().filter(
                pk=tournament.pk, status=Tournament.Status.OPEN).first()
            if locked is None:
                continue  # started or cancelled meanwhile
            _entrants_unplayable_remove(locked)
            if locked.entrants.count() < 2:
                counts["cancelled"] += tournament_cancel(
                    tournament=locked, reason="fewer than two entrants by the deadline")
            else:
                tournament_start(tournament=locked)
                counts["started"] += 1
    return counts


def _entrants_unplayable_remove(tournament: Tournament) -> None:
    """Entrants whose bot was retired (or its version disabled) before the start go."""
    tournament.entrants.exclude(version__status=BotVersion.Status.ACTIVE).delete()
    tournament.entrants.filter(version__bot__retired=True).delete()


def _entrants_seed(tournament: Tournament) -> list[BotVersion]:
    """Seeds 1..n: by the ladder's Elo when the tournament has a ladder, else the seeds given,
    then entry order. Returns the versions, best seed first."""
    entrants = list(tournament.entrants.select_related("version__bot").order_by(
        F("seed").asc(nulls_last=True), "entered", "pk"))
    versions = _by_rating([e.version for e in entrants], tournament.ladder)
    position = {v.pk: i for i, v in enumerate(versions, start=1)}
    tournament.entrants.update(seed=None)  # (the seed is unique per tournament)
    for entrant in entrants:
        entrant.seed = position[entrant.version_id]
    TournamentEntrant.objects.bulk_update(entrants, ["seed"])
    return versions


def _by_rating(versions: Sequence[BotVersion], ladder: Ladder | None) -> list[BotVersion]:
    if ladder is None:
        return list(versions)
    elo = dict(LadderEntry.objects.filter(ladder=ladder, version__in=versions)
               .values_list("version_id", "elo"))
    return sorted(versions, key=lambda v: -elo.get(v.pk, ratings.START))


def tournament_start(*, tournament: Tournament) -> Tournament:
    """Draft (or open for entry) to running, the entrants seeded, and the first round's
    matches (all rounds for a round robin)."""
    startable = [Tournament.Status.DRAFT, Tournament.Status.OPEN]
    with transaction.atomic():
        if not Tournament.objects.filter(pk=tournament.pk, status__in=startable).update(
            status=Tournament.Status.RUNNING, started=timezone.now(), current_round=1
        ):
            tournament.refresh_from_db()
            return tournament
        tournament.refresh_from_db()
        seeds = _entrants_seed(tournament)
        if len(seeds) < 2:
            raise ValidationError({"entrants": "a tournament needs at least two entrants"})
        if tournament.format == Tournament.Format.ROUND_ROBIN:
            rounds = pairing.round_robin_rounds(entrants=seeds, repeats=tournament.rounds)
            for number, pairs in enumerate(rounds, start=1):
                _round_create(tournament, number, pairs)
        elif tournament.format == Tournament.Format.SWISS:
            _swiss_round_create(tournament, 1)
        else:
            _knockout_round_create(tournament, 1, pairing.knockout_first_round(seeds=seeds))
    return tournament


def _round_create(tournament: Tournament, number: int, pairs: Sequence[tuple[Any, Any]]) -> None:
    withdrawn = _withdrawn_ids(tournament)
    for a, b in pairs:
        match = match_create(version_a=a, version_b=b, kind=Match.Kind.TOURNAMENT,
                             conditions=tournament, tournament=tournament, round=number,
                             rated=False)
        _walkover_if_withdrawn(match, withdrawn)


def _withdrawn_ids(tournament: Tournament) -> set[int]:
    return set(tournament.entrants.filter(withdrawn__isnull=False)
               .values_list("version_id", flat=True))


def _walkover_if_withdrawn(match: Match, withdrawn: set[int]) -> None:
    """A match of an entrant that withdrew (its bot retired) is never played: the other side
    wins it. Stored as a void match with the score and the withdrawal as its fault."""
    loser = next((v for v in (match.version_a_id, match.version_b_id) if v in withdrawn), None)
    if loser is None:
        return
    side = "A" if loser == match.version_a_id else "B"
    Match.objects.filter(pk=match.pk, status=Match.Status.QUEUED).update(
        status=Match.Status.VOID, finished=timezone.now(), score=0.0 if side == "A" else 1.0,
        forfeit_player=side, forfeit_reason="withdrawn", lease_token="", lease_expires=None,
        error="walkover: the bot was retired during the tournament")


def tournament_entries_withdraw(*, bot_id: int) -> int:
    """A bot was retired: it leaves the tournaments not started yet, and in running ones its
    matches not started yet are walkovers (so are its pairings in later rounds; a Swiss
    pairs it no more). Returns the running tournaments it withdrew from."""
    versions = list(BotVersion.objects.filter(bot_id=bot_id).values_list("pk", flat=True))
    TournamentEntrant.objects.filter(version_id__in=versions, tournament__status__in=[
        Tournament.Status.DRAFT, Tournament.Status.OPEN]).delete()
    running = TournamentEntrant.objects.filter(
        version_id__in=versions, withdrawn__isnull=True,
        tournament__status=Tournament.Status.RUNNING).values_list("pk", "tournament_id")
    for entrant_id, tournament_id in list(running):
        with transaction.atomic():
            Tournament.objects.select_for_update().filter(pk=tournament_id).first()
            TournamentEntrant.objects.filter(pk=entrant_id).update(withdrawn=timezone.now())
            queued = Match.objects.filter(tournament_id=tournament_id, status=Match.Status.QUEUED
                                          ).filter(Q(version_a_id__in=versions)
                                                   | Q(version_b_id__in=versions))
            for match in queued:
                _walkover_if_withdrawn(match, set(versions))
            tournament_advance(tournament_id=tournament_id)
    return len(running)


def _swiss_round_create(tournament: Tournament, number: int) -> bool:
    from tournaments.selectors import tournament_table

    withdrawn = _withdrawn_ids(tournament)
    table = [r for r in tournament_table(tournament=tournament) if r.version_id not in withdrawn]
    versions = {e.version_id: e.version for e in tournament.entrants.select_related("version")}
    played = tournament.matches.values_list("version_a_id", "version_b_id")
    had_bye = tournament.byes.values_list("version_id", flat=True)
    pairs, bye = pairing.swiss_round(
        standings=[pairing.Standing(r.version_id, r.points, -r.seed) for r in table],
        played=list(played), had_bye=list(had_bye),
    )
    if not pairs:
        return False
    if bye is not None:
        TournamentBye.objects.create(tournament=tournament, round=number, version_id=bye)
    _round_create(tournament, number, [(versions[a], versions[b]) for a, b in pairs])
    return True


def _knockout_round_create(
    tournament: Tournament, number: int, pairs: Sequence[tuple[Any, Any]]
) -> None:
    for position, (a, b) in enumerate(pairs):
        if a is not None and b is not None:
            match = match_create(version_a=a, version_b=b, kind=Match.Kind.TOURNAMENT,
                                 conditions=tournament, tournament=tournament, round=number,
                                 rated=False, position=position)
            _walkover_if_withdrawn(match, _withdrawn_ids(tournament))
        elif a is not None or b is not None:
            TournamentBye.objects.create(tournament=tournament, round=number,
                                         version=a if a is not None else b, position=position)


def tournament_advance(*, tournament_id: int) -> None:
    """Called whenever one of its matches ends: the next round once this one is complete, or
    the final ranking. The tournament's row lock makes it happen once. A round of walkovers
    only (withdrawn entrants) is complete at once, hence the loop."""
    with transaction.atomic():
        tournament = (Tournament.objects.select_for_update()
                      .filter(pk=tournament_id, status=Tournament.Status.RUNNING).first())
        while tournament is not None and not tournament.matches.filter(status__in=OPEN).exists():
            if not _next_round(tournament):
                _tournament_finish(tournament)
                return
            Tournament.objects.filter(pk=tournament.pk).update(current_round=F("current_round") + 1)
            tournament.refresh_from_db(fields=["current_round"])


def _next_round(tournament: Tournament) -> bool:
    """The next round's matches, if the format has one more; False when it is over."""
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        return False
    if tournament.format == Tournament.Format.SWISS:
        return tournament.current_round < tournament.rounds and _swiss_round_create(
            tournament, tournament.current_round + 1)
    return _knockout_advance(tournament)


def _knockout_advance(tournament: Tournament) -> bool:
    from tournaments.selectors import knockout_round_results

    number = tournament.current_round
    results = knockout_round_results(tournament=tournament, round=number)
    for loser in (r.loser for r in results if r.loser is not None):
        TournamentEntrant.objects.filter(tournament=tournament, version_id=loser).update(
            eliminated_round=number)
    winners = [r.winner for r in results]
    if len(winners) < 2:
        return False
    versions = BotVersion.objects.in_bulk(winners)
    pairs = pairing.knockout_next_round(winners=[versions[w] for w in winners])
    _knockout_round_create(tournament, number + 1, pairs)
    return True


def _tournament_finish(tournament: Tournament) -> None:
    from tournaments.selectors import tournament_ranking

    for rank, version_id in enumerate(tournament_ranking(tournament=tournament), start=1):
        TournamentEntrant.objects.filter(tournament=tournament, version_id=version_id).update(
            final_rank=rank)
    Tournament.objects.filter(pk=tournament.pk).update(
        status=Tournament.Status.FINISHED, finished=timezone.now())


# --- House bots ------------------------------------------------------------------------------

HOUSE_USER = "house"
HOUSE_BOTS = {"random": "builtin:random", "greedy": "builtin:greedy"}
HOUSE_ANCHOR = ("greedy", ratings.START)  # a new bot starts level with greedy


def house_bots_ensure() -> list[BotVersion]:
    """The house bots exist, each with a built-in version, and greedy anchors the main ladder
    (made if missing)."""
    from django.contrib.auth import get_user_model

    from bots.models import Bot
    from bots.services import bot_version_add_builtin

    user, created = get_user_model().objects.get_or_create(username=HOUSE_USER)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    versions = []
    for name, spec in HOUSE_BOTS.items():
        bot, _ = Bot.objects.get_or_create(name=name, defaults={
            "owner": user, "description": f"House player {spec}."})
        version = bot.versions.filter(kind=BotVersion.Kind.BUILTIN, builtin=spec).first()
        versions.append(version or bot_version_add_builtin(bot=bot, spec=spec))
    main = ladder_main_ensure()
    ladder_entries_sync(ladder=main)
    anchor = next(v for v in versions if v.bot.name == HOUSE_ANCHOR[0])
    if not LadderEntry.objects.filter(ladder=main, version=anchor, pinned=True).exists():
        ladder_anchor_set(ladder=main, version=anchor, rating=HOUSE_ANCHOR[1])
    return versions


def ladder_main_ensure() -> Ladder:
    """The default ladder (the data migration makes it; this brings it back after a flush)."""
    ladder, _ = Ladder.objects.get_or_create(
        slug="main",
        defaults={"name": "Main ladder", "rules": "official", "games_per_match": 2,
                  "description": "The official rules, duplicate matches of two games."},
    )
    return ladder
