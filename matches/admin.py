"""The admin of matches: their attempts and rating changes, and voiding a match."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from ladder.models import RatingChange
from matches import services
from matches.models import Match, MatchAttempt, MatchSide, sides_with_bots


class MatchAttemptInline(admin.TabularInline):
    model = MatchAttempt
    fields = ["worker", "started", "ended", "outcome", "error"]
    readonly_fields = fields
    extra = 0
    can_delete = False


class MatchSideInline(admin.TabularInline):
    """A match's players, as played: made with the match, never edited here."""

    model = MatchSide
    fields = ["order", "version", "games", "points", "ups", "fault"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Match | None = None) -> bool:
        return False


class RatingChangeInline(admin.TabularInline):
    model = RatingChange
    fields = ["entry", "before", "after"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "status", "players", "score", "attempts", "created",
                    "finished"]
    list_filter = ["status", "kind", "ladder", "tournament"]
    raw_id_fields = ["requested_by", "ladder", "tournament"]
    readonly_fields = ["status", "score", "forfeit", "replay_size",
                       "attempts", "lease_token", "lease_expires", "dispatched", "started",
                       "finished", "play_ms", "error"]
    inlines = [MatchSideInline, MatchAttemptInline, RatingChangeInline]
    actions = ["void"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Match]:
        return super().get_queryset(request).prefetch_related(sides_with_bots())

    @admin.display(description="players")
    def players(self, match: Match) -> str:
        return " vs ".join(f"{side.version.bot.name} v{side.version.number}"
                           for side in match.side_list)

    @admin.action(description="Void the selected unfinished matches (never scored)")
    def void(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        count = sum(services.match_void(match=m, reason=f"voided by {request.user}")
                    for m in queryset)
        self.message_user(request, f"{count} matches voided", messages.SUCCESS)
