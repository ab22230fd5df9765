"""The account API: get a token with a password, regenerate it, and who am I."""

from __future__ import annotations

from django.contrib.auth.models import User
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.exceptions import Throttled, ValidationError
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.login_limits import (
    LoginLimited,
    client_address,
    login_check,
    login_failed,
    login_succeeded,
)
from accounts.services import user_token, user_token_regenerate


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(read_only=True)


class MeSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = ["id", "username", "is_staff", "date_joined"]


class TokenObtainView(APIView):
    """Exchange a username and password for the personal API token."""

    permission_classes = [AllowAny]
    serializer_class = AuthTokenSerializer

    @extend_schema(
        request=AuthTokenSerializer, responses={200: TokenSerializer},
        description="Failed attempts are limited per account and client address (growing "
        "delays) and per client address (KAISER_LOGIN_FAILURES_PER_ACCOUNT, _PER_ADDRESS in "
        "KAISER_LOGIN_WINDOW_SECONDS): past them that address is answered 429 with "
        "Retry-After, whatever the password. The owner's other addresses are never refused.",
    )
    def post(self, request: Request) -> Response:
        data = request.data if isinstance(request.data, dict) else {}
        username, address = str(data.get("username") or ""), client_address(request)
        try:
            login_check(username=username, address=address)
        except LoginLimited as limited:
            refused = Throttled(detail=str(limited))  # the message already says how long
            refused.wait = limited.wait  # for Retry-After
            raise refused from None
        serializer = AuthTokenSerializer(data=request.data, context={"request": request})
        if not serializer.is_valid():
            if username and data.get("password"):  # a password was checked, and was wrong
                login_failed(username=username, address=address)
            raise ValidationError(serializer.errors)
        login_succeeded(username=username, address=address)
        token = user_token(user=serializer.validated_data["user"])
        return Response({"token": token.key})


class TokenRegenerateView(APIView):
    """Replace the caller's API token; the old one stops working at once."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: TokenSerializer})
    def post(self, request: Request) -> Response:
        token = user_token_regenerate(user=request.user)
        return Response({"token": token.key})


class MeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: MeSerializer})
    def get(self, request: Request) -> Response:
        return Response(MeSerializer(request.user).data)
