"""The staff's "New tournament" form: the settings, and the entrants by bot name or open entry.
It checks what a person can get wrong and says how; the service checks the rest."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import forms
from django.db.models import Q
from django.utils import timezone

from bots.models import Bot, BotVersion, default_game, game_choices, game_title
from bots.selectors import bot_active_version
from engine.games import get_game
from engine.players import STRICT_LIMITS_MS, strict_ms_error
from ladder.models import Ladder
from matches.models import conditions_errors
from tournaments import services
from tournaments.models import Tournament, min_entrants

BY_HAND = "hand"
CHOSEN, OPEN = "chosen", "open"


def _presets() -> list[tuple[str, list[tuple[str, str]]]]:
    """Every game's presets, grouped by game (the form checks the one chosen fits the game)."""
    from engine.games import GAMES

    return [(spec.title, [(name, spec.preset_title(name)) for name in spec.presets])
            for spec in GAMES.values()]


def game_choices_data() -> dict[str, Any]:
    """What the form's script swaps when the Game field changes, per game: its rule sets
    (name, title) and default, its games per match (whole sets), the fewest entrants, its
    active ladders (seeding by rating) and its bots' names (the search's suggestions)."""
    from engine.games import GAMES

    ladders = Ladder.objects.filter(active=True).order_by("name").values_list(
        "game", "slug", "name")
    bots = Bot.objects.filter(retired=False).order_by("name").values_list("game", "name")
    data: dict[str, Any] = {}
    for name, spec in GAMES.items():
        data[name] = {
            "presets": [[p, spec.preset_title(p)] for p in spec.presets],
            "default_preset": spec.default_preset, "games_per_set": spec.games_per_set,
            "min_entrants": min_entrants(name),
            "seeding": [[BY_HAND, "By hand"], *[[slug, f"By rating on {title}"]
                                                 for game, slug, title in ladders
                                                 if game == name]],
            "bots": [bot for game, bot in bots[:5000] if game == name],
        }
    return data


def _game(data: dict[str, Any]) -> str:
    return str(data.get("game") or default_game())


