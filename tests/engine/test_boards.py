"""The board comparison of a duplicate match (engine/kaiser/boards.py) and deal files
(engine/kaiser/dealfile.py, `kaiser-engine.pyz deal`), on real matches of the built-in players: each
swing equals a recount from the two games' replays, only the deals both games played are
compared, the first difference is the first decision the engine saw made differently, and a
downloaded deal played again gives the match's result for the same bots and seed."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from engine import words, zipapp
from engine.builtin import resolve_player
from engine.kaiser.boards import board_comparison
from engine.kaiser.cards import CARD_OF, parse_bid, suit_index
from engine.kaiser.dealfile import deal_file, deal_file_load, deal_file_problems, deal_play
from engine.kaiser.game import GameState
from engine.kaiser.match import run_match
from engine.kaiser.rules import get_rules


@cache
def _match(a: str, b: str, seed: str, rules: str = "official", games: int = 4) -> Any:
    replay = run_match(resolve_player(f"builtin:{a}"), resolve_player(f"builtin:{b}"),
                       games=games, seed=seed, rules=get_rules(rules))
    return json.loads(json.dumps(replay))  # as read back from a file


MATCHES = [("greedy", "random", str(seed), rules) for seed in range(6)
           for rules in ("official", "pagat", "saskatchewan")]
# Two players close enough to make the same bids, then differ at a trump, a discard, a card.
CLOSE = [("greedy", "mc", "11", "official"), ("greedy", "mc", "18", "saskatchewan")]


def _recount_swing(replay: dict[str, Any], game: int, deal: int) -> int:
    """A's change of score minus B's on this deal, over both games of the pair."""
    total = 0
    for played in replay["games"][game:game + 2]:
        record = played["deals"][deal]
        delta = record.get("delta") or [0, 0]  # a hand thrown in scores nothing
        for team in (0, 1):
            total += delta[team] if played["seats"][team] == "A" else -delta[team]
    return total


@pytest.mark.parametrize("match", MATCHES, ids=lambda m: "-".join(m))
def test_each_swing_equals_a_recount_from_the_two_games(match: tuple[str, ...]) -> None:
    replay = _match(*match)
    boards = board_comparison(replay)

    assert boards, "a match has boards"
    for board in boards:
        if board["status"] == "both":
            assert board["swing"] == _recount_swing(replay, board["game"], board["deal"])
    # Every deal of every game is on exactly one board.
    for first in range(0, len(replay["games"]), 2):
        longest = max(len(g["deals"]) for g in replay["games"][first:first + 2])
        assert [b["deal"] for b in boards if b["game"] == first] == list(range(longest))


def test_a_pair_of_games_of_different_lengths_compares_only_the_common_deals() -> None:
    uneven = []
    for match in MATCHES:
        replay = _match(*match)
        for first in range(0, len(replay["games"]), 2):
            lengths = [len(g["deals"]) for g in replay["games"][first:first + 2]]
            if lengths[0] != lengths[1]:
                uneven.append((replay, first, lengths))
    assert uneven, "some pair of games of these matches ends after different numbers of deals"
    for replay, first, lengths in uneven:
        boards = [b for b in board_comparison(replay) if b["game"] == first]
        common = min(lengths)
        assert [b["status"] for b in boards[:common]] == ["both"] * common
        alone = "first only" if lengths[0] > lengths[1] else "second only"
        assert [b["status"] for b in boards[common:]] == [alone] * (max(lengths) - common)
        assert all(b["swing"] is None and b["difference"] is None for b in boards[common:])
        shorter = 1 if alone == "first only" else 0
        assert all(b["tables"][shorter] is None and b["tables"][1 - shorter] is not None
                   for b in boards[common:])


def _engine_decisions(rules_name: str, record: dict[str, Any]) -> list[tuple[str, int, Any]]:
    """The decisions of a recorded deal as the engine asks for them: the deal's hands in a
    GameState, each recorded action applied when the engine asks that seat for it."""
    hands = tuple(sum(1 << CARD_OF[c] for c in hand) for hand in record["hands"])
    kitty = sum(1 << CARD_OF[c] for c in record["kitty"])
    state = GameState(get_rules(rules_name), dealer=record["dealer"],
                      deals=lambda: (hands, kitty))  # type: ignore[arg-type, return-value]
    bids = iter(record["bids"])
    cards = iter(c for trick in record["tricks"] for c in trick["cards"])
    made: list[tuple[str, int, Any]] = []
    while not state.log:
        decision, seat = state.decision, state.seat
        if decision == "misdeal":
            action: Any = bool(record["misdeal"]) and record["misdeal"]["seat"] == seat
            if action:
                made.append(("misdeal", seat, True))
        elif decision == "bid":
            action = parse_bid(next(bids)["bid"])
            made.append(("bid", seat, action))
        elif decision == "trump":
            action = suit_index(record["contract"]["trump"])
            made.append(("trump", seat, action))
        elif decision == "discard":
            action = tuple(sorted(CARD_OF[c] for c in record["discards"]))
            made.append(("discard", seat, action))
        else:
            action = CARD_OF[next(cards)]
            made.append(("card", seat, action))
        state.apply(action)
    return made


@pytest.mark.parametrize("match", MATCHES + CLOSE, ids=lambda m: "-".join(m))
def test_the_first_difference_is_the_first_decision_made_differently(
        match: tuple[str, ...]) -> None:
    replay = _match(*match, games=2) if match in CLOSE else _match(*match)
    for board in board_comparison(replay):
        if board["status"] != "both":
            continue
        pair = [g["deals"][board["deal"]] for g in replay["games"][board["game"]:board["game"] + 2]]
        if pair[0]["dealer"] != pair[1]["dealer"]:
            assert board["difference"]["kind"] == "dealer"
            continue
        ours, theirs = (_engine_decisions(match[3], d) for d in pair)
        same = 0
        while same < min(len(ours), len(theirs)) and ours[same] == theirs[same]:
            same += 1
        if same == len(ours) == len(theirs):
            assert board["difference"] is None
            continue
        difference = board["difference"]
        assert difference["decision"] == same
        kind, seat, _ = ours[same] if same < len(ours) else theirs[same]
        assert (difference["kind"], difference["seat"]) == (kind, seat)
        assert difference["actions"][0] != difference["actions"][1]


def test_the_viewer_step_of_a_first_difference_shows_that_decision() -> None:
    """The step of replay.js's dealSteps where the differing decision appears: a bid's step
    shows that many bids, the trump's the contract, the discards' the discards, a card's step
    that card of that trick (checked on the records)."""
    seen = set()
    for match in MATCHES + CLOSE:
        replay = _match(*match, games=2) if match in CLOSE else _match(*match)
        for board in board_comparison(replay):
            difference = board["difference"]
            if not difference or difference["kind"] == "dealer":
                continue
            deal = replay["games"][board["game"]]["deals"][board["deal"]]
            step, bids = difference["step"], len(deal["bids"])
            if difference["kind"] == "bid":
                assert step == 1 + difference["decision"]
                assert deal["bids"][step - 1]["bid"] == difference["actions"][0]
            elif difference["kind"] == "trump":
                assert step == 1 + bids  # the contract step names the trump
                assert deal["contract"]["trump"] == difference["actions"][0]
            elif difference["kind"] == "discard":
                assert step == 2 + bids
                assert sorted(deal["discards"]) == difference["actions"][0]
            elif difference["kind"] == "misdeal":
                assert step == 1
            else:
                first_card = 2 + len(deal["bids"]) + bool(deal["discards"])
                trick, place = divmod(step - first_card, 5)
                assert place < 4, "a card's step, not a trick's end"
                assert deal["tricks"][trick]["cards"][place] == difference["actions"][0]
            seen.add(difference["kind"])
    assert {"bid", "trump", "discard", "card"} <= seen


# --- deal files ------------------------------------------------------------------------------


def test_a_deal_file_plays_again_to_the_matchs_result_for_the_same_bots_and_seed() -> None:
    replay = _match("greedy", "mc", "5", "official", 2)
    boards = [b for b in board_comparison(replay) if b["status"] == "both"]
    assert any(b["swing"] for b in boards), "some board of this match has a swing"
    for board in boards:
        data = deal_file(replay, board["game"], board["deal"], games=2)
        assert deal_file_problems(data) == []
        played = deal_play(data, resolve_player("builtin:greedy"), resolve_player("builtin:mc"))
        assert played["swing"] == board["swing"] == data["played"]["swing"]
        for table, record in enumerate(played["tables"]):
            site = replay["games"][board["game"] + table]["deals"][board["deal"]]
            assert record == site, "the same bids, cards and scores as on the site"


def test_a_deal_file_holds_the_position_before_the_deal() -> None:
    replay = _match("greedy", "random", "2", "saskatchewan")
    games = replay["games"]
    data = deal_file(replay, 1, 2)  # either game of the pair names the board
    assert (data["game"], data["deal"]) == (0, 2)
    assert data["hands"] == games[0]["deals"][2]["hands"] == games[1]["deals"][2]["hands"]
    assert len(data["kitty"]) == 2 and data["dealer"] == games[0]["deals"][2]["dealer"]
    assert data["scores"] == [games[0]["deals"][1]["score"], games[1]["deals"][1]["score"]]
    assert data["rules"] == replay["rules"] and data["seed"] == replay["seed"]
    with pytest.raises(IndexError):
        deal_file(replay, 0, 500)


def _valid() -> dict[str, Any]:
    return json.loads(json.dumps(deal_file(_match("greedy", "random", "0", "official"), 0, 0)))


@pytest.mark.parametrize(("change", "said"), [
    (lambda d: d.update(format="kaiser-replay"), 'not a deal file: "format"'),
    (lambda d: d["rules"].update(deck=33), "rules: deck must be 32 or 34"),
    (lambda d: d.update(dealer=4), "dealer must be a seat"),
    (lambda d: d.update(game=1), "game must be an even game number"),
    (lambda d: d.update(seed=7), "seed must be a string"),
    (lambda d: d.update(scores=[[0, 0]]), "scores must be two scores"),
    (lambda d: d["hands"][0].pop(), "hands must be four lists of 8 cards"),
    (lambda d: d["hands"][0].__setitem__(0, "ZZ"), 'not a card: "ZZ"'),
    (lambda d: d["hands"][0].__setitem__(0, d["hands"][1][0]), "a card is dealt twice"),
    (lambda d: d.update(kitty=["7H", "7S"]), "kitty must be a list of 0 cards"),
    (lambda d: d["hands"][0].__setitem__(0, "7H"), "not the 32-card pack"),
])
def test_a_bad_deal_file_is_refused_saying_why(change: Any, said: str) -> None:
    data = _valid()
    change(data)
    problems = deal_file_problems(data)
    assert problems and said in problems[0], problems
    with pytest.raises(ValueError, match="."):
        deal_file_load(json.dumps(data))


def test_deal_file_load_refuses_what_is_not_json_or_too_big() -> None:
    with pytest.raises(ValueError, match="not JSON"):
        deal_file_load("{")
    with pytest.raises(ValueError, match="at most 64 kB"):
        deal_file_load(" " * 70_000)
    with pytest.raises(ValueError, match="a JSON object"):
        deal_file_load("[1, 2]")


def test_the_local_runner_plays_a_deal_file_both_ways_and_prints_the_swing(
        tmp_path: Path) -> None:
    runner = tmp_path / "kaiser-engine.pyz"
    runner.write_bytes(zipapp.build().content)
    replay = _match("greedy", "mc", "5", "official", 2)
    board = min((b for b in board_comparison(replay) if b["swing"] is not None),
                key=lambda b: b["swing"])
    assert board["swing"] < 0
    (tmp_path / "deal.json").write_text(json.dumps(deal_file(replay, board["game"],
                                                             board["deal"], games=2)))

    done = subprocess.run([sys.executable, str(runner), "deal", "deal.json", "builtin:greedy",
                           "builtin:mc"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)

    assert done.returncode == 0, done.stderr
    swing = words.signed(board["swing"])  # "−27": the pages' minus sign
    assert f"swing: {swing} for A (builtin:greedy)" in done.stdout
    assert f"on the site: {swing} for A (greedy v1), against mc v1" in done.stdout
    assert "table 1 (A at seats 0, 2" in done.stdout and "table 2 (A at seats 1, 3" in done.stdout

    (tmp_path / "bad.json").write_text('{"format": "kaiser-deal", "version": 1}')
    bad = subprocess.run([sys.executable, str(runner), "deal", "bad.json", "builtin:greedy",
                          "builtin:mc"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 1
    assert bad.stderr.startswith("error: bad.json: not a valid deal file: rules:")


@pytest.mark.sandbox
@pytest.mark.timeout(180)
def test_the_local_runner_plays_a_deal_with_a_bot_program_in_the_sandbox(
        tmp_path: Path) -> None:
    """mybot.py, sandboxed as for `match`, against a built-in player; and a bot that crashes
    is a fault at each table, not a swing."""
    root = Path(__file__).resolve().parents[2]
    replay = _match("greedy", "mc", "5", "official", 2)
    (tmp_path / "deal.json").write_text(json.dumps(deal_file(replay, 0, 1, games=2)))
    (tmp_path / "mybot.py").write_bytes((root / "bots/examples/minimal_bot.py").read_bytes())
    (tmp_path / "crash.py").write_text("import sys\nsys.exit(3)\n")
    for name in ("mybot.py", "crash.py", "deal.json"):
        (tmp_path / name).chmod(0o644)
    tmp_path.chmod(0o755)  # the sandboxed bot runs as another user

    def deal(bot: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "engine", "deal", "deal.json", bot,
                               "builtin:greedy"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=150, env={"PYTHONPATH": str(root),
                                                           "PATH": "/usr/bin:/bin"})

    played = deal("mybot.py")
    assert played.returncode == 0, played.stderr
    lines = played.stdout.splitlines()
    assert lines[1].startswith("table 1 (A at seats 0, 2, score before ")
    assert lines[2].startswith("table 2 (A at seats 1, 3, score before ")
    assert "contract " in lines[1] and "contract " in lines[2]
    assert lines[3].startswith("swing: ") and lines[3].endswith("for A (mybot.py)")

    crashed = deal("crash.py")
    assert crashed.returncode == 0, crashed.stderr
    assert crashed.stdout.count(": fault: A crash") == 2
    assert "swing: none (a table did not finish the deal)" in crashed.stdout
