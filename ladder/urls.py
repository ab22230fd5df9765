"""The ladder's pages: the leaderboard at / and of each ladder (included at the root)."""

from django.urls import path

from ladder import views

urlpatterns = [
    path("", views.home, name="home"),
    path("ladders/<slug:slug>/", views.home, name="ladder-detail"),
    path("challenge/", views.challenge, name="challenge"),
]
