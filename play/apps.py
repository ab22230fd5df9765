from django.apps import AppConfig


class PlayConfig(AppConfig):
    name = "play"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Games against the bots"
