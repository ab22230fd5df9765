"""The health report: database, broker and workers, each checked with a short timeout."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.http import HttpRequest, JsonResponse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

PING_TIMEOUT = 1.0


def _check_database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # noqa: BLE001 - any failure is the report's content
        return {"ok": False, "error": str(error).splitlines()[0][:200]}
    return {"ok": True, "vendor": connection.vendor}


def _check_broker() -> dict[str, Any]:
    from kaiser_site.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=PING_TIMEOUT)
            transport = conn.transport_cls
    except Exception as error:  # noqa: BLE001
        return {"ok": False, "error": str(error).splitlines()[0][:200]}
    return {"ok": True, "transport": str(transport)}


def _check_workers() -> dict[str, Any]:
    from kaiser_site.celery import app

    try:
        with app.connection_for_write() as conn:  # fresh, not the pool: reflects settings now
            replies = app.control.inspect(timeout=PING_TIMEOUT, connection=conn).ping() or {}
    except Exception as error:  # noqa: BLE001
        return {"ok": False, "count": 0, "names": [], "error": str(error).splitlines()[0][:200]}
    names = sorted(replies)
    return {"ok": bool(names), "count": len(names), "names": names}


def health_report() -> tuple[dict[str, Any], int]:
    """(body, HTTP status): 503 if the database or the broker is down; "degraded" with no worker."""
    database, broker = _check_database(), _check_broker()
    workers = _check_workers() if broker["ok"] else {"ok": False, "count": 0, "names": []}
    if not (database["ok"] and broker["ok"]):
        status, code = "down", 503
    elif not workers["ok"]:
        status, code = "degraded", 200
    else:
        status, code = "ok", 200
    body = {"status": status, "database": database, "broker": broker, "workers": workers}
    return body, code


def health(request: HttpRequest) -> JsonResponse:
    body, code = health_report()
    return JsonResponse(body, status=code)


_part = {"ok": serializers.BooleanField(), "error": serializers.CharField(required=False)}


class HealthView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []  # no credentials involved at all
    throttle_classes: list[type] = []

    @extend_schema(
        summary="Database, broker and worker status",
        responses={
            (200, "application/json"): inline_serializer(
                "Health",
                {
                    "status": serializers.ChoiceField(["ok", "degraded", "down"]),
                    "database": inline_serializer("HealthDatabase", {
                        **_part, "vendor": serializers.CharField(required=False)}),
                    "broker": inline_serializer("HealthBroker", {
                        **_part, "transport": serializers.CharField(required=False)}),
                    "workers": inline_serializer("HealthWorkers", {
                        **_part, "count": serializers.IntegerField(),
                        "names": serializers.ListField(child=serializers.CharField())}),
                },
            )
        },
    )
    def get(self, request: Request) -> Response:
        body, code = health_report()
        return Response(body, status=code)
