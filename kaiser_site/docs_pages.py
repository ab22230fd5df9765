"""The bot author's reference served as pages: docs/*.md rendered (rules, protocol, replay
format, writing a bot), and the local runner kaiser-engine.pyz built from engine/."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import markdown
from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from engine import zipapp

DOCS_DIR = Path(settings.BASE_DIR) / "docs"
RUNNER_NAME = "kaiser-engine.pyz"
# slug -> (file in docs/, title): the reference, in the navigation's order. Every other
# docs/<slug>.md is served too (the files link to one another), titled by its first heading.
PAGES = {
    "rules": ("rules.md", "Rules of Kaiser"),
    "rules-sergeant-major": ("rules-sergeant-major.md", "Rules of Sergeant Major (9-5-2)"),
    "protocol": ("protocol.md", "The bot protocol"),
    "replay-format": ("replay-format.md", "The replay format"),
    "bot-authors": ("bot-authors.md", "Writing a bot, step by step"),
    "sandbox": ("sandbox.md", "The sandbox and fair play"),
    "play": ("play.md", "Playing against the bots"),
    "ratings": ("ratings.md", "Ratings: Elo and the fitted rating"),
    "tournaments": ("tournaments.md", "Tournaments: formats for both games"),
}
STARTERS = "../bots/examples/"
LINK = re.compile(r'href="([^"#:]*)(#[^"]*)?"')
DOC_FILE = re.compile(r"[-a-zA-Z0-9_]+\.md")


@dataclass(frozen=True, slots=True)
class Page:
    slug: str
    title: str
    html: SafeString
    toc: SafeString


def doc_page(request: HttpRequest, page: str) -> HttpResponse:
    source = _source(page)
    if source is None:
        raise Http404("no such documentation page")
    rendered = _rendered(page, source.stat().st_mtime_ns)
    pages = [(slug, title) for slug, (_, title) in PAGES.items()]
    return render(request, "docs/page.html", {"page": rendered, "pages": pages})


def _source(slug: str) -> Path | None:
    """docs/<slug>.md if it exists (slugs are [-a-zA-Z0-9_], so never a path elsewhere)."""
    path = DOCS_DIR / (PAGES[slug][0] if slug in PAGES else f"{slug}.md")
    return path if path.is_file() else None


@functools.lru_cache(maxsize=32)
def _rendered(slug: str, mtime_ns: int) -> Page:
    """A page's HTML, once per version of its file (mtime_ns is the cache key's part)."""
    source = _source(slug)
    assert source is not None
    text = source.read_text(encoding="utf-8")
    title = PAGES[slug][1] if slug in PAGES else text.partition("\n")[0].lstrip("# ").strip()
    converter = markdown.Markdown(extensions=["tables", "fenced_code", "toc"],
                                  extension_configs={"toc": {"toc_depth": "2-3"}})
    html = converter.convert(text)
    html = LINK.sub(_site_link, html)
    # Our own files, from the repository: trusted markup.
    return Page(slug=slug, title=title, html=mark_safe(html),
                toc=mark_safe(converter.toc))  # type: ignore[attr-defined]


def _site_link(found: re.Match[str]) -> str:
    """Links between the markdown files (rules.md#scoring) as links between the pages, and
    links to the example bots as their downloads; any other link stays as written."""
    target, anchor = found.group(1), found.group(2) or ""
    slugs = {filename: slug for slug, (filename, _) in PAGES.items()}
    if target in slugs:
        return f'href="{reverse("doc-page", args=[slugs[target]])}{anchor}"'
    if DOC_FILE.fullmatch(target) and (DOCS_DIR / target).is_file():
        return f'href="{reverse("doc-page", args=[target[:-3]])}{anchor}"'
    if target.startswith(STARTERS) and "/" not in target[len(STARTERS):]:
        return f'href="{reverse("starter-file", args=[target[len(STARTERS):]])}"'
    if target == "" and anchor:
        return f'href="{anchor}"'
    return found.group(0)


@functools.lru_cache(maxsize=4)
def _runner_for(sources_hash: str) -> zipapp.Runner:
    """Built once per version of the engine's sources (the hash is the cache key)."""
    return zipapp.build()


def runner() -> zipapp.Runner:
    """The runner of the engine this server runs: reading engine/*.py to hash them takes well
    under a millisecond; the build itself happens once per change of the sources."""
    return _runner_for(zipapp.sources_hash(zipapp.engine_sources()))


def runner_download(request: HttpRequest) -> HttpResponse:
    built = runner()
    response = HttpResponse(built.content, content_type="application/octet-stream")
    response["Content-Disposition"] = f'attachment; filename="{RUNNER_NAME}"'
    response["X-Kaiser-Engine-Version"] = built.version
    response["ETag"] = f'"{built.sha256}"'
    return response


# --- The docs index and the starter kit ------------------------------------------------------

EXAMPLES_DIR = Path(settings.BASE_DIR) / "bots" / "examples"


STARTER_FILES = {
    "minimal_bot.py": "The smallest complete bot: one file, plays the first legal action.",
    "sergeant_major_bot.py": "A Sergeant Major (9-5-2) starter: one file, a simple sensible "
                             "strategy.",
    "kaiser_protocol.py": "A helper, not a bot: the protocol loop in one file. Your bot.py "
                          "imports it and writes decide(); upload the two in a zip.",
    "random.zip": "A random player (Python, zip with bot.py).",
    "greedy.zip": "A greedy player (Python, zip with bot.py).",
    "node_random.zip": "A random player in JavaScript (zip with bot.json manifest).",
    "mc.zip": "A Monte Carlo player (Python, zip): a strong starting point.",
}


def docs(request: HttpRequest) -> HttpResponse:
    """The docs index: the pages, the local runner and the starter kit's files."""
    files = [(name, text) for name, text in STARTER_FILES.items()
             if (EXAMPLES_DIR / name).is_file()]
    return render(request, "docs/index.html", {"files": files, "runner": runner()})


def starter_file(request: HttpRequest, name: str) -> FileResponse:
    """One file of the starter kit (bots/examples/), as a download."""
    if name not in STARTER_FILES or not (EXAMPLES_DIR / name).is_file():
        raise Http404("no such starter file")
    return FileResponse((EXAMPLES_DIR / name).open("rb"), as_attachment=True, filename=name)
