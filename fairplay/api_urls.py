"""The fair-play API routes, included by kaiser_site.urls under /api/v1/."""

from django.urls import path

from fairplay import api

urlpatterns = [
    path("fairplay/", api.FairPlayReportView.as_view(), name="api-fairplay"),
]
