"""The error a replay validator reports: the first thing the rules do not allow, and where."""

from __future__ import annotations


class Violation(Exception):
    """The first thing in a replay that the rules do not allow, with where it happened."""

    def __init__(self, message: str, *, game: int | None = None, deal: int | None = None,
                 trick: int | None = None, seat: int | None = None) -> None:
        where = [f"{k} {v}" for k, v in
                 (("game", game), ("deal", deal), ("trick", trick), ("seat", seat))
                 if v is not None]
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
