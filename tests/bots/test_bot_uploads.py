"""Uploads of every accepted format end active; every kind of bad upload is refused with its
reason. The check is the real one: a sandboxed match against builtin:random (run eagerly)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion

PROGRAMS = Path(__file__).parent / "programs"
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.sandbox]


def _zip(files: dict[str, bytes | str], *, symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (0o120777 << 16)
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def _source(name: str) -> bytes:
    return (PROGRAMS / name).read_bytes()


@pytest.fixture
def bot(owner: object) -> Bot:
    from bots.services import bot_create

    return bot_create(owner=owner, name="uploader", description="")


def _upload(client: APIClient, bot: Bot, name: str, content: bytes) -> dict:
    response = client.post(
        f"/api/v1/bots/{bot.pk}/versions/",
        {"file": SimpleUploadedFile(name, content)},
        format="multipart",
    )
    return {"status": response.status_code, "body": response.json()}


def _verdict(version_id: int) -> BotVersion:
    return BotVersion.objects.get(pk=version_id)


ACCEPTED = {
    "single .py file": ("mybot.py", lambda: _source("good_bot.py")),
    "zip with bot.py": ("bot.zip", lambda: _zip({"bot.py": _source("good_bot.py")})),
    "zip with bot.json for python3": ("bot.zip", lambda: _zip({
        "bot.json": json.dumps({"run": ["python3", "main.py"]}),
        "main.py": _source("good_bot.py"),
    })),
    "zip with bot.json for node": ("bot.zip", lambda: _zip({
        "bot.json": json.dumps({"run": ["node", "bot.js"]}),
        "bot.js": _source("good_bot.js"),
    })),
}


@pytest.mark.parametrize("case", list(ACCEPTED))
def test_accepted_upload_ends_active_after_its_check(
    case: str, bot: Bot, owner_client: APIClient, celery_eager: None
) -> None:
    filename, make = ACCEPTED[case]
    result = _upload(owner_client, bot, filename, make())
    assert result["status"] == 201, result
    assert result["body"]["number"] == 1
    version = _verdict(result["body"]["id"])
    assert version.status == "active", (version.reason, version.check_stderr)
    assert version.check_summary["forfeit"] is None
    assert sum(version.check_summary["games"].values()) == 2
    assert version.check_replay["players"]["A"] == {"name": "uploader", "version": "1"}



def test_python_zip_written_without_file_type_bits_is_accepted(
    bot: Bot, owner_client: APIClient
) -> None:
    # zipfile.writestr stores modes without S_IFREG; such archives are ordinary files.
    result = _upload(owner_client, bot, "bot.zip", _zip({"bot.py": _source("good_bot.py")}))
    assert result["status"] == 201, result


REFUSED = {
    "too big": (
        "big.py", lambda: b"#" * (10 * 1024 * 1024 + 1), "the file is 10.0 MB; the limit is 10.0 MB"
    ),
    "not a zip at all": ("bot.zip", lambda: b"this is not an archive", "not a valid zip archive"),
    "truncated zip": (
        "bot.zip", lambda: _zip({"bot.py": _source("good_bot.py")})[:40], "not a valid zip archive"
    ),
    "path traversal": (
        "bot.zip", lambda: _zip({"bot.py": "print(1)", "../../evil.py": "x"}), "'..'"
    ),
    "absolute path": (
        "bot.zip", lambda: _zip({"bot.py": "x", "/etc/cron.d/evil": "x"}), "absolute"
    ),
    "symbolic link": (
        "bot.zip", lambda: _zip({"bot.py": "x"}, symlink="passwd"), "symbolic link"
    ),
    "no bot.py or bot.json": ("bot.zip", lambda: _zip({"main.py": "x"}), "no bot.json or bot.py"),
    "manifest without run": (
        "bot.zip", lambda: _zip({"bot.json": "{}", "bot.py": "x"}), 'bot.json needs "run"'
    ),
    "unknown file type": ("bot.exe", lambda: b"MZ", "upload a single .py file or a .zip archive"),
    "empty file": ("bot.py", lambda: b"", "The submitted file is empty."),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refused_upload_answers_400_with_its_reason_and_stores_nothing(
    case: str, bot: Bot, owner_client: APIClient
) -> None:
    filename, make, reason = REFUSED[case]
    result = _upload(owner_client, bot, filename, make())
    assert result["status"] == 400
    assert result["body"]["code"] == "invalid"
    assert reason in result["body"]["detail"]
    assert result["body"]["detail"].startswith("file: ")
    assert not bot.versions.exists()


def test_upload_far_over_the_limit_is_refused_before_it_is_read(
    bot: Bot, owner_client: APIClient
) -> None:
    result = _upload(owner_client, bot, "huge.zip", b"\0" * (11 * 1024 * 1024))
    assert result["status"] == 413
    assert result["body"] == {
        "detail": "the request is 11 MB; uploads are limited to 10 MB", "code": "too_large"
    }


def test_bot_that_crashes_on_hello_is_rejected_with_reason_and_its_stderr(
    bot: Bot, owner_client: APIClient, celery_eager: None
) -> None:
    result = _upload(owner_client, bot, "crash.py", _source("crash_on_hello.py"))
    assert result["status"] == 201
    version = _verdict(result["body"]["id"])
    assert version.status == "rejected"
    assert version.reason.startswith("The program stopped with exit status 3 before it "
                                     "answered hello")
    assert "[" not in version.reason and "seat" not in version.reason  # words (issue 43)
    assert "KeyError: 'hand'" in version.check_stderr
    assert version.check_stderr.count("KeyError: 'hand'") == 1  # once, not a seat apiece
    body = owner_client.get(f"/api/v1/versions/{version.pk}/").json()
    assert body["status"] == "rejected"
    assert body["reason"] == version.reason
    assert "KeyError: 'hand'" in body["check_stderr"]


def test_bot_that_plays_a_card_it_does_not_hold_is_rejected_as_illegal(
    bot: Bot, owner_client: APIClient, celery_eager: None
) -> None:
    result = _upload(owner_client, bot, "illegal.py", _source("illegal_bot.py"))
    version = _verdict(result["body"]["id"])
    assert version.status == "rejected"
    assert version.reason.startswith("The program made a move the rules do not allow (")
    assert "seat" not in version.reason
    assert version.check_summary["forfeit"]["player"] == "A"
    assert version.check_summary["games"]["B"] == 2


@pytest.mark.production_kernel  # the seat gVisor would run it in is what is missing
def test_a_failing_sandbox_postpones_the_check_and_never_rejects(
    bot: Bot, owner_client: APIClient, celery_eager: None, monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from kaiser_site.celery import app

    app.conf.task_eager_propagates = False  # let eager retries run (celery_eager restores it)
    monkeypatch.setenv("PATH", str(tmp_path))  # no runsc to be found: the machine's fault
    result = _upload(owner_client, bot, "good.py", _source("good_bot.py"))
    assert result["status"] == 201
    version = _verdict(result["body"]["id"])
    assert version.status == "pending"
    assert version.reason.startswith("check postponed: runsc (gVisor) is not installed")
    assert version.check_attempts == 6  # the first try and five retries


def test_second_upload_becomes_the_playing_version(
    bot: Bot, owner_client: APIClient, celery_eager: None
) -> None:
    from bots.selectors import bot_active_version

    first = _upload(owner_client, bot, "a.py", _source("good_bot.py"))["body"]
    second = _upload(owner_client, bot, "b.py", _source("good_bot.py") + b"\n# v2\n")["body"]
    assert (first["number"], second["number"]) == (1, 2)
    assert bot_active_version(bot=bot).pk == second["id"]
    detail = owner_client.get(f"/api/v1/bots/{bot.pk}/").json()
    assert detail["active_version"] == {"id": second["id"], "number": 2}


def test_a_check_lost_on_the_way_is_queued_again_and_decided(
    bot: Bot, celery_eager: None
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from bots.models import BotProgram
    from bots.services import bot_versions_requeue_stale
    from bots.tasks import bot_versions_requeue_stale as requeue_task

    # A pending version whose queued check was lost (say, the broker restarted empty).
    content = _source("good_bot.py")
    program = BotProgram.objects.create(sha256="f" * 64, content=content, size=len(content))
    version = BotVersion.objects.create(
        bot=bot, number=1, kind="py", program=program, filename="x.py", size=len(content)
    )
    assert bot_versions_requeue_stale() == 0  # recent: its check may still be on the way
    BotVersion.objects.filter(pk=version.pk).update(created=timezone.now() - timedelta(hours=1))
    assert requeue_task.delay().get() == 1
    version.refresh_from_db()
    assert version.status == "active"
    assert bot_versions_requeue_stale() == 0  # decided: never queued again
