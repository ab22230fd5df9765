"""A rejected upload's verdict in words: what the program did wrong in its check match, and
what to do about it (issue 34), in words only (issue 43): no bracket of the engine's record
(reason, seat, message), which the check's replay keeps for whoever wants it.

Most first uploads that fail do so before their first move: the program ends at once (a
helper module uploaded alone, a script with no loop), crashes on start (a syntax error, a
missing import), says nothing (output buffered, never flushed), writes something that is not
the protocol (a log line on standard output), or is a bot of the other game."""

from __future__ import annotations

import re
from typing import Any

from bots.models import default_game
from engine.games import get_game

# engine.botproc's details of a fault at hello (message 0).
EXITED = re.compile(r"^exited with status (-?\d+)$")
KILLED = re.compile(r"^killed by signal (\d+)$")
NOT_JSON = re.compile(r"^not (?:JSON|a JSON object): ")
# engine.botproc's detail of a ready line that declares another game than the table's.
DECLARED_GAME = re.compile(r"this match is (\S+), but the bot's ready declares game '([^']*)'")
# The starter kit's protocol helper, which a Kaiser bot imports (bots/examples/), under its
# name now and the one it had before.
HELPERS = ("kaiser_protocol.py", "kaiser_bot.py")


def rejection_reason(forfeit: dict[str, Any], *, game: str, filename: str,
                     startup_ms: int) -> str:
    """The verdict of a check lost to `forfeit` (the bot's, side A), for a bot of `game`
    uploaded as `filename`."""
    words = _at_hello(forfeit, game=game, filename=filename, startup_ms=startup_ms)
    return words if words is not None else _later(forfeit, game=game)


# What each fault the engine records (engine.match's forfeit reasons) means, in words.
LATER = {
    "crash": "The program stopped in the middle of the match",
    "timeout": "The program ran out of time to answer in the middle of the match",
    "protocol": "The program answered a message of the match with something the protocol does "
                "not allow",
    "illegal": "The program made a move the rules do not allow",
}


def _later(forfeit: dict[str, Any], *, game: str) -> str:
    """A fault after hello: what happened, the engine's detail in plain words where it has one
    (a time, an exit status, the move refused), and how to try it at home."""
    said = LATER.get(forfeit["reason"], "The program lost its check match by a fault")
    detail = _plain(forfeit.get("detail") or "")
    told = f" ({detail})" if detail else ""
    return f"{said}{told}: it lost its check match. {_try_it(game)}"


def _plain(detail: str) -> str:
    """The engine's detail without the clock's inner words ("past the backstop", the host's
    load): a person needs how long it took, not how the clock decided."""
    return re.sub(r",? past the backstop(?: \(x[\d.]+ for the host's load\))?", "",
                  detail).strip()


# A time-out's detail: the wall-clock seconds the site waited (engine.clock's overrun).
WAITED = re.compile(r"([\d.]+) s of wall-clock time")


def _at_hello(forfeit: dict[str, Any], *, game: str, filename: str,
              startup_ms: int) -> str | None:
    """The words for a fault before or at the answer to hello; None for any other fault."""
    detail = forfeit.get("detail") or ""
    if wrong_game := DECLARED_GAME.search(detail):
        # botproc adds how to declare the game only when the ready line named none
        return _other_game(table=wrong_game.group(1), declared=wrong_game.group(2),
                           named="answers hello with" not in detail)
    if forfeit.get("message_id") not in (0, None):
        return None
    reason = forfeit["reason"]
    if reason == "crash" and (exited := EXITED.match(detail)):
        return _exited(int(exited.group(1)), game=game, filename=filename)
    if reason == "crash" and KILLED.match(detail):
        return (f"The program was {detail} before it answered hello, the first message of the "
                f"match: its standard error below may say why. {_try_it(game)}")
    if reason == "crash":
        return (f"The program closed its output before it answered hello, the first message "
                f"of the match ({detail}). {_try_it(game)}")
    if reason == "timeout":
        return (f"The program printed nothing in answer to hello, the first message of the "
                f"match, {_waited(detail, startup_ms)}. A bot reads one JSON message a line "
                f"from standard input and answers each with one line of JSON on standard "
                f"output, flushed at once (Python: print(json.dumps(reply), flush=True)); "
                f"the first answer is {_ready(game)}. {_try_it(game)}")
    if reason == "protocol" and (not_json := NOT_JSON.match(detail)):
        printed = detail[not_json.end():].strip()[:80]
        return (f"The program's first line of output (\u201c{printed}\u201d) was not the "
                f"protocol's JSON: standard "
                f"output carries the protocol only (write logs to standard error); the "
                f"answer to hello is {_ready(game)}.")
    if reason == "protocol":
        return f"The program did not answer hello as the protocol asks: {_ready(game)}."
    return None


