"""The tournaments app's pages (kaiser_site.urls includes them at the root)."""

from django.urls import path

from tournaments import views

urlpatterns = [
    path("", views.home, name="home"),
    path("ladders/<slug:slug>/", views.home, name="ladder-detail"),
    path("matches/", views.match_list, name="match-list"),
    path("matches/<int:pk>/", views.match_detail, name="match-detail"),
    path("replay/", views.replay_viewer, name="replay-viewer"),
    path("tournaments/", views.tournament_list, name="tournament-list"),
    path("tournaments/<int:pk>/", views.tournament_detail, name="tournament-detail"),
    path("challenge/", views.challenge, name="challenge"),
    path("docs/", views.docs, name="docs"),
    path("docs/starter/<str:name>", views.starter_file, name="starter-file"),
]
