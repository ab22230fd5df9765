"""REST API for ladders, matches, replays, tournaments and challenges (under /api/v1/)."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, Throttled, ValidationError
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.faults import forfeit_public, match_fault_whole_for, replay_public
from bots.models import Bot, BotVersion
from bots.selectors import bot_active_version
from tournaments import match_filters, selectors, services
from tournaments.models import Ladder, LadderEntry, Match, Tournament

# --- Serializers -----------------------------------------------------------------------------


class SideSerializer(serializers.Serializer):
    version = serializers.IntegerField(source="pk")
    bot = serializers.IntegerField(source="bot_id")
    name = serializers.CharField(source="bot.name")
    number = serializers.IntegerField()


class TimeSerializer(serializers.Serializer):
    move_ms = serializers.IntegerField()
    bank_ms = serializers.IntegerField()
    startup_ms = serializers.IntegerField()


class LadderSerializer(serializers.ModelSerializer):
    time = serializers.SerializerMethodField()

    class Meta:
        model = Ladder
        fields = ["id", "slug", "name", "description", "rules", "games_per_match", "time",
                  "active", "created"]

    @extend_schema_field(TimeSerializer)
    def get_time(self, ladder: Ladder) -> dict[str, int]:
        return {"move_ms": ladder.move_ms, "bank_ms": ladder.bank_ms,
                "startup_ms": ladder.startup_ms}


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


class LadderDetailSerializer(LadderSerializer):
    leaderboard = serializers.SerializerMethodField()

    class Meta(LadderSerializer.Meta):
        fields = [*LadderSerializer.Meta.fields, "leaderboard"]

    @extend_schema_field(LeaderboardRowSerializer(many=True))
    def get_leaderboard(self, ladder: Ladder) -> list[dict[str, Any]]:
        rows = selectors.ladder_leaderboard(ladder=ladder)
        return LeaderboardRowSerializer(rows, many=True).data  # type: ignore[return-value]


class RatingChangeSerializer(serializers.Serializer):
    match = serializers.IntegerField(source="match_id")
    before = serializers.FloatField()
    after = serializers.FloatField()
    delta = serializers.FloatField()
    created = serializers.DateTimeField()


class MatchSerializer(serializers.ModelSerializer):
    a = SideSerializer(source="version_a")
    b = SideSerializer(source="version_b")
    ladder = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    time = serializers.SerializerMethodField()
    forfeit = serializers.SerializerMethodField()
    stderr_a = serializers.SerializerMethodField()
    stderr_b = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = ["id", "kind", "status", "ladder", "tournament", "round", "rated", "a", "b",
                  "seed", "rules", "games_per_match", "time", "score", "games_a", "games_b",
                  "forfeit", "error", "created", "started", "finished", "play_ms", "attempts",
                  "replay_size", "stderr_a", "stderr_b"]
        read_only_fields = fields

    @extend_schema_field(TimeSerializer)
    def get_time(self, match: Match) -> dict[str, int]:
        return {"move_ms": match.move_ms, "bank_ms": match.bank_ms,
                "startup_ms": match.startup_ms}

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_forfeit(self, match: Match) -> Any:
        """The fault that ended the match: its detail clipped (bots.faults) unless the caller
        owns the bot at fault or is staff."""
        if match_fault_whole_for(self.context["request"].user, match):
            return match.forfeit
        return forfeit_public(match.forfeit)

    def _stderr(self, match: Match, version: BotVersion, field: str) -> str | None:
        """A bot's stderr is its owner's (and staff's) only; null for everyone else."""
        user = self.context["request"].user
        if not (user.is_staff or version.bot.is_owned_by(user)):
            return None
        text: str = Match.objects.filter(pk=match.pk).values_list(field, flat=True)[0]
        return text

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_stderr_a(self, match: Match) -> str | None:
        return self._stderr(match, match.version_a, "stderr_a")

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_stderr_b(self, match: Match) -> str | None:
        return self._stderr(match, match.version_b, "stderr_b")


class StandingSerializer(serializers.Serializer):
    version = serializers.IntegerField(source="version_id")
    name = serializers.CharField()
    seed = serializers.IntegerField(allow_null=True, help_text="Set when the tournament starts")
    played = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    byes = serializers.IntegerField()
    points = serializers.FloatField()
    buchholz = serializers.FloatField()
    games_won = serializers.IntegerField()
    eliminated_round = serializers.IntegerField(allow_null=True)
    final_rank = serializers.IntegerField(allow_null=True)
    withdrawn = serializers.BooleanField(help_text="Its bot was retired while it ran")


class ProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    total = serializers.IntegerField()


class TournamentSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()

    class Meta:
        model = Tournament
        fields = ["id", "name", "format", "rounds", "status", "current_round", "rules",
                  "games_per_match", "move_ms", "bank_ms", "startup_ms", "entry_deadline",
                  "cancel_reason", "created", "started", "finished", "progress"]
        read_only_fields = fields

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, tournament: Tournament) -> dict[str, int]:
        return selectors.tournament_progress(tournament=tournament)


