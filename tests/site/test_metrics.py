"""/metrics: django-prometheus's request counters and the arena's own figures, read from the
database at scrape time, for matches made and played through the real services; a real
Celery worker's sandbox mode; and who may read it (this host, or the bearer token)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from kaiser_site.health import WORKERS_CACHE_KEY
from tests.site.test_site_health import start_worker  # noqa: F401 - a fixture used below

pytestmark = pytest.mark.django_db
CRASHING_BOT = b"import sys\nsys.exit(3)\n"  # forfeits every game it plays ("crash")
REMOTE = "203.0.113.7"  # an address of documentation's range: never this host

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def _scrape(client: Client, **extra: str) -> Samples:
    response = client.get("/metrics", **extra)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(response.content.decode())
            for s in family.samples}


def _value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


REQUESTS = "django_http_requests_total_by_view_transport_method_total"


@pytest.mark.sandbox  # the crashing bot runs in a real seat
def test_the_queue_the_finished_matches_their_faults_and_the_requests_are_scraped(
    private_broker: Path, make_builtin: Callable[..., Any], make_program: Callable[..., Any],
) -> None:
    from ladder.models import Ladder
    from matches import services
    from matches.models import Match

    ladder = Ladder.objects.create(name="Metrics", slug="metrics", games_per_match=2)
    greedy, rand = make_builtin("m-greedy"), make_builtin("m-random", "builtin:random")
    crash = make_program("m-crash", CRASHING_BOT)
    matches = [services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                     conditions=ladder, ladder=ladder)
               for a, b in ((greedy, rand), (crash, greedy), (rand, greedy), (greedy, rand))]
    for match in matches[:2]:
        assert services.match_play(match_id=match.pk, worker="test") == "finished"
    assert services.match_start(match_id=matches[2].pk, worker="test") is not None  # running
    client = Client()

    before = _scrape(client)
    assert client.get("/health/").status_code == 200
    after = _scrape(client)

    assert _value(after, "kaiser_database_up") == 1
    assert _value(after, "kaiser_broker_up") == 1
    counts = {s: _value(after, "kaiser_matches", status=s)
              for s in ("queued", "running", "finished", "failed", "void")}
    assert counts == {"queued": 1, "running": 1, "finished": 2, "failed": 0, "void": 0}
    assert _value(after, "kaiser_match_queue_oldest_seconds") > 0
    assert _value(after, "kaiser_match_forfeits_total", reason="crash") == 1
    assert _value(after, "kaiser_match_play_seconds_count") == 2
    assert _value(after, "kaiser_match_play_seconds_bucket", le="+Inf") == 2
    played_ms = sum(Match.objects.filter(status="finished").values_list("play_ms", flat=True))
    assert _value(after, "kaiser_match_play_seconds_sum") == pytest.approx(played_ms / 1000)
    # The middleware counted exactly the requests made between the two scrapes.
    health = {"view": "health", "transport": "http", "method": "GET"}
    assert (_value(after, REQUESTS, **health) or 0) - (_value(before, REQUESTS, **health) or 0) == 1
    scrapes = {**health, "view": "metrics"}
    assert _value(after, REQUESTS, **scrapes) - (_value(before, REQUESTS, **scrapes) or 0) == 1

    # A match ending moves it from the queue to the finished count at the next scrape.
    assert services.match_play(match_id=matches[3].pk, worker="test") == "finished"
    later = _scrape(client)
    assert _value(later, "kaiser_matches", status="queued") == 0
    assert _value(later, "kaiser_matches", status="finished") == 3
    assert _value(later, "kaiser_match_queue_oldest_seconds") == 0


@pytest.mark.worker
@pytest.mark.sandbox
def test_each_workers_sandbox_mode_and_kernel_is_scraped(
    start_worker: Callable[..., Any],  # noqa: F811 - the fixture imported above
) -> None:
    client = Client()
    assert _value(_scrape(client), "kaiser_workers", sandbox="cgroup-v1", kernel="gvisor",
                  ok="true") is None  # no worker yet on this private broker
    start_worker()
    # As in the health tests: a worker on a busy host may miss the one-second ping, and a
    # missed answer is cached too, so ask again until it answers.
    deadline = time.monotonic() + 30
    while True:
        cache.delete(WORKERS_CACHE_KEY)
        workers = {dict(labels)["sandbox"]: (dict(labels), value)
                   for (name, labels), value in _scrape(client).items()
                   if name == "kaiser_workers"}
        if workers or time.monotonic() > deadline:
            break
    assert len(workers) == 1, workers
    (mode, (labels, value)), = workers.items()
    assert mode in ("cgroup-v1", "cgroup-v2")
    assert labels["kernel"] == "gvisor" and labels["ok"] == "true" and value == 1


def test_another_address_is_refused_without_the_token(settings: Any) -> None:
    settings.KAISER_METRICS_TOKEN = "s3cret-scrape-token"
    client = Client()
    refused = client.get("/metrics", REMOTE_ADDR=REMOTE)
    assert refused.status_code == 403
    assert b"kaiser_" not in refused.content and b"KAISER_METRICS_TOKEN" in refused.content
    wrong = client.get("/metrics", REMOTE_ADDR=REMOTE, HTTP_AUTHORIZATION="Bearer guess")
    assert wrong.status_code == 403
    samples = _scrape(client, REMOTE_ADDR=REMOTE,
                      HTTP_AUTHORIZATION="Bearer s3cret-scrape-token")
    assert _value(samples, "kaiser_database_up") == 1


def test_without_a_token_set_only_this_host_reads_and_no_bearer_opens_it(settings: Any) -> None:
    settings.KAISER_METRICS_TOKEN = ""
    client = Client()
    assert client.get("/metrics", REMOTE_ADDR="::1").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR=REMOTE).status_code == 403
    assert client.get("/metrics", REMOTE_ADDR=REMOTE,
                      HTTP_AUTHORIZATION="Bearer ").status_code == 403


def test_a_request_relayed_by_a_proxy_the_site_was_not_told_about_is_not_local(
    settings: Any,
) -> None:
    settings.KAISER_PROXIES = 0
    relayed = Client().get("/metrics", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=REMOTE)
    assert relayed.status_code == 403
