"""Details of a bot author's walk through the site (issue 20), as a person reads them: one
vocabulary for a version's state, a rejected upload's traceback next to its verdict (for its
owner only), and a step-by-step page built on what a user downloads, not on our repository."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from bots.models import Bot, BotProgram, BotVersion

BROKEN = b"import json\n\n\ndef decide(message:\n    return message['legal'][0]\n"
CLOSED_DETAILS = re.compile(r"<details(?![^>]*\bopen\b)[^>]*>.*?</details>", re.DOTALL)
TAG = re.compile(r"<[^>]+>")


def _client(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _row(html: str, number: int) -> str:
    found = re.search(rf'<tr id="v{number}">(.*?)</tr>', html, re.DOTALL)
    assert found, f"no row for version {number}"
    return found.group(1)


def _shown_text(html: str) -> str:
    """The text a reader sees without opening anything: no closed <details>, no scripts."""
    html = re.sub(r"<script.*?</script>", "", html, flags=re.DOTALL)
    return TAG.sub(" ", CLOSED_DETAILS.sub("", html))


def _version(bot: Bot, number: int, status: str) -> BotVersion:
    content = f"# version {number}\n".encode()
    program, _ = BotProgram.objects.get_or_create(
        sha256=hashlib.sha256(content).hexdigest(),
        defaults={"content": content, "size": len(content)})
    return BotVersion.objects.create(
        bot=bot, number=number, kind=BotVersion.Kind.PYTHON, program=program,
        filename="bot.py", size=len(content), status=status,
        reason="timeout at seat 0: no reply" if status == "rejected" else "")


@pytest.mark.django_db
def test_the_bot_page_names_each_state_in_the_words_of_its_help(owner: User) -> None:
    bot = Bot.objects.create(owner=owner, name="wordy")
    for number, status in enumerate(["rejected", "active", "checking", "pending"], start=1):
        _version(bot, number, status)
    html = _client(owner).get(f"/bots/{bot.pk}/").content.decode()
    states = {n: TAG.sub(" ", _row(html, n).split("</td>")[1]).split() for n in range(1, 5)}
    assert states[1] == ["rejected"]
    assert states[2][:2] == ["checked", "plays"]
    assert states[3] == states[4] == ["being", "checked"]
    versions = html[html.index("<h2>Versions</h2>"):html.index("</table>")]
    shown = _shown_text(versions)
    assert "being checked" in shown and "plays" in shown
    assert not re.search(r"\b(pending|active|checking)\b", shown), shown


@pytest.mark.django_db
def test_the_upload_page_explains_the_check_in_the_bot_pages_words(owner: User) -> None:
    bot = Bot.objects.create(owner=owner, name="wordy")
    html = _client(owner).get(f"/bots/{bot.pk}/upload/").content.decode()
    shown = _shown_text(html)
    for word in ("being checked", "checked", "rejected", "plays"):
        assert word in shown
    assert not re.search(r"\b(pending|active)\b", shown), shown
    # The live panel shows the check's stderr unfolded once there is one.
    assert re.search(r'<details id="u-stderr"[^>]*\bopen\b', html)


@pytest.mark.django_db(transaction=True)
@pytest.mark.sandbox
def test_a_syntax_error_shows_its_traceback_with_the_verdict_to_its_owner_only(
    owner: User, other: User, staff: User, celery_eager: None
) -> None:
    from bots.services import bot_create, bot_version_upload

    bot = bot_create(owner=owner, name="typo", description="")
    uploaded = bot_version_upload(bot=bot, filename="typo.py", content=BROKEN)
    version = BotVersion.objects.get(pk=uploaded.pk)  # checked eagerly, in the real sandbox
    assert version.status == "rejected", version.reason
    assert "SyntaxError" not in version.reason  # the verdict alone does not say why

    for viewer in (owner, staff):
        row = _row(_client(viewer).get(f"/bots/{bot.pk}/").content.decode(), 1)
        shown = _shown_text(row)
        assert "The program stopped with exit status 1 before it answered hello" in shown
        assert "[crash" not in shown and "/bot/bot.py" not in shown  # words only (issue 43)
        assert "File &quot;typo.py&quot;, line" in shown, row  # the name it was uploaded as
        assert "SyntaxError: &#x27;(&#x27; was never closed" in shown, row
        assert "def decide(message:" in shown
    for viewer in (other, None):
        html = _client(viewer).get(f"/bots/{bot.pk}/").content.decode()
        assert "The program stopped with exit status 1 before it answered hello" in _row(html, 1)
        assert "SyntaxError" not in html
        assert "def decide" not in html


def test_the_stderr_tail_is_the_end_of_the_first_seats_part() -> None:
    from bots.selectors import bot_version_stderr_tail

    stderr = ("--- seat slot 0 ---\nTraceback (most recent call last):\n"
              + "".join(f"  line {n}\n" for n in range(20))
              + "ZeroDivisionError: division by zero\n\n--- seat slot 1 ---\nother seat\n")
    tail = bot_version_stderr_tail(version=BotVersion(check_stderr=stderr), lines=3)
    assert tail == "  line 18\n  line 19\nZeroDivisionError: division by zero"
    assert bot_version_stderr_tail(version=BotVersion(check_stderr="")) == ""


@pytest.mark.django_db
def test_the_step_by_step_page_works_from_the_downloads_alone(client: Any) -> None:
    from kaiser_site.docs_pages import EXAMPLES_DIR, STARTER_FILES

    html = client.get("/docs/bot-authors/").content.decode()
    assert "bots/examples" not in html
    assert "cp " not in html  # nothing to copy out of a clone of our repository
    linked = set(re.findall(r'href="/docs/starter/([^"]+)"', html))
    assert {"minimal_bot.py", "kaiser_protocol.py", "random.zip", "greedy.zip"} <= linked
    for name in linked:
        assert name in STARTER_FILES and (EXAMPLES_DIR / name).is_file()
        assert client.get(f"/docs/starter/{name}").status_code == 200
    assert 'href="/docs/runner/kaiser-engine.pyz"' in html
    assert "python3 kaiser-engine.pyz match minimal_bot.py builtin:random" in html
