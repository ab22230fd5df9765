"""The shared pages' part when a match ends (matches.signals; connected in
KaiserSiteConfig.ready): the pages' generation moves (kaiser_site.page_cache), in the
transaction that stores the result and again once it commits."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from kaiser_site.page_cache import pages_changed
from matches import signals


@receiver(signals.match_finished, dispatch_uid="kaiser_site.pages_finished")
def match_finished(sender: Any, **_: Any) -> None:
    pages_changed()


@receiver(signals.match_ended, dispatch_uid="kaiser_site.pages_ended")
def match_ended(sender: Any, **_: Any) -> None:
    pages_changed()
