"""The board comparison of a match, as the site keeps it (docs/matches.md, "Boards").

match_finish stores engine.kaiser.boards.board_comparison of the replay on the match (Match.boards)
and each side's biggest losses as BoardLoss rows (board_losses), in the transaction that
stores the result: pages and the API read them, never the replay, except for matches
finished before boards were kept (match_boards computes theirs from the replay)."""

from __future__ import annotations

from typing import Any

from matches.models import BoardLoss, Match

# The biggest losses kept per side and match: a bot's costliest boards come from these.
BOARD_LOSSES_PER_MATCH = 3


def costliest(boards: list[dict[str, Any]], side: str, limit: int) -> list[dict[str, Any]]:
    """The side's `limit` biggest losses (negative swings from its side), worst first, of a
    board comparison (a game's board_comparison: each board's swing from A's side)."""
    sign = 1 if side == "A" else -1
    lost = [b for b in boards if b["swing"] is not None and sign * b["swing"] < 0]
    lost.sort(key=lambda b: (sign * b["swing"], b["game"], b["deal"]))
    return lost[:limit]


def board_losses(*, match: Match, boards: list[dict[str, Any]]) -> list[BoardLoss]:
    """The BoardLoss rows of a finished match (not saved): each side's worst boards."""
    rows = []
    a, b = (side.version for side in match.side_list)  # boards are a two-side comparison
    for side, version, opponent in (("A", a, b), ("B", b, a)):
        sign = 1 if side == "A" else -1
        for lost in costliest(boards, side, BOARD_LOSSES_PER_MATCH):
            difference = lost["difference"] or {}
            rows.append(BoardLoss(
                match=match, version_id=version.pk, opponent_id=opponent.pk,
                opponent_bot_id=opponent.bot_id, side=side, game=lost["game"],
                deal=lost["deal"], swing=sign * lost["swing"],
                kind=difference.get("kind") or "", step=difference.get("step") or 0))
    return rows
