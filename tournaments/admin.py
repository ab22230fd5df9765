"""The admin of tournaments: entrants, starting a draft, cancelling."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest

from bots.models import default_game, game_choices
from engine.games import GAMES
from tournaments import services
from tournaments.models import Tournament, TournamentEntrant


class TournamentEntrantInline(admin.TabularInline):
    model = TournamentEntrant
    fields = ["version", "seed", "eliminated_round", "final_rank", "withdrawn"]
    readonly_fields = ["eliminated_round", "final_rank", "withdrawn"]
    autocomplete_fields = ["version"]  # by bot name
    extra = 2


class TournamentAdminForm(forms.ModelForm):
    # The default game unless chosen; the model's clean() checks the rules and games against it.
    game = forms.ChoiceField(choices=game_choices, initial=default_game, required=False)
    rules = forms.ChoiceField(
        choices=lambda: [(g.title, [(p, p) for p in g.presets]) for g in GAMES.values()],
        initial="official")

    def clean_game(self) -> str:
        return self.cleaned_data.get("game") or default_game()

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
