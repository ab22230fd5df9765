"""Scoring a deal and the end of the game (docs/rules.md "Scoring a deal", "End of the game",
"Worked examples"), on fixed deals driven through GameState.apply()."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from helpers import LOW_ORDER, Script, game_of, play_script, split, tricks_from_winners

from engine.kaiser.game import GameState
from engine.kaiser.rules import PRESETS, Rules

OFFICIAL = PRESETS["official"]


def slam(contractor: int, bid: str = "10", trump: str | None = "H", **kwargs: Any) -> Script:
    """The contractor's team takes all 8 tricks: 10 points."""
    return split(contractor, 8, True, True, bid=bid, trump=trump, **kwargs)


def set_(contractor: int, bid: str, trump: str | None = "H") -> Script:
    """The contractor's team takes 6 tricks and the 5H (11 points), the others 2 tricks and the
    3S (-1): a 12 contract fails with the others losing a point."""
    return split(contractor, 6, True, False, bid=bid, trump=trump)


def play_all(scripts: list[Script], rules: Rules = OFFICIAL,
             dealer: int = 3) -> tuple[GameState, list[dict[str, Any]]]:
    state = game_of(rules, dealer, scripts)
    records = [play_script(state, s) for s in scripts]
    return state, records


# --- worked examples (official preset) ------------------------------------------------------
def test_worked_example_contract_8_hearts_made_with_the_five_and_others_lose_the_three() -> None:
    # Team 0 reaches 20 first (two made 10s), then seat 1 bids 8 in hearts.
    example = split(1, 6, True, False, bid="8", trump="H")
    state, records = play_all([slam(0), slam(2), example])
    assert records[1]["score"] == [20, 0]
    last = records[2]
    assert last["contract"] == {"seat": 1, "bid": "8", "trump": "H"}
    assert last["points"] == [-1, 11]
    assert last["delta"] == [-1, 11]
    assert last["score"] == [19, 11]


def test_worked_example_9_no_trump_set_doubles_the_loss_and_others_score_the_five() -> None:
    example = split(0, 7, False, True, bid="9N", trump=None)
    state, [record] = play_all([example])
    assert record["contract"] == {"seat": 0, "bid": "9N", "trump": None}
    assert record["points"] == [4, 6]
    assert record["delta"] == [-18, 6]
    assert record["score"] == [-18, 6]


def test_worked_example_9_no_trump_set_gives_nothing_to_others_at_47() -> None:
    # Team 1 reaches exactly 47: two made 10N (+20 each), then a made 7 with 7 points.
    reach = [slam(1, "10N", None), slam(3, "10N", None), split(1, 5, True, True, bid="7")]
    example = split(0, 7, False, True, bid="9N", trump=None)
    state, records = play_all([*reach, example])
    assert records[2]["score"] == [3, 47]
    assert records[3]["points"] == [4, 6]
    assert records[3]["delta"] == [-18, 0]
    assert records[3]["score"] == [-15, 47]


def test_worked_example_lockout_stops_gains_not_losses_at_48() -> None:
    reach = [slam(1, "10N", None), slam(3, "10N", None), split(1, 6, True, True, bid="8")]
    example = split(0, 6, True, False, bid="7", trump="S")
    state, records = play_all([*reach, example])
    assert records[2]["score"] == [2, 48]
    assert records[3]["points"] == [11, -1]
    assert records[3]["delta"] == [11, -1]
    assert records[3]["score"] == [13, 47]


# --- scoring a deal, line by line -----------------------------------------------------------------
def test_made_suit_contract_scores_every_point_taken_including_overtricks() -> None:
    _, [record] = play_all([split(2, 8, True, True, bid="7", trump="C")])
    assert record["points"] == [10, 0] and record["delta"] == [10, 0]


def test_contract_made_with_exactly_the_bid_number_counts_as_made() -> None:
    _, [record] = play_all([split(3, 5, True, True, bid="7", trump="D")])
    assert record["points"] == [3, 7] and record["delta"] == [3, 7]


