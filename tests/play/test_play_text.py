"""The words the play table and the replays use for people: bids ("7 no trump, low", not
"7L"), trump, contracts ("7 by North", not "7 N"), scores with a real minus ("7 to −24"),
results that name the teams, and who played what in a trick. The page's words are those of
static/js/replay.js (Kaiser's `cards`, registered with the replay viewer's registry,
static/js/viewers.js), run here under Node as the browser runs them; the pages' words are
play's template tags."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine.kaiser.person import result_text
from play.templatetags.play import score_text, signed_number

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = [ROOT / "static" / "js" / name for name in ("viewers.js", "replay.js")]
NAMES = ["ada", "west-bot", "north-bot", "east-bot"]


def kaiser_cards(calls: list[tuple[str, list[Any]]]) -> list[Any]:
    """Kaiser's cards.<name>(*args) for each call, in Node, the registry's entry of the game
    (viewers.js and replay.js need no page for their words: without a document they only
    define them)."""
    node = shutil.which("node") or shutil.which("nodejs")
    assert node, "Node runs the page's scripts here (the site's Node bots need it too)"
    script = ("globalThis.window = {}; require(process.argv[1]); require(process.argv[2]);"
              "const cards = window.KaiserArenaReplay.gameOf('kaiser').cards;"
              "const calls = JSON.parse(process.argv[3]);"
              "console.log(JSON.stringify(calls.map(([f, a]) => cards[f](...a))));")
    done = subprocess.run([node, "-e", script, *map(str, SCRIPTS), json.dumps(calls)],
                          capture_output=True, text=True, timeout=30, check=True)
    return json.loads(done.stdout)


def one(name: str, *args: Any) -> Any:
    return kaiser_cards([(name, list(args))])[0]


def test_bids_in_words_low_no_trump_is_no_trump_low() -> None:
    assert kaiser_cards([("bidText", ["7L"]), ("bidText", ["12N"]), ("bidText", ["8"]),
                         ("bidText", ["pass"])]) == \
        ["7 no trump, low", "12 no trump", "8", "pass"]


@pytest.mark.parametrize(("contract", "words"), [
    ({"seat": 2, "bid": "7L", "trump": None}, "none (no trump, low: low cards win)"),
    ({"seat": 2, "bid": "9N", "trump": None}, "none (no trump)"),
    ({"seat": 2, "bid": "8", "trump": None}, "not named yet"),
    ({"seat": 2, "bid": "8", "trump": "H"}, "\u2665 hearts"),
])
def test_trump_says_no_trump_for_every_no_trump_bid_and_not_named_only_for_suit_bids(
    contract: dict[str, Any], words: str
) -> None:
    assert one("trumpText", contract) == words


def test_a_contract_names_its_bidder_in_full_not_by_an_initial_that_reads_as_no_trump() -> None:
    assert one("contractText", {"seat": 2, "bid": "7", "trump": "S"}, "North") == \
        "7 \u2660 by North"
    assert one("contractText", {"seat": 2, "bid": "7", "trump": None}, "North") == "7 by North"
    assert one("contractText", {"seat": 1, "bid": "7L", "trump": None}, "West") == \
        "7 no trump, low by West"


@pytest.mark.parametrize("contract", [
    {"seat": 2, "bid": "7", "trump": "S"}, {"seat": 1, "bid": "12N", "trump": None},
    {"seat": 1, "bid": "7L", "trump": None}, {"seat": 0, "bid": "9", "trump": None},
])
def test_the_pages_and_the_table_say_a_contract_alike(contract: dict[str, Any]) -> None:
    """engine.kaiser.words (the pages, kaiser-engine.pyz show) and replay.js (the play table, the
    viewer) are one vocabulary."""
    from engine.kaiser import words

    assert one("contractText", contract, "greedy (South)") == \
        words.contract_text(contract, "greedy (South)")
    assert one("bidText", contract["bid"]) == words.bid_text(contract["bid"])


def test_points_are_one_pt_or_several_pts() -> None:
    assert kaiser_cards([("pointsText", [1]), ("pointsText", [-1]), ("pointsText", [0]),
                         ("pointsText", [10])]) == ["1 pt", "\u22121 pt", "0 pts", "10 pts"]


TEAMS = ["you and North", "West and East"]


@pytest.mark.parametrize(("deal", "words"), [
    ({"contract": {"seat": 1, "bid": "12", "trump": "H"}, "points": [2, 8], "delta": [2, -12]},
     "West and East bid 12 and took 8 pts: set, \u221212 (they lose their bid). You and North "
     "took 2 pts: +2."),
    ({"contract": {"seat": 0, "bid": "8N", "trump": None}, "points": [9, 1], "delta": [18, 1]},
     "You and North bid 8 no trump and took 9 pts: made, +18 (all they took, doubled at no "
     "trump). West and East took 1 pt: +1."),
    ({"contract": {"seat": 3, "bid": "7", "trump": "C"}, "points": [3, 7], "delta": [0, 7]},
     "West and East bid 7 and took 7 pts: made, +7 (all they took). You and North took 3 pts: "
     "0 (locked out: a defending team this high gains nothing)."),
])
def test_a_deals_change_of_score_is_explained_in_words(deal: dict[str, Any], words: str) -> None:
    assert one("dealOutcomeText", deal, TEAMS) == words


def test_scores_use_a_real_minus_and_the_word_to() -> None:
    assert kaiser_cards([("scoreText", [[7, -24]]), ("signed", [-6]), ("signed", [14]),
                         ("signed", [0]), ("number", [-3])]) == \
        ["7 to \u221224", "\u22126", "+14", "0", "\u22123"]


def test_the_last_trick_says_who_played_which_card_face() -> None:
    trick = {"leader": 1, "cards": ["9D", "AH", "TC", "7S"], "winner": 2}
    assert one("trickText", trick, NAMES) == \
        "west-bot: 9\u2666, north-bot: A\u2665, east-bot: 10\u2663, ada: 7\u2660; won by north-bot"
    assert one("trickPlays", trick, NAMES)[3] == {"seat": 0, "name": "ada", "card": "7S"}


def test_two_seats_with_one_name_are_told_apart_by_their_seat() -> None:
    assert one("tableNames", ["ada", "random", "random", "greedy"]) == \
        ["ada", "random (West)", "random (North)", "greedy"]


@pytest.mark.parametrize(("result", "words"), [
    ({"winner": 0, "score": [52, 30], "forfeit": None},
     "Your team (you and north-bot) wins, 52 to 30."),
    ({"winner": 1, "score": [7, 53], "forfeit": None},
     "The other team (west-bot and east-bot) wins, 53 to 7."),
    ({"winner": None, "score": [40, -2], "forfeit": None}, "A draw, 40 to \u22122."),
    ({"winner": 1, "score": [0, 0], "forfeit": {"seat": 0, "reason": "resign"}},
     "The other team (west-bot and east-bot) wins, 0 to 0. You resigned."),
    ({"winner": 0, "score": [3, 4], "forfeit": {"seat": 3, "reason": "timeout"}},
     "Your team (you and north-bot) wins, 3 to 4. east-bot forfeited (timeout)."),
])
def test_the_person_s_result_names_the_teams_even_when_the_partner_is_a_bot(
    result: dict[str, Any], words: str
) -> None:
    assert one("personResultText", result, NAMES) == words


@pytest.mark.parametrize(("view", "words"), [
    ({"over": False, "seat": 2, "waiting_for": "trump"}, "north-bot is naming trump"),
    ({"over": False, "seat": 0, "waiting_for": "trump"}, "you name trump"),
    ({"over": False, "seat": 1, "waiting_for": "discard"}, "west-bot is discarding"),
    ({"over": False, "seat": 3, "waiting_for": "play"}, "east-bot leads"),
    ({"over": False, "seat": 1, "waiting_for": "bid"}, "bidding"),
    ({"over": True, "seat": 1, "waiting_for": None}, "game over"),
])
def test_the_empty_table_says_who_is_naming_trump_not_lead_to_the_trick(
    view: dict[str, Any], words: str
) -> None:
    assert one("tableNoteText", view, NAMES) == words


def test_a_people_replay_names_each_seat_and_both_teams() -> None:
    replay = {"players": {"A": {"name": "newbie & north-bot", "version": ""},
                          "B": {"name": "west-bot & east-bot", "version": ""}},
              "games": [{"seats": ["A", "B", "A", "B"]}],
              "seat_players": [{"name": "newbie", "version": "person", "human": True},
                               {"name": "west-bot", "version": "1", "human": False},
                               {"name": "north-bot", "version": "2", "human": False},
                               {"name": "east-bot", "version": "3", "human": False}]}
    assert kaiser_cards([("seatLabels", [replay]), ("teamsText", [replay])]) == [
        ["newbie (person)", "west-bot v1", "north-bot v2", "east-bot v3"],
        "newbie & north-bot v. west-bot & east-bot"]


def test_a_match_replay_keeps_its_sides_a_and_b() -> None:
    replay = {"players": {"A": {"name": "greedy", "version": "3"},
                          "B": {"name": "random", "version": "1"}},
              "games": [{"seats": ["B", "A", "B", "A"]}]}
    assert kaiser_cards([("seatLabels", [replay]), ("teamsText", [replay])]) == [
        ["random v1", "greedy v3", "random v1", "greedy v3"], "greedy v3 v. random v1"]


def test_the_pages_write_results_with_the_winner_first_and_a_real_minus() -> None:
    teams = ("ada and north-bot v2", "west-bot v1 and east-bot v1")
    assert signed_number(-24) == "\u221224" and score_text([7, -24]) == "7 to \u221224"
    assert result_text(winner=0, score=[52, -24], teams=teams) == \
        "ada and north-bot v2 won, 52 to \u221224"
    assert result_text(winner=1, score=[7, 53], teams=teams) == \
        "west-bot v1 and east-bot v1 won, 53 to 7"
    assert result_text(winner=None, score=[40, 40], teams=teams) == "drawn, 40 to 40"
