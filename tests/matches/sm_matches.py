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
    (matches.replay_store) as match_finish keeps it, its result columns from the replay."""
    from django.utils import timezone

    from bots.models import Bot
    from bots.services import bot_version_add_builtin
    from matches.models import Match
    from matches.replay_store import replay_gzip, replay_put

    versions = [bot_version_add_builtin(
        bot=Bot.objects.create(owner=house, name=f"sm-{name}", game=SERGEANT_MAJOR),
        spec=f"builtin:{spec}") for name, spec in (("alpha", "greedy"), ("beta", "random"),
                                                   ("gamma", "random"))]
    match = Match.objects.create(kind=Match.Kind.CHALLENGE, rated=False, game=SERGEANT_MAJOR,
                                 rules="952", games_per_match=len(replay["games"]),
                                 seed=replay["seed"], version_a=versions[0],
                                 version_b=versions[1], version_c=versions[2])
    text = json.dumps(replay).encode()
    stored = replay_put(match_id=match.pk, blob=replay_gzip(text))
    result = replay["result"]
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED, finished=timezone.now(), replay_key=stored.key,
        replay_sha256=stored.sha256, replay_size=len(text), score=result["score"]["A"],
        games_a=result["games"]["A"], games_b=result["games"]["B"],
        games_c=result["games"]["C"])
    return Match.objects.get(pk=match.pk)
