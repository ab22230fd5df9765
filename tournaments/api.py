"""REST API of tournaments (under /api/v1/): list, detail with standings, creation (staff),
entry and its withdrawal, cancellation and results."""

from __future__ import annotations

import functools
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.models import Bot, default_game, game_choices
from engine.players import strict_ms_error
from ladder.api import active_version
from ladder.models import Ladder
from matches.models import conditions_errors
from tournaments import organisers, page, selectors, services
from tournaments.models import OrganiserRequest, Tournament
from tournaments.standings import TableRow


class StandingSerializer(serializers.Serializer):
    version = serializers.IntegerField(source="version_id",
                                       help_text="The version's id (also version_id)")
    version_id = serializers.IntegerField()
    version_number = serializers.IntegerField(help_text="The bot's version number (3 for v3)")
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


_CONVERTERS = {serializers.IntegerField: int, serializers.FloatField: float,
               serializers.CharField: str, serializers.BooleanField: bool}


@functools.cache
def _standing_fields() -> tuple[tuple[str, str, Any], ...]:
    """(name, source attribute, converter) of each StandingSerializer field."""
    return tuple((name, field.source, _CONVERTERS[type(field)])
                 for name, field in StandingSerializer().fields.items())


def standings_data(rows: list[TableRow]) -> list[dict[str, Any]]:
    """StandingSerializer(rows, many=True).data, the same dicts, without DRF's machinery per
    field (a 64-bot table: 3 ms of the tournament's API answer). The serializer stays what
    the schema shows; tests/tournaments/test_api.py holds the two equal."""
    fields = _standing_fields()
    return [{name: None if (value := getattr(row, source)) is None else convert(value)
             for name, source, convert in fields} for row in rows]


class ProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    total = serializers.IntegerField()


class TournamentSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()

    class Meta:
        model = Tournament
        fields = ["id", "name", "game", "format", "rounds", "status", "current_round", "rules",
                  "games_per_match", "move_ms", "bank_ms", "startup_ms", "strict_ms",
                  "entry_deadline",
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
        return standings_data(rows)


class TournamentCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=80)
    format = serializers.ChoiceField(choices=Tournament.Format.choices)
    game = serializers.ChoiceField(
        choices=game_choices(), default=default_game(),
        help_text="The game played: every entrant must be a bot of this game")
    bots = serializers.ListField(
        child=serializers.IntegerField(), max_length=256, default=list,
        help_text="Bot ids, best seed first (unless seeded by a ladder); each plays its "
                  "active version. Leave out for open entry.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The games registered now (a plugin registered after start-up is a choice too).
        self.fields["game"].choices = game_choices()
    entry_deadline = serializers.DateTimeField(
        required=False, help_text="Open entry: authors enter their bots until then, and the "
                                  "tournament starts by itself with whoever entered")
    rounds = serializers.IntegerField(min_value=1, max_value=50, default=1,
                                      help_text="Round robin: matches per pair. Swiss: rounds.")
    ladder = serializers.SlugField(required=False, help_text="Seed by this ladder's Elo")
    rules = serializers.CharField(
        max_length=20, required=False,
        help_text="A preset of the game (default: the game's own, official for Kaiser)")
    games_per_match = serializers.IntegerField(
        min_value=2, max_value=200, required=False,
        help_text="Whole sets of the game: Kaiser an even number (default 2), Sergeant Major "
                  "a multiple of 3 (default 3)")
    move_ms = serializers.IntegerField(min_value=10, max_value=60000, default=1000)
    bank_ms = serializers.IntegerField(min_value=0, max_value=600000, default=10000)
    startup_ms = serializers.IntegerField(min_value=100, max_value=60000, default=5000)
    strict_ms = serializers.IntegerField(
        default=0, help_text="Strict time: every decision gets exactly this many ms of wall "
                             "time and the next message goes out when the slot ends, so "
                             "partners cannot signal through how long they think (10 to "
                             "60000); 0 (the default) keeps the normal clock")

    def validate_strict_ms(self, value: int) -> int:
        error = strict_ms_error(value)
        if error:
            raise serializers.ValidationError(error)
        return value

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        from engine.games import get_game

        spec = get_game(data["game"])
        data.setdefault("rules", spec.default_preset)
        data.setdefault("games_per_match", spec.games_per_set)
        errors = conditions_errors(game=data["game"], rules=data["rules"],
                                   games_per_match=data["games_per_match"])
        if errors:
            raise serializers.ValidationError(errors)
        if "entry_deadline" not in data and len(data["bots"]) < 2:
            raise serializers.ValidationError(
                {"bots": "at least two bots, or an entry_deadline for open entry"})
        if "entry_deadline" in data and data["bots"]:
            raise serializers.ValidationError(
                {"bots": "open entry takes no bots: their authors enter them"})
        return data


class EntrySerializer(serializers.Serializer):
    bot = serializers.IntegerField(help_text="Your bot (its active version plays)")


class OrganisersWrite(permissions.BasePermission):
    message = organisers.NOT_AN_ORGANISER

    def has_permission(self, request: Request, view: APIView) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return organisers.can_organise(request.user)


class OrganiserRequestSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = OrganiserRequest
        fields = ["id", "username", "reason", "status", "created", "decided", "answer"]
        read_only_fields = ["id", "username", "status", "created", "decided", "answer"]


class OrganiserDecisionSerializer(serializers.Serializer):
    answer = serializers.CharField(required=False, allow_blank=True, max_length=300, default="")


class OrganiserRequestView(APIView):
    """GET: whether you organise tournaments, and your latest request to; POST {reason}: ask."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Whether you organise tournaments, and your latest request to",
                   responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        latest = organisers.latest_request(request.user)
        return Response({"organiser": organisers.can_organise(request.user),
                         "request": OrganiserRequestSerializer(latest).data if latest else None})

    @extend_schema(summary="Ask staff to let you organise tournaments",
                   request=OrganiserRequestSerializer,
                   responses={201: OrganiserRequestSerializer})
    def post(self, request: Request) -> Response:
        try:
            made = organisers.request_make(user=request.user,
                                           reason=str(request.data.get("reason", "")))
        except DjangoValidationError as error:
            raise ValidationError({"reason": error.messages}) from None
        return Response(OrganiserRequestSerializer(made).data, status=status.HTTP_201_CREATED)


class OrganiserDecisionView(APIView):
    """Staff: POST /organiser-requests/<id>/grant/ or /refuse/ (an optional answer)."""

    permission_classes = [permissions.IsAdminUser]

    @extend_schema(summary="Grant or refuse a request to organise (staff)",
                   request=OrganiserDecisionSerializer,
                   responses={200: OrganiserRequestSerializer})
    def post(self, request: Request, id: str, decision: str) -> Response:  # noqa: A002
        form = OrganiserDecisionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            decided = organisers.request_decide(request_id=int(id), staff=request.user,
                                                grant=decision == "grant",
                                                answer=form.validated_data["answer"])
        except DjangoValidationError as error:
            raise ValidationError({"request": error.messages}) from None
        return Response(OrganiserRequestSerializer(decided).data)


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
    permission_classes = [OrganisersWrite]

    def get_permissions(self) -> list[permissions.BasePermission]:
        if self.action in ("enter", "withdraw"):
            return [permissions.IsAuthenticated()]
        return super().get_permissions()

    @extend_schema(summary="Enter your bot in a tournament open for entry",
                   request=EntrySerializer, responses={201: StandingSerializer})
    @action(detail=True, methods=["post"])
    def enter(self, request: Request, pk: str | None = None) -> Response:
        tournament = self.get_object()
        form = EntrySerializer(data=request.data)
        form.is_valid(raise_exception=True)
        version = active_version(form.validated_data["bot"], "bot")
        services.tournament_enter(tournament=tournament, version=version, user=request.user)
        row = next(r for r in selectors.tournament_table(tournament=tournament)
                   if r.version_id == version.pk)
        return Response(StandingSerializer(row).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Withdraw your bot's entry before the tournament starts",
                   request=EntrySerializer,
                   responses={204: None, 403: OpenApiResponse(description="Not your bot"),
                              409: OpenApiResponse(description="It has started: retiring "
                                                               "the bot withdraws it")})
    @action(detail=True, methods=["post"])
    def withdraw(self, request: Request, pk: str | None = None) -> Response:
        tournament = self.get_object()
        form = EntrySerializer(data=request.data)
        form.is_valid(raise_exception=True)
        bot = get_object_or_404(Bot, pk=form.validated_data["bot"])
        try:
            services.tournament_withdraw(tournament=tournament, bot=bot, user=request.user)
        except services.EntryClosed as closed:
            return Response({"detail": str(closed), "code": "entry_closed"},
                            status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(summary="Cancel a tournament before it starts (staff)", request=None,
                   responses={200: TournamentSerializer,
                              409: OpenApiResponse(description="It has started")})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        tournament = self.get_object()
        if not organisers.can_cancel(request.user, tournament):
            raise PermissionDenied("Only the organiser who made this tournament, or staff, "
                                   "may cancel it.")
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
        return Response(page.tournament_results(tournament=self.get_object()))

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
        versions = [active_version(bot_id, "bots") for bot_id in data.pop("bots")]
        tournament = services.tournament_create(versions=versions, ladder=ladder,
                                                created_by=request.user, **data)
        body = TournamentDetailSerializer(tournament, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED)
