"""The tournaments app's pages (kaiser_site.urls includes them at the root)."""

from django.urls import path

from tournaments import tournament_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("ladders/<slug:slug>/", views.home, name="ladder-detail"),
    path("matches/", views.match_list, name="match-list"),
    path("matches/<int:pk>/", views.match_detail, name="match-detail"),
    path("replay/", views.replay_viewer, name="replay-viewer"),
    path("tournaments/", views.tournament_list, name="tournament-list"),
    path("tournaments/new/", tournament_views.tournament_new, name="tournament-new"),
    path("tournaments/<int:pk>/", tournament_views.tournament_detail, name="tournament-detail"),
    path("tournaments/<int:pk>/cancel/", tournament_views.tournament_cancel,
         name="tournament-cancel"),
    path("tournaments/<int:pk>/enter/", tournament_views.tournament_enter,
         name="tournament-enter"),
    path("tournaments/<int:pk>/results.json", tournament_views.tournament_results_json,
         name="tournament-results-json"),
    path("tournaments/<int:pk>/results.csv", tournament_views.tournament_results_csv,
         name="tournament-results-csv"),
    path("challenge/", views.challenge, name="challenge"),
    path("docs/", views.docs, name="docs"),
    path("docs/starter/<str:name>", views.starter_file, name="starter-file"),
]
