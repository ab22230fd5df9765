"""A finished Quartet match for the pages' tests: a replay of the built-in players, stored as
match_finish keeps one (the replay store, the result, a MatchSide row a side)."""

from __future__ import annotations

import json
from typing import Any

from engine.builtin import resolve_player
from engine.games import get_game
from engine.players import TimeControl
from tests.games.quartet import QUARTET

NAMES = ("q-north", "q-east", "q-south", "q-west")


def quartet_replay(seed: str) -> dict[str, Any]:
    game = get_game(QUARTET)
    players = [resolve_player(f"builtin:{name}", game=QUARTET)
               for name in ("greedy", "random", "random", "greedy")]
    return json.loads(json.dumps(game.run_match(
        players, games=game.games_per_set, seed=seed, rules=game.get_rules("short"),
        time=TimeControl(move_ms=1000, bank_ms=10000, startup_ms=5000))))


def stored_quartet_match(replay: dict[str, Any], house: Any) -> Any:
    from django.utils import timezone

    from bots.models import Bot
    from bots.services import bot_builtin_add
    from matches.models import Match
    from matches.replay_store import replay_gzip, replay_put
    from tests.factories import match_make

    versions = [bot_builtin_add(
        bot=Bot.objects.create(owner=house, name=name, game=QUARTET), spec="builtin:random")
        for name in NAMES]
    result = replay["result"]
    match = match_make(versions=versions, kind=Match.Kind.CHALLENGE, rated=False, game=QUARTET,
                       rules="short", games_per_match=len(replay["games"]), seed=replay["seed"],
                       games=[result["games"][side] for side in "ABCD"],
                       points=[result["points"][side] for side in "ABCD"])
    text = json.dumps(replay).encode()
    stored = replay_put(match_id=match.pk, blob=replay_gzip(text))
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED, finished=timezone.now(), replay_key=stored.key,
        replay_sha256=stored.sha256, replay_size=len(text), score=result["score"]["A"])
    return Match.objects.get(pk=match.pk)
