"""The fair-play pages (kaiser_site.urls includes them at the root)."""

from django.urls import path

from fairplay import views

urlpatterns = [
    path("fairplay/", views.fairplay_report, name="fairplay-report"),
]
