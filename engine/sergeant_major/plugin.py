"""Sergeant Major as the runtime sees it (engine.games.Game). The game's modules are imported
when it is asked for something, not when the registry is read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.games import PackagedGame
from engine.sergeant_major import SERGEANT_MAJOR

if TYPE_CHECKING:
    from engine.games import State
    from engine.players import Player


class SergeantMajor(PackagedGame):
    name: str = SERGEANT_MAJOR
    title: str = "Sergeant Major (9-5-2)"
    about: str = ("Sergeant Major (9-5-2): three players, each for itself, each with a "
                  "target of tricks to make")
    match_about: str = "each set of three games deals the same cards, the seats rotated"
    rules_page: str = "rules-sergeant-major"
    seats: int = 3
    sides: tuple[str, ...] = ("A", "B", "C")
    games_per_set: int = 3
    default_preset: str = "952"
    rules_class: str = "SMRules"
    package: str = "engine.sergeant_major"
    replay_format: str = "sergeant-major-replay"
    has_boards: bool = False
    browser_scripts: tuple[str, ...] = ("js/sm.js",)
    check_preset: str = "952-six-hands"  # six hands a game: a check of known length
    home_ladder: dict[str, Any] = {  # noqa: RUF012 (read only)
        "slug": SERGEANT_MAJOR, "name": "Sergeant Major ladder", "rules": "952-six-hands",
        "games_per_match": 3,
        "description": "Sergeant Major (9-5-2), six hands a game; each match plays the same "
                       "deals three times, the seats rotated."}
    # The game's own built-in players, under names of their own (a bot's name is unique over
    # all games), greedy the anchor as on the main ladder.
    house_bots: dict[str, str] = {"sm-random": "builtin:random",  # noqa: RUF012
                                  "sm-greedy": "builtin:greedy"}
    house_anchor: str = "sm-greedy"
    # The ratings' unit of a side's ups (tricks above its targets over a match): measured,
    # bench/sm_rating_convergence.py (docs/ratings.md).
    ups_scale: float = 10.0

    # --- a game in play ----------------------------------------------------------------------
    def new_state(self, rules: Any, *, seed: str, game: int) -> State:
        from engine.sergeant_major.game import SMState, set_deals

        dealer, deals = set_deals(seed, game // 3)
        return SMState(rules, dealer=dealer, deals=deals.source(), game=game)

    # --- players and matches -----------------------------------------------------------------
    def builtin_players(self) -> dict[str, tuple[type[Player], str]]:
        from engine.builtin import RandomPlayer
        from engine.sergeant_major.mc import SMMCPlayer
        from engine.sergeant_major.players import SMGreedyPlayer

        return {"random": (RandomPlayer, "1"), "greedy": (SMGreedyPlayer, "1"),
                "mc": (SMMCPlayer, "1")}

    # --- a person at the table (engine.sergeant_major.person) --------------------------------
    person_seat_labels: tuple[str, ...] = ("West (on your left)", "East (on your right)")
    # A bot's discards, and the cards of an exchange (the view's exchanges show those the
    # person gives or gets).
    person_hidden: frozenset[str] = frozenset({"discard", "give", "return"})

    def match_tiebreak(self, replay: dict[str, Any]) -> dict[str, float]:
        """Each side's ups over the match's hands, as its replay's result holds them."""
        ups = replay.get("result", {}).get("ups") or {}
        return {side: float(ups[side]) for side in self.sides if side in ups}

    def winner_of_seat(self, seat: int) -> int:
        return seat  # each seat plays for itself


GAME = SergeantMajor()
