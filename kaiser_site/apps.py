from django.apps import AppConfig


class KaiserSiteConfig(AppConfig):
    """The site itself: settings, URLs, the Celery app, health, docs pages and the template
    tags every app's pages use (kaiser_site/templatetags)."""

    name = "kaiser_site"

    def ready(self) -> None:
        from kaiser_site import receivers  # noqa: F401 - connects to matches.signals
