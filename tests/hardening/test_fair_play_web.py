"""The web side of the fair-play audit (issue 12's low-severity findings): a bot's fault detail
is clipped where the public sees it, page numbers of any size are a 404 and never a 500, and
the anonymous replay export is capped. (Rated challenges: tests/tournaments/
test_challenges_api.py; login limits: tests/hardening/test_login_limits.py.)"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from bots.faults import PUBLIC_DETAIL_CHARS
from bots.models import BotVersion
from bots.services import _verdict
from engine.builtin import resolve_player
from engine.faults import BotFault
from engine.kaiser.game import Action, GameState
from engine.kaiser.match import run_match
from engine.players import Player
from engine.validate import validate_replay
from ladder.models import Ladder
from matches import services
from matches.models import Match

# What a bot makes the engine write into its fault: much longer than anyone should publish.
LONG_DETAIL = "spam " + "x" * 3000 + " end"
CLIPPED = LONG_DETAIL[:PUBLIC_DETAIL_CHARS] + "…"


class _Faulting(Player):
    """Plays the first legal action three times, then faults with LONG_DETAIL."""

    def __init__(self) -> None:
        self.moves = 0

    def act(self, state: GameState, legal: list[Action]) -> Action:
        self.moves += 1
        if self.moves > 3:
            raise BotFault("protocol", LONG_DETAIL, 9)
        return legal[0]


class _FaultingFactory:
    name, version = "chatty", "1"

    def __call__(self, slot: int) -> Player:
        return _Faulting()


def _replay(*, fault: bool) -> dict[str, Any]:
    """A real match of the engine: the faulting player against random, or random vs greedy."""
    a = _FaultingFactory() if fault else resolve_player("builtin:random")
    return run_match(a, resolve_player("builtin:greedy"), games=2, seed="12")


def _finished(a: BotVersion, b: BotVersion, ladder: Ladder, replay: dict[str, Any]) -> Match:
    """A match played to the end through the services a worker calls."""
    match = services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                  conditions=ladder, ladder=ladder, rated=False)
    _, token = services.match_start(match_id=match.pk, worker="test")
    assert services.match_finish(match_id=match.pk, token=token, replay=replay)
    return Match.objects.get(pk=match.pk)


@pytest.fixture
def faulted(closed_ladder, make_program, make_builtin, owner) -> Match:
    """A finished match that the owner's bot (side A) lost by a fault with LONG_DETAIL."""
    mine = make_program("chatty", b"print('x')\n", owner=owner)
    match = _finished(mine, make_builtin("house-greedy"), closed_ladder, _replay(fault=True))
    assert match.fault_side is not None and match.fault_side.letter == "A"
    assert match.forfeit["detail"] == LONG_DETAIL
    return match


def _forfeits(replay: dict[str, Any]) -> list[dict[str, Any]]:
    found = [replay["result"]["forfeit"]]
    found += [game["result"]["forfeit"] for game in replay["games"]]
    return [f for f in found if f]


