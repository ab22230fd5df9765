"""Fair play: one check of a bot version's think times (engine.fairplay) over its recent
matches, as the periodic task made it (fairplay.services). A check flags; staff decide."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.utils import timezone

SPREADS = ("cpu", "wait", "sleep")  # the verdict's spreads, in bits a move


class FairPlayCheck(models.Model):
    """The check of one version over the matches it names (newest first): the verdict's
    figures (engine.fairplay.Verdict.to_dict()), whether it was flagged and why, or why no
    verdict could be had (`error`: too few decisions, times that do not fit a replay)."""

    version = models.ForeignKey("bots.BotVersion", on_delete=models.CASCADE,
                                related_name="fairplay_checks")
    checked = models.DateTimeField(default=timezone.now)
    matches = models.PositiveIntegerField()  # matches looked at
    match_ids = models.JSONField(default=list)  # the matches behind it, newest first
    figures = models.JSONField(default=dict)  # the verdict's figures; empty with an error
    flagged = models.BooleanField(default=False)
    error = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-checked", "-id"]
        indexes = [models.Index(fields=["version", "-checked"], name="fairplay_version_newest"),
                   models.Index(fields=["-checked"], name="fairplay_newest")]

    def __str__(self) -> str:
        verdict = "error" if self.error else "flagged" if self.flagged else "passes"
        return f"fair-play check of version {self.version_id} ({verdict})"

    def spread(self) -> tuple[str, float] | None:
        """The widest spread and its bits a move (the verdict's `bits`), if any was measured."""
        measured = [(name, float(self.figures[f"{name}_bits"])) for name in SPREADS
                    if self.figures.get(f"{name}_bits") is not None]
        return max(measured, key=lambda pair: pair[1]) if measured else None

    @property
    def bits(self) -> float | None:
        widest = self.spread()
        return widest[1] if widest else None

    @property
    def spread_name(self) -> str:
        widest = self.spread()
        return widest[0] if widest else ""

    def figure(self, name: str) -> Any:
        return self.figures.get(name)