def _waited(detail: str, startup_ms: int) -> str:
    """How long the check waited for the answer, one figure: the wall-clock time the detail
    gives (the allowance stretched for a busy host), else the allowance."""
    if waited := WAITED.search(detail):
        return (f"in the {waited.group(1)} s the check waited for it (it may take "
                f"{startup_ms / 1000:g} s of computing to start)")
    return f"within {startup_ms / 1000:g} s"


def _exited(status: int, *, game: str, filename: str) -> str:
    if status != 0:
        return (f"The program stopped with exit status {status} before it answered hello, the "
                f"first message of the match: its standard error below says why (often a "
                f"syntax error or a missing module). {_try_it(game)}")
    words = ("The program ended (exit status 0) before it answered hello, the first message "
             "of the match: it never read its input. A bot keeps running, reading one JSON "
             "message a line from standard input and answering each, until match_end.")
    if filename.rsplit("/", 1)[-1] in HELPERS:
        return (f"{words} {filename} is the starter kit's helper: it does nothing alone. "
                f"Upload your bot.py that imports it and calls kaiser_protocol.run(), in a zip "
                f"with the helper (bot.py at the root), as the starter kit's random.zip is made.")
    return (f"{words} Is this your bot's main file? A helper module does nothing alone: upload "
            f"the file that runs (bot.py), with what it imports in a zip. {_try_it(game)}")


def _other_game(*, table: str, declared: str, named: bool) -> str:
    title, theirs = get_game(table).title, _title(declared)
    if theirs is None:
        return (f"The program's ready answer declares the game \u201c{declared}\u201d, which "
                f"this site does not play; this bot was created for {title}, so its ready "
                f"answer is {_ready(table)}.")
    if named:
        said = f"its ready answer declares \u201cgame\u201d: \u201c{declared}\u201d"
    else:
        said = "its ready answer names no game, which means Kaiser"
    return (f"This is a {theirs} bot ({said}), but this bot was created for {title}, and a "
            f"bot's game never changes. Create a new bot for {theirs} and upload the program "
            f"there; or, if it is meant for {title}, its ready answer is {_ready(table)}.")


def _title(game: str) -> str | None:
    try:
        return get_game(game).title
    except ValueError:
        return None


def _ready(game: str) -> str:
    """The ready line a bot of `game` answers with (the default game's needs no "game")."""
    if game == default_game():
        return '{"type": "ready", "id": 0}'
    return f'{{"type": "ready", "id": 0, "game": "{game}"}}'


def _try_it(game: str) -> str:
    return f"Try it on your machine first: {local_run(game)}."


def local_run(game: str) -> str:
    """The local runner's match of a bot.py of `game` against the game's built-in random
    players, one a seat of the other sides (docs/bot-authors.md)."""
    try:
        others = len(get_game(game).sides) - 1
    except (KeyError, ValueError):
        game, others = default_game(), 1
    flag = "" if game == default_game() else f" --game {game}"
    return f"python3 kaiser-engine.pyz match{flag} bot.py " + " ".join(["builtin:random"] * others)


def check_score_words(summary: Any) -> str:
    """The check match's games won, the uploaded bot's first and named as such (issue 43: a
    bare "2–1–0" leaves a Sergeant Major author guessing which figure is theirs):
    "this bot won 2 games, builtin:random 0" (Kaiser: one opponent side),
    "this bot won 2 games; its two opponents (builtin:random) 1 and 0" (three sides)."""
    if not isinstance(summary, dict) or not isinstance(summary.get("games"), dict):
        return ""
    games, opponent = summary["games"], summary.get("opponent") or "the opponents"
    mine = games.get("A", 0)
    others = [games[side] for side in ("B", "C") if side in games]
    won = f"this bot won {mine} game{'' if mine == 1 else 's'}"
    if len(others) == 1:
        return f"{won}, {opponent} {others[0]}"
    return f"{won}; its two opponents ({opponent}) {' and '.join(str(n) for n in others)}"
