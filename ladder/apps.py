from django.apps import AppConfig


class LadderConfig(AppConfig):
    """The ladder: entries, pairing and scheduling, Elo and the fitted ratings."""

    name = "ladder"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from ladder import receivers  # noqa: F401 - connects to matches.signals
