"""tournaments.standings, the rules alone (rows in, table out), for two, three and four
players a match; and the tie-break each game gives (engine.games.Game.match_tiebreak)."""

from __future__ import annotations

import pytest

from engine.games import get_game
from tournaments import standings
from tournaments.standings import MatchRow, SideRow, TableRow


def _match(*sides: SideRow, score: float | None = None, status: str = "finished",
           pk: int = 1, position: int | None = 0) -> MatchRow:
    ended = status not in ("queued", "running")
    return MatchRow(pk, 1, position, status, ended, status == "finished", score, sides)


def _rows(n: int) -> list[TableRow]:
    return [TableRow(v, f"bot{v}", seed=v) for v in range(1, n + 1)]


def test_a_share_is_of_the_points_where_sides_have_them_else_of_the_games() -> None:
    three = _match(SideRow(1, 1, 2.0), SideRow(2, 1, 1.0), SideRow(3, 1, 0.0))
    assert standings.shares(three) == [2 / 3, 1 / 3, 0.0]
    assert standings.shares(_match(SideRow(1, 2), SideRow(2, 0), score=1.0)) == [1.0, 0.0]
    # A match without a result (void, failed) shares evenly, for any number of sides.
    assert standings.shares(_match(SideRow(1), SideRow(2), status="void")) == [0.5, 0.5]
    four = _match(*(SideRow(v) for v in range(1, 5)), status="void")
    assert standings.shares(four) == [0.25] * 4


def test_two_sides_earn_the_outcome_and_more_sides_their_share() -> None:
    assert standings.match_points(_match(SideRow(1, 3), SideRow(2, 1), score=0.75)) == [1, 0]
    assert standings.match_points(_match(SideRow(1, 1), SideRow(2, 1), score=0.5)) == [.5, .5]
    four = _match(*(SideRow(v, 0, p) for v, p in zip(range(1, 5), (4.0, 2.0, 2.0, 0.0),
                                                      strict=True)))
    assert standings.match_points(four) == [0.5, 0.25, 0.25, 0.0]


def test_a_table_of_four_players_a_match_counts_wins_draws_and_buchholz() -> None:
    """Points by share for any number of players: a game of four (no such game is
    registered: the rules do not need one)."""
    rows = _rows(5)
    first = _match(SideRow(1, 2, 3.0), SideRow(2, 1, 1.0), SideRow(3, 0, 0.0),
                   SideRow(4, 0, 0.0))
    second = _match(SideRow(1, 0, 1.0), SideRow(2, 0, 1.0), SideRow(3, 0, 0.0),
                    SideRow(5, 2, 2.0), pk=2)
    table = {r.version_id: r for r in standings.table(rows, [first, second], [4],
                                                      bye_points=0.5)}
    assert table[1].points == pytest.approx(0.75 + 0.25) and table[1].wins == 1
    assert table[1].draws == 0 and table[1].losses == 1 and table[1].games_won == 2
    assert table[5].wins == 1 and table[5].points == 0.5
    assert table[4].byes == 1 and table[4].points == 0.5 and table[4].played == 1
    assert table[3].buchholz == pytest.approx(sum(table[v].points for v in (1, 2, 4, 1, 2, 5)))
    order = standings.table(_rows(5), [first, second], [4], bye_points=0.5)
    assert [r.version_id for r in order] == [1, 2, 5, 4, 3]  # 2, 5 and 4 by Buchholz


def test_a_walkover_counts_as_a_result_and_an_open_match_does_not() -> None:
    walkover = _match(SideRow(1, None, 2.0), SideRow(2, None, 0.0, "withdrawn"), score=1.0,
                      status="walkover")
    running = _match(SideRow(1), SideRow(3), status="running", pk=2)
    table = {r.version_id: r for r in standings.table(_rows(3), [walkover, running], [],
                                                      bye_points=1.0)}
    assert (table[1].points, table[1].wins, table[1].played) == (1.0, 1, 1)
    assert (table[2].points, table[2].losses) == (0.0, 1)
    assert table[3].played == 0


def test_a_knockout_tie_goes_by_the_games_tie_break_then_the_better_seed() -> None:
    seeds = {1: 1, 2: 2}
    drawn = _match(SideRow(1, 1), SideRow(2, 1), score=0.5, position=3)
    assert standings.knockout_results([drawn], [], seeds, {1: {"A": 20, "B": 31}}) == [
        standings.BracketResult(3, 2, 1)]
    assert standings.knockout_results([drawn], [(0, 9)], seeds, {})[1].winner == 1
    assert standings.knockout_results([drawn], [(0, 9)], seeds, {})[0] == (
        standings.BracketResult(0, 9, None))


def test_a_group_of_three_orders_by_share_then_tie_break_then_seed() -> None:
    seeds = {1: 1, 2: 2, 3: 3}
    group = _match(SideRow(1, 1, 1.0), SideRow(2, 1, 1.0), SideRow(3, 1, 1.0))
    assert standings.group_order(group, seeds, {"A": -5, "B": 2, "C": 1}) == [2, 3, 1]
    assert standings.group_order(group, seeds, {}) == [1, 2, 3]
    clear = _match(SideRow(1, 0, 1.0), SideRow(2, 2, 1.5), SideRow(3, 1, 0.5))
    assert standings.group_order(clear, seeds, {"C": 9})[0] == 2
    assert standings.tied(group) and not standings.tied(clear)


def test_the_matches_in_total_of_each_format() -> None:
    total = standings.matches_total
    common = {"players": 2, "entrants": 5, "rounds": 2, "finished": False, "made": 0,
              "done": 0}
    assert total(format=standings.ROUND_ROBIN, **common) == 20
    assert total(format=standings.SWISS, **common) == 4
    assert total(format=standings.KNOCKOUT, **common) == 4
    assert total(format=standings.SWISS, **{**common, "finished": True, "made": 3}) == 3
    assert total(format=standings.SWISS, **{**common, "players": 3, "rounds": 1}) == 1
    assert total(format=standings.KNOCKOUT, **{**common, "done": 9}) == 9


def test_the_ranking_of_a_knockout_is_how_far_each_went() -> None:
    rows = _rows(3)
    rows[0].eliminated_round, rows[2].eliminated_round = 1, 2
    assert standings.ranking(rows, knockout=True) == [2, 3, 1]
    assert standings.ranking(rows, knockout=False) == [1, 2, 3]


def test_each_game_gives_its_tie_break_and_a_game_without_one_none() -> None:
    kaiser = get_game("kaiser").match_tiebreak({"games": [
        {"seats": ["A", "B", "A", "B"], "result": {"score": [7, -2]}},
        {"seats": ["B", "A", "B", "A"], "result": {"score": [5, 4]}}]})
    assert kaiser == {"A": 11, "B": 3}
    sm = get_game("sergeant-major").match_tiebreak({"result": {"ups": {"A": 3, "B": -1,
                                                                       "C": -2}}})
    assert sm == {"A": 3.0, "B": -1.0, "C": -2.0}
    assert standings.group_order(_match(SideRow(1, 1), SideRow(2, 1), score=0.5),
                                 {1: 1, 2: 2}, kaiser) == [1, 2]
