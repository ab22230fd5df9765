"""The admin of ladders and their entries (anchors are pinned here)."""

from __future__ import annotations

from django.contrib import admin

from ladder.models import Ladder, LadderEntry


class LadderEntryInline(admin.TabularInline):
    model = LadderEntry
    fields = ["version", "elo", "games", "pinned", "active"]
    readonly_fields = ["games"]
    raw_id_fields = ["version"]
    extra = 0


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "game", "rules", "games_per_match", "strict_ms", "active",
                    "queue_depth"]
    prepopulated_fields = {"slug": ("name",)}
    inlines = [LadderEntryInline]


@admin.register(LadderEntry)
class LadderEntryAdmin(admin.ModelAdmin):
    list_display = ["version", "ladder", "elo", "games", "pinned", "active"]
    list_filter = ["ladder", "pinned", "active"]
    raw_id_fields = ["version"]
