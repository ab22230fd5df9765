"""The tournaments' pages (kaiser_site.urls includes them at the root)."""

from django.urls import path

from tournaments import views

urlpatterns = [
    path("tournaments/", views.tournament_list, name="tournament-list"),
    path("tournaments/new/", views.tournament_new, name="tournament-new"),
    path("tournaments/organise/", views.organise_ask, name="organise-ask"),
    path("tournaments/organisers/", views.organiser_requests, name="organiser-requests"),
    path("tournaments/<int:pk>/", views.tournament_detail, name="tournament-detail"),
    path("tournaments/<int:pk>/cancel/", views.tournament_cancel, name="tournament-cancel"),
    path("tournaments/<int:pk>/enter/", views.tournament_enter, name="tournament-enter"),
    path("tournaments/<int:pk>/withdraw/", views.tournament_withdraw,
         name="tournament-withdraw"),
    path("tournaments/<int:pk>/results.json", views.tournament_results_json,
         name="tournament-results-json"),
    path("tournaments/<int:pk>/results.csv", views.tournament_results_csv,
         name="tournament-results-csv"),
]
