"""Prometheus metrics at /metrics: django-prometheus's request metrics, and the arena's own
state read from the database (and the workers' last sandbox reports) at scrape time.

Nothing here counts events in a process: every arena figure is a query made when Prometheus
scrapes, so every web process reports the same values and a restart loses nothing. The
figures that only grow (finished matches, forfeits, the play-time histogram) are counted over
every row the database holds, which keeps rate() and histogram_quantile() meaningful.

Who may read it: a client on this host (127.0.0.1, ::1), or anyone with
`Authorization: Bearer <KAISER_METRICS_TOKEN>`. Behind a reverse proxy the client's address is
the one KAISER_PROXIES says to trust; a request that came through a proxy the site was not
told about (it carries X-Forwarded-For with KAISER_PROXIES=0) is never taken for a local one.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
from collections.abc import Iterator

import prometheus_client
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

logger = logging.getLogger(__name__)

# Upper bounds of the play-time histogram, in seconds (engine time of a whole match).
PLAY_SECONDS_BUCKETS = (1, 2, 5, 10, 20, 30, 60, 120, 300, 600)
MATCH_STATUSES = ("queued", "running", "finished", "failed", "void")


def _match_families() -> Iterator[Metric]:
    from django.db.models import Count, Min, Q, Sum

    from matches.models import Match, MatchSide

    by_status = dict(Match.objects.order_by().values_list("status").annotate(n=Count("pk")))
    matches = GaugeMetricFamily("kaiser_matches", "Matches in the database, by status "
                                "(queued and running: the match queue)", labels=["status"])
    for status in MATCH_STATUSES:
        matches.add_metric([status], by_status.get(status, 0))
    yield matches

    oldest = Match.objects.filter(status=Match.Status.QUEUED).aggregate(t=Min("created"))["t"]
    waited = (timezone.now() - oldest).total_seconds() if oldest else 0.0
    yield GaugeMetricFamily("kaiser_match_queue_oldest_seconds",
                            "How long the oldest queued match has waited (0: none queued)",
                            value=max(0.0, waited))

    forfeits = CounterMetricFamily("kaiser_match_forfeits", "Finished matches lost by a "
                                   "bot's fault, by the fault (forfeit reason)", labels=["reason"])
    for reason, n in (MatchSide.objects.filter(match__status=Match.Status.FINISHED).exclude(
            fault="").order_by().values_list("fault").annotate(n=Count("pk")).order_by("fault")):
        forfeits.add_metric([reason], n)
    yield forfeits

    timed = Match.objects.filter(status=Match.Status.FINISHED, play_ms__isnull=False)
    per_bucket = {f"le{b}": Count("pk", filter=Q(play_ms__lte=b * 1000))
                  for b in PLAY_SECONDS_BUCKETS}
    row = timed.aggregate(n=Count("pk"), total_ms=Sum("play_ms"), **per_bucket)
    buckets = [(str(float(b)), row[f"le{b}"]) for b in PLAY_SECONDS_BUCKETS]
    buckets.append(("+Inf", row["n"]))
    yield HistogramMetricFamily("kaiser_match_play_seconds", "Engine time of finished "
                                "matches (their last attempt)", buckets=buckets,
                                sum_value=(row["total_ms"] or 0) / 1000)


def _worker_families() -> Iterator[Metric]:
    from kaiser_site import health

    broker = health._check_broker()
    yield GaugeMetricFamily("kaiser_broker_up", "1 if the broker answered",
                            value=1 if broker["ok"] else 0)
    workers = health._check_workers() if broker["ok"] else health._no_workers()
    family = GaugeMetricFamily(
        "kaiser_workers", "Workers that answered, by the mode of their last sandbox probe, "
        "their seats' kernel and whether they may play (as /health/ reports them)",
        labels=["sandbox", "kernel", "ok"])
    counts: dict[tuple[str, str, str], int] = {}
    for entry in workers["sandbox"].values():
        key = (str(entry["mode"]), str(entry["kernel"] or "unknown"),
               "true" if entry["ok"] else "false")
        counts[key] = counts.get(key, 0) + 1
    for key in sorted(counts):
        family.add_metric(list(key), counts[key])
    yield family


class ArenaCollector(Collector):
    """The arena's state, read at scrape time. A database that cannot be read shows as
    kaiser_database_up 0 (the error goes to the log), not as a failed scrape."""

    def describe(self) -> list[Metric]:
        # Registering would otherwise collect once, querying a database that manage.py
        # migrate may not have made yet. Our names are ours alone (kaiser_*).
        return []

    def collect(self) -> Iterator[Metric]:
        try:
            families = list(_match_families())
        except Exception as error:  # noqa: BLE001 - any failure is the metric's content
            logger.warning("metrics: database unreachable: %s", error)
            families = []
        yield GaugeMetricFamily("kaiser_database_up", "1 if the database answered",
                                value=1 if families else 0)
        yield from families
        yield from _worker_families()


_collector = ArenaCollector()
prometheus_client.REGISTRY.register(_collector)  # this module is imported once (urls.py)


def _registry() -> prometheus_client.CollectorRegistry:
    """The process's registry, or, with several web processes in prometheus_client's
    multiprocess mode (PROMETHEUS_MULTIPROC_DIR), every process's request metrics summed."""
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return prometheus_client.REGISTRY
    from prometheus_client import multiprocess

    registry = prometheus_client.CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    registry.register(_collector)
    return registry


# --- Who may read /metrics ---------------------------------------------------------------------


def _is_local(request: HttpRequest) -> bool:
    from accounts.login_limits import client_address

    if getattr(settings, "KAISER_PROXIES", 0) == 0 and "HTTP_X_FORWARDED_FOR" in request.META:
        return False  # relayed by a proxy the site was not told about: its address says nothing
    try:
        return ipaddress.ip_address(client_address(request)).is_loopback
    except ValueError:
        return False


def _has_token(request: HttpRequest) -> bool:
    token = getattr(settings, "KAISER_METRICS_TOKEN", "")
    scheme, _, given = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    return bool(token) and scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode(), token.encode())


def metrics_allowed(request: HttpRequest) -> bool:
    return _has_token(request) or _is_local(request)


def metrics_view(request: HttpRequest) -> HttpResponse:
    if not metrics_allowed(request):
        return HttpResponse("metrics: only from this host, or with the bearer token "
                            "(KAISER_METRICS_TOKEN)\n", status=403,
                            content_type="text/plain; charset=utf-8")
    body = prometheus_client.generate_latest(_registry())
    return HttpResponse(body, content_type=prometheus_client.CONTENT_TYPE_LATEST)