def test_failed_suit_contract_loses_the_bid_number() -> None:
    _, [record] = play_all([split(1, 6, False, False, bid="7", trump="S")])
    assert record["points"] == [4, 6]
    assert record["delta"] == [4, -7]


def test_made_no_trump_contract_scores_double() -> None:
    _, [record] = play_all([split(0, 7, True, False, bid="8N", trump=None)])
    assert record["points"] == [12, -2]
    assert record["delta"] == [24, -2]


def test_made_low_no_trump_contract_scores_double() -> None:
    # Saskatchewan has low no trump and a kitty; the kitty here is the two extra sevens.
    # The winner of each single-suit trick holds the best card in the low order (7 first).
    tricks = tricks_from_winners(0, [0, 2, 0, 2, 0, 2, 0, 2], order=LOW_ORDER)
    script = Script(tricks, bid="7L", trump=None, kitty=["7H", "7S"], discards=["7H", "7S"])
    _, [record] = play_all([script], rules=PRESETS["saskatchewan"])
    assert record["contract"] == {"seat": 0, "bid": "7L", "trump": None}
    assert record["points"] == [10, 0]
    assert record["delta"] == [20, 0]


def test_failed_no_trump_contract_loses_double_the_bid_number() -> None:
    _, [record] = play_all([split(1, 3, False, False, bid="10N", trump=None)])
    assert record["points"] == [7, 3]
    assert record["delta"] == [7, -20]


def test_other_team_below_lockout_scores_negative_points() -> None:
    # The others take one trick, the one holding the 3S: 1 - 3 = -2.
    _, [record] = play_all([split(0, 7, True, False, bid="7")])
    assert record["points"] == [12, -2]
    assert record["delta"] == [12, -2]


def test_other_team_one_below_lockout_still_gains() -> None:
    # Team 1 at 46 (< 47) takes 6 points as the other team: 52, and wins by setting the bidders.
    reach = [split(0, 7, False, True, bid="9N", trump=None), slam(1, "10N", None),
             slam(3, "10N", None)]
    state, records = play_all([*reach, split(0, 7, False, True, bid="9N", trump=None)])
    assert records[2]["score"] == [-18, 46]
    assert records[3]["delta"] == [-18, 6]
    assert records[3]["score"] == [-36, 52]
    assert state.is_terminal() and state.winner == 1


@pytest.mark.parametrize("preset", ["pagat", "bga", "saskatchewan"])
def test_lockout_of_45_presets_stops_gains_at_45(preset: str) -> None:
    rules = PRESETS[preset]
    assert rules.lockout == 45
    kitty = {"kitty": ["7H", "7S"], "discards": ["7H", "7S"]} if rules.kitty else {}
    # Team 1: 10 + 10 + 10 + 10 (four made 10s) = 40, then +5 as the other team (45).
    reach = [slam(c, "10", **kitty) for c in (1, 3, 1, 3)]
    five = split(0, 5, False, False, bid="6" if rules.min_bid == 6 else "7", **kitty)
    locked = split(2, 6, False, False, bid="7", **kitty)
    state, records = play_all([*reach, five, locked], rules=rules)
    assert records[4]["score"][1] == 45
    assert records[5]["points"] == [6, 4]
    assert records[5]["delta"] == [-7, 0]


def test_both_changes_are_added_to_the_cumulative_scores() -> None:
    scripts = [split(0, 7, True, False, bid="7"), split(1, 6, False, False, bid="8", trump="C"),
               split(2, 5, True, True, bid="7", trump="D")]
    _, records = play_all(scripts)
    total = [0, 0]
    for record in records:
        total = [total[0] + record["delta"][0], total[1] + record["delta"][1]]
        assert record["score"] == total
    assert total == [12 + 4 + 7, -2 - 8 + 3]


