"""A bot's fault detail as the public sees it: clipped.

A fault's detail (a replay's `forfeit.detail`, a rejected version's reason) renders what the
bot sent or how it died, so in effect its author writes it. It is stored whole (a replay is
the record of the match) and shown whole to the bot's owner and staff; everyone else sees at
most PUBLIC_DETAIL_CHARS characters of it, so a bot cannot publish pages of text through its
faults on the site's pages and API.
"""

from __future__ import annotations

from typing import Any

PUBLIC_DETAIL_CHARS = 200


def whole_for(user: Any, version: Any) -> bool:
    """Whether `user` sees the faults of `version` (a BotVersion, or None) whole: its bot's
    owner and staff do."""
    if version is None:
        return False
    return bool(getattr(user, "is_staff", False) or version.bot.is_owned_by(user))


def match_fault_whole_for(user: Any, match: Any) -> bool:
    """Whether `user` sees the fault of `match` (a matches Match) whole: the owner of the
    bot at fault (the side with a fault: Match.fault_side) and staff do."""
    side = match.fault_side
    return whole_for(user, side.version if side is not None else None)


def detail_clip(text: str) -> str:
    """At most PUBLIC_DETAIL_CHARS characters, then an ellipsis."""
    if len(text) <= PUBLIC_DETAIL_CHARS:
        return text
    return text[:PUBLIC_DETAIL_CHARS] + "…"


def forfeit_public(forfeit: Any) -> Any:
    """A forfeit (replay format) with its detail clipped: the same object when nothing is cut."""
    if not isinstance(forfeit, dict):
        return forfeit
    detail = forfeit.get("detail")
    if not isinstance(detail, str) or len(detail) <= PUBLIC_DETAIL_CHARS:
        return forfeit
    return {**forfeit, "detail": detail_clip(detail)}


def replay_public(replay: Any) -> Any:
    """A replay with the detail of every forfeit in it clipped (the match's and each game's).
    Only the dicts on the way to a clipped detail are copied; the stored replay is untouched."""
    if not isinstance(replay, dict) or not _has_long_detail(replay):
        return replay
    public = {**replay, "result": _result_public(replay.get("result"))}
    if isinstance(replay.get("games"), list):
        public["games"] = [
            {**game, "result": _result_public(game.get("result"))}
            if isinstance(game, dict) else game
            for game in replay["games"]
        ]
    return public


def _result_public(result: Any) -> Any:
    if not isinstance(result, dict) or "forfeit" not in result:
        return result
    return {**result, "forfeit": forfeit_public(result["forfeit"])}


def _has_long_detail(replay: dict[str, Any]) -> bool:
    results = [replay.get("result")]
    games = replay.get("games")
    if isinstance(games, list):
        results += [game.get("result") for game in games if isinstance(game, dict)]
    return any(
        isinstance(result, dict) and forfeit_public(result.get("forfeit")) is not
        result.get("forfeit")
        for result in results
    )
