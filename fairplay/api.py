"""REST API of fair play (under /api/v1/, staff only): the report the staff page shows."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from fairplay import selectors
from fairplay.models import FairPlayCheck
from fairplay.views import STAFF_ONLY


class StaffOnly(permissions.BasePermission):
    message = STAFF_ONLY

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        return bool(user and user.is_active and user.is_staff)


class CheckSerializer(serializers.Serializer):
    version = serializers.IntegerField(source="version_id")
    bot = serializers.IntegerField(source="version.bot_id")
    name = serializers.CharField(source="version.bot.name")
    number = serializers.IntegerField(source="version.number")
    owner = serializers.CharField(source="version.bot.owner.username")
    checked = serializers.DateTimeField()
    flagged = serializers.BooleanField()
    bits = serializers.FloatField(allow_null=True, help_text="the widest spread, bits a move")
    spread = serializers.CharField(source="spread_name", help_text="cpu, wait or sleep")
    matches = serializers.IntegerField(help_text="matches looked at")
    match_ids = serializers.ListField(child=serializers.IntegerField(),
                                      help_text="the matches behind it, newest first")
    figures = serializers.DictField(help_text="the detector's verdict (engine.fairplay)")
    error = serializers.CharField(help_text="why no verdict could be had, if none was")


class FairPlayReportView(APIView):
    permission_classes = [StaffOnly]

    @extend_schema(
        summary="The fair-play report (staff): flagged versions and every checked version",
        description="Each version's newest think-time check over its recent matches. It "
        "flags; staff decide.",
        responses={200: OpenApiResponse(description="flagged and checked"),
                   403: OpenApiResponse(description="not staff")})
    def get(self, request: Request) -> Response:
        report = selectors.fairplay_report()
        return Response({"flagged": _rows(report.flagged), "checked": _rows(report.checked)})


def _rows(checks: list[FairPlayCheck]) -> list[dict[str, Any]]:
    return list(CheckSerializer(checks, many=True).data)