# --- end of the game ------------------------------------------------------------------------------
def test_bidding_team_reaching_the_target_wins() -> None:
    # 40 from two made 10N, +5 as the other team, then a made 7 with 7 points: exactly 52.
    scripts = [slam(0, "10N", None), slam(2, "10N", None), split(1, 5, False, False, bid="7"),
               split(0, 5, True, True, bid="7")]
    state, records = play_all(scripts)
    assert records[2]["score"] == [45, -7]
    assert records[3]["score"] == [52, -4]
    assert state.is_terminal() and state.winner == 0 and state.score == [52, -4]


def test_game_goes_on_below_the_target() -> None:
    state, records = play_all([slam(0, "10N", None), slam(2, "10N", None),
                               split(0, 6, True, True, bid="8")])
    assert records[-1]["score"] == [48, 2]
    assert not state.is_terminal() and state.winner is None and state.decision == "bid"


def test_winning_by_setting_the_bidders() -> None:
    # Team 1 reaches 54 as the other team (from 46) while team 0 fails its contract.
    reach = [split(0, 7, False, True, bid="9N", trump=None), slam(1, "10N", None),
             slam(3, "10N", None)]
    state, records = play_all([*reach, split(2, 2, False, False, bid="7")])
    assert records[2]["score"] == [-18, 46]
    assert records[3]["points"] == [2, 8]
    assert records[3]["score"] == [-25, 54]
    assert state.is_terminal() and state.winner == 1


def test_reaching_minus_52_loses() -> None:
    # Team 0 fails 10N (-20), 12N (-24) and 8 (-8): exactly -52.
    scripts = [split(0, 0, False, False, bid="10N", trump=None),
               split(2, 0, False, False, bid="12N", trump=None),
               split(0, 0, False, False, bid="8")]
    state, records = play_all(scripts)
    assert [r["score"] for r in records] == [[-20, 10], [-44, 20], [-52, 30]]
    assert state.is_terminal() and state.winner == 1


def test_other_team_reaching_minus_52_makes_the_bidders_win() -> None:
    scripts = [split(1, 0, False, False, bid="10N", trump=None),
               split(3, 0, False, False, bid="12N", trump=None),
               split(1, 0, False, False, bid="7"),
               split(0, 7, True, False, bid="7")]  # team 1 takes only the 3S trick: -2
    state, records = play_all(scripts)
    assert records[2]["score"] == [30, -51]
    assert records[3]["score"] == [42, -53]
    assert state.is_terminal() and state.winner == 0


def test_no_losing_score_without_lose_at() -> None:
    rules = PRESETS["bga"]
    assert rules.lose_at is None
    scripts = [split(0, 0, False, False, bid="12N", trump=None) for _ in range(3)]
    state, records = play_all(scripts, rules=rules)
    assert records[-1]["score"] == [-72, 30]
    assert not state.is_terminal()


def test_bidding_team_counts_first_when_both_teams_drop_to_lose_at() -> None:
    # Five deals bring the teams to -50 and -51; then team 0 fails 12N (-24 -> -74) and team 1,
    # the other team, loses a point (-52). Both are at lose_at or lower: check 2 (bidding team
    # lost) comes before check 4 (other team lost), so team 1 wins.
    scripts = [set_(1, "12N", None), set_(0, "12N", None), set_(1, "12N", None),
               set_(0, "12"), set_(0, "12"), set_(0, "12N", None)]
    state, records = play_all(scripts)
    assert [r["score"] for r in records] == [
        [-1, -24], [-25, -25], [-26, -49], [-38, -50], [-50, -51], [-74, -52]]
    assert state.is_terminal() and state.winner == 1


