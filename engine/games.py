"""The games the arena plays, behind one interface, and the registry of them.

A game is a package beside the runtime (engine/<game>/) whose `plugin` module defines `GAME`,
an object of the `Game` protocol: its facts (players, sides, sets of games), presets and rules,
the state of one game of a match (the `State` protocol), the bot protocol's messages for it
(hello, act, the actions of a reply), its built-in players, matches, replays (validation and
the text of `show`) and what a person's seat needs. The runtime (botproc, human, cli,
validate, tables) asks the game it is given and never which one it is.

Architecture invariant: outside the game packages, only `GAME_MODULES` below names a game
(tests/architecture/test_runtime_names_no_game.py holds it). A game's own modules are imported
when the game is asked for something, not when the registry is read.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from engine.fairplay import PublicDecision
    from engine.players import Player, PlayerFactory, TimeControl

# The registry: each game's plugin module. The first is the default game, the one a bot plays
# when its `ready` names none (the protocol's first version had one game).
GAME_MODULES = ("engine.kaiser.plugin", "engine.sergeant_major.plugin")
# More games: plugin modules named here, comma-separated (a deployment's own games, or a
# test's: tests/games/). Read once, when the registry is first looked at; every process that
# plays or shows matches (the site, its workers, the local runner) must be given the same.
PLUGINS_ENV = "KAISER_GAME_PLUGINS"


def plugin_modules() -> tuple[str, ...]:
    """The registry's plugin modules: the built-in games, then those of PLUGINS_ENV."""
    extra = [m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip()]
    return GAME_MODULES + tuple(m for m in extra if m not in GAME_MODULES)


class State(Protocol):
    """One game in play, as every game implements it."""

    seat: int
    winner: int | None

    @property
    def decision(self) -> str | None: ...

    @property
    def deal_index(self) -> int: ...

    def legal_actions(self) -> Sequence[Any]: ...

    def apply(self, action: Any) -> None: ...

    def is_terminal(self) -> bool: ...

    def observation(self, seat: int) -> dict[str, Any]: ...

    def records(self) -> list[dict[str, Any]]: ...

    def partial_record(self) -> dict[str, Any]: ...


class ActWriter(Protocol):
    """One bot seat's `act` messages, as the bytes of one JSON line (a seat may cache)."""

    def message(self, state: Any, legal: Sequence[Any], mid: int, bank_ms: int) -> bytes: ...


# The action a bot's reply names (`action` of its JSON), if legal; else ValueError saying why.
ReplyReader = Callable[[Any, Sequence[Any], Any], Any]


