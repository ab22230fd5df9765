"""The bot author's reference as pages (kaiser_site/docs_pages.py): rules, protocol, replay
format, linked from where an author looks; the local runner kaiser-engine.pyz served from
/docs/ and runnable with a plain python3 in an empty folder; nothing refers outside the
repository."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from bots.models import Bot, BotVersion
from engine import zipapp
from ladder.models import Ladder
from matches.models import Match
from matches.services import match_create

pytestmark = pytest.mark.django_db
REPOSITORY = Path(settings.BASE_DIR)


@pytest.mark.parametrize(("path", "heading", "text"), [
    ("/docs/rules/", "Kaiser: the rules Kaiser Arena plays", "Glossary"),
    ("/docs/protocol/", "The bot protocol (version 1)", "bank_ms"),
    ("/docs/replay-format/", "The replay format (version 1)", "Duplicate pairs"),
    ("/docs/bot-authors/", "Writing a Kaiser Arena bot", "The sandbox"),
])
def test_each_reference_page_renders_its_markdown(client: Client, path: str, heading: str,
                                                  text: str) -> None:
    page = client.get(path).content.decode()
    assert f">{heading}" in page
    assert text in page
    assert "<table>" in page  # the markdown's tables are rendered, not shown as pipes
    assert "| ---" not in page


def test_rules_page_has_every_preset_with_an_anchor(client: Client) -> None:
    page = client.get("/docs/rules/").content.decode()
    for preset in ("official", "pagat", "bga", "saskatchewan"):
        assert f'id="{preset}"' in page
    assert "Bidding example" in page and "Scoring examples" in page


def test_protocol_page_names_every_field_of_state(client: Client) -> None:
    page = client.get("/docs/protocol/").content.decode()
    for field in ("game", "deal", "seat", "dealer", "score", "hand", "bids", "contract",
                  "tricks", "trick", "bank_ms"):
        assert f"<td><code>{field}</code></td>" in page


def test_links_between_the_markdown_files_become_links_between_pages(client: Client) -> None:
    page = client.get("/docs/replay-format/").content.decode()
    assert 'href="/docs/rules/#scoring-a-deal"' in page
    assert 'href="/docs/protocol/#faults"' in page
    authors = client.get("/docs/bot-authors/").content.decode()
    assert 'href="/docs/starter/minimal_bot.py"' in authors
    assert ".md\"" not in authors


def test_unknown_doc_page_is_a_404(client: Client) -> None:
    assert client.get("/docs/nosuch/").status_code == 404


def test_every_markdown_file_a_page_links_is_a_page_too(client: Client) -> None:
    for slug in ("rules", "protocol", "replay-format", "bot-authors"):
        page = client.get(f"/docs/{slug}/").content.decode()
        for target in re.findall(r'href="(/docs/[-\w]+/)(?:#[^"]*)?"', page):
            assert client.get(target).status_code == 200, (slug, target)
        assert not re.search(r'href="[^":]*\.md[#"]', page), slug


def test_the_code_map_links_the_benchmark_figures_served_as_a_page_of_their_own(
        client: Client) -> None:
    code_map = client.get("/docs/architecture/").content.decode()
    assert 'href="/docs/performance/"' in code_map
    assert "Architecture invariant: the site's apps import downwards only" in code_map
    assert "Page speed across the split" not in code_map
    figures = client.get("/docs/performance/").content.decode()
    assert 'id="page-speed-across-the-split"' in figures and "<table>" in figures
    for target in re.findall(r'href="(/docs/[-\w]+/)(?:#[^"]*)?"', code_map + figures):
        assert client.get(target).status_code == 200, target


def test_reference_is_linked_from_home_docs_upload_and_match_pages(
    client: Client, owner: User, make_builtin: Callable[..., BotVersion]
) -> None:
    ladder, _ = Ladder.objects.update_or_create(slug="main", defaults={"rules": "pagat"})
    home = client.get("/").content.decode()
    assert 'href="/docs/rules/#' in home
    docs = client.get("/docs/").content.decode()
    for slug in ("rules", "protocol", "replay-format"):
        assert f'href="/docs/{slug}/"' in docs
    client.force_login(owner)
    bot = Bot.objects.create(owner=owner, name="linked")
    upload = client.get(f"/bots/{bot.pk}/upload/").content.decode()
    assert 'href="/docs/protocol/"' in upload and 'href="/docs/runner/kaiser-engine.pyz"' in upload
    match = match_create(versions=[make_builtin("rules-a"), make_builtin("rules-b")],
                         kind=Match.Kind.LADDER, conditions=ladder, ladder=ladder)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert '<a href="/docs/rules/#pagat" id="match-rules">pagat rules</a>' in page


def test_docs_page_shows_the_runner_version_with_the_sha256_it_serves(client: Client) -> None:
    page = client.get("/docs/").content.decode()
    download = client.get("/docs/runner/kaiser-engine.pyz")
    assert download.status_code == 200
    assert download["Content-Disposition"] == 'attachment; filename="kaiser-engine.pyz"'
    sha = hashlib.sha256(download.content).hexdigest()
    assert f'id="runner-sha256">{sha}<' in page
    version = re.search(r'id="runner-version">([0-9a-f]{12})<', page)
    assert version is not None and download["X-Kaiser-Engine-Version"] == version.group(1)
    # Reproducible: the same engine sources, the same bytes.
    assert zipapp.build().sha256 == sha


def test_runner_plays_validates_and_shows_with_a_plain_python3(client: Client,
                                                                tmp_path: Path) -> None:
    runner = tmp_path / "kaiser-engine.pyz"
    runner.write_bytes(client.get("/docs/runner/kaiser-engine.pyz").content)
    bot = tmp_path / "my_bot.py"
    bot.write_bytes((REPOSITORY / "bots" / "examples" / "minimal_bot.py").read_bytes())
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
    env = {"PATH": "/usr/bin:/bin"}  # nothing of this project's virtualenv
    played = subprocess.run(
        [python, "-I", runner.name, "match", "my_bot.py", "builtin:greedy", "--replay",
         "m.json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    assert "A = my_bot v1, B = greedy v1" in played.stdout
    replay = json.loads((tmp_path / "m.json").read_text())
    assert replay["format"] == "kaiser-replay" and len(replay["games"]) == 2
    validated = subprocess.run([python, "-I", runner.name, "validate", "m.json"], cwd=tmp_path,
                               env=env, capture_output=True, text=True, timeout=60)
    assert validated.stdout.strip() == "m.json: valid"
    shown = subprocess.run([python, "-I", runner.name, "show", "m.json", "--game", "0"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert "=== Game 0" in shown.stdout and "=== Game 1" not in shown.stdout


def test_runner_without_bubblewrap_says_it_runs_unsandboxed(client: Client,
                                                           tmp_path: Path) -> None:
    runner = tmp_path / "kaiser-engine.pyz"
    runner.write_bytes(client.get("/docs/runner/kaiser-engine.pyz").content)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python3").symlink_to(sys.executable)  # a PATH with no bwrap on it
    (tmp_path / "my_bot.py").write_bytes(
        (REPOSITORY / "bots" / "examples" / "minimal_bot.py").read_bytes())
    env = {"PATH": str(tmp_path / "bin")}
    played = subprocess.run([sys.executable, "-I", runner.name, "match", "my_bot.py",
                             "builtin:random", "--quiet"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    assert "bubblewrap (bwrap) is not installed here, so the bot programs run UNSANDBOXED" \
        in played.stderr
    refused = subprocess.run([sys.executable, "-I", runner.name, "match", "my_bot.py",
                              "builtin:random", "--require-sandbox"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1
    assert "error: bubblewrap (bwrap) is not installed" in refused.stderr


def test_no_file_of_the_project_refers_outside_the_repository() -> None:
    tracked = subprocess.run(["git", "ls-files"], cwd=REPOSITORY, capture_output=True,
                             text=True, check=True).stdout.split()
    outside = re.compile(r"\.\./shared/|shared/" + "spec/")  # split: this file is tracked too
    offenders = [name for name in tracked
                 if (REPOSITORY / name).is_file() and (REPOSITORY / name).suffix != ".zip"
                 and outside.search((REPOSITORY / name).read_text(errors="replace"))]
    assert offenders == []


def test_example_zips_carry_no_engine_package() -> None:
    import zipfile

    for archive in (REPOSITORY / "bots" / "examples").glob("*.zip"):
        with zipfile.ZipFile(archive) as opened:
            names = opened.namelist()
        assert not [n for n in names if n.startswith("engine/")], archive.name
