"""One vocabulary for people (issue 34): engine.words says cards, bids, contracts, trumps,
scores and players as the play table does, and the pages use it: each ladder introduces its
own game, a tournament's rounds are counted in good English, a board's first difference is
said in words."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from engine import words
from engine.kaiser import words as kaiser_words
from engine.kaiser.board_words import difference_text
from ladder import services as ladder_services

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("bid", "said"), [("pass", "pass"), ("7", "7"), ("12N", "12 no trump"),
                                           ("7L", "7 no trump, low")])
def test_a_bid_in_words(bid: str, said: str) -> None:
    assert kaiser_words.bid_text(bid) == said


def test_contracts_trumps_and_scores_in_words() -> None:
    assert kaiser_words.contract_text({"bid": "7N", "trump": None}, "greedy (South)") == \
        "7 no trump by greedy (South)"
    assert kaiser_words.contract_text({"bid": "7", "trump": "C"}, "greedy (West)") == \
        "7 \u2663 by greedy (West)"
    assert words.trump_text("D") == "\u2666 diamonds" and words.trump_text(None) == "no trump"
    assert words.score_text([11, -1]) == "11 to \u22121"
    assert words.changes_text([4, -7]) == "+4 / \u22127"
    assert (words.number(-24), words.signed(0), words.signed(3)) == ("\u221224", "0", "+3")
    assert words.card_text("TH") == "10\u2665" and words.cards_text(["AS", "5H"]) == \
        "A\u2660 5\u2665"


def test_a_player_in_words_is_a_person_or_a_bot_and_its_version() -> None:
    assert words.player_name({"name": "walker", "version": "person"}) == "walker (person)"
    assert words.player_name({"name": "ada", "version": "", "human": True}) == "ada (person)"
    assert words.player_name({"name": "greedy", "version": "3"}) == "greedy v3"
    assert words.player_name({"name": "random", "version": ""}) == "random"


@pytest.mark.parametrize(("difference", "said"), [
    ({"kind": "trump", "seat": 2, "actions": ["C", "D"], "step": 9},
     "North named trump: \u2663 clubs at table 1, \u2666 diamonds at table 2"),
    ({"kind": "bid", "seat": 1, "actions": ["7N", "pass"], "step": 3},
     "West bid: 7 no trump at table 1, pass at table 2"),
    ({"kind": "card", "seat": 0, "actions": ["TH", "5H"], "step": 20},
     "South played: 10\u2665 at table 1, 5\u2665 at table 2"),
    ({"kind": "discard", "seat": 3, "actions": [["AS", "3S"], ["KD", "QD"]], "step": 12},
     "East discarded: A\u2660 3\u2660 at table 1, K\u2666 Q\u2666 at table 2"),
])
def test_a_boards_first_difference_is_said_in_words(difference: dict[str, Any],
                                                    said: str) -> None:
    assert difference_text(difference) == said


def _intro(client: Client, url: str) -> str:
    page = client.get(url).content.decode()
    found = re.search(r'<p class="lead" id="ladder-about">(.*?)</p>', page, re.S)
    assert found, url
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", found.group(1)))


def test_each_ladder_introduces_its_own_game(client: Client) -> None:
    ladder_services.house_bots_ensure()
    ladder_services.house_bots_ensure("sergeant-major")
    main = _intro(client, "/")
    assert main.startswith("AI bots play the Canadian card game Kaiser: four seats, two teams")
    assert "2 games a match (duplicate" in main
    sm = _intro(client, "/ladders/sergeant-major/")
    assert sm.startswith("AI bots play Sergeant Major (9-5-2): three players, each for itself")
    assert "four seats" not in sm and "two teams" not in sm
    assert "3 games a match (each set of three games deals the same cards, the seats " \
           "rotated)" in sm
    assert 'href="/docs/rules-sergeant-major/#rule-sets-presets"' in client.get(
        "/ladders/sergeant-major/").content.decode()


def test_a_swiss_of_one_round_says_one_round(client: Client, make_builtin: Any,
                                             settings: Any) -> None:
    from tournaments import services

    settings.KAISER_DISPATCH_DEPTH = 0
    versions = [make_builtin(name, own=True) for name in ("alpha", "beta", "gamma")]
    one = services.tournament_create(name="Short", format="swiss", versions=versions, rounds=1)
    two = services.tournament_create(name="Longer", format="swiss", versions=versions,
                                     rounds=2)
    def meta(tournament: Any) -> str:
        page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
        return re.sub(r"\s+", " ", page)

    assert "Swiss, 1 round \u00b7" in meta(one) and "1 rounds" not in meta(one)
    assert "Swiss, 2 rounds \u00b7" in meta(two)