def test_bidding_team_counts_first_when_both_teams_reach_the_target() -> None:
    # With the official lockout the other team cannot reach 52 in the same deal as the bidders;
    # a raised lockout (a legal rule parameter) lets both cross, and the bidders win.
    rules = replace(OFFICIAL, preset="lockout-60", lockout=60)
    scripts = [slam(0, "10N", None), slam(1, "10N", None), slam(0, "10N", None),
               slam(1, "10N", None), split(0, 6, True, True, bid="8"),
               split(1, 6, True, True, bid="8"), split(0, 5, True, True, bid="7")]
    state, records = play_all(scripts, rules=rules)
    assert records[-2]["score"] == [50, 50]
    assert records[-1]["score"] == [57, 53]
    assert state.is_terminal() and state.winner == 0
    # The same deal with team 1 bidding: team 1 wins.
    scripts[-1] = split(1, 5, True, True, bid="7")
    state, records = play_all(scripts, rules=rules)
    assert records[-1]["score"] == [53, 57]
    assert state.winner == 1


def test_max_deals_ends_the_game_with_the_higher_score_winning() -> None:
    rules = replace(OFFICIAL, max_deals=2)
    state, records = play_all([split(0, 7, True, False, bid="7"),
                               split(1, 5, True, True, bid="7")], rules=rules)
    assert records[-1]["score"] == [12 + 3, -2 + 7]
    assert state.is_terminal() and state.winner == 0 and len(records) == 2


def test_max_deals_with_equal_scores_is_a_draw() -> None:
    rules = replace(OFFICIAL, max_deals=2)
    state, records = play_all([split(0, 5, True, True, bid="7"),
                               split(1, 5, True, True, bid="7")], rules=rules)
    assert records[-1]["score"] == [10, 10]
    assert state.is_terminal() and state.winner is None


def test_every_preset_plays_at_most_100_deals() -> None:
    assert {r.max_deals for r in PRESETS.values()} == {100}


def test_made_no_trump_raises_the_target_to_62_in_saskatchewan() -> None:
    rules = PRESETS["saskatchewan"]
    kitty = {"kitty": ["7H", "7S"], "discards": ["7H", "7S"]}
    # 10N made (+20) twice, then 10 made (+10) and 7 made with 7: 57 would win at 52, but the
    # target is 62 now.
    scripts = [slam(0, "10N", None, **kitty), slam(2, "10N", None, **kitty),
               slam(0, "10", **kitty), split(2, 5, True, True, bid="7", **kitty)]
    state, records = play_all(scripts, rules=rules)
    assert records[-1]["score"] == [57, 3]
    assert not state.is_terminal()


def test_the_deal_that_makes_no_trump_already_counts_against_62() -> None:
    rules = PRESETS["saskatchewan"]
    kitty = {"kitty": ["7H", "7S"], "discards": ["7H", "7S"]}
    scripts = [slam(0, "10", **kitty), slam(2, "10", **kitty), slam(0, "10", **kitty),
               slam(2, "10", **kitty), slam(0, "7N", None, **kitty)]
    state, records = play_all(scripts, rules=rules)
    assert records[3]["score"] == [40, 0]
    assert records[4]["score"] == [60, 0]
    assert not state.is_terminal()


def test_suit_contracts_keep_the_target_at_52_in_saskatchewan() -> None:
    rules = PRESETS["saskatchewan"]
    kitty = {"kitty": ["7H", "7S"], "discards": ["7H", "7S"]}
    scripts = [slam(c, "10", **kitty) for c in (0, 2, 0, 2, 0, 2)]
    state, records = play_all(scripts, rules=rules)
    assert records[-1]["score"] == [60, 0]
    assert state.is_terminal() and state.winner == 0


def test_failed_no_trump_does_not_raise_the_target() -> None:
    rules = PRESETS["saskatchewan"]
    kitty = {"kitty": ["7H", "7S"], "discards": ["7H", "7S"]}
    scripts = [split(1, 0, False, False, bid="7N", trump=None, **kitty)] + \
        [slam(c, "10", **kitty) for c in (0, 2, 0, 2, 0)]
    state, records = play_all(scripts, rules=rules)
    assert records[-1]["score"] == [60, -14]
    assert state.is_terminal() and state.winner == 0
