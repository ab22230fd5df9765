"""The matches' API routes, included by kaiser_site.urls under /api/v1/."""

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from matches import api

router = SimpleRouter()
router.register("matches", api.MatchViewSet, basename="match")

urlpatterns = [
    path("boards/costliest/", api.CostliestBoardsView.as_view(), name="api-boards-costliest"),
    path("replays/export/", api.ReplayExportView.as_view(), name="api-replays-export"),
    path("", include(router.urls)),
]
