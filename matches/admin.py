"""The admin of matches: their attempts and rating changes, and voiding a match."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from ladder.models import RatingChange
from matches import services
from matches.models import Match, MatchAttempt


class MatchAttemptInline(admin.TabularInline):
    model = MatchAttempt
    fields = ["worker", "started", "ended", "outcome", "error"]
    readonly_fields = fields
    extra = 0
    can_delete = False


class RatingChangeInline(admin.TabularInline):
    model = RatingChange
    fields = ["entry", "before", "after"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "status", "version_a", "version_b", "score", "attempts",
                    "created", "finished"]
    list_filter = ["status", "kind", "ladder", "tournament"]
    raw_id_fields = ["version_a", "version_b", "requested_by", "ladder", "tournament"]
    readonly_fields = ["status", "score", "games_a", "games_b", "forfeit", "replay_size",
                       "attempts", "lease_token", "lease_expires", "dispatched", "started",
                       "finished", "play_ms", "error"]
    exclude = ["stderr_a", "stderr_b"]
    inlines = [MatchAttemptInline, RatingChangeInline]
    actions = ["void"]

    @admin.action(description="Void the selected unfinished matches (never scored)")
    def void(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        count = sum(services.match_void(match=m, reason=f"voided by {request.user}")
                    for m in queryset)
        self.message_user(request, f"{count} matches voided", messages.SUCCESS)
