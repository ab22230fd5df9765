from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Tournaments: formats (round robin, Swiss, knockout), entries, rounds and standings."""

    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from tournaments import receivers  # noqa: F401 - connects to matches.signals
