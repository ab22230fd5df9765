"""The tournaments' API routes, included by kaiser_site.urls under /api/v1/."""

from django.urls import path, re_path
from rest_framework.routers import SimpleRouter

from tournaments import api

router = SimpleRouter()
router.register("tournaments", api.TournamentViewSet, basename="tournament")

urlpatterns = [
    path("organiser-request/", api.OrganiserRequestView.as_view(), name="organiser-request"),
    re_path(r"^organiser-requests/(?P<id>[0-9]{1,18})/grant/$",
            api.OrganiserDecisionView.as_view(), {"decision": "grant"}, name="organiser-grant"),
    re_path(r"^organiser-requests/(?P<id>[0-9]{1,18})/refuse/$",
            api.OrganiserDecisionView.as_view(), {"decision": "refuse"},
            name="organiser-refuse"),
    *router.urls,
]
