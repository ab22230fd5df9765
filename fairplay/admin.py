from django.contrib import admin

from fairplay.models import FairPlayCheck


@admin.register(FairPlayCheck)
class FairPlayCheckAdmin(admin.ModelAdmin):
    """Read-only: checks are the periodic task's; staff act on the bot, not on the check."""

    list_display = ("version", "checked", "matches", "flagged", "error")
    list_filter = ("flagged",)
    readonly_fields = ("version", "checked", "matches", "match_ids", "figures", "flagged",
                       "error")

    def has_add_permission(self, request: object) -> bool:
        return False
