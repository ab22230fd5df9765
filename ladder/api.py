"""REST API of the ladder (under /api/v1/): ladders with their leaderboards, rating history,
and challenges."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import Throttled, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.models import Bot, BotVersion
from bots.selectors import bot_active_version
from kaiser_site.page_cache import AnonymousSharedReads
from ladder import selectors, services
from ladder.models import Ladder, LadderEntry
from matches.api import MatchSerializer, TimeSerializer, int_param
from matches.views import page_number


class LadderSerializer(serializers.ModelSerializer):
    time = serializers.SerializerMethodField()

    class Meta:
        model = Ladder
        fields = ["id", "slug", "name", "game", "description", "rules", "games_per_match", "time",
                  "active", "created"]

    @extend_schema_field(TimeSerializer)
    def get_time(self, ladder: Ladder) -> dict[str, int]:
        return {"move_ms": ladder.move_ms, "bank_ms": ladder.bank_ms,
                "startup_ms": ladder.startup_ms, "strict_ms": ladder.strict_ms}


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    entry = serializers.IntegerField(source="entry.pk")
    bot = serializers.IntegerField(source="entry.version.bot_id")
    name = serializers.CharField(source="entry.version.bot.name")
    owner = serializers.CharField(source="entry.version.bot.owner.username")
    version = serializers.IntegerField(source="entry.version_id")
    version_number = serializers.IntegerField(source="entry.version.number")
    elo = serializers.FloatField()
    games = serializers.IntegerField()
    provisional = serializers.BooleanField()
    pinned = serializers.BooleanField(help_text="An anchor: its rating never moves.")
    fitted = serializers.FloatField(
        allow_null=True, help_text="Bradley-Terry rating fitted on every result of the ladder")
    fitted_low = serializers.FloatField(allow_null=True, help_text="95% interval, low end")
    fitted_high = serializers.FloatField(allow_null=True, help_text="95% interval, high end")


# The leaderboard's rows in one answer; ?page=N for the next. A whole 10,000-bot board
# (2 MB, 8 s to serialise: bench/scale_sim.py) is no single request's work.
LEADERBOARD_PAGE_ROWS = 100


class LadderDetailSerializer(LadderSerializer):
    leaderboard = serializers.SerializerMethodField()
    leaderboard_count = serializers.SerializerMethodField(
        help_text=f"Rows of the whole leaderboard; ?page=N gives rows "
                  f"{LEADERBOARD_PAGE_ROWS} * (N - 1) + 1 onwards")

    ordered_by = serializers.SerializerMethodField(
        help_text="What orders the leaderboard (each row's rank): 'fitted', the fitted "
                  "rating (rows the last fit has not seen yet follow, by Elo)")
    order = serializers.SerializerMethodField(help_text="The same, in words")

    class Meta(LadderSerializer.Meta):
        fields = [*LadderSerializer.Meta.fields, "ordered_by", "order", "leaderboard_count",
                  "leaderboard"]

    def get_ordered_by(self, ladder: Ladder) -> str:
        return selectors.ORDERED_BY

    def get_order(self, ladder: Ladder) -> str:
        return selectors.ORDER_WORDS

    @extend_schema_field(LeaderboardRowSerializer(many=True))
    def get_leaderboard(self, ladder: Ladder) -> list[dict[str, Any]]:
        page = page_number(self.context["request"].query_params.get("page"))
        rows = selectors.ladder_leaderboard(ladder=ladder,
                                            offset=(page - 1) * LEADERBOARD_PAGE_ROWS,
                                            limit=LEADERBOARD_PAGE_ROWS)
        return LeaderboardRowSerializer(rows, many=True).data  # type: ignore[return-value]

    def get_leaderboard_count(self, ladder: Ladder) -> int:
        return LadderEntry.objects.filter(ladder=ladder, active=True).count()


class RatingChangeSerializer(serializers.Serializer):
    match = serializers.IntegerField(source="match_id")
    before = serializers.FloatField()
    after = serializers.FloatField()
    delta = serializers.FloatField()
    created = serializers.DateTimeField()


@extend_schema_view(
    list=extend_schema(summary="List ladders"),
    retrieve=extend_schema(summary="One ladder with its leaderboard (Elo and fitted rating)"),
)
class LadderViewSet(AnonymousSharedReads, viewsets.ReadOnlyModelViewSet):
    shared_list_topics = shared_item_topics = ("board",)
    queryset = Ladder.objects.order_by("name")
    lookup_field = "slug"

    def get_serializer_class(self) -> type[serializers.BaseSerializer[Any]]:
        return LadderDetailSerializer if self.action == "retrieve" else LadderSerializer

    @extend_schema(summary="A ladder entry's rating history, oldest first",
                   parameters=[OpenApiParameter("version", int, required=True,
                                                description="The bot version")],
                   responses={200: RatingChangeSerializer(many=True)})
    @action(detail=True, methods=["get"], pagination_class=None)
    def history(self, request: Request, slug: str | None = None) -> Response:
        ladder = self.get_object()
        version = int_param(request, "version", required=True)
        entry = get_object_or_404(LadderEntry, ladder=ladder, version_id=version)
        changes = selectors.rating_history(entry=entry)
        return Response(RatingChangeSerializer(changes, many=True).data)


def active_version(bot_id: int, field: str) -> BotVersion:
    bot = Bot.objects.filter(pk=bot_id).first()
    version = bot_active_version(bot=bot) if bot else None
    if version is None:
        raise ValidationError({field: f"bot {bot_id} does not exist or has no active version"})
    return version


class ChallengeSerializer(serializers.Serializer):
    bot = serializers.IntegerField(help_text="Your bot (its active version plays)")
    opponent = serializers.IntegerField(help_text="Any bot with an active version")
    opponent_c = serializers.IntegerField(
        required=False, allow_null=True, default=None,
        help_text="The second opponent, in a game of three players or more (Sergeant Major)")
    opponent_d = serializers.IntegerField(
        required=False, allow_null=True, default=None,
        help_text="The third opponent, in a game of four players or more; opponent_e and on "
        "for a game of more players still")
    rated = serializers.BooleanField(
        default=False, help_text="Counts on the ladder's ratings; only against a bot of another "
        "owner (a rated challenge between two of your own bots is refused with a 400)")
    ladder = serializers.SlugField(
        required=False, allow_null=True, default=None,
        help_text="Rules, clock, and rating pool; by default the ladder of your bot's game "
        "(main for Kaiser, sergeant-major for Sergeant Major)")


def _more_opponents(request: Request, data: dict[str, Any]) -> list[tuple[str, int]]:
    """The opponents past the first, in side order: opponent_c and opponent_d (declared),
    then opponent_e and on as given (whole numbers), up to the first missing."""
    found = []
    for side in range(2, 26):
        field = services.opponent_field(side)
        value = data.get(field, request.data.get(field))
        if value is None:
            break
        try:
            found.append((field, int(value)))
        except (TypeError, ValueError):
            raise ValidationError({field: "a bot's id (a whole number)"}) from None
    return found


class ChallengeView(APIView):
    throttle_scope = "challenges"

    @extend_schema(summary="Challenge any active bot with your own (rate-limited)",
                   request=ChallengeSerializer, responses={201: MatchSerializer})
    def post(self, request: Request) -> Response:
        form = ChallengeSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        version = active_version(data["bot"], "bot")
        ladder = (get_object_or_404(Ladder, slug=data["ladder"]) if data["ladder"]
                  else selectors.ladder_of_game(version.bot.game))
        more = [active_version(bot, field) for field, bot in _more_opponents(request, data)]
        try:
            match = services.challenge_create(
                user=request.user, version=version,
                opponent=active_version(data["opponent"], "opponent"), rated=data["rated"],
                ladder=ladder, more=more)
        except services.RateLimited as limited:
            raise Throttled(detail=str(limited)) from None
        body = MatchSerializer(match, context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED)
