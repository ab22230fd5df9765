"""REST API of matches and replays (under /api/v1/): the filtered match list, one match, its
replay, and the replay export as JSON lines."""

from __future__ import annotations

import json
import logging
from typing import Any

from django.conf import settings
from django.http import Http404, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.faults import forfeit_public, match_fault_whole_for, replay_public
from bots.models import BotVersion
from engine.games import get_game
from kaiser_site.page_cache import AnonymousSharedReads
from matches import filters as match_filters
from matches import selectors
from matches.models import REPLAY_FIELDS, Match, MatchSide, sides_with_bots
from matches.replay_store import ReplayUnavailable

logger = logging.getLogger(__name__)


class MatchSideSerializer(serializers.Serializer):
    """One player of the match, in side order: who, and (once finished) its part of the
    result. Its stderr is its owner's (and staff's) only; null for everyone else."""

    side = serializers.CharField(source="letter")
    version = serializers.IntegerField(source="version_id")
    bot = serializers.IntegerField(source="version.bot_id")
    name = serializers.CharField(source="version.bot.name")
    number = serializers.IntegerField(source="version.number")
    games = serializers.IntegerField(allow_null=True)
    points = serializers.FloatField(allow_null=True)
    ups = serializers.FloatField(allow_null=True)
    fault = serializers.CharField()
    stderr = serializers.SerializerMethodField()

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_stderr(self, side: MatchSide) -> str | None:
        user = self.context["request"].user
        if not (user.is_staff or side.version.bot.is_owned_by(user)):
            return None
        text: str = MatchSide.objects.filter(pk=side.pk).values_list("stderr", flat=True)[0]
        return text


class TimeSerializer(serializers.Serializer):
    move_ms = serializers.IntegerField()
    bank_ms = serializers.IntegerField()
    startup_ms = serializers.IntegerField()
    strict_ms = serializers.IntegerField(
        help_text="Strict time: every decision a slot of this many ms of wall time (0: the "
                  "normal clock)")


class MatchSerializer(serializers.ModelSerializer):
    ladder = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    time = serializers.SerializerMethodField()
    forfeit = serializers.SerializerMethodField()
    sides = MatchSideSerializer(source="side_list", many=True, read_only=True)

    class Meta:
        model = Match
        fields = ["id", "kind", "status", "ladder", "tournament", "round", "rated", "game",
                  "sides", "seed", "rules", "games_per_match", "time", "score", "forfeit",
                  "error", "created", "started", "finished", "play_ms", "attempts",
                  "replay_size"]
        read_only_fields = fields

    @extend_schema_field(TimeSerializer)
    def get_time(self, match: Match) -> dict[str, int]:
        return {"move_ms": match.move_ms, "bank_ms": match.bank_ms,
                "startup_ms": match.startup_ms, "strict_ms": match.strict_ms}

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_forfeit(self, match: Match) -> Any:
        """The fault that ended the match: its detail clipped (bots.faults) unless the caller
        owns the bot at fault or is staff."""
        if match_fault_whole_for(self.context["request"].user, match):
            return match.forfeit
        return forfeit_public(match.forfeit)


def int_param(request: Request, name: str, *, required: bool = False) -> int | None:
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
    OpenApiParameter("version", str, description="With bot: that bot's version number (2 or "
                     "v2); alone: a version id"),
    OpenApiParameter("ladder", str, description="Ladder slug"),
    OpenApiParameter("tournament", str, description="Tournament id or name"),
    OpenApiParameter("status", str, enum=Match.Status.values),
    OpenApiParameter("result", str, enum=list(match_filters.RESULTS),
                     description="won or lost (from bot's side), draw, decisive"),
    OpenApiParameter("faults", bool, description="Only matches a fault ended"),
    OpenApiParameter("since", str, description="Finished at or after (date or date-time)"),
    OpenApiParameter("until", str, description="Finished before (date or date-time)"),
    OpenApiParameter("mine", bool, description="Only matches of your bots"),
]