def _login(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- A fault's detail: clipped for the public, whole for its owner ---------------------------


def test_the_match_page_clips_the_detail_for_the_public(faulted, other, owner):
    for client in (Client(), _login(other)):
        page = client.get(f"/matches/{faulted.pk}/").content.decode()
        assert f"({CLIPPED})" in page and LONG_DETAIL[:PUBLIC_DETAIL_CHARS + 1] not in page
    assert f"({LONG_DETAIL})" in _login(owner).get(f"/matches/{faulted.pk}/").content.decode()


def test_the_match_api_clips_the_detail_except_for_the_owner_and_staff(faulted, clients):
    details = {}
    for who, client in clients.items():
        one = client.get(f"/api/v1/matches/{faulted.pk}/").json()["forfeit"]
        listed = client.get("/api/v1/matches/").json()["results"][0]["forfeit"]
        assert one == listed and one["reason"] == "protocol" and one["player"] == "A"
        details[who] = one["detail"]
    assert details == {"anon": CLIPPED, "other": CLIPPED, "owner": LONG_DETAIL,
                       "staff": LONG_DETAIL}


def test_the_replay_api_clips_every_fault_but_keeps_the_stored_replay(faulted, clients):
    for who, client in clients.items():
        replay = client.get(f"/api/v1/matches/{faulted.pk}/replay/").json()
        want = LONG_DETAIL if who in ("owner", "staff") else CLIPPED
        assert [f["detail"] for f in _forfeits(replay)] == [want, want], who
        validate_replay(replay)  # still a valid replay: only the free text is shorter
    stored = json.loads(Match.objects.get(pk=faulted.pk).replay_text())
    assert [f["detail"] for f in _forfeits(stored)] == [LONG_DETAIL, LONG_DETAIL]


def test_the_export_clips_the_detail_and_the_operators_command_does_not(faulted, owner_client,
                                                                       tmp_path):
    for client in (Client(), owner_client):
        lines = b"".join(client.get("/api/v1/replays/export/").streaming_content).splitlines()
        assert [f["detail"] for f in _forfeits(json.loads(lines[0]))] == [CLIPPED, CLIPPED]
    call_command("export_replays", output=str(tmp_path / "all.jsonl"), stderr=io.StringIO())
    exported = json.loads((tmp_path / "all.jsonl").read_text().splitlines()[0])
    assert [f["detail"] for f in _forfeits(exported)] == [LONG_DETAIL, LONG_DETAIL]


@pytest.fixture
def rejected(make_program, owner) -> BotVersion:
    """A version whose upload check ended in its fault (the verdict the check writes)."""
    version = make_program("chatty", b"print('x')\n", owner=owner)
    replay = _replay(fault=True)
    verdict = _verdict(replay, version=version, seconds=0.1)
    BotVersion.objects.filter(pk=version.pk).update(
        status=verdict["status"], reason=verdict["reason"], check_summary=verdict["summary"],
        check_replay=replay, check_stderr="my own log")
    return BotVersion.objects.get(pk=version.pk)


def test_a_rejected_versions_verdict_is_clipped_for_the_public(rejected, clients):
    assert rejected.status == BotVersion.Status.REJECTED and LONG_DETAIL in rejected.reason
    for who, client in clients.items():
        body = client.get(f"/api/v1/versions/{rejected.pk}/").json()
        replay = client.get(f"/api/v1/versions/{rejected.pk}/check-replay/").json()
        mine = who in ("owner", "staff")
        assert body["reason"] == (rejected.reason if mine
                                  else rejected.reason[:PUBLIC_DETAIL_CHARS] + "…"), who
        detail = LONG_DETAIL if mine else CLIPPED
        assert body["check_summary"]["forfeit"]["detail"] == detail
        assert body["check_summary"]["games"] == rejected.check_summary["games"]
        assert {f["detail"] for f in _forfeits(replay)} == {detail}
        assert body["check_stderr"] == ("my own log" if mine else None)


def test_the_bot_page_clips_the_verdict_for_the_public(rejected, owner, other):
    url = f"/bots/{rejected.bot_id}/"
    clipped = rejected.reason[:PUBLIC_DETAIL_CHARS] + "…"
    for client in (Client(), _login(other)):
        page = client.get(url).content.decode()
        assert f"<div>{clipped}</div>" in page and LONG_DETAIL not in page
    assert f"<div>{rejected.reason}</div>" in _login(owner).get(url).content.decode()


# --- Page numbers: any size is a 404, never a 500 ----------------------------------------------

BAD_PAGES = ["99999999999999999999", "9223372036854775807", "9223372036854775808", "10001",
             "-1", "0", "abc", "1.5", "²", "1e3", "9" * 5000]
HTML_LISTS = ["/", "/ladders/{slug}/", "/matches/"]
API_LISTS = ["/api/v1/matches/", "/api/v1/bots/", "/api/v1/tournaments/", "/api/v1/versions/",
             "/api/v1/ladders/"]


@pytest.fixture
def listed(closed_ladder, make_builtin) -> Ladder:
    a, b = make_builtin("pa"), make_builtin("pb", "builtin:random")
    _finished(a, b, closed_ladder, _replay(fault=False))
    return closed_ladder


@pytest.mark.parametrize("page", BAD_PAGES)
def test_a_page_that_is_not_a_sane_number_is_a_404_on_every_page(listed, page):
    client = Client(raise_request_exception=False)
    for url in HTML_LISTS:
        response = client.get(url.format(slug=listed.slug), {"page": page})
        assert response.status_code == 404, (url, page)


@pytest.mark.parametrize("page", BAD_PAGES)
def test_a_page_that_is_not_a_sane_number_is_the_apis_json_404(listed, page):
    client = Client(raise_request_exception=False)
    for url in API_LISTS:
        response = client.get(url, {"page": page})
        assert response.status_code == 404, (url, page)
        assert response.json() == {"detail": "Invalid page.", "code": "not_found"}


def test_the_first_pages_and_an_empty_page_number_still_work(listed):
    client = Client()
    for url in HTML_LISTS:
        for page in ("", "1", "2", " 3 "):
            assert client.get(url.format(slug=listed.slug), {"page": page}).status_code == 200
    assert client.get("/matches/", {"page": "10000"}).status_code == 200  # past the end: empty
    assert client.get("/api/v1/matches/", {"page": "1"}).json()["count"] == 1


def test_a_huge_tournament_filter_on_the_match_list_is_no_500(listed):
    for url in ("/matches/", "/api/v1/matches/"):
        response = Client(raise_request_exception=False).get(
            url, {"tournament": "99999999999999999999"})
        assert response.status_code == 400, url  # out of range: the filters' clear error


# --- The replay export: capped without credentials --------------------------------------------


@pytest.fixture
def three_played(closed_ladder, make_builtin) -> list[Match]:
    a, b, c = make_builtin("ea"), make_builtin("eb", "builtin:random"), make_builtin("ec")
    replay = _replay(fault=False)
    return [_finished(x, y, closed_ladder, replay) for x, y in ((a, b), (a, c), (b, c))]


def _export(client: Any, **params: Any) -> Any:
    return client.get("/api/v1/replays/export/", params)


def _lines(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.content
    return [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]


def test_an_anonymous_export_over_the_cap_is_refused_with_the_way_out(three_played, settings,
                                                                       anon_client):
    settings.KAISER_EXPORT_MAX_REPLAYS_ANON = 2
    refused = _export(anon_client)
    assert refused.status_code == 400
    body = refused.json()
    assert body["code"] == "export_too_large"
    assert body["detail"].startswith("3 replays match, more than the 2 an export without "
                                     "credentials may hold")
    assert "API token" in body["detail"] and "since" in body["detail"]


def test_an_anonymous_export_within_the_cap_is_served(three_played, settings, anon_client):
    settings.KAISER_EXPORT_MAX_REPLAYS_ANON = 2
    bot = three_played[0].side_list[0].version.bot_id
    assert len(_lines(_export(anon_client, bot=bot))) == 2
    settings.KAISER_EXPORT_MAX_REPLAYS_ANON = 3
    assert len(_lines(_export(anon_client))) == 3


def test_a_token_holder_gets_more_and_staff_any_number(three_played, settings, owner_client,
                                                       staff_client):
    settings.KAISER_EXPORT_MAX_REPLAYS_ANON = 0
    settings.KAISER_EXPORT_MAX_REPLAYS = 3
    assert len(_lines(_export(owner_client))) == 3
    settings.KAISER_EXPORT_MAX_REPLAYS = 2
    refused = _export(owner_client).json()
    assert refused["code"] == "export_too_large" and "API token" not in refused["detail"]
    assert len(_lines(_export(staff_client))) == 3