class TournamentDetailSerializer(TournamentSerializer):
    standings = serializers.SerializerMethodField()

    class Meta(TournamentSerializer.Meta):
        fields = [*TournamentSerializer.Meta.fields, "standings"]
        read_only_fields = fields

    @extend_schema_field(StandingSerializer(many=True))
    def get_standings(self, tournament: Tournament) -> list[dict[str, Any]]:
        rows = selectors.tournament_table(tournament=tournament)
        if tournament.status == Tournament.Status.FINISHED:
            rows.sort(key=lambda r: r.final_rank or 10**6)
        return StandingSerializer(rows, many=True).data  # type: ignore[return-value]


class TournamentCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=80)
    format = serializers.ChoiceField(choices=Tournament.Format.choices)
    bots = serializers.ListField(
        child=serializers.IntegerField(), max_length=256, default=list,
        help_text="Bot ids, best seed first (unless seeded by a ladder); each plays its "
                  "active version. Leave out for open entry.")
    entry_deadline = serializers.DateTimeField(
        required=False, help_text="Open entry: authors enter their bots until then, and the "
                                  "tournament starts by itself with whoever entered")
    rounds = serializers.IntegerField(min_value=1, max_value=50, default=1,
                                      help_text="Round robin: matches per pair. Swiss: rounds.")
    ladder = serializers.SlugField(required=False, help_text="Seed by this ladder's Elo")
    rules = serializers.CharField(max_length=20, default="official")
    games_per_match = serializers.IntegerField(min_value=2, max_value=200, default=2)
    move_ms = serializers.IntegerField(min_value=10, max_value=60000, default=1000)
    bank_ms = serializers.IntegerField(min_value=0, max_value=600000, default=10000)
    startup_ms = serializers.IntegerField(min_value=100, max_value=60000, default=5000)

    def validate_rules(self, value: str) -> str:
        from engine.rules import PRESETS

        if value not in PRESETS:
            raise serializers.ValidationError(f"one of {', '.join(PRESETS)}")
        return value

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if "entry_deadline" not in data and len(data["bots"]) < 2:
            raise serializers.ValidationError(
                {"bots": "at least two bots, or an entry_deadline for open entry"})
        if "entry_deadline" in data and data["bots"]:
            raise serializers.ValidationError(
                {"bots": "open entry takes no bots: their authors enter them"})
        return data


class EntrySerializer(serializers.Serializer):
    bot = serializers.IntegerField(help_text="Your bot (its active version plays)")


class ChallengeSerializer(serializers.Serializer):
    bot = serializers.IntegerField(help_text="Your bot (its active version plays)")
    opponent = serializers.IntegerField(help_text="Any bot with an active version")
    rated = serializers.BooleanField(
        default=False, help_text="Counts on the ladder's ratings; only against a bot of another "
        "owner (a rated challenge between two of your own bots is refused with a 400)")
    ladder = serializers.SlugField(default="main", help_text="Rules, clock, and rating pool")


# --- Views -----------------------------------------------------------------------------------


@extend_schema_view(
    list=extend_schema(summary="List ladders"),
    retrieve=extend_schema(summary="One ladder with its leaderboard (Elo and fitted rating)"),
)
class LadderViewSet(viewsets.ReadOnlyModelViewSet):
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
        version = _int_param(request, "version", required=True)
        entry = get_object_or_404(LadderEntry, ladder=ladder, version_id=version)
        changes = selectors.rating_history(entry=entry)
        return Response(RatingChangeSerializer(changes, many=True).data)


def _int_param(request: Request, name: str, *, required: bool = False) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        if required:
            raise ValidationError({name: "this parameter is required"})
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ValidationError({name: f"{raw!r} is not a whole number"}) from None
    if not -(2**63) <= value < 2**63:  # the database's integers: SQLite would overflow
        raise ValidationError({name: f"{raw!r} is out of range"})
    return value


