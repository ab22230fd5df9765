"""Admin: ladders and anchors, tournaments (created and started here by staff), matches."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest

from engine.rules import PRESETS
from tournaments import services
from tournaments.models import (
    Ladder,
    LadderEntry,
    Match,
    MatchAttempt,
    RatingChange,
    Tournament,
    TournamentEntrant,
)


class LadderEntryInline(admin.TabularInline):
    model = LadderEntry
    fields = ["version", "elo", "games", "pinned", "active"]
    readonly_fields = ["games"]
    raw_id_fields = ["version"]
    extra = 0


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "rules", "games_per_match", "active", "queue_depth"]
    prepopulated_fields = {"slug": ("name",)}
    inlines = [LadderEntryInline]


@admin.register(LadderEntry)
class LadderEntryAdmin(admin.ModelAdmin):
    list_display = ["version", "ladder", "elo", "games", "pinned", "active"]
    list_filter = ["ladder", "pinned", "active"]
    raw_id_fields = ["version"]


class TournamentEntrantInline(admin.TabularInline):
    model = TournamentEntrant
    fields = ["version", "seed", "eliminated_round", "final_rank", "withdrawn"]
    readonly_fields = ["eliminated_round", "final_rank", "withdrawn"]
    autocomplete_fields = ["version"]  # by bot name
    extra = 2


class TournamentAdminForm(forms.ModelForm):
    rules = forms.ChoiceField(choices=lambda: [(p, p) for p in PRESETS], initial="official")

    class Meta:
        model = Tournament
        fields = "__all__"


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    """Staff normally use the site's "New tournament" page; this is for repairs. Seeds may be
    left blank: the start assigns them (the ladder's rating, else the order given)."""

    form = TournamentAdminForm
    list_display = ["name", "format", "status", "current_round", "entry_deadline", "created"]
    list_filter = ["format", "status"]
    readonly_fields = ["status", "current_round", "started", "finished", "created_by",
                       "cancel_reason"]
    inlines = [TournamentEntrantInline]
    actions = ["start", "cancel"]

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = request.user  # type: ignore[assignment]
        super().save_model(request, obj, form, change)

    @admin.action(description="Start the selected tournaments (draft or open for entry)")
    def start(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        for tournament in queryset.filter(status__in=[Tournament.Status.DRAFT,
                                                      Tournament.Status.OPEN]):
            try:
                services.tournament_start(tournament=tournament)
            except ValidationError as error:
                self.message_user(request, f"{tournament}: {'; '.join(error.messages)}",
                                  messages.ERROR)
            else:
                self.message_user(request, f"{tournament} started", messages.SUCCESS)

    @admin.action(description="Cancel the selected tournaments (before their start)")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        count = sum(services.tournament_cancel(tournament=t, reason=f"cancelled by {request.user}")
                    for t in queryset)
        self.message_user(request, f"{count} tournaments cancelled", messages.SUCCESS)


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
