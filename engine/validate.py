"""Replays of any game: read from a file, and re-checked against their game's rules
(engine.games.game_of_replay; each game's own `validate` module does the checking)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from engine.games import GAMES, PLUGINS_ENV, default_game, game_of_replay


def validate_replay(replay: Any) -> list[str]:
    """[] when the replay is valid, else [the first violation]. A replay that names a format
    no registered game has is refused in those words (a plugin's game is known only where
    PLUGINS_ENV names it); one that names none is checked as the default game's (whose
    validator says what is wrong with it)."""
    try:
        game = game_of_replay(replay)
    except ValueError:
        named = replay.get("format") if isinstance(replay, dict) else None
        if isinstance(named, str) and named not in {g.replay_format for g in GAMES.values()}:
            known = ", ".join(g.replay_format for g in GAMES.values())
            return [f"not a replay of a game known here: its format is {named!r} (known: "
                    f"{known}); a game of a plugin is known where {PLUGINS_ENV} names its "
                    f"plugin module"]
        game = default_game()
    return game.validate_replay(replay)


def iter_replays(text: str) -> Iterator[Any]:
    """One replay (a JSON object) or a JSON Lines file of replays. ValueError if malformed."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("empty file: no replay in it")
    try:
        yield json.loads(stripped)
        return
    except json.JSONDecodeError:
        pass
    for number, line in enumerate(stripped.splitlines(), 1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"line {number}: not JSON ({error.msg})") from None
