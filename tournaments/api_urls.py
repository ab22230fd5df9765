"""The tournaments app's API routes, included by kaiser_site.urls under /api/v1/."""

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tournaments import api

router = SimpleRouter()
router.register("ladders", api.LadderViewSet, basename="ladder")
router.register("matches", api.MatchViewSet, basename="match")
router.register("tournaments", api.TournamentViewSet, basename="tournament")

urlpatterns = [
    path("challenges/", api.ChallengeView.as_view(), name="api-challenges"),
    path("replays/export/", api.ReplayExportView.as_view(), name="api-replays-export"),
    path("", include(router.urls)),
]
