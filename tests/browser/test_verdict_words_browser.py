"""Issue 43's words, read in Chromium at 1280, 390 and 320 px: the verdicts of broken uploads
(a syntax error, a program that prints nothing, one that crashes on hello) and Sergeant
Major's play table (its tricks against the target, its resign dialog with no team, its games
list naming who resigned), each page's text checked by the crawl's patterns for protocol words
(test_people_words_browser.RAW), the table's cards and buttons measured touch-sized on phones.
The checks run in the real sandbox; the table is played by the real play worker."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from bots.models import BotVersion
from bots.services import bot_create, bot_version_upload
from tests.browser import test_browser
from tests.browser.test_people_words_browser import _raw_found
from tests.browser.test_phone_layout_browser import NARROWEST, PHONE, assert_fits
from tests.play.conftest import real_workers  # noqa: F401 (a fixture: the real play worker)
from tests.play.test_play_browser import READY, _log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(300)]

browser, page = test_browser.browser, test_browser.page
WIDTHS = [1280, PHONE["width"], NARROWEST["width"]]
TOUCH = 44  # px, each way

BROKEN = {
    "mybot.py": b"import json\n\ndef decide(:\n    pass\n",  # a syntax error on line 3
    "quiet.py": b"import sys\nfor line in sys.stdin:\n    pass\n",  # prints nothing
    "crashy.py": b"import sys\nsys.stdin.readline()\nraise SystemExit('no hand here')\n",
}


@pytest.mark.sandbox
@pytest.mark.parametrize("width", WIDTHS)
def test_verdicts_of_broken_uploads_are_in_words(
        live_server: Any, page: Page, owner: Any, password: str, celery_eager: None,
        settings: Any, width: int) -> None:
    settings.KAISER_CHECK_STARTUP_MS = 1000
    bot = bot_create(owner=owner, name="broken-ones")
    for filename, content in BROKEN.items():
        version = bot_version_upload(bot=bot, filename=filename, content=content)
        assert BotVersion.objects.get(pk=version.pk).status == "rejected"
    page.set_viewport_size({"width": width, "height": 900})
    _log_in(page, live_server.url, owner, password)
    page.goto(live_server.url + f"/bots/{bot.pk}/")
    versions = page.locator("#versions")
    expect(versions.locator("tbody tr")).to_have_count(3)
    text = versions.inner_text()
    assert not _raw_found(text), _raw_found(text)
    for found in ("[crash", "at seat", "seat slot", "backstop", "/bot/bot.py"):
        assert found not in text, (found, text)
    # the syntax error: the uploaded file's name, the traceback's end shown once
    syntax = page.locator("#v1").inner_text()
    assert syntax.count('File "mybot.py", line 3') == 1, syntax
    page.locator("#v1 details summary").click()  # the whole stderr, folded: still once
    whole = page.locator("#v1 details pre").inner_text()
    assert whole.count("SyntaxError") == 1 and 'File "mybot.py", line 3' in whole, whole
    # prints nothing: one time, the one the check waited, as its replay's record has it
    quiet = page.locator("#v2").inner_text()
    waited = re.search(r"in the ([\d.]+) s the check waited", quiet)
    assert waited, quiet
    detail = BotVersion.objects.get(bot=bot, number=2).check_summary["forfeit"]["detail"]
    assert f"{waited.group(1)} s of wall-clock time" in detail
    assert "within" not in quiet
    # the crash: its exit status in words and its message, once
    crashy = page.locator("#v3").inner_text()
    assert "The program stopped with exit status 1 before it answered hello" in crashy
    assert crashy.count("no hand here") == 1, crashy
    assert_fits(page, f"the verdicts at {width} px")


def _sizes(page: Page, selector: str) -> list[tuple[str, float, float]]:
    out = []
    for node in page.locator(selector).all():
        if node.is_visible():
            box = node.bounding_box()
            assert box is not None
            out.append((node.inner_text().strip() or selector, box["width"], box["height"]))
    return out


@pytest.mark.worker
@pytest.mark.parametrize("width", WIDTHS)
def test_the_sergeant_major_table_speaks_its_own_words(
        live_server: Any, page: Page, real_workers: Any, owner: Any,  # noqa: F811
        password: str, width: int) -> None:
    real_workers("KAISER_PLAY_QUEUE", pool="threads", concurrency=1)
    page.set_viewport_size({"width": width, "height": 900})
    _log_in(page, live_server.url, owner, password)
    page.goto(live_server.url + "/play/?game=sergeant-major")
    page.click("#start")
    page.wait_for_url(lambda url: url.rstrip("/").split("/")[-1].isdigit())
    page.wait_for_function(READY, timeout=60_000)
    expect(page.locator(".seat-0 .hand .card").first).to_be_visible()
    expect(page.locator(".sm-count").first).to_be_visible()
    counts = page.locator(".sm-count").all_inner_texts()
    assert counts and all(re.fullmatch(r"\d+ tricks? taken, target \d+", c) for c in counts), \
        counts
    table = page.locator("#play").inner_text()
    assert not _raw_found(table), _raw_found(table)
    if width <= PHONE["width"]:
        sizes = _sizes(page, ".seat-0 .hand .card") + _sizes(page, "#p-actions button")
        small = [s for s in sizes if s[1] < TOUCH or s[2] < TOUCH]
        assert sizes and small == [], f"under {TOUCH} px at {width} px: {small}"
        resign = page.locator("#p-resign").bounding_box()
        assert resign and resign["height"] >= TOUCH and resign["width"] >= TOUCH, resign
    assert_fits(page, f"the Sergeant Major table at {width} px")
    asked: list[str] = []

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.once("dialog", answer)
    page.click("#p-resign")
    expect(page.locator("#play")).to_have_attribute("data-status", "finished", timeout=60_000)
    assert asked == ["Resign this game? You give the game up."]
    ended = page.locator("#p-message").inner_text()
    assert "You resigned." in ended and "team" not in ended.lower(), ended
    page.goto(live_server.url + "/play/?game=sergeant-major")
    row = page.locator("table.play-games tbody tr").first
    expect(row).to_contain_text("(resigned by you)")
    words = row.inner_text()
    assert not _raw_found(words) and "seat" not in words, words
    assert re.search(r"\b952\b", words) is None, words  # the rule set by its name


@pytest.mark.sandbox
def test_a_sergeant_major_check_says_which_games_are_the_bots(
        live_server: Any, page: Page, owner: Any, password: str, celery_eager: None) -> None:
    """Issue 43: "games won 2–1–0" left a Sergeant Major author guessing which figure was theirs;
    the bot page (and the API the upload panel reads) says "this bot won N games; its two
    opponents (builtin:random) M and K", the figures those of the check's own record."""
    starter = Path(__file__).resolve().parents[2] / "bots" / "examples" / "sergeant_major_bot.py"
    bot = bot_create(owner=owner, name="sm-checked", game="sergeant-major")
    version = bot_version_upload(bot=bot, filename="bot.py", content=starter.read_bytes())
    version = BotVersion.objects.get(pk=version.pk)
    assert version.status == "active", version.reason
    games = version.check_summary["games"]
    want = (f"this bot won {games['A']} game{'' if games['A'] == 1 else 's'}; its two opponents "
            f"(builtin:random) {games['B']} and {games['C']}")
    _log_in(page, live_server.url, owner, password)
    api = page.request.get(live_server.url + f"/api/v1/versions/{version.pk}/").json()
    assert api["check_summary"]["words"] == want
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(live_server.url + f"/bots/{bot.pk}/")
        expect(page.locator("#v1 .check-score")).to_have_text(want)
        assert_fits(page, f"the checked Sergeant Major bot at {width} px")
