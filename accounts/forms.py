from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import (
    AuthenticationForm,
    PasswordChangeForm,
    PasswordResetForm,
    UserCreationForm,
)
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from accounts.login_limits import (
    LoginLimited,
    client_address,
    login_check,
    login_failed,
    login_succeeded,
    reset_requested,
)


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        required=False,
        help_text="Optional; only for password resets: without it a forgotten password is lost.",
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")


class LoginForm(AuthenticationForm):
    """Django's login form, refusing once this account or address used its failed attempts
    (accounts.login_limits); `refused` then holds the refusal."""

    refused: LoginLimited | None = None

    def clean(self) -> dict[str, object]:
        username = str(self.cleaned_data.get("username") or "")
        address = client_address(self.request)
        try:
            login_check(username=username, address=address)
        except LoginLimited as limited:
            self.refused = limited
            raise ValidationError(str(limited), code="throttled") from None
        try:
            cleaned = super().clean()
        except ValidationError:
            if self.cleaned_data.get("password") and self.user_cache is None:  # a wrong one
                login_failed(username=username, address=address)
            raise
        if self.user_cache is not None:
            login_succeeded(username=username, address=address)
        return cleaned


class AdminLoginForm(LoginForm, AdminAuthenticationForm):
    """The admin's login form (staff only), with the same limits."""


class LimitedPasswordChangeForm(PasswordChangeForm):
    """Django's password change form: a wrong old password counts as a failed login, and the
    old password is not checked at all once the limits are reached."""

    refused: LoginLimited | None = None

    def __init__(self, user: User, *args: object, request: HttpRequest | None = None,
                 **kwargs: object) -> None:
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self) -> str:
        username = self.user.get_username()
        address = client_address(self.request)
        try:
            login_check(username=username, address=address)
        except LoginLimited as limited:
            self.refused = limited
            raise ValidationError(str(limited), code="throttled") from None
        try:
            return str(super().clean_old_password())
        except ValidationError:
            login_failed(username=username, address=address)
            raise


class LimitedPasswordResetForm(PasswordResetForm):
    """Django's password reset form (a mail to each active account with that address, and the
    same answer whether there is one or not), refusing once this email address or this client
    address made its requests (accounts.login_limits.reset_requested)."""

    refused: LoginLimited | None = None

    def __init__(self, *args: object, request: HttpRequest | None = None,
                 **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.request = request

    def clean_email(self) -> str:
        email = str(self.cleaned_data["email"])
        try:
            reset_requested(email=email, address=client_address(self.request))
        except LoginLimited as limited:
            self.refused = limited
            raise ValidationError(str(limited), code="throttled") from None
        return email
