"""REST API for bots and versions: /api/v1/bots/ and /api/v1/versions/."""

from __future__ import annotations

from typing import Any

from django.db.models import F, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse

from bots import selectors, services
from bots.faults import detail_clip, forfeit_public, replay_public, whole_for
from bots.models import Bot, BotVersion, default_game, game_choices
from bots.programs import program_size_error
from bots.throttles import UploadThrottle
from bots.verdicts import check_score_words
from kaiser_site.page_cache import AnonymousSharedReads


class ActiveVersionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    active_version = serializers.SerializerMethodField()

    class Meta:
        model = Bot
        fields = ["id", "name", "game", "description", "owner", "retired", "created",
                  "active_version"]
        read_only_fields = ["id", "owner", "retired", "created"]
        extra_kwargs = {"name": {"validators": []}}  # the service checks names (any case)

    @extend_schema_field(ActiveVersionSerializer(allow_null=True))
    def get_active_version(self, bot: Bot) -> dict[str, int] | None:
        version_id = getattr(bot, "active_version_id", None)
        if version_id is None:
            return None
        return {"id": version_id, "number": bot.active_version_number}


class BotUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(required=False, max_length=40)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class BotVersionSerializer(serializers.ModelSerializer):
    bot_name = serializers.CharField(source="bot.name", read_only=True)
    sha256 = serializers.CharField(read_only=True)
    check_stderr = serializers.SerializerMethodField()
    reason = serializers.SerializerMethodField()
    check_summary = serializers.SerializerMethodField()

    class Meta:
        model = BotVersion
        fields = [
            "id", "bot", "bot_name", "number", "kind", "builtin", "filename", "size", "sha256",
            "status", "reason", "check_summary", "check_stderr", "created", "checked",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.CharField())
    def get_reason(self, version: BotVersion) -> str:
        """The verdict; a fault it quotes is clipped (bots.faults) except for owner and staff."""
        if whole_for(self.context["request"].user, version):
            return version.reason
        return detail_clip(version.reason)

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_check_summary(self, version: BotVersion) -> Any:
        """The check match's record (games won by side: A is this bot), with `words`: the
        score as the bot page says it, this bot's games first (bots.verdicts)."""
        summary = version.check_summary
        if not isinstance(summary, dict):
            return summary
        summary = {**summary, "words": check_score_words(summary)}
        if whole_for(self.context["request"].user, version):
            return summary
        return {**summary, "forfeit": forfeit_public(summary.get("forfeit"))}

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_check_stderr(self, version: BotVersion) -> str | None:
        """The bot's stderr during the check: shown to its owner and staff only (else null)."""
        user = self.context["request"].user
        if user.is_staff or version.bot.is_owned_by(user):
            return version.check_stderr
        return None


class UploadSerializer(serializers.Serializer):
    file = serializers.FileField(
        help_text="A single .py file, or a .zip with bot.py or a bot.json manifest at its root."
    )


def _with_active_version(queryset: QuerySet[Bot]) -> QuerySet[Bot]:
    """active_version: the version that plays (selectors.with_playing_version's rule)."""
    return selectors.with_playing_version(queryset).annotate(
        active_version_id=F("playing_id"), active_version_number=F("playing_number"))


class PlaySerializer(serializers.Serializer):
    version = serializers.IntegerField(min_value=1, max_value=2**63 - 1,
                                       help_text="The id of one of the bot's checked versions")