class ReplayUnreadable(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "the match's game cannot put this replay in words (it is not one of its own)"
    default_code = "replay_unreadable"


class ReplayPruned(APIException):
    status_code = status.HTTP_410_GONE
    default_detail = ("replay pruned: this site keeps replays for a limited time; the match's "
                      "result and ratings stand")
    default_code = "replay_pruned"


class ReplayStoreDown(APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "the replay store did not return this replay; try again later"
    default_code = "replay_unavailable"


def _filtered_matches(request: Request) -> Any:
    """A bot, version, ladder or tournament that does not exist is a 400 naming it."""
    try:
        filters = match_filters.match_filters_parse(params=request.query_params,
                                                    user=request.user)
    except match_filters.FilterError as error:
        raise ValidationError(error.errors) from None
    if filters.unknown:
        raise ValidationError({name: f"there is no {match_filters.NAMED[name]} {value!r}"
                               for name, value in filters.unknown.items()})
    # Newest first by id (ids are given in creation order), as the /matches/ page: on the
    # sides' (version, -match) and primary key indexes, where -created sorted every match (6 s
    # at a million: bench/scale_sim.py).
    return match_filters.matches_filtered(filters=filters).select_related("ladder").defer(
        "replay_gz").prefetch_related(sides_with_bots()).order_by("-id")


@extend_schema_view(
    list=extend_schema(summary="List matches, newest first", parameters=MATCH_FILTERS),
    retrieve=extend_schema(summary="One match (its bots' stderr only for their owners)"),
)
class MatchViewSet(AnonymousSharedReads, viewsets.ReadOnlyModelViewSet):
    shared_list_topics = ("matches",)
    shared_item_topics = ("match:{pk}",)
    serializer_class = MatchSerializer

    def get_queryset(self) -> Any:
        if self.action == "list":
            return _filtered_matches(self.request)
        if self.action == "replay":  # one query; the sides only for a fault (whose it is)
            return Match.objects.only("pk", "status", "forfeit", *REPLAY_FIELDS)
        return Match.objects.select_related("ladder").defer("replay_gz").prefetch_related(
            sides_with_bots())

    @extend_schema(summary="The match's replay (replay-format.md), decompressed; a fault's "
                   "detail is clipped to 200 characters unless you own the bot at fault",
                   responses={200: OpenApiTypes.OBJECT,
                              404: OpenApiResponse(description="Not finished, no replay"),
                              410: OpenApiResponse(description="Replay pruned (retention)"),
                              503: OpenApiResponse(description="The replay store failed")})
    @action(detail=True, methods=["get"])
    def replay(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        try:
            replay = match.replay()
        except ReplayUnavailable as error:
            logger.error("match %s: %s", match.pk, error)
            raise ReplayStoreDown() from None
        if replay is None and match.status == Match.Status.FINISHED:
            raise ReplayPruned()
        if replay is None:
            raise Http404("this match has no replay")
        if match.forfeit and not match_fault_whole_for(request.user, match):
            replay = replay_public(replay)
        return Response(replay)

    @extend_schema(summary="The match's replay in words, step by step (the game's own words: "
                   "engine.games.Game.replay_steps), as the replay viewer shows a game it "
                   "has no drawing of",
                   responses={200: OpenApiTypes.OBJECT,
                              404: OpenApiResponse(description="Not finished, no replay"),
                              409: OpenApiResponse(description="Its game cannot read it"),
                              410: OpenApiResponse(description="Replay pruned (retention)"),
                              503: OpenApiResponse(description="The replay store failed")})
    @action(detail=True, methods=["get"], url_path="replay-text")
    def replay_text(self, request: Request, pk: str | None = None) -> Response:
        replay = self.replay(request, pk).data
        try:
            steps = get_game(self.get_object().game).replay_steps(replay)
        except (KeyError, IndexError, TypeError, ValueError):
            # a stored replay that is not its game's (the game's render reads its own shape)
            raise ReplayUnreadable() from None
        return Response({"match": int(str(pk)), "format": replay.get("format"),
                         "steps": steps})

    @extend_schema(summary="The match's board comparison (docs/matches.md, Boards): every deal "
                   "of its duplicate pairs, what each table did with the same cards, A's swing "
                   "and the first differing decision",
                   responses={200: OpenApiTypes.OBJECT,
                              404: OpenApiResponse(description="Not finished"),
                              410: OpenApiResponse(description="Replay pruned: the boards are "
                                                   "worked out from it")})
    @action(detail=True, methods=["get"])
    def boards(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        if not get_game(match.game).has_boards:
            raise Http404(f"a {get_game(match.game).title} match has no boards")
        if match.status != Match.Status.FINISHED:
            raise Http404("this match has no boards: it is not finished")
        boards = selectors.match_boards(match_id=match.pk)
        if boards is None:
            raise ReplayPruned()
        return Response({"match": match.pk, "players": _players(match), "boards": boards})

    @extend_schema(summary="One board: its comparison and the deal as each table played it "
                   "(replay-format.md deals); GAME is either game of the pair, GAME and DEAL "
                   "count from 1", operation_id="v1_matches_board_retrieve",
                   responses={200: OpenApiTypes.OBJECT,
                                              410: OpenApiResponse(description="Replay pruned")})
    @action(detail=True, methods=["get"],
            url_path=r"boards/(?P<game>[0-9]{1,5})/(?P<deal>[0-9]{1,5})")
    def board(self, request: Request, game: str, deal: str, pk: str | None = None) -> Response:
        match, replay, first, index = self._board_replay(request, game, deal)
        found = next((b for b in selectors.match_boards(match_id=match.pk) or []
                      if b["game"] == first and b["deal"] == index), None)
        pair = replay["games"][first:first + 2]
        deals = [g["deals"][index] if index < len(g["deals"]) else None for g in pair]
        return Response({"match": match.pk, "players": _players(match), "board": found,
                         "seats": [g["seats"] for g in pair], "deals": deals})

    @extend_schema(summary="The deal file of one board (replay-format.md, Deal files), to "
                   "play at home: kaiser-engine.pyz deal FILE mybot.py OPPONENT",
                   operation_id="v1_matches_board_deal_file_retrieve",
                   responses={200: OpenApiTypes.OBJECT,
                              410: OpenApiResponse(description="Replay pruned")})
    @action(detail=True, methods=["get"],
            url_path=r"boards/(?P<game>[0-9]{1,5})/(?P<deal>[0-9]{1,5})/deal-file")
    def deal_file(self, request: Request, game: str, deal: str,
                  pk: str | None = None) -> Response:
        match, replay, first, index = self._board_replay(request, game, deal)
        response = Response(get_game(match.game).deal_file(replay, first, index,
                                                           games=match.games_per_match))
        response["Content-Disposition"] = (
            f'attachment; filename="match-{match.pk}-deal-{first + 1}-{index + 1}.json"')
        return response

    def _board_replay(self, request: Request, game: str, deal: str
                      ) -> tuple[Match, dict[str, Any], int, int]:
        """The match, its (public) replay, the pair's first game and the deal, from 0; 404
        when the match has no such deal, 410 when its replay was pruned."""
        match = self.get_object()
        spec = get_game(match.game)
        if not spec.has_boards:
            raise Http404(f"a {spec.title} match has no boards")
        replay = Match.objects.only("pk", "replay_gz").get(pk=match.pk).replay()
        if replay is None and match.status == Match.Status.FINISHED:
            raise ReplayPruned()
        first, index = int(game) - 1, int(deal) - 1
        first -= first % 2
        games = (replay or {}).get("games") or []
        if first < 0 or index < 0 or not any(index < len(g["deals"])
                                             for g in games[first:first + 2]):
            raise Http404("this match has no such deal")
        assert replay is not None
        if not match_fault_whole_for(request.user, match):
            replay = replay_public(replay)
        return match, replay, first, index








def _players(match: Match) -> dict[str, dict[str, Any]]:
    return {side.letter: {"version": side.version_id, "bot": side.version.bot_id,
                          "name": side.version.bot.name, "number": side.version.number}
            for side in match.side_list}


class CostliestBoardsView(APIView):
    @extend_schema(
        summary="A bot version's costliest boards: its biggest negative swings, worst first",
        description="Over the version's newest 500 matches, or, with `opponent`, over all its "
        "matches against that bot. `swing` is from the version's side (negative); `game` and "
        "`deal` count from 0, as in the board comparison.",
        parameters=[OpenApiParameter("version", int, required=True, description="version id"),
                    OpenApiParameter("opponent", str, description="opponent bot: name or id"),
                    OpenApiParameter("limit", int, description="rows, 1 to 100 (10)")],
        responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        version_id = int_param(request, "version", required=True)
        limit = int_param(request, "limit") or 10
        if not 1 <= limit <= 100:
            raise ValidationError({"limit": "from 1 to 100"})
        version = BotVersion.objects.filter(pk=version_id).select_related("bot").first()
        if version is None:
            raise ValidationError({"version": f"there is no version {version_id}"})
        opponent = None
        if raw := request.query_params.get("opponent", "").strip():
            opponent = match_filters.bot_lookup(raw)
            if opponent is None:
                raise ValidationError({"opponent": f"there is no bot {raw!r}"})
        rows = selectors.costliest_boards(version_id=version.pk, limit=limit,
                                          opponent_bot_id=opponent.pk if opponent else None)
        return Response({"version": version.pk, "bot": version.bot.name,
                         "number": version.number,
                         "opponent": opponent.name if opponent else None, "boards": rows})


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
