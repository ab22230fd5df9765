from django.urls import path

from bots import views

urlpatterns = [
    path("", views.bot_list, name="bot-list"),
    path("new/", views.bot_create, name="bot-create"),
    path("<int:pk>/", views.bot_detail, name="bot-detail"),
    path("<int:pk>/edit/", views.bot_edit, name="bot-edit"),
    path("<int:pk>/upload/", views.bot_upload, name="bot-upload"),
    path("<int:pk>/retire/", views.bot_retire, name="bot-retire"),
    path("<int:pk>/unretire/", views.bot_unretire, name="bot-unretire"),
    path("<int:pk>/play/", views.bot_play, name="bot-play"),
]
