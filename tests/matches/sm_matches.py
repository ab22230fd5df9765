"""Sergeant Major matches for the pages' tests: a replay played by the engine's built-in
players, and a finished match of three house bots holding it in the replay store."""

from __future__ import annotations

import json
from typing import Any

from engine.builtin import resolve_player
from engine.games import get_game
from engine.players import TimeControl
from engine.sergeant_major import SERGEANT_MAJOR


def sm_replay(seed: str, games: int = 3, preset: str = "952") -> dict[str, Any]:
    game = get_game(SERGEANT_MAJOR)
    players = [resolve_player(f"builtin:{name}", game=SERGEANT_MAJOR)
               for name in ("greedy", "random", "random")]
    return game.run_match(players, games=games, seed=seed, rules=game.get_rules(preset),
                          time=TimeControl(move_ms=1000, bank_ms=10000, startup_ms=5000))



def stored_sm_match(replay: dict[str, Any], house: Any) -> Any:
    """A finished Sergeant Major match of three house bots, its replay in the replay store
    (matches.replay_store) as match_finish keeps it, its result (A's score, each side's
    games and points) from the replay."""
    from django.utils import timezone

    from bots.models import Bot
    from bots.services import bot_builtin_add
    from matches.models import Match
    from matches.replay_store import replay_gzip, replay_put
    from tests.factories import match_make

    versions = [bot_builtin_add(
        bot=Bot.objects.create(owner=house, name=f"sm-{name}", game=SERGEANT_MAJOR),
        spec=f"builtin:{spec}") for name, spec in (("alpha", "greedy"), ("beta", "random"),
                                                   ("gamma", "random"))]
    result = replay["result"]
    match = match_make(versions=versions, kind=Match.Kind.CHALLENGE, rated=False,
                       game=SERGEANT_MAJOR, rules="952", games_per_match=len(replay["games"]),
                       seed=replay["seed"], games=[result["games"][s] for s in "ABC"],
                       points=[result["points"][s] for s in "ABC"])
    text = json.dumps(replay).encode()
    stored = replay_put(match_id=match.pk, blob=replay_gzip(text))
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED, finished=timezone.now(), replay_key=stored.key,
        replay_sha256=stored.sha256, replay_size=len(text), score=result["score"]["A"])
    return Match.objects.get(pk=match.pk)