class Game(Protocol):
    name: str  # what a bot declares in `ready` and a replay or rules object names
    title: str
    about: str  # the game in a line, for people: "the Canadian card game Kaiser: ..."
    match_about: str  # how a match deals its sets, for people: "duplicate: ..."
    rules_page: str  # its rules in the docs (docs/<rules_page>.md); "" for none
    seats: int
    sides: tuple[str, ...]  # the players of a match
    games_per_set: int  # games played over the same deals (a match is whole sets)
    replay_format: str

    # --- rules -------------------------------------------------------------------------------
    @property
    def presets(self) -> Mapping[str, Any]: ...

    @property
    def default_preset(self) -> str: ...

    def get_rules(self, name: str) -> Any: ...

    def preset_title(self, name: str) -> str: ...

    def rules_from_dict(self, data: Any) -> Any: ...

    # --- a game in play ----------------------------------------------------------------------
    def new_state(self, rules: Any, *, seed: str, game: int) -> State: ...

    def seat_sides(self, game: int) -> list[str]: ...

    def player_seed(self, seed: str, seat: int, game: int) -> str:
        """The seed of the built-in player at `seat` of game `game` (as a match gives it)."""

    def game_end(self, state: Any, game: int) -> dict[str, Any]:
        """The `game_end` message the seats get when `state` is over."""

    # --- the bot protocol --------------------------------------------------------------------
    def hello(self, *, seat: int, rules: Any, games: int, game: int,
              time: TimeControl) -> dict[str, Any]:
        """The `hello` a bot at `seat` gets before game `game` of a match of `games`."""

    def act_writer(self) -> ActWriter: ...

    @property
    def action_from_reply(self) -> ReplyReader: ...

    def legal_to_wire(self, state: Any, legal: Any) -> list[Any]: ...

    def action_from_wire(self, state: Any, value: Any) -> Any: ...

    def action_to_wire(self, decision: str | None, action: Any) -> Any: ...

    # --- players and matches -----------------------------------------------------------------
    def builtin_players(self) -> dict[str, tuple[type[Player], str]]: ...

    def run_match(self, players: Sequence[PlayerFactory], *, games: int, seed: str,
                  rules: Any, time: TimeControl, on_progress: Any = None) -> dict[str, Any]: ...

    def one_game_replay(self, state: Any, *, rules: Any, seed: str,
                        seat_players: list[dict[str, Any]],
                        forfeit: dict[str, Any] | None) -> dict[str, Any]:
        """The replay of a single game (game 0) played outside a match, as with a person at a
        seat: `seat_players` names each seat's player ({"name", "version", "human"})."""

    # --- what the site keeps of its matches --------------------------------------------------
    has_boards: bool  # a match's duplicate tables compare board by board (engine/kaiser/boards)
    browser_scripts: tuple[str, ...]  # its own scripts of static/ ("js/<game>.js"), if any
    # Whether a side holds several seats (partners): the pages say "partner" only then.
    has_partners: bool
    # Whether a person may sit at its table (person_seat_labels): pages of games with people.
    has_person_table: bool
    check_preset: str  # the preset an uploaded bot's check plays (a short one)
    # The ladder its bots play unless told: {"slug", "name", "rules", "games_per_match",
    # "description"} (PackagedGame: one named after the game, its default preset, one set).
    home_ladder: dict[str, Any]
    # The house's players on that ladder, bot name -> "builtin:NAME" (none: {}), and the one
    # pinned at the starting rating, so that a lone author's bot has opponents at once.
    house_bots: dict[str, str]
    house_anchor: str
    # The ratings' unit of a side's `ups` in a match's result (a game of three or more
    # players: a pair's outcome is the logistic of their ups' gap over it); 0: not rated.
    ups_scale: float

    def board_comparison(self, replay: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The boards of a match's replay, each deal's tables side by side with the swing
        (the format of engine/kaiser/boards.py); None for a game without boards."""

    def match_tiebreak(self, replay: dict[str, Any]) -> dict[str, float]:
        """Each side's figure, by letter, that orders the sides of a match whose shares are
        equal (a knockout's tie-break, before the better seed), from its replay: more is
        better (Kaiser: game points; Sergeant Major: ups). {} for a game without one
        (PackagedGame's default)."""

    def stats_empty(self) -> dict[str, Any]:
        """A side's statistics of play before any match: a dict of counts (totals are sums),
        with "matches", "games" ({"won", "lost", "drawn"}) and "faults" ({reason: n}); the
        site counts "matches" and "faults" itself (matches.stats.replay_stats), stats_count
        the rest."""

    def stats_count(self, out: dict[str, dict[str, Any]], replay: dict[str, Any]) -> None:
        """Add one replay's counts (its games won, lost and drawn among them) to `out`, each
        side's statistics by side."""

    def stats_figures(self, data: dict[str, Any]) -> dict[str, Any]:
        """The figures a page shows of a side's totals (rates, averages; None where there is
        nothing to divide)."""

    def stats_chart(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        """The bars of a side's chart on its bot page, from its totals: each {"key", "words",
        "label", "held", "made"} (Kaiser: contracts held and made, per bid); [] for none."""

    def board_table_words(self, table: dict[str, Any] | None,
                          names: dict[str, str]) -> dict[str, Any] | None:
        """One table of a board (board_comparison's) in words for the board pages; `names`:
        each side's bot, by letter. Only a game with boards is asked."""

    def board_difference_text(self, difference: dict[str, Any] | None) -> str:
        """The first decision where a board's two tables went different ways, in words."""

    # --- replays -----------------------------------------------------------------------------
    def validate_replay(self, replay: Any) -> list[str]: ...

    def fairplay_decisions(self, replay: dict[str, Any],
                           side: str) -> list[PublicDecision] | None:
        """Each decision `side` made in the match, in the engine's order, with its public
        features and its dealt hand's (engine.fairplay.PublicDecision: what the fair-play
        detector reads); None for a game that offers none (the detector then reads the
        times alone)."""

    def render(self, replay: dict[str, Any], only_game: int | None = None) -> str:
        """A replay deal by deal, in people's words (the local runner's `show`)."""

    def summary(self, replay: dict[str, Any], seconds: float) -> str:
        """A match's outcome in a few lines (the local runner's `match`)."""

    def replay_steps(self, replay: dict[str, Any]) -> list[dict[str, Any]]:
        """A replay as steps in words, for the site's viewer of a game it has no drawing of
        (static/js/viewers.js, the generic stepper): each {"game", "text"} ("game": the game
        of the match the step is in, from 0, None before the first)."""

    def deal_file(self, replay: dict[str, Any], game: int, index: int, *,
                  games: int | None = None) -> dict[str, Any]:
        """The deal file of board (game, index) of a match's replay, to play again (the site's
        "Download this deal"); ValueError for a game without deal files, IndexError for a
        deal the replay does not have."""

    def deal_file_load(self, text: str) -> Any:
        """A deal file (one board of a match, to play again: the local runner's `deal`);
        ValueError if the text is not a valid one of this game, or the game has none."""

    def deal_play(self, data: Any, players: Sequence[PlayerFactory], *, time: TimeControl,
                  names: Sequence[str]) -> str:
        """Play a loaded deal file's board again and say, in a few lines, how it went."""

    # --- a person at the table ---------------------------------------------------------------
    # One game (one_game_replay) with a person at seat 0 and bots at the others (engine.human,
    # the site's play app), played whole or cut to one deal for practice.
    # The bots' seats (1, 2, ...) as the person sees them; () for a game without a table.
    person_seat_labels: tuple[str, ...]
    person_hidden: frozenset[str]  # decisions whose action a bot's move does not show them

    def one_deal_rules(self, rules: Any) -> Any:
        """`rules` cut to one deal (a person's practice game)."""

    def person_view(self, state: Any, *, seq: int, move: dict[str, Any] | None,
                    move_seconds: int, names: list[str]) -> dict[str, Any]:
        """What the person at seat 0 may see after `seq` moves, `move` the last (the table
        page's JSON): their hand, the table, the score, and the legal moves (wire form) and
        the deadline when it is their turn; `names`: each seat's player."""

    def person_action(self, view: dict[str, Any], action: Any) -> Any:
        """The person's `action` (wire form) as it is stored, if the decision of `view` (a
        person_view) allows it; ValueError saying why not."""

    def winner_of_seat(self, seat: int) -> int:
        """The `winner` of a single game's result when the player at `seat` won: its team's,
        or its seat where each plays for itself."""

    def person_result(self, *, winner: int | None, score: list[int], names: list[str],
                      listed: bool) -> str:
        """A finished game's result in words; `names`: each seat's player (the person's at
        0), `listed`: in a list of the person's games rather than on the game's page."""


class PackagedGame:
    """The members of a Game that a game's package gives under the same names in the same
    modules, so that each game's plugin states only what is its own: `package` is the game's
    package ("engine.<game>"), whose modules are imported when first asked for.

    <package>.rules: PRESETS, get_rules (its rules: `rules_class` is their type, in it);
    <package>.protocol: legal_to_wire, action_from_wire, action_to_wire (the bot protocol);
    <package>.<wire_module>: ActWriter, action_from_reply (its act messages and replies);
    <package>.match: seat_sides, player_seed, run_match, game_end, one_game_replay (and the
    protocol's hello naming the game; no deal files unless a game gives its own);
    <package>.validate:
    validate_replay; <package>.fairplay: fairplay_decisions (if it has one); <package>.show:
    render, summary; <package>.stats: empty, count, figures
    (stats_empty, stats_count, stats_figures) and, if it has one, chart (stats_chart);
    <package>.board_words: table_words, difference_text (a game with boards);
    <package>.person: one_deal_rules, person_view, person_action, result_words (person_result),
    for a game with a person's table (person_seat_labels)."""

    name: str
    title: str
    seats: int
    sides: tuple[str, ...]
    match_about: str
    default_preset: str
    games_per_set: int
    package: str
    rules_class: str
    wire_module: str = "protocol"
    house_bots: dict[str, str] = {}  # noqa: RUF012 (read only)
    house_anchor: str = ""
    ups_scale: float = 0.0  # a game's ups are rated only on the scale it gives
    has_boards: bool = False  # a game with boards says so and has <package>.boards
    # Its own scripts in the site's static/ (its replay drawing, its table's words), which may
    # name it; the shared ones (the viewer, the person's table) may not.
    browser_scripts: tuple[str, ...] = ()

    @property
    def has_partners(self) -> bool:
        return self.seats > len(self.sides)

    @property
    def has_person_table(self) -> bool:
        return bool(self.person_seat_labels)

    @property
    def home_ladder(self) -> dict[str, Any]:
        return {"slug": self.name, "name": f"{self.title} ladder",
                "rules": self.default_preset, "games_per_match": self.games_per_set,
                "description": self.match_about}

    def _part(self, module: str) -> Any:
        return importlib.import_module(f"{self.package}.{module}")

    @property
    def presets(self) -> Mapping[str, Any]:
        return self._part("rules").PRESETS  # type: ignore[no-any-return]

    def get_rules(self, name: str) -> Any:
        return self._part("rules").get_rules(name)

    def preset_title(self, name: str) -> str:
        """A preset as people name it (the rules module's PRESET_TITLES), else its name."""
        return str(getattr(self._part("rules"), "PRESET_TITLES", {}).get(name, name))

    def rules_from_dict(self, data: Any) -> Any:
        return getattr(self._part("rules"), self.rules_class).from_dict(data)

    def seat_sides(self, game: int) -> list[str]:
        return self._part("match").seat_sides(game)  # type: ignore[no-any-return]

    def player_seed(self, seed: str, seat: int, game: int) -> str:
        """<package>.match.player_seed(seed, side, slot, game): `slot` is which of its side's
        seats `seat` is (0 where a side has one seat)."""
        from engine.tables import side_slot

        sides = self.seat_sides(game)
        return self._part("match").player_seed(  # type: ignore[no-any-return]
            seed, sides[seat], side_slot(sides, seat), game)

    def hello(self, *, seat: int, rules: Any, games: int, game: int,
              time: TimeControl) -> dict[str, Any]:
        """The protocol's hello, naming the game (Kaiser's, the first game's, names none)."""
        from engine.wire import PROTOCOL_VERSION

        return {"type": "hello", "id": 0, "protocol": PROTOCOL_VERSION, "game": self.name,
                "seat": seat, "rules": rules.to_dict(),
                "match": {"games": games, "game": game}, "time": time.to_dict()}

    def players_check(self, players: Sequence[Any]) -> None:
        """ValueError unless a match is given one player for each side."""
        if len(players) != len(self.sides):
            raise ValueError(f"a {self.title} match has {len(self.sides)} players "
                             f"({', '.join(self.sides)}), not {len(players)}")

    def run_match(self, players: Sequence[PlayerFactory], *, games: int, seed: str,
                  rules: Any, time: TimeControl, on_progress: Any = None) -> dict[str, Any]:
        """<package>.match.run_match(players, ...), one player for each side."""
        self.players_check(players)
        return self._part("match").run_match(  # type: ignore[no-any-return]
            list(players), games=games, seed=seed, rules=rules, time=time,
            on_progress=on_progress)

    def deal_file(self, replay: dict[str, Any], game: int, index: int, *,
                  games: int | None = None) -> dict[str, Any]:
        raise ValueError(f"{self.title} has no deal files")

    def deal_file_load(self, text: str) -> Any:
        raise ValueError(f"{self.title} has no deal files")

    def deal_play(self, data: Any, players: Sequence[PlayerFactory], *, time: TimeControl,
                  names: Sequence[str]) -> str:
        raise ValueError(f"{self.title} has no deal files")

    def game_end(self, state: Any, game: int) -> dict[str, Any]:
        return self._part("match").game_end(state, game)  # type: ignore[no-any-return]

    def one_game_replay(self, state: Any, *, rules: Any, seed: str,
                        seat_players: list[dict[str, Any]],
                        forfeit: dict[str, Any] | None) -> dict[str, Any]:
        return self._part("match").one_game_replay(  # type: ignore[no-any-return]
            state, rules=rules, seed=seed, seat_players=seat_players, forfeit=forfeit)

    def act_writer(self) -> ActWriter:
        return self._part(self.wire_module).ActWriter()  # type: ignore[no-any-return]

    @property
    def action_from_reply(self) -> ReplyReader:
        return self._part(self.wire_module).action_from_reply  # type: ignore[no-any-return]

    def legal_to_wire(self, state: Any, legal: Any) -> list[Any]:
        return self._part("protocol").legal_to_wire(state, legal)  # type: ignore[no-any-return]

    def action_from_wire(self, state: Any, value: Any) -> Any:
        return self._part("protocol").action_from_wire(state, value)

    def action_to_wire(self, decision: str | None, action: Any) -> Any:
        return self._part("protocol").action_to_wire(decision, action)

    def validate_replay(self, replay: Any) -> list[str]:
        return self._part("validate").validate_replay(replay)  # type: ignore[no-any-return]

    def fairplay_decisions(self, replay: dict[str, Any],
                           side: str) -> list[PublicDecision] | None:
        """<package>.fairplay.fairplay_decisions(replay, side); None for a game without a
        fairplay module."""
        try:
            part = self._part("fairplay")
        except ModuleNotFoundError as error:
            if error.name != f"{self.package}.fairplay":
                raise
            return None
        return part.fairplay_decisions(replay, side)  # type: ignore[no-any-return]

    def board_comparison(self, replay: dict[str, Any]) -> list[dict[str, Any]] | None:
        if not self.has_boards:
            return None
        return self._part("boards").board_comparison(replay)  # type: ignore[no-any-return]

    def match_tiebreak(self, replay: dict[str, Any]) -> dict[str, float]:
        return {}

    def stats_empty(self) -> dict[str, Any]:
        return self._part("stats").empty()  # type: ignore[no-any-return]

    def stats_count(self, out: dict[str, dict[str, Any]], replay: dict[str, Any]) -> None:
        self._part("stats").count(out, replay)

    def stats_figures(self, data: dict[str, Any]) -> dict[str, Any]:
        return self._part("stats").figures(data)  # type: ignore[no-any-return]

    # A person at the table, for a game whose package has `person` (one_deal_rules,
    # person_view, person_action, result_words): one with seat labels is offered a table.
    person_seat_labels: tuple[str, ...] = ()
    person_hidden: frozenset[str] = frozenset()

    def one_deal_rules(self, rules: Any) -> Any:
        return self._part("person").one_deal_rules(rules)

    def person_view(self, state: Any, *, seq: int, move: dict[str, Any] | None,
                    move_seconds: int, names: list[str]) -> dict[str, Any]:
        return self._part("person").person_view(  # type: ignore[no-any-return]
            state, seq=seq, move=move, move_seconds=move_seconds, names=names)

    def person_action(self, view: dict[str, Any], action: Any) -> Any:
        return self._part("person").person_action(view, action)

    def person_result(self, *, winner: int | None, score: list[int], names: list[str],
                      listed: bool) -> str:
        return self._part("person").result_words(  # type: ignore[no-any-return]
            winner=winner, score=score, names=names, listed=listed)

    def stats_chart(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        chart = getattr(self._part("stats"), "chart", None)
        return chart(data) if chart else []

    def board_table_words(self, table: dict[str, Any] | None,
                          names: dict[str, str]) -> dict[str, Any] | None:
        return self._part("board_words").table_words(table, names)  # type: ignore[no-any-return]

    def board_difference_text(self, difference: dict[str, Any] | None) -> str:
        return self._part("board_words").difference_text(difference)  # type: ignore[no-any-return]

    def render(self, replay: dict[str, Any], only_game: int | None = None) -> str:
        return self._part("show").render(replay, only_game)  # type: ignore[no-any-return]

    def summary(self, replay: dict[str, Any], seconds: float) -> str:
        return self._part("show").summary(replay, seconds)  # type: ignore[no-any-return]

    def replay_steps(self, replay: dict[str, Any]) -> list[dict[str, Any]]:
        """Each line of `render` a step, counted into games by its game headers: each game's
        render begins a game with a line "=== Game N..." (a game may give its own steps)."""
        steps: list[dict[str, Any]] = []
        game: int | None = None
        for line in self.render(replay).splitlines():
            header = re.match(r"\W*Game (\d+)\b", line)
            if header and line.lstrip().startswith("="):
                game = int(header.group(1))
            if line.strip():
                steps.append({"game": game, "text": line.strip()})
        return steps


class PluginImportError(ImportError):
    """A plugin module that PLUGINS_ENV names cannot be imported in this process."""


def _plugin(module: str) -> Any:
    """The plugin module `module`; PluginImportError naming the variable when it is not
    importable here (a stranger's package lies outside the project: on the path or not)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name is None or not (module + ".").startswith(error.name + "."):
            raise  # the plugin itself imports something missing: its own traceback says it
        raise PluginImportError(
            f"{PLUGINS_ENV} names {module!r}, which cannot be imported here ({error}): run "
            "from the folder that holds its package, or add that folder to PYTHONPATH"
        ) from None


class _Registry(Mapping[str, Game]):
    """The games by name, each read from its plugin module (plugin_modules()) when the
    registry is first looked at: a plugin may import this module, and nothing of a game is
    imported before a game is asked for. `register` adds a game's plugin in this process."""

    def __init__(self, modules: Callable[[], Sequence[str]]) -> None:
        self._modules = modules
        self._games: dict[str, Game] | None = None

    def _loaded(self) -> dict[str, Game]:
        if self._games is None:
            games: dict[str, Game] = {}
            for module in self._modules():
                game: Game = _plugin(module).GAME
                if game.name in games:
                    raise ValueError(f"two games are called {game.name!r} ({module})")
                games[game.name] = game
            self._games = games
        return self._games

    def register(self, module: str) -> Game:
        """Add the game of plugin module `module` (its GAME) in this process; the same game
        again is a no-op. Another process (a worker) learns of it from PLUGINS_ENV."""
        game: Game = _plugin(module).GAME
        games = self._loaded()
        if games.get(game.name, game) is not game:
            raise ValueError(f"another game is already called {game.name!r}")
        games[game.name] = game
        return game

    def unregister(self, name: str) -> None:
        """Forget a game registered in this process (a test's, when it is done)."""
        self._loaded().pop(name, None)

    def __getitem__(self, name: str) -> Game:
        return self._loaded()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())


GAMES = _Registry(plugin_modules)


def default_game() -> Game:
    """The registry's first game: a bot's `ready` without "game", a rules object that names
    none, a replay of no known format (checked as this game's, and refused)."""
    return next(iter(GAMES.values()))


def get_game(name: str) -> Game:
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}") from None


def game_of_replay(replay: Any) -> Game:
    """The game a replay records, by its `format`."""
    if isinstance(replay, dict):
        for game in GAMES.values():
            if replay.get("format") == game.replay_format:
                return game
    formats = " nor ".join(game.replay_format for game in GAMES.values())
    raise ValueError(f"not a replay of a known game (its format is neither {formats})")


def game_of_rules(rules: Any) -> Game:
    """The game a rules object belongs to, by its `game` (the default game's rules may name
    none: they predate a second game)."""
    name = getattr(rules, "game", None)
    return default_game() if name is None else GAMES[name]
