"""Duplicate matches and their replays (docs/replay-format.md), forfeits included."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from helpers import Factory, FirstLegal, faulty_b

from engine.builtin import resolve_player
from engine.faults import BotFault
from engine.kaiser.match import run_match
from engine.kaiser.rules import PRESETS
from engine.players import Player
from engine.runner import replay_json
from engine.validate import validate_replay

RANDOM = resolve_player("builtin:random")
GREEDY = resolve_player("builtin:greedy")


# --- duplicate pairs and determinism ------------------------------------------------------------
@pytest.mark.parametrize("preset", list(PRESETS))
def test_duplicate_pairs_share_deals_with_players_moved_one_seat(preset: str) -> None:
    replay = run_match(GREEDY, RANDOM, games=4, seed="dup", rules=PRESETS[preset])
    games = replay["games"]
    assert len(games) == 4
    for pair in (0, 2):
        first, second = games[pair], games[pair + 1]
        assert first["seats"] == ["A", "B", "A", "B"]
        assert second["seats"] == ["B", "A", "B", "A"]
        assert first["deals"][0]["dealer"] == second["deals"][0]["dealer"]
        shared = min(len(first["deals"]), len(second["deals"]))
        assert shared >= 1
        for a, b in zip(first["deals"][:shared], second["deals"][:shared], strict=True):
            assert a["hands"] == b["hands"] and a["kitty"] == b["kitty"]
    assert games[0]["deals"][0]["hands"] != games[2]["deals"][0]["hands"]


def test_same_seed_gives_a_byte_identical_replay() -> None:
    one = replay_json(run_match(GREEDY, RANDOM, games=6, seed="same"))
    two = replay_json(run_match(GREEDY, RANDOM, games=6, seed="same"))
    assert one == two
    assert one != replay_json(run_match(GREEDY, RANDOM, games=6, seed="other"))


def test_replay_has_the_fields_of_the_format() -> None:
    replay = run_match(GREEDY, RANDOM, games=2, seed=7, rules=PRESETS["pagat"])
    assert replay["format"] == "kaiser-replay" and replay["version"] == 1
    assert replay["rules"] == PRESETS["pagat"].to_dict()
    assert replay["seed"] == "7"
    assert replay["players"] == {"A": {"name": "greedy", "version": "1"},
                                 "B": {"name": "random", "version": "1"}}
    deal = replay["games"][0]["deals"][0]
    assert set(deal) >= {"dealer", "hands", "kitty", "misdeal", "bids", "contract", "discards",
                         "tricks", "points", "delta", "score"}
    assert json.loads(replay_json(replay)) == replay
    game = replay["games"][0]
    assert game["result"]["forfeit"] is None
    assert game["result"]["score"] == game["deals"][-1]["score"]


def test_match_result_counts_games_won_and_a_share() -> None:
    rules = replace(PRESETS["bga"], preset="short", max_deals=2)
    replay = run_match(RANDOM, RANDOM, games=40, seed="share", rules=rules)
    won = {"A": 0, "B": 0}
    draws = 0
    for game in replay["games"]:
        winner = game["result"]["winner"]
        if winner is None:
            draws += 1
        else:
            won[game["seats"][winner]] += 1
    assert replay["result"]["games"] == won
    assert replay["result"]["score"] == pytest.approx((won["A"] + draws / 2) / 40)
    assert replay["result"]["forfeit"] is None
    assert validate_replay(replay) == []


def test_games_must_come_in_duplicate_pairs() -> None:
    with pytest.raises(ValueError, match="even"):
        run_match(RANDOM, RANDOM, games=3)


def test_progress_is_reported_after_every_game() -> None:
    calls: list[tuple[int, int]] = []
    run_match(RANDOM, GREEDY, games=4, seed="p", on_progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_notified_players_get_deal_end_and_game_end() -> None:
    class Listener(FirstLegal):
        wants_notifications = True

        def notify(self, message: dict[str, Any]) -> None:
            self.messages.append(message)

    players: list[Listener] = []

    def make(slot: int) -> Player:
        players.append(Listener())
        return players[-1]

    replay = run_match(RANDOM, Factory("listener", "1", make), games=2, seed="n")
    assert sorted((p.game, p.seat) for p in players) == [(0, 1), (0, 3), (1, 0), (1, 2)]
    for player in players:  # each hears its own game, and only that
        game = replay["games"][player.game]
        deal_ends = [m for m in player.messages if m["type"] == "deal_end"]
        game_ends = [m for m in player.messages if m["type"] == "game_end"]
        assert [m["game"] for m in game_ends] == [player.game]
        assert game_ends[0]["winner"] == game["result"]["winner"]
        assert [m["deal_record"] for m in deal_ends] == game["deals"]


# --- forfeits --------------------------------------------------------------------------------
def test_forfeit_stops_the_match_with_the_replay_fields_of_the_format() -> None:
    replay = run_match(RANDOM, faulty_b(150), games=6, seed="f")
    games = replay["games"]
    assert 2 <= len(games) < 6  # games before the fault count as played, later ones for A
    last = games[-1]
    index = len(games) - 1
    seat = 1 if index % 2 == 0 else 0  # B's first player: seat 1 in even games, 0 in odd
    forfeit = {"seat": seat, "player": "B", "reason": "timeout", "message_id": 57,
               "detail": "no reply within 1000 ms"}
    assert last["result"]["forfeit"] == forfeit
    assert replay["result"]["forfeit"] == forfeit
    assert last["result"]["winner"] == 1 - seat % 2 and last["seats"][1 - seat % 2] == "A"
    partial = last["deals"][-1]
    assert not {"points", "delta", "score"} & set(partial)
    assert all("score" in d for d in last["deals"][:-1])
    before = last["deals"][-2]["score"] if len(last["deals"]) > 1 else [0, 0]
    assert last["result"]["score"] == before
    won_listed = sum(1 for g in games if g["result"]["winner"] is not None
                     and g["seats"][g["result"]["winner"]] == "A")
    assert replay["result"]["games"]["A"] == won_listed + (6 - len(games))
    b_won = sum(1 for g in games if g["result"]["winner"] is not None
                and g["seats"][g["result"]["winner"]] == "B")
    assert replay["result"]["games"]["B"] == b_won
    assert validate_replay(replay) == []


def test_forfeit_in_the_first_deal_keeps_the_score_at_zero() -> None:
    replay = run_match(RANDOM, faulty_b(0, BotFault("crash", "exit code 1")), games=2, seed="z")
    [game] = replay["games"]
    assert len(game["deals"]) == 1 and "points" not in game["deals"][0]
    assert game["result"]["score"] == [0, 0]
    assert game["result"]["forfeit"]["reason"] == "crash"
    assert game["result"]["forfeit"]["message_id"] is None
    assert replay["result"]["games"] == {"A": 2, "B": 0} and replay["result"]["score"] == 1.0
    assert validate_replay(replay) == []


def test_illegal_action_from_an_untrusted_player_is_a_forfeit() -> None:
    cheat = Factory("cheat", "1", lambda slot: FirstLegal(reply=lambda legal: "AS"))
    replay = run_match(cheat, RANDOM, games=2, seed="c")
    forfeit = replay["result"]["forfeit"]
    assert forfeit["reason"] == "illegal" and forfeit["player"] == "A"
    assert replay["result"]["games"] == {"A": 0, "B": 2} and replay["result"]["score"] == 0.0
    assert validate_replay(replay) == []


def test_fault_at_start_forfeits_every_game() -> None:
    class Broken(FirstLegal):
        def start(self, **kwargs: Any) -> None:
            raise BotFault("protocol", "said goodbye instead of ready", 1)

    replay = run_match(Factory("broken", "1", lambda slot: Broken()), GREEDY, games=4, seed="s")
    assert replay["result"]["games"] == {"A": 0, "B": 4}
    assert replay["result"]["forfeit"]["reason"] == "protocol"
    assert replay["games"][0]["deals"] == []
    assert validate_replay(replay) == []


def test_players_are_closed_after_a_forfeit() -> None:
    made: list[Player] = []
    closed: list[Player] = []

    class Closing(FirstLegal):
        def close(self) -> None:
            closed.append(self)

    def make(slot: int) -> Player:
        made.append(Closing(3 if slot == 0 else None))
        return made[-1]

    replay = run_match(Factory("c", "1", make), RANDOM, games=4, seed="x")
    assert replay["result"]["forfeit"]["player"] == "A"
    assert len(made) >= 2 and closed == made  # the next game's table, made early, too


@pytest.mark.parametrize("preset", list(PRESETS))
def test_fast_loop_checked_loop_and_notifying_loop_play_the_same_match(preset: str) -> None:
    # Same class name, so the same seeded generator; only the runner's path differs.
    from engine.builtin import RandomPlayer

    checked = type("RandomPlayer", (RandomPlayer,), {"trusted": False})
    notified = type("RandomPlayer", (RandomPlayer,), {"wants_notifications": True})
    replays = [replay_json(run_match(side, side, games=4, seed="loops", rules=PRESETS[preset]))
               for side in (RANDOM, Factory("random", "1", lambda slot: checked()),
                            Factory("random", "1", lambda slot: notified()))]
    assert replays[0] == replays[1] == replays[2]


def test_forfeit_at_the_trump_decision_records_no_trump_named() -> None:
    # B's first player fails when it must name trump: the interrupted deal's contract shows
    # the bid but no trump (docs/protocol.md: trump is named by the contractor; until then
    # nothing may be invented).
    class FailsAtTrump(FirstLegal):
        def act(self, state: Any, legal: Any) -> Any:
            if state.decision == "trump":
                raise BotFault("timeout", "slow to name trump", 9)
            if state.decision == "bid":
                suit_bids = [b for b in legal if b >= 0 and b % 3 == 0]
                return suit_bids[-1] if suit_bids else legal[0]  # 12 in a suit if it can
            return legal[0]

    replay = run_match(RANDOM, Factory("t", "1", lambda slot: FailsAtTrump()), games=2,
                       seed="trump")
    last = replay["games"][-1]["deals"][-1]
    forfeit = replay["result"]["forfeit"]
    assert forfeit["reason"] == "timeout" and forfeit["detail"] == "slow to name trump"
    assert last["contract"] is not None and last["contract"]["seat"] == forfeit["seat"]
    assert last["contract"]["trump"] is None
    assert last["tricks"] == [] and last["discards"] == []
    assert validate_replay(replay) == []


def test_a_factory_failing_for_its_second_seat_still_closes_the_first() -> None:
    from engine.faults import InfrastructureError

    closed: list[int] = []

    class Closing(Player):
        def close(self) -> None:
            closed.append(1)

    class HalfFactory:
        name, version = "half", "1"

        def __call__(self, slot: int) -> Player:
            if slot == 1:
                raise InfrastructureError("the host ran out of processes")
            return Closing()

    with pytest.raises(InfrastructureError, match="out of processes"):
        run_match(HalfFactory(), resolve_player("builtin:random"), games=2)

    assert closed == [1]
