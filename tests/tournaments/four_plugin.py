"""A game of four players, each for itself, as the registry sees it: its facts only (no rules,
no play). Enough for the tournaments to say they do not offer it (test_tournament_games.py)."""

from __future__ import annotations

from engine.games import PackagedGame


class Foursome(PackagedGame):
    name: str = "foursome-test"
    title: str = "Foursome (a test game)"
    sides: tuple[str, ...] = ("A", "B", "C", "D")
    games_per_set: int = 4
    default_preset: str = "standard"
    package: str = "tests.tournaments"
    rules_class: str = ""
    match_about: str = "four players, each for itself"


GAME = Foursome()
