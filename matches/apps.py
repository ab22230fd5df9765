from django.apps import AppConfig


class MatchesConfig(AppConfig):
    """Matches: a match, its attempts and lease, the runner, the replay, play statistics."""

    name = "matches"
    default_auto_field = "django.db.models.BigAutoField"
