"""Account pages: sign up, the account page with the API token. Login, logout and password
change are django.contrib.auth's own views (see urls.py)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts.forms import SignupForm
from accounts.services import user_create, user_token, user_token_regenerate
from bots.selectors import bot_list


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("account")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = user_create(
            username=form.cleaned_data["username"],
            email=form.cleaned_data.get("email", ""),
            password=form.cleaned_data["password1"],
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Create your first bot below.")
        return redirect("account")
    return render(request, "registration/signup.html", {"form": form})


@login_required
def account(request: HttpRequest) -> HttpResponse:
    context = {
        "token": user_token(user=request.user),
        "bots": bot_list().filter(owner=request.user),
    }
    return render(request, "accounts/account.html", context)


@login_required
@require_POST
def token_regenerate(request: HttpRequest) -> HttpResponse:
    user_token_regenerate(user=request.user)
    messages.success(request, "A new API token was made; the old one no longer works.")
    return redirect("account")
