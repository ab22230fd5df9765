"""The tournaments' API routes, included by kaiser_site.urls under /api/v1/."""

from rest_framework.routers import SimpleRouter

from tournaments import api

router = SimpleRouter()
router.register("tournaments", api.TournamentViewSet, basename="tournament")

urlpatterns = router.urls
