"""The first author of Sergeant Major, alone on a site (issue 34), on the README's stack: a
fresh folder migrated as run.sh migrates it (no demo data: no other author at all), then
scripts/devserver.py with the web server, the ladder's worker, the play worker and beat on
SQLite and the filesystem broker, DEBUG on. A new account makes a Sergeant Major bot,
uploads the starter kit's bot in Chromium, sees it checked, reads on its page what it waits
for, and its bot plays a rated match against the house bots: the test waits for it.
bench/first_rated_match.py measures how long that takes, for both games."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser import test_browser

browser = test_browser.browser  # Chromium, launched as the other browser tests launch it

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "bots" / "examples" / "sergeant_major_bot.py"
PASSWORD = test_browser.PASSWORD
BOT = "my-first-sm"

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.sandbox,
              pytest.mark.timeout(420)]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=5) as reply:
            return bool(json.loads(reply.read()).get("status") == "ok")
    except OSError:
        return False


@pytest.fixture
def readme_stack(tmp_path: Path) -> Iterator[str]:
    """The site as run.sh runs it, less the demo data; its base URL. Stopped with SIGINT, as
    Ctrl-C stops run.sh."""
    var = tmp_path / "var"
    var.mkdir()
    var.chmod(0o755)  # the sandboxed bots run as another user and read their programs here
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(KAISER_VAR_DIR=str(var), PORT=str(port), DEBUG="1", PYTHONUNBUFFERED="1",
               KAISER_WORKER_CONCURRENCY="1")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT,
                   env=env, check=True, timeout=180)
    log = tmp_path / "stack.log"
    with log.open("wb") as sink:
        stack = subprocess.Popen([sys.executable, "scripts/devserver.py"], cwd=ROOT, env=env,
                                 stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not _healthy(port):
            assert stack.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}"
    finally:
        if stack.poll() is None:
            os.killpg(stack.pid, signal.SIGINT)
            try:
                stack.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(stack.pid, signal.SIGKILL)
                stack.wait(10)


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == [], f"JavaScript errors in the pages: {errors}"


RATED_MATCH = """async (bot) => {
  const reply = await fetch('/api/v1/matches/?status=finished&bot=' + bot);
  const page = await reply.json();
  return page.results.filter(m => m.rated).length > 0;
}"""


def wait_for_a_rated_match(page: Page, bot: str, timeout: float = 240) -> None:
    """Ask the match list every second until it has a finished rated match of `bot`."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(RATED_MATCH, bot):
        assert time.monotonic() < deadline, f"no rated match of {bot} in {timeout} s"
        page.wait_for_timeout(1000)


def test_a_lone_sergeant_major_author_plays_a_rated_match_on_the_readme_stack(
        readme_stack: str, page: Page) -> None:
    base = readme_stack
    page.goto(base + "/accounts/signup/")
    page.fill("#id_username", "first-author")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Create account").click()
    page.goto(base + "/bots/new/")
    page.fill("#id_name", BOT)
    page.select_option("#id_game", "sergeant-major")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("h1")).to_contain_text(f"Upload a version of {BOT}")
    page.set_input_files("input[type=file]", str(STARTER))
    page.get_by_role("button", name="Upload").click()
    expect(page.locator("#upload-progress")).to_have_attribute("data-status", "active",
                                                               timeout=180_000)
    expect(page.locator("#u-detail")).to_contain_text(
        "Version 1 plays from now on: it joins the ladder at its next scheduling round")

    page.get_by_role("link", name=f"Back to {BOT}").click()
    # The bot page agrees with the upload page: never "Not on a ladder yet" for a checked bot.
    expect(page.locator("main")).not_to_contain_text("Not on a ladder yet")
    rating = page.locator("section.rating", has_text="Sergeant Major ladder")
    waiting = page.locator("#bot-waiting")
    expect(waiting.or_(rating).first).to_be_visible()
    if waiting.count():  # what it waits for: the ladder, its first match; never more bots
        expect(waiting).to_have_text(re.compile(
            r"^(Version 1 joins the Sergeant Major ladder at its next scheduling round|"
            r"Queued for its first rated match|Playing its first rated match)"))

    wait_for_a_rated_match(page, BOT)
    page.reload()
    expect(rating).to_contain_text(re.compile(r"after \d+ rated match"))
    expect(waiting).to_have_count(0)
    # Its table: the house bots, the only other bots on the site.
    matches = json.loads(page.evaluate(
        "async (bot) => JSON.stringify(await (await fetch("
        "'/api/v1/matches/?status=finished&bot=' + bot)).json())", BOT))["results"]
    rated = [m for m in matches if m["rated"]]
    assert {side["name"] for side in rated[0]["sides"]} == {
        BOT, "sm-random", "sm-greedy"}, rated[0]
