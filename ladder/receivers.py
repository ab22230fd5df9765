"""The ladder's part when a match finishes (matches.signals; connected in LadderConfig.ready)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from ladder import services
from matches import signals
from matches.models import Match


@receiver(signals.match_finished, dispatch_uid="ladder.ratings_apply")
def ratings_apply(sender: Any, *, match: Match, **_: Any) -> None:
    """A rated match's Elo update, in the transaction that stores its result."""
    if match.rated and match.ladder_id:
        services.ratings_apply(match)


@receiver(signals.match_settled, dispatch_uid="ladder.refill")
def refill(sender: Any, *, match: Match, **_: Any) -> bool:
    """A ladder match done: the ladder schedules its next matches (new versions join it on the
    beat's tick), which sends them."""
    if match.kind == Match.Kind.LADDER and match.ladder_id:
        services.ladder_schedule(ladder_id=match.ladder_id, sync=False)
        return True
    return False