# The /matches/ page's vocabulary (tournaments.match_filters); any other parameter is a 400.
MATCH_FILTERS = [
    OpenApiParameter("bot", str, description="Matches of this bot (either side): name or id"),
    OpenApiParameter("opponent", str, description="Only against this bot: name or id"),
    OpenApiParameter("version", int, description="Matches of this bot version (id)"),
    OpenApiParameter("ladder", str, description="Ladder slug"),
    OpenApiParameter("tournament", int, description="Tournament id"),
    OpenApiParameter("status", str, enum=Match.Status.values),
    OpenApiParameter("result", str, enum=list(match_filters.RESULTS),
                     description="won or lost (from bot's side), draw, decisive"),
    OpenApiParameter("faults", bool, description="Only matches a fault ended"),
    OpenApiParameter("since", str, description="Finished at or after (date or date-time)"),
    OpenApiParameter("until", str, description="Finished before (date or date-time)"),
    OpenApiParameter("mine", bool, description="Only matches of your bots"),
]


class ReplayPruned(APIException):
    status_code = status.HTTP_410_GONE
    default_detail = ("replay pruned: this site keeps replays for a limited time; the match's "
                      "result and ratings stand")
    default_code = "replay_pruned"


def _filtered_matches(request: Request) -> Any:
    """An unknown bot or ladder selects no matches, as on the page."""
    try:
        filters = match_filters.match_filters_parse(params=request.query_params,
                                                    user=request.user)
    except match_filters.FilterError as error:
        raise ValidationError(error.errors) from None
    return match_filters.matches_filtered(filters=filters).select_related(
        "version_a__bot", "version_b__bot", "ladder").defer(
        "replay_gz", "stderr_a", "stderr_b").order_by("-created", "-id")


@extend_schema_view(
    list=extend_schema(summary="List matches, newest first", parameters=MATCH_FILTERS),
    retrieve=extend_schema(summary="One match (its bots' stderr only for their owners)"),
)
class MatchViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = MatchSerializer

    def get_queryset(self) -> Any:
        if self.action == "list":
            return _filtered_matches(self.request)
        return Match.objects.select_related("version_a__bot", "version_b__bot", "ladder"
                                            ).defer("replay_gz", "stderr_a", "stderr_b")

    @extend_schema(summary="The match's replay (replay-format.md), decompressed; a fault's "
                   "detail is clipped to 200 characters unless you own the bot at fault",
                   responses={200: OpenApiTypes.OBJECT,
                              404: OpenApiResponse(description="Not finished, no replay"),
                              410: OpenApiResponse(description="Replay pruned (retention)")})
    @action(detail=True, methods=["get"])
    def replay(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        stored = get_object_or_404(Match.objects.only("pk", "replay_gz"), pk=match.pk)
        replay = stored.replay()
        if replay is None and match.status == Match.Status.FINISHED:
            raise ReplayPruned()
        if replay is None:
            raise Http404("this match has no replay")
        if not match_fault_whole_for(request.user, match):
            replay = replay_public(replay)
        return Response(replay)


class StaffWritesOnly(permissions.BasePermission):
    message = "Only staff may create tournaments."

    def has_permission(self, request: Request, view: APIView) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_staff)


