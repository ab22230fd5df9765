"""seed_demo: demo users with the example bots and the house bots; running it twice adds nothing."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from bots.models import Bot, BotVersion

pytestmark = pytest.mark.django_db


def _seed(*args: str) -> str:
    """Tests run with DEBUG off, as Django's test runner sets it: hence --force."""
    out = io.StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


def test_seed_demo_creates_users_bots_and_queued_versions_once(settings: object) -> None:
    first = _seed("--force")
    assert "ada-random: uploaded random.zip as v1 (pending)" in first
    users = set(User.objects.values_list("username", flat=True))
    assert {"ada", "grace", "alan", "house"} <= users
    assert User.objects.get(username="ada").check_password("kaiser-demo")
    names = set(Bot.objects.values_list("name", flat=True))
    assert {"ada-random", "ada-minimal", "grace-greedy", "grace-node", "alan-mc",
            "random", "greedy", "sm-random", "sm-greedy"} <= names
    assert "house bot sm-greedy: builtin:greedy" in first  # both games' house bots
    assert Bot.objects.get(name="sm-random").game == "sergeant-major"
    assert Bot.objects.get(name="grace-952").game == "sergeant-major"  # the game's demo bot
    counts = (User.objects.count(), Bot.objects.count(), BotVersion.objects.count())

    second = _seed("--force")
    assert "ada-random: v1 already there (pending)" in second
    assert (User.objects.count(), Bot.objects.count(), BotVersion.objects.count()) == counts
    assert set(BotVersion.objects.filter(kind="builtin").values_list("status", flat=True)) == {
        "active"}


def test_seed_demo_refuses_to_run_in_production_unless_forced(settings: object) -> None:
    settings.DEBUG = False  # type: ignore[attr-defined]
    with pytest.raises(CommandError, match="DEBUG is off"):
        _seed()
    assert not User.objects.filter(username="ada").exists()


@pytest.mark.sandbox
@pytest.mark.django_db(transaction=True)
def test_seeded_example_bots_pass_their_checks() -> None:
    out = _seed("--force", "--check-now")
    for name in ("ada-random", "ada-minimal", "grace-greedy", "grace-node", "alan-mc",
                 "grace-952"):
        assert f"{name}: uploaded" in out
        version = Bot.objects.get(name=name).versions.get()
        assert version.status == "active", (name, version.reason, version.check_stderr)
