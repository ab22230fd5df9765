"""A plain home page, used until the tournaments app serves its leaderboard at "/"."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from bots.selectors import bot_list


def home(request: HttpRequest) -> HttpResponse:
    bots = bot_list().filter(retired=False).order_by("-created")[:20]
    return render(request, "home.html", {"bots": bots})