@extend_schema_view(
    list=extend_schema(summary="List tournaments"),
    retrieve=extend_schema(summary="One tournament with standings and progress"),
    create=extend_schema(summary="Create a tournament (staff): started at once, or open for "
                                 "entry until entry_deadline",
                         request=TournamentCreateSerializer,
                         responses={201: TournamentDetailSerializer}),
)
class TournamentViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Tournament.objects.order_by("-created")
    permission_classes = [StaffWritesOnly]

    def get_permissions(self) -> list[permissions.BasePermission]:
        if self.action == "enter":
            return [permissions.IsAuthenticated()]
        return super().get_permissions()

    @extend_schema(summary="Enter your bot in a tournament open for entry",
                   request=EntrySerializer, responses={201: StandingSerializer})
    @action(detail=True, methods=["post"])
    def enter(self, request: Request, pk: str | None = None) -> Response:
        tournament = self.get_object()
        form = EntrySerializer(data=request.data)
        form.is_valid(raise_exception=True)
        version = _active_version(form.validated_data["bot"], "bot")
        services.tournament_enter(tournament=tournament, version=version, user=request.user)
        row = next(r for r in selectors.tournament_table(tournament=tournament)
                   if r.version_id == version.pk)
        return Response(StandingSerializer(row).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Cancel a tournament before it starts (staff)", request=None,
                   responses={200: TournamentSerializer,
                              409: OpenApiResponse(description="It has started")})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        tournament = self.get_object()
        if not services.tournament_cancel(tournament=tournament,
                                          reason=f"cancelled by {request.user.get_username()}"):
            return Response({"detail": "the tournament has started: it cannot be cancelled"},
                            status=status.HTTP_409_CONFLICT)
        tournament.refresh_from_db()
        return Response(TournamentSerializer(tournament).data)

    @extend_schema(summary="The results: standings (the final ranking once finished) and "
                           "every match", responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"])
    def results(self, request: Request, pk: str | None = None) -> Response:
        from tournaments.tournament_selectors import tournament_results

        return Response(tournament_results(tournament=self.get_object()))

    def get_serializer_class(self) -> type[serializers.BaseSerializer[Any]]:
        if self.action == "create":
            return TournamentCreateSerializer
        return TournamentDetailSerializer if self.action == "retrieve" else TournamentSerializer

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        form = TournamentCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = dict(form.validated_data)
        slug = data.pop("ladder", None)
        ladder = get_object_or_404(Ladder, slug=slug) if slug else None
        versions = [_active_version(bot_id, "bots") for bot_id in data.pop("bots")]
        tournament = services.tournament_create(versions=versions, ladder=ladder,
                                                created_by=request.user, **data)
        body = TournamentDetailSerializer(tournament, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED)


def _active_version(bot_id: int, field: str) -> BotVersion:
    bot = Bot.objects.filter(pk=bot_id).first()
    version = bot_active_version(bot=bot) if bot else None
    if version is None:
        raise ValidationError({field: f"bot {bot_id} does not exist or has no active version"})
    return version


class ChallengeView(APIView):
    throttle_scope = "challenges"

    @extend_schema(summary="Challenge any active bot with your own (rate-limited)",
                   request=ChallengeSerializer, responses={201: MatchSerializer})
    def post(self, request: Request) -> Response:
        form = ChallengeSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        ladder = get_object_or_404(Ladder, slug=data["ladder"])
        try:
            match = services.challenge_create(
                user=request.user, version=_active_version(data["bot"], "bot"),
                opponent=_active_version(data["opponent"], "opponent"), rated=data["rated"],
                ladder=ladder,
            )
        except services.RateLimited as limited:
            raise Throttled(detail=str(limited)) from None
        body = MatchSerializer(match, context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED)


class JSONLinesRenderer(BaseRenderer):
    media_type = "application/x-ndjson"
    format = "jsonl"

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: dict[str, Any] | None = None) -> bytes:
        return (json.dumps(data) + "\n").encode()  # only error bodies come through here


class ExportTooLarge(APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "export_too_large"


def _export_limit(user: Any) -> int | None:
    """The most replays one export may hold: anonymous callers fewer than signed-in ones (a
    token), staff any number (None). Each replay is read, decompressed and sent whole: an
    unbounded export costs the database and the web process more than any other request."""
    if user.is_staff:
        return None
    if user.is_authenticated:
        return int(settings.KAISER_EXPORT_MAX_REPLAYS)
    return int(settings.KAISER_EXPORT_MAX_REPLAYS_ANON)


def _export_too_large(count: int, limit: int, user: Any) -> str:
    how = "narrow it with the filters (bot, opponent, version, ladder, tournament, since, until)"
    if not user.is_authenticated:
        how += f" or send an API token (up to {settings.KAISER_EXPORT_MAX_REPLAYS} replays)"
    anonymous = "" if user.is_authenticated else " without credentials"
    return f"{count} replays match, more than the {limit} an export{anonymous} may hold: {how}."


class ReplayExportView(APIView):
    renderer_classes = [JSONRenderer, JSONLinesRenderer]

    @extend_schema(
        summary="Replays of finished matches as JSON Lines (one replay a line), oldest first",
        description="One export holds at most KAISER_EXPORT_MAX_REPLAYS_ANON replays (500 by "
        "default) without credentials and KAISER_EXPORT_MAX_REPLAYS (20000) with an API "
        "token; a larger one is refused whole (400, code export_too_large): narrow it with "
        "the filters. Fault details are clipped to 200 characters.",
        parameters=MATCH_FILTERS,
        responses={(200, "application/x-ndjson"): OpenApiTypes.STR},
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        matches = _filtered_matches(request)
        limit = _export_limit(request.user)
        if limit is not None:
            count = selectors.replays_export_count(matches=matches)
            if count > limit:
                raise ExportTooLarge(_export_too_large(count, limit, request.user))
        lines = selectors.replays_export(matches=matches)
        response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
        response["Content-Disposition"] = 'attachment; filename="replays.jsonl"'
        return response
