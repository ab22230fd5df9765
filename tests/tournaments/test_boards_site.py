"""Boards on the site (matches/boards.py, docs/matches.md "Boards"): worked out from a match's
stored replay when asked (no row keeps them), equal to a recount from it; each side's biggest
losses kept as BoardLoss rows, shown on the bot page (by version, against an opponent) and by
the API; the board comparison page, one board, and its deal file; a pruned replay's words."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from django.test import Client

from bots.models import BotVersion
from engine.kaiser.dealfile import deal_file_problems
from ladder.models import Ladder
from matches import services
from matches.models import BoardLoss, Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(make_builtin: Callable[..., BotVersion],
           play_queued: Callable[[], int]) -> dict[str, BotVersion]:
    ladder = Ladder.objects.create(name="Boards", slug="boards", games_per_match=4)
    versions = {"greedy": make_builtin("g-boards"),
                "random": make_builtin("r-boards", "builtin:random"),
                "other": make_builtin("o-boards", "builtin:random")}
    for a, b in (("greedy", "random"), ("random", "greedy"), ("greedy", "other")):
        services.match_create(versions=[versions[a], versions[b]],
                              kind=Match.Kind.LADDER, conditions=ladder, ladder=ladder)
    assert play_queued() == 3
    return versions


def _recount(match: Match) -> dict[tuple[int, int], int]:
    """A's swing on every board both games played to its end, from the stored replay."""
    replay = match.replay()
    assert replay is not None
    swings = {}
    for first in range(0, len(replay["games"]), 2):
        pair = replay["games"][first:first + 2]
        for deal in range(min(len(g["deals"]) for g in pair)):
            total = 0
            for game in pair:
                record = game["deals"][deal]
                if record.get("points") is None and not record["misdeal"]:
                    break
                delta = record.get("delta") or [0, 0]
                total += sum(d if game["seats"][t] == "A" else -d for t, d in enumerate(delta))
            else:
                swings[(first, deal)] = total
    return swings


def test_a_finished_matchs_boards_equal_a_recount(played: dict[str, BotVersion]) -> None:
    for match in Match.objects.filter(status=Match.Status.FINISHED):
        assert match.board_comparison() is not None
        stored = {(b["game"], b["deal"]): b["swing"] for b in match.board_comparison()
                  if b["status"] == "both"}
        assert stored == _recount(match)


def test_each_sides_biggest_losses_are_kept_with_the_result(
        played: dict[str, BotVersion]) -> None:
    for match in Match.objects.filter(status=Match.Status.FINISHED):
        swings = _recount(match)
        for side, version, sign in zip("AB", match.version_ids, (1, -1), strict=True):
            losses = sorted(sign * s for s in swings.values() if sign * s < 0)[:3]
            rows = BoardLoss.objects.filter(match=match, side=side).order_by("swing")
            assert [r.swing for r in rows] == losses
            assert all(r.version_id == version and swings[(r.game, r.deal)] == sign * r.swing
                       for r in rows)
    assert BoardLoss.objects.exists()


def test_a_match_finished_twice_keeps_its_losses_once(played: dict[str, BotVersion]) -> None:
    match = Match.objects.filter(status=Match.Status.FINISHED).first()
    assert match is not None
    before = BoardLoss.objects.filter(match=match).count()
    replay = match.replay()
    assert replay is not None
    assert services.match_finish(match_id=match.pk, token="stale", replay=replay) is False
    assert BoardLoss.objects.filter(match=match).count() == before


def test_the_api_gives_the_boards_a_board_and_its_deal_file(
        played: dict[str, BotVersion], client: Client) -> None:
    match = Match.objects.filter(status=Match.Status.FINISHED).first()
    assert match is not None
    boards = client.get(f"/api/v1/matches/{match.pk}/boards/")
    assert boards.status_code == 200
    assert boards.json()["boards"] == match.board_comparison()
    assert boards.json()["players"]["A"]["name"] == match.side_list[0].version.bot.name

    one = client.get(f"/api/v1/matches/{match.pk}/boards/1/1/").json()
    replay = match.replay()
    assert replay is not None
    assert one["board"] == match.board_comparison()[0]
    assert one["deals"] == [replay["games"][0]["deals"][0], replay["games"][1]["deals"][0]]
    assert one["seats"] == [["A", "B", "A", "B"], ["B", "A", "B", "A"]]
    assert client.get(f"/api/v1/matches/{match.pk}/boards/2/1/").json()["board"] == one["board"]

    download = client.get(f"/api/v1/matches/{match.pk}/boards/1/1/deal-file/")
    assert download.status_code == 200
    assert "attachment" in download["Content-Disposition"]
    data = json.loads(download.content)
    assert deal_file_problems(data) == []
    assert data["hands"] == replay["games"][0]["deals"][0]["hands"]
    assert data["played"]["swing"] == match.board_comparison()[0]["swing"]
    assert data["games"] == 4

    for path in ("boards/1/500/", "boards/0/1/", "boards/1/500/deal-file/"):
        assert client.get(f"/api/v1/matches/{match.pk}/{path}").status_code == 404, path