class TournamentForm(forms.Form):
    name = forms.CharField(max_length=80)
    format = forms.ChoiceField(choices=Tournament.Format.choices)
    game = forms.ChoiceField(
        choices=game_choices, initial=default_game, required=False,
        help_text="Every entrant must be a bot of this game. Sergeant Major is played by "
                  "three: matches of three, a multiple of 3 games each.")
    rounds = forms.IntegerField(
        min_value=1, max_value=50, initial=1,
        help_text="Round robin: how many times each pair meets. Swiss: the number of rounds. "
                  "Knockout: not used (the bracket decides).")
    rules = forms.ChoiceField(choices=_presets, initial="official", label="Rule set")
    games_per_match = forms.IntegerField(
        min_value=2, max_value=200, initial=2,
        help_text="Kaiser: an even number (duplicate deals, both ways). Sergeant Major: a "
                  "multiple of 3 (the same deals, the seats rotated).")
    move_ms = forms.IntegerField(min_value=10, max_value=60000, initial=1000,
                                 label="Time per move (ms)")
    bank_ms = forms.IntegerField(min_value=0, max_value=600000, initial=10000,
                                 label="Time bank per game (ms)")
    strict_ms = forms.IntegerField(
        required=False, initial=0, label="Strict time (ms a decision)",
        widget=forms.NumberInput(attrs={"min": 0, "max": STRICT_LIMITS_MS[1]}),
        help_text="Every decision gets exactly this many ms of wall time and the next message "
                  "goes out when the slot ends, so partners cannot signal through how long "
                  "they think; 0 keeps the normal clock.")
    seeding = forms.ChoiceField(
        initial=BY_HAND,
        help_text="By hand: the order of the entrants below (open entry: the order they "
                  "entered). From a ladder: best rating first.")
    entry = forms.ChoiceField(
        choices=[(CHOSEN, "The entrants chosen here"),
                 (OPEN, "Open entry: authors enter their bots until the deadline")],
        initial=CHOSEN, widget=forms.RadioSelect, label="Entrants")
    entrants = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 8}),
        label="Bots entered",
        help_text="Bot names, one a line (search above to add one); each plays its active "
                  "version.")
    entry_deadline = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"],
        help_text="Open entry: the tournament starts by itself at this time (UTC) with "
                  "whoever entered, if they are enough for its game's matches (2 bots for "
                  "Kaiser, 3 for Sergeant Major); with fewer it is cancelled.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.listed: list[BotVersion] = []
        ladders = Ladder.objects.filter(active=True).order_by("name").values_list("slug", "name")
        self.fields["seeding"].choices = [(BY_HAND, "By hand"), *[
            (slug, f"By rating on {name}") for slug, name in ladders]]

    def clean_games_per_match(self) -> int:
        games: int = self.cleaned_data["games_per_match"]
        spec = get_game(_game(self.cleaned_data))
        size = spec.games_per_set
        if games % size:
            whole = "An even number of games" if size == 2 else f"A multiple of {size} games"
            raise forms.ValidationError(f"{whole}: a match is whole sets of {size} games "
                                        f"({spec.match_about}).")
        return games

    def clean_strict_ms(self) -> int:
        value: int = self.cleaned_data.get("strict_ms") or 0
        error = strict_ms_error(value)
        if error:
            raise forms.ValidationError(error[:1].upper() + error[1:] + ".")
        return value

    def clean_entrants(self) -> list[BotVersion]:
        """The entrants' playing versions; every problem with them at once (a name listed
        twice, no such bot, nothing checked to play, another game's bot, too few)."""
        names = [n.strip() for n in self.cleaned_data["entrants"].splitlines() if n.strip()]
        lowered = [n.lower() for n in names]
        problems = []
        twice = sorted({n for n in names if lowered.count(n.lower()) > 1})
        if twice:
            problems.append(f"Listed twice: {', '.join(twice)}.")
        bots = {b.name.lower(): b for b in _bots_named(names)}
        unknown = [n for n in names if n.lower() not in bots]
        if unknown:
            problems.append(f"No bot named {', '.join(unknown)}.")
        versions, idle = [], []
        for bot in dict.fromkeys(bots[n.lower()] for n in names if n.lower() in bots):
            version = None if bot.retired else bot_active_version(bot=bot)
            if version is None:
                idle.append(bot.name)
            else:
                versions.append(version)
        if idle:
            problems.append(f"No active version to play (retired, or none passed its check): "
                            f"{', '.join(idle)}.")
        game = _game(self.cleaned_data)
        # The right entrants found, for clean()'s checks of the field as a whole if any is wrong
        self.listed = [v for v in versions if v.bot.game == game]
        other = [bot.name for bot in dict.fromkeys(bots.values()) if bot.game != game]
        if other:
            problems.append(f"Not {game_title(game)} bots: {', '.join(other)}.")
        least = min_entrants(game)
        # A game whose matches no format seats is answered once, on the Game field (clean)
        if (self.cleaned_data.get("entry") == CHOSEN and len(set(lowered)) < least
                and not services.game_not_offered(game)):
            problems.append(f"Choose at least {services.COUNT_WORDS[least]} bots (or open "
                            f"the entry).")
        if problems:
            raise forms.ValidationError(problems)
        return versions

    def clean(self) -> dict[str, Any]:
        """The checks across fields, and then the service's own (tournament_problems) on what
        is valid so far: every error of a submit shows at once."""
        data = super().clean() or {}
        if "rules" in data and "games_per_match" in data:
            problem = conditions_errors(game=_game(data), rules=data["rules"],
                                        games_per_match=data["games_per_match"]).get("rules")
            if problem:
                self.add_error("rules", problem)
        is_open = data.get("entry") == OPEN
        if is_open:
            deadline: datetime | None = data.get("entry_deadline")
            if deadline is None:
                self.add_error("entry_deadline", "Open entry needs a deadline.")
            elif deadline <= timezone.now():
                self.add_error("entry_deadline", "The deadline must be in the future.")
        if all(f in data for f in ("format", "rounds", "entry")):
            # The entrants found so far though some are wrong: the format's own limits (a
            # round robin of three too large) are said with the entrants' errors, not after.
            listed = data.get("entrants", self.listed)
            problems = services.tournament_problems(
                format=data["format"], versions=[] if is_open else listed,
                rounds=data["rounds"], entry_deadline=data.get("entry_deadline") if is_open
                else None, game=_game(data))
            for field, messages in problems.items():
                if field not in self.errors:
                    for message in messages:
                        self.add_error(field if field in self.fields else None,
                                       message[:1].upper() + message[1:] + ".")
        return data

    def service_arguments(self) -> dict[str, Any]:
        """What services.tournament_create takes, from the cleaned form."""
        data = self.cleaned_data
        seeding = data["seeding"]
        is_open = data["entry"] == OPEN
        return {
            "name": data["name"], "format": data["format"], "rounds": data["rounds"],
            "game": _game(data),
            "rules": data["rules"], "games_per_match": data["games_per_match"],
            "move_ms": data["move_ms"], "bank_ms": data["bank_ms"],
            "strict_ms": data["strict_ms"],
            "ladder": None if seeding == BY_HAND else Ladder.objects.get(slug=seeding),
            "versions": [] if is_open else data["entrants"],
            "entry_deadline": data["entry_deadline"] if is_open else None,
        }


def _bots_named(names: list[str]) -> list[Bot]:
    """Bots whose name matches one of `names` in any case (names are unique in any case)."""
    if not names:
        return []
    query = Q()
    for name in names:
        query |= Q(name__iexact=name)
    return list(Bot.objects.filter(query))
