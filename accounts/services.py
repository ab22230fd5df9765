"""Writes for accounts: sign-up and the personal API token."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, User
from django.db import transaction
from rest_framework.authtoken.models import Token


def user_create(*, username: str, password: str, email: str = "") -> User:
    user = User.objects.create_user(username=username, email=email, password=password)
    Token.objects.create(user=user)
    return user


def user_token(*, user: AbstractBaseUser) -> Token:
    token, _ = Token.objects.get_or_create(user=user)
    return token


def user_token_regenerate(*, user: AbstractBaseUser) -> Token:
    """A new key; the old one stops working at once."""
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user)