@extend_schema_view(
    list=extend_schema(
        summary="List bots",
        parameters=[
            OpenApiParameter("owner", str, description="Only bots of this username"),
            OpenApiParameter("retired", bool, description="true or false"),
            OpenApiParameter("search", str, description="Name contains this text"),
            OpenApiParameter("game", str, description="Only bots of this game (its name)"),
        ],
    ),
    retrieve=extend_schema(summary="One bot"),
    create=extend_schema(summary="Create a bot (signed in)"),
    partial_update=extend_schema(
        summary="Rename or describe a bot (owner or staff)",
        request=BotUpdateSerializer, responses={200: BotSerializer},
    ),
)
class BotViewSet(
    AnonymousSharedReads,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = BotSerializer
    shared_list_topics = ("bots",)
    shared_item_topics = ("bot:{pk}",)
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_queryset(self) -> QuerySet[Bot]:
        queryset = _with_active_version(Bot.objects.select_related("owner")).order_by("name")
        params = self.request.query_params
        if owner := params.get("owner"):
            queryset = queryset.filter(owner__username=owner)
        if (retired := params.get("retired")) in ("true", "false"):
            queryset = queryset.filter(retired=retired == "true")
        if search := params.get("search"):
            queryset = queryset.filter(name__icontains=search)
        if game := params.get("game"):
            if game not in dict(game_choices()):
                raise ValidationError({"game": [f"No game is called {game!r}; the games: "
                                                + ", ".join(dict(game_choices()))]})
            queryset = queryset.filter(game=game)
        return queryset

    def get_throttles(self) -> list[Any]:
        throttles = super().get_throttles()
        if self.action == "versions" and self.request.method == "POST":
            throttles.append(UploadThrottle())
        return throttles

    def perform_create(self, serializer: BotSerializer) -> None:
        data = serializer.validated_data
        serializer.instance = services.bot_create(
            owner=self.request.user, name=data["name"], description=data.get("description", ""),
            game=data.get("game", default_game()))

    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        bot = self.get_object()
        update = BotUpdateSerializer(data=request.data)
        update.is_valid(raise_exception=True)
        services.bot_update(bot=bot, **update.validated_data)
        return self._bot_response()

    def _bot_response(self) -> Response:
        bot = self.get_object()  # fresh, with its annotations
        return Response(BotSerializer(bot, context=self.get_serializer_context()).data)

    @extend_schema(summary="Retire a bot (owner or staff): it stops playing", request=None,
                   responses={200: BotSerializer})
    @action(detail=True, methods=["post"])
    def retire(self, request: Request, pk: str | None = None) -> Response:
        services.bot_retire(bot=self.get_object())
        return self._bot_response()

    @extend_schema(summary="Undo a retirement (owner or staff): the bot plays again",
                   request=None, responses={200: BotSerializer})
    @action(detail=True, methods=["post"])
    def unretire(self, request: Request, pk: str | None = None) -> Response:
        services.bot_unretire(bot=self.get_object())
        return self._bot_response()

    @extend_schema(summary="Choose the version that plays (owner or staff): any checked one",
                   request=PlaySerializer, responses={200: BotSerializer})
    @action(detail=True, methods=["post"])
    def play(self, request: Request, pk: str | None = None) -> Response:
        bot = self.get_object()
        choice = PlaySerializer(data=request.data)
        choice.is_valid(raise_exception=True)
        version = BotVersion.objects.filter(pk=choice.validated_data["version"]).first()
        if version is None:
            raise ValidationError({"version": "no such version"})
        services.bot_version_play(bot=bot, version=version)
        return self._bot_response()

    @extend_schema(methods=["GET"], summary="The bot's versions, newest first",
                   responses={200: BotVersionSerializer(many=True)})
    @extend_schema(methods=["POST"], summary="Upload a new version (owner or staff; rate-limited)",
                   request={"multipart/form-data": UploadSerializer},
                   responses={201: BotVersionSerializer})
    @action(detail=True, methods=["get", "post"],
            parser_classes=[MultiPartParser, FormParser], pagination_class=None)
    def versions(self, request: Request, pk: str | None = None) -> Response:
        bot = self.get_object()
        context = self.get_serializer_context()
        if request.method == "GET":
            versions = selectors.bot_versions(bot=bot)
            return Response(BotVersionSerializer(versions, many=True, context=context).data)
        upload = UploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        try:
            version = _upload(bot, upload.validated_data["file"])
        except services.DuplicateUpload as duplicate:
            return _duplicate_response(request, duplicate.version)
        return Response(BotVersionSerializer(version, context=context).data,
                        status=status.HTTP_201_CREATED)


def _duplicate_response(request: Request, version: BotVersion) -> Response:
    """400, code "duplicate", with the version that has these bytes already."""
    return Response({
        "detail": f"file: these bytes are version {version.number} of {version.bot.name} "
                  "already: nothing new to check",
        "code": "duplicate",
        "existing_version": {"id": version.pk, "number": version.number,
                             "url": request.build_absolute_uri(
                                 reverse("botversion-detail", args=[version.pk]))},
    }, status=status.HTTP_400_BAD_REQUEST)


def _upload(bot: Bot, uploaded: Any) -> BotVersion:
    if message := program_size_error(uploaded.size):
        raise ValidationError({"file": message})
    return services.bot_version_upload(bot=bot, filename=uploaded.name, content=uploaded.read())


@extend_schema_view(
    list=extend_schema(
        summary="List versions",
        parameters=[
            OpenApiParameter("bot", int, description="Only this bot's versions"),
            OpenApiParameter("status", str, enum=BotVersion.Status.values),
        ],
    ),
    retrieve=extend_schema(summary="One version with its check verdict"),
)
class BotVersionViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = BotVersionSerializer

    def get_queryset(self) -> QuerySet[BotVersion]:
        queryset = selectors.bot_version_list().order_by("-created", "-pk")
        params = self.request.query_params
        # isdecimal, not isdigit: int("²") fails; ids past 64 bits overflow SQLite.
        if (bot := params.get("bot", "")).isdecimal():
            queryset = queryset.filter(bot_id=int(bot)) if int(bot) < 2**63 else queryset.none()
        if (wanted := params.get("status")) in BotVersion.Status.values:
            queryset = queryset.filter(status=wanted)
        return queryset

    @extend_schema(summary="The version's play statistics: totals from the replays of its "
                   "finished matches, and rates and averages per deal (see the bot page)",
                   responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"])
    def stats(self, request: Request, pk: str | None = None) -> Response:
        from engine.games import get_game
        from matches.stats import figures, version_stats

        version = self.get_object()
        game = version.bot.game
        data = version_stats(version_id=version.pk) or get_game(game).stats_empty()
        return Response({"totals": data, "per_deal": figures(data, game)})

    @extend_schema(summary="The replay of the version's check match",
                   responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"], url_path="check-replay")
    def check_replay(self, request: Request, pk: str | None = None) -> Response:
        version = BotVersion.objects.only("check_replay").filter(pk=self.get_object().pk).first()
        if version is None or version.check_replay is None:
            return Response({"detail": "This version has no check replay yet.",
                             "code": "not_found"}, status=status.HTTP_404_NOT_FOUND)
        if whole_for(request.user, self.get_object()):
            return Response(version.check_replay)
        return Response(replay_public(version.check_replay))
