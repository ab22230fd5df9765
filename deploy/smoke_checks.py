"""The database side of deploy/smoke.sh, run inside the web container: prints one JSON object.

    python deploy/smoke_checks.py ledger       # nothing lost, nothing counted twice
    python deploy/smoke_checks.py running      # the matches being played, and by which worker
    python deploy/smoke_checks.py played SINCE # the attempts started at SINCE or later, finished
    python deploy/smoke_checks.py user NAME PASSWORD   # a user for the smoke test's uploads

The ledger is the check of docs/operations.md ("Checking that nothing was lost") made strict:
every finished ladder match has exactly one rating change per side (and a rated one two in
all), exactly one attempt whose result was stored, every entry's Elo and game count equal the
history replayed, and no match is running on a lease that ran out.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kaiser_site.settings")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db.models import Count, Q  # noqa: E402
from django.utils import timezone  # noqa: E402
from django.utils.dateparse import parse_datetime  # noqa: E402

from ladder.models import Ladder, LadderEntry  # noqa: E402
from ladder.selectors import ratings_recomputed  # noqa: E402
from matches.models import Match, MatchAttempt  # noqa: E402

STORED = MatchAttempt.Outcome.FINISHED


def _sides_wrong(match: Match) -> bool:
    """A finished ladder match: one change per side if rated (three in Sergeant Major's, which
    every stack plays since its house bots came with the migrations), none if not."""
    changed = sorted(match.rating_changes.values_list("entry__version_id", flat=True))
    expected = sorted(match.version_ids) if match.rated else []
    return changed != expected


def _elo_mismatches() -> list[str]:
    found = []
    for ladder in Ladder.objects.all():
        replayed = ratings_recomputed(ladder=ladder)
        for entry in LadderEntry.objects.filter(ladder=ladder):
            elo, games = replayed.get(
                entry.version_id, (entry.elo, 0) if entry.pinned else (1500.0, 0)
            )
            if abs(elo - entry.elo) > 1e-6 or games != entry.games:
                found.append(
                    f"{ladder.slug}/{entry.version_id}: stored {entry.elo:.3f} "
                    f"({entry.games}), replayed {elo:.3f} ({games})"
                )
    return found


def ledger() -> dict[str, Any]:
    finished = Match.objects.filter(status=Match.Status.FINISHED, ladder__isnull=False)
    stored = finished.annotate(n=Count("attempt_rows", filter=Q(attempt_rows__outcome=STORED)))
    by_status = dict(Match.objects.values_list("status").annotate(n=Count("id")))
    outcomes = dict(MatchAttempt.objects.values_list("outcome").annotate(n=Count("id")))
    return {
        "matches": by_status,
        "attempts": outcomes,
        "finished_ladder": finished.count(),
        "sides_wrong": [
            m.pk for m in finished.prefetch_related("rating_changes") if _sides_wrong(m)
        ],
        "stored_not_once": list(stored.exclude(n=1).values_list("pk", flat=True)),
        "elo_mismatches": _elo_mismatches(),
        "running_expired": list(
            Match.objects.filter(
                status=Match.Status.RUNNING, lease_expires__lt=timezone.now()
            ).values_list("pk", flat=True)
        ),
        "lost_then_finished": list(
            finished.filter(attempt_rows__outcome=MatchAttempt.Outcome.LOST).values_list(
                "pk", flat=True
            )
        ),
    }


def running() -> dict[str, Any]:
    rows = MatchAttempt.objects.filter(
        outcome=MatchAttempt.Outcome.RUNNING, match__status=Match.Status.RUNNING
    ).values_list("match_id", "worker")
    return {"running": [{"match": match, "worker": worker} for match, worker in rows]}


def played(since: str) -> dict[str, Any]:
    """Whole matches: the attempts that started at `since` (ISO 8601) or later and stored
    their result, with the worker that played each."""
    start = parse_datetime(since)
    rows = MatchAttempt.objects.filter(outcome=STORED, started__gte=start).values_list(
        "match_id", "worker", "started", "ended"
    )
    return {
        "played": [
            {"match": m, "worker": w, "started": s.isoformat(), "ended": e.isoformat()}
            for m, w, s, e in rows
        ]
    }


def user(name: str, password: str) -> dict[str, Any]:
    model = get_user_model()
    account, created = model.objects.get_or_create(username=name)
    account.set_password(password)
    account.save()
    return {"user": name, "created": created}


if __name__ == "__main__":
    command, *args = sys.argv[1:] or ["ledger"]
    commands: dict[str, Callable[..., dict[str, Any]]] = {
        "ledger": ledger,
        "running": running,
        "played": played,
        "user": user,
    }
    result = commands[command](*args)
    print(json.dumps(result, sort_keys=True))
