from django.contrib import admin

from play.models import Seat, Table


class SeatInline(admin.TabularInline):
    model = Seat
    fields = ["seat", "version", "builtin"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Table)
class GameAdmin(admin.ModelAdmin):
    list_display = ["pk", "owner", "rules", "length", "status", "winner", "forfeit_reason",
                    "created", "finished"]
    list_filter = ["status", "length", "rules"]
    search_fields = ["owner__username"]
    raw_id_fields = ["owner"]
    exclude = ["replay", "view"]
    readonly_fields = ["seed", "seq", "worker", "started", "alive", "finished", "void_reason"]
    inlines = [SeatInline]
