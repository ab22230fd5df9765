"""Account pages: sign up, the account page with the API token. Login, logout, password
change and password reset by mail are django.contrib.auth's own views (see urls.py), login,
password change and the reset request with the limits of accounts.login_limits."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts.forms import (
    LimitedPasswordChangeForm,
    LimitedPasswordResetForm,
    LoginForm,
    SignupForm,
)
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


LimitedForm = LoginForm | LimitedPasswordChangeForm | LimitedPasswordResetForm


def _refused(response: HttpResponse, form: LimitedForm) -> HttpResponse:
    """The form again, with its error; a 429 with Retry-After when the limits refused it."""
    if form.refused is not None:
        response.status_code = 429
        response["Retry-After"] = str(form.refused.wait)
    return response


class LoginView(auth_views.LoginView):
    form_class = LoginForm

    def form_invalid(self, form: LoginForm) -> HttpResponse:
        return _refused(super().form_invalid(form), form)


class PasswordChangeView(auth_views.PasswordChangeView):
    form_class = LimitedPasswordChangeForm

    def get_form_kwargs(self) -> dict[str, Any]:
        return {**super().get_form_kwargs(), "request": self.request}

    def form_invalid(self, form: LimitedPasswordChangeForm) -> HttpResponse:
        return _refused(super().form_invalid(form), form)


class PasswordResetView(auth_views.PasswordResetView):
    """The mail goes through settings.EMAIL_BACKEND (var/mail/ under run.sh, SMTP in
    production); an address with no account gets the same page and no mail."""

    form_class = LimitedPasswordResetForm

    def get_form_kwargs(self) -> dict[str, Any]:
        return {**super().get_form_kwargs(), "request": self.request}

    @property
    def extra_email_context(self) -> dict[str, Any]:  # type: ignore[override]
        # The mail names the site (without django.contrib.sites it would name the host).
        return {"site_name": settings.SITE_NAME}

    def form_invalid(self, form: LimitedPasswordResetForm) -> HttpResponse:
        return _refused(super().form_invalid(form), form)
