"""The API's default permission and pagination (kept apart from views: DRF imports them while
rest_framework.views itself loads)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rest_framework import pagination, permissions

if TYPE_CHECKING:
    from rest_framework.request import Request
    from rest_framework.views import APIView


class ReadOnlyOrOwnerOrStaff(permissions.BasePermission):
    """Anyone may read; writing needs a signed-in user, and an object only its owner or staff.

    An object says who owns it with `is_owned_by(user)` (or an `owner_id` field).
    """

    message = "Only the owner or staff may change this."
    anonymous_reads = True  # tells the OpenAPI schema that reads need no credentials

    def has_permission(self, request: Request, view: APIView) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated)

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        if request.user.is_staff:
            return True
        if hasattr(obj, "is_owned_by"):
            return bool(obj.is_owned_by(request.user))
        return getattr(obj, "owner_id", None) == request.user.pk


class Pagination(pagination.PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 200
