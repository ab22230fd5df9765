from django.contrib import admin

from bots.models import Bot, BotProgram, BotVersion


class BotVersionInline(admin.TabularInline):
    model = BotVersion
    fields = ["number", "kind", "status", "reason", "size", "created"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "retired", "created"]
    list_filter = ["retired"]
    search_fields = ["name", "owner__username"]
    raw_id_fields = ["owner"]
    inlines = [BotVersionInline]


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    list_display = ["bot", "number", "kind", "status", "size", "created", "checked"]
    list_filter = ["status", "kind"]
    search_fields = ["bot__name", "program__sha256"]
    raw_id_fields = ["bot", "program"]
    readonly_fields = ["created", "checked", "check_attempts"]
    exclude = ["check_replay"]


@admin.register(BotProgram)
class BotProgramAdmin(admin.ModelAdmin):
    list_display = ["sha256", "size", "created"]
    exclude = ["content"]
    readonly_fields = ["sha256", "size", "created"]
