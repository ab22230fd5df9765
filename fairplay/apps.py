from django.apps import AppConfig


class FairplayConfig(AppConfig):
    """Fair play: the think-time check of each bot version's recent matches, and its report."""

    name = "fairplay"
    verbose_name = "fair play"
    default_auto_field = "django.db.models.BigAutoField"
