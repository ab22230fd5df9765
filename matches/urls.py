"""The matches' pages (kaiser_site.urls includes them at the root)."""

from django.urls import path

from matches import views

urlpatterns = [
    path("matches/", views.match_list, name="match-list"),
    path("matches/<int:pk>/", views.match_detail, name="match-detail"),
    path("replay/", views.replay_viewer, name="replay-viewer"),
]
