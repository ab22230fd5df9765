"""The matches' pages (kaiser_site.urls includes them at the root)."""

from django.urls import path

from matches import views

urlpatterns = [
    path("matches/", views.match_list, name="match-list"),
    path("matches/<int:pk>/", views.match_detail, name="match-detail"),
    path("matches/<int:pk>/boards/", views.match_boards, name="match-boards"),
    path("matches/<int:pk>/boards/<int:game>/<int:deal>/", views.board_detail,
         name="board-detail"),
    path("replay/", views.replay_viewer, name="replay-viewer"),
]
