"""The play app's pages (kaiser_site.urls includes them under /play/)."""

from django.urls import path

from play import views

urlpatterns = [
    path("", views.play_home, name="play"),
    path("<int:pk>/", views.game_page, name="play-game"),
    path("<int:pk>/state/", views.game_state, name="play-state"),
    path("<int:pk>/events/", views.game_events, name="play-events"),
    path("<int:pk>/move/", views.game_move, name="play-move"),
    path("<int:pk>/resign/", views.game_resign, name="play-resign"),
    path("<int:pk>/replay/", views.game_replay_page, name="play-replay"),
    path("<int:pk>/replay.json", views.game_replay, name="play-replay-json"),
]