def test_a_pruned_replays_boards_pages_say_so_in_words(
        played: dict[str, BotVersion], client: Client) -> None:
    match = Match.objects.filter(status=Match.Status.FINISHED).first()
    assert match is not None
    Match.objects.filter(pk=match.pk).update(replay_gz=None, replay_key="", replay_sha256="")

    for path in ("boards/", "boards/1/1/deal-file/"):
        gone = client.get(f"/api/v1/matches/{match.pk}/{path}")
        assert gone.status_code == 410 and gone.json()["code"] == "replay_pruned", path
    for path in ("boards/", "boards/1/1/"):
        page = client.get(f"/matches/{match.pk}/{path}")
        body = page.content.decode()
        assert page.status_code == 410, path
        assert 'id="no-boards"' in body and "its replay was pruned" in body, path
        assert "The result and the ratings stand." in body, path


def test_the_board_comparison_page_lists_every_board(
        played: dict[str, BotVersion], client: Client) -> None:
    match = Match.objects.filter(status=Match.Status.FINISHED).first()
    assert match is not None
    match_page = client.get(f"/matches/{match.pk}/").content.decode()
    assert f'href="/matches/{match.pk}/boards/"' in match_page
    page = client.get(f"/matches/{match.pk}/boards/")
    body = page.content.decode()
    assert page.status_code == 200
    assert body.count('class="board-row"') == len(match.board_comparison())
    for board in match.board_comparison():
        row = body.split(f'id="board-{board["game"] + 1}-{board["deal"] + 1}"')[1]
        row = row.split("</tr>")[0]
        if board["status"] == "both":
            swing = board["swing"]
            said = f"A +{swing}" if swing > 0 else f"B +{-swing}" if swing < 0 else "0"
            assert f'<td class="num swing" data-label="Swing">{said}</td>' in row
        else:
            assert "ended before this deal" in row
        assert f'/api/v1/matches/{match.pk}/boards/{board["game"] + 1}/{board["deal"] + 1}/' \
               "deal-file/" in row


def test_a_version_s_costliest_boards_on_its_page_and_in_the_api(
        played: dict[str, BotVersion], client: Client) -> None:
    # The version that lost most boards (whose matches these are depends on their seeds).
    greedy = max(played.values(), key=lambda v: BoardLoss.objects.filter(version=v).count())
    losses = sorted(BoardLoss.objects.filter(version=greedy).values_list("swing", flat=True))
    assert losses, "some version lost some board"

    api = client.get(f"/api/v1/boards/costliest/?version={greedy.pk}").json()
    assert [b["swing"] for b in api["boards"]] == losses[:10]
    page = client.get(f"/bots/{greedy.bot_id}/").content.decode()
    table = page.split('id="costliest"')[1].split("</table>")[0]
    assert table.count("<tr>") == 1 + min(10, len(losses))
    first = api["boards"][0]
    assert (f'/matches/{first["match_id"]}/boards/{first["game"] + 1}/{first["deal"] + 1}/'
            f'#s{first["step"]}') in table

    against = BoardLoss.objects.filter(version=greedy).first().opponent_bot  # type: ignore[union-attr]
    only = client.get(f"/api/v1/boards/costliest/?version={greedy.pk}"
                      f"&opponent={against.name}").json()["boards"]
    assert {b["opponent_name"] for b in only} <= {against.name}
    assert [b["swing"] for b in only] == sorted(BoardLoss.objects.filter(
        version=greedy, opponent_bot=against).values_list("swing", flat=True))[:10]
    page = client.get(f"/bots/{greedy.bot_id}/?boards_opponent={against.name}")
    assert page.status_code == 200 and f"over every match against {against.name}" in \
        page.content.decode()


def test_an_unknown_opponent_or_version_is_said(played: dict[str, BotVersion],
                                               client: Client) -> None:
    greedy = played["greedy"]
    page = client.get(f"/bots/{greedy.bot_id}/?boards_opponent=nobody-here")
    assert page.status_code == 400
    assert "there is no bot &#x27;nobody-here&#x27;" in page.content.decode()
    page = client.get(f"/bots/{greedy.bot_id}/?boards_version=v9")
    assert page.status_code == 400 and "this bot has no version" in page.content.decode()
    api = client.get(f"/api/v1/boards/costliest/?version={greedy.pk}&opponent=nobody-here")
    assert api.status_code == 400 and "nobody-here" in str(api.json()["fields"]["opponent"])
    assert client.get("/api/v1/boards/costliest/").status_code == 400
    assert client.get("/api/v1/boards/costliest/?version=999999").status_code == 400
