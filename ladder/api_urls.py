"""The ladder's API routes (ladders, challenges), included by kaiser_site.urls under /api/v1/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from ladder import api

router = SimpleRouter()
router.register("ladders", api.LadderViewSet, basename="ladder")

urlpatterns = [
    path("challenges/", api.ChallengeView.as_view(), name="api-challenges"),
    *router.urls,
]
