"""The health report: the database, the broker, and each worker's sandbox.

Cheap and safe to expose: the workers are asked (one broadcast, a short timeout) at most once
every KAISER_HEALTH_CACHE_SECONDS per web process, the answer is cached; a database or broker
failure shows as "unreachable" (the error itself goes to the server's log); requests are
throttled per address (KAISER_THROTTLE_HEALTH).

Status: "failing" (HTTP 503) when the database or the broker is unreachable, or when workers
answer and none of them can sandbox a bot; "degraded" when no worker answers, or some cannot
sandbox (or have not finished their first probe); "ok" otherwise.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

logger = logging.getLogger(__name__)

PING_TIMEOUT = 1.0
UNREACHABLE = "unreachable"
WORKERS_CACHE_KEY = "health:workers"
WORKERS_LOCK_KEY = "health:workers:asking"
STALE_FACTOR = 6


class HealthThrottle(SimpleRateThrottle):
    """Per client address, at KAISER_THROTTLE_HEALTH (read per request, not at import)."""

    scope = "health"

    def get_rate(self) -> str | None:
        rate: str | None = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return rate

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def _unreachable(what: str, error: Exception) -> dict[str, Any]:
    logger.warning("health: %s unreachable: %s", what, error)
    return {"ok": False, "error": UNREACHABLE}


def _check_database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # noqa: BLE001 - any failure is the report's content
        return _unreachable("database", error)
    return {"ok": True, "vendor": connection.vendor}


def _check_broker() -> dict[str, Any]:
    from kaiser_site.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=PING_TIMEOUT)
            transport = conn.transport_cls
    except Exception as error:  # noqa: BLE001
        return _unreachable("broker", error)
    return {"ok": True, "transport": str(transport)}


def _sandbox_entry(reply: Any) -> dict[str, Any]:
    """One worker's reply to the `sandbox` inspect command, as /health/ shows it."""
    if not isinstance(reply, dict) or "mode" not in reply:
        return {"mode": "unknown", "ok": False, "seccomp": False, "kernel": None,
                "checked": None, "config": None,
                "reason": "the worker does not report its sandbox (an older version?)"}
    entry = {key: reply.get(key)
             for key in ("mode", "ok", "reason", "seccomp", "kernel", "checked", "config")}
    entry["ok"] = entry["ok"] is True
    return entry


def _ask_workers() -> dict[str, Any]:
    from kaiser_site.celery import app

    try:
        with app.connection_for_write() as conn:  # fresh, not the pool: reflects settings now
            inspect = app.control.inspect(timeout=PING_TIMEOUT, connection=conn)
            replies = inspect._request("sandbox") or {}
    except Exception as error:  # noqa: BLE001
        logger.warning("health: asking the workers failed: %s", error)
        replies = {}
    sandbox = {name: _sandbox_entry(replies[name]) for name in sorted(replies)}
    able = sum(entry["ok"] for entry in sandbox.values())
    return {"ok": able > 0, "count": len(sandbox), "names": list(sandbox), "sandboxed": able,
            "sandbox": sandbox}


def _check_workers() -> dict[str, Any]:
    """The workers' answer, asked at most once per KAISER_HEALTH_CACHE_SECONDS. Asking waits
    the whole timeout, so once the answer is due only one request asks (a lock in the cache)
    while the others serve the previous answer, up to STALE_FACTOR times as old."""
    fresh_for = settings.KAISER_HEALTH_CACHE_SECONDS
    cached: dict[str, Any] | None = cache.get(WORKERS_CACHE_KEY)
    if cached is not None and time.time() - cached["at"] < fresh_for:
        return dict(cached["workers"])
    if cached is not None and not cache.add(WORKERS_LOCK_KEY, 1, timeout=PING_TIMEOUT * 5):
        return dict(cached["workers"])  # another request is asking the workers right now
    try:
        workers = _ask_workers()
        cache.set(WORKERS_CACHE_KEY, {"at": time.time(), "workers": workers},
                  max(1, fresh_for * STALE_FACTOR))
    finally:
        cache.delete(WORKERS_LOCK_KEY)
    return workers


def _no_workers() -> dict[str, Any]:
    return {"ok": False, "count": 0, "names": [], "sandboxed": 0, "sandbox": {}}


def _status(database: dict[str, Any], broker: dict[str, Any],
            workers: dict[str, Any]) -> tuple[str, int]:
    if not (database["ok"] and broker["ok"]):
        return "failing", 503
    if workers["count"] == 0:
        return "degraded", 200
    pending = any(e["mode"] == "pending" for e in workers["sandbox"].values())
    if workers["sandboxed"] == 0 and not pending:
        return "failing", 503
    if workers["sandboxed"] < workers["count"]:
        return "degraded", 200
    return "ok", 200


def health_report() -> tuple[dict[str, Any], int]:
    """(body, HTTP status); see the module's docstring."""
    database, broker = _check_database(), _check_broker()
    workers = _check_workers() if broker["ok"] else _no_workers()
    status, code = _status(database, broker, workers)
    body = {"status": status, "database": database, "broker": broker, "workers": workers}
    return body, code


def health(request: HttpRequest) -> JsonResponse:
    throttle = HealthThrottle()
    if not throttle.allow_request(request, None):
        wait = throttle.wait()
        response = JsonResponse({"detail": "Request was throttled.", "code": "throttled"},
                                status=429)
        if wait is not None:
            response["Retry-After"] = str(math.ceil(wait))
        return response
    body, code = health_report()
    return JsonResponse(body, status=code)


_part = {"ok": serializers.BooleanField(), "error": serializers.CharField(required=False)}
_sandbox = inline_serializer("HealthWorkerSandbox", {
    "mode": serializers.ChoiceField(["cgroup-v1", "cgroup-v2", "rlimit", "broken",
                                     "unsandboxed", "pending", "unknown"]),
    "ok": serializers.BooleanField(),
    "reason": serializers.CharField(),
    "seccomp": serializers.BooleanField(),
    "kernel": serializers.ChoiceField(choices=["gvisor", "host"], allow_null=True,
                                      help_text="gvisor: every seat its own kernel; host: the "
                                                "seats share the worker's kernel"),
    "checked": serializers.DateTimeField(allow_null=True),
    "config": serializers.JSONField(
        allow_null=True, help_text="the worker's sandbox settings (engine.sandbox.config's "
                                   "SandboxConfig.to_dict), or the one-line error of an "
                                   "invalid one; null before its first probe"),
})


class HealthView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []  # no credentials involved at all
    throttle_classes = [HealthThrottle]

    @extend_schema(
        summary="Database, broker, workers and their sandboxes",
        responses={
            (200, "application/json"): inline_serializer(
                "Health",
                {
                    "status": serializers.ChoiceField(["ok", "degraded", "failing"]),
                    "database": inline_serializer("HealthDatabase", {
                        **_part, "vendor": serializers.CharField(required=False)}),
                    "broker": inline_serializer("HealthBroker", {
                        **_part, "transport": serializers.CharField(required=False)}),
                    "workers": inline_serializer("HealthWorkers", {
                        "ok": serializers.BooleanField(),
                        "count": serializers.IntegerField(),
                        "names": serializers.ListField(child=serializers.CharField()),
                        "sandboxed": serializers.IntegerField(),
                        "sandbox": serializers.DictField(child=_sandbox),
                    }),
                },
            )
        },
    )
    def get(self, request: Request) -> Response:
        body, code = health_report()
        return Response(body, status=code)
