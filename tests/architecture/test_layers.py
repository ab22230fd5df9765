"""Architecture invariant (docs/architecture.md, "What may import what"): the site's apps
import downwards only. A module imports its own layer and the layers above it in LAYERS;
a lower app reaches a higher one only through signals (matches.signals, bots.signals), whose
receivers live in the higher app. The import graph is test_house_rules's: function-level
imports count, `if TYPE_CHECKING:` imports do not."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

import pytest

from tests.architecture.test_house_rules import ROOT, import_graph

# The layers, top first: the order docs/architecture.md states. A module's layer is that of
# the longest of its dotted prefixes that a pattern names ("bots.views" is a page, "bots.models"
# is of bots); "*" stands for any one app.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("engine", ("engine",)),
    # The project's plumbing, which every app may use: settings, the Celery app, task_send,
    # page_cache, fragments, ago, worker_cores, worker_sandbox, the API's authentication,
    # permissions and errors.
    ("kaiser_site", ("kaiser_site",)),
    ("accounts", ("accounts",)),
    ("bots", ("bots",)),
    ("matches", ("matches",)),
    ("ladder", ("ladder",)),
    ("tournaments, play", ("tournaments", "play")),
    ("fairplay", ("fairplay",)),
    ("operations", ("operations",)),
    # What people, operators and Django call, and what nothing below imports: each app's
    # views, API, URLs, admin, template tags, management commands and AppConfig; the site's
    # own pages (docs, health, metrics, error pages and the middleware that serves them), its
    # URLs, and its receiver (the shared pages' part when a match ends).
    ("pages", ("*.views", "*.api", "*.api_urls", "*.urls", "*.admin", "*.templatetags",
               "*.management", "*.apps", "kaiser_site.asgi", "kaiser_site.wsgi",
               "kaiser_site.docs_pages", "kaiser_site.health", "kaiser_site.metrics",
               "kaiser_site.errors", "kaiser_site.middleware", "kaiser_site.receivers")),
)
SITE_APPS = ("accounts", "bots", "fairplay", "kaiser_site", "ladder", "matches", "operations",
             "play", "tournaments")


def layer_of(module: str) -> int:
    """The 1-based layer of a module (the engine's is 1)."""
    parts = module.split(".")
    for length in range(len(parts), 0, -1):
        prefix = ".".join(parts[:length])
        found = {number for number, (_, patterns) in enumerate(LAYERS, 1)
                 for pattern in patterns
                 if pattern.count(".") == length - 1 and fnmatchcase(prefix, pattern)}
        if found:
            assert len(found) == 1, (module, found)
            return found.pop()
    raise LookupError(f"{module} is in no layer")


def upward_edges(graph: dict[str, set[str]]) -> list[str]:
    """Each import of a site module into a lower layer, as `module -> imported (layer X ->
    layer Y)`."""
    return [f"{module} -> {target} (layer {layer_of(module)} -> layer {layer_of(target)})"
            for module, targets in sorted(graph.items())
            if module.split(".")[0] in SITE_APPS
            for target in sorted(targets) if layer_of(target) > layer_of(module)]


def documented_layers(text: str) -> list[str]:
    """The numbered list after "What may import what" in docs/architecture.md: each item's
    name, before its colon, without the backticks."""
    section = text.partition("What may import what")[2].partition("\n#")[0]
    return [re.sub(r"`", "", item.partition(":")[0]).strip()
            for item in re.findall(r"^\d+\. (.*)$", section, re.M)]


def test_the_code_map_states_the_same_order() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    assert documented_layers(text) == [name for name, _ in LAYERS]


def test_every_module_has_a_layer() -> None:
    for module in import_graph():
        assert 1 <= layer_of(module) <= len(LAYERS)
        # The pages' patterns name modules of the site's apps only.
        assert module.split(".")[0] in SITE_APPS or layer_of(module) == 1, module


def test_the_site_imports_downwards_only() -> None:
    upward = upward_edges(import_graph())
    assert not upward, f"{len(upward)} imports into a lower layer:\n" + "\n".join(upward)


@pytest.mark.parametrize(("module", "layer"), [
    ("engine.sandbox.seat", "engine"),
    ("kaiser_site.page_cache", "kaiser_site"),
    ("kaiser_site.urls", "pages"),
    ("kaiser_site.templatetags.arena", "pages"),
    ("bots.services", "bots"),
    ("bots.views", "pages"),
    ("matches.management.commands.export_replays", "pages"),
    ("ladder.receivers", "ladder"),
    ("play.selectors", "tournaments, play"),
])
def test_a_module_takes_its_longest_named_prefix_s_layer(module: str, layer: str) -> None:
    assert LAYERS[layer_of(module) - 1][0] == layer


def test_the_layer_check_finds_an_upward_import() -> None:
    graph = {"matches.selectors": {"ladder.models", "bots.models"},
             "ladder.views": {"tournaments.selectors"}, "tournaments.forms": {"ladder.models"}}
    assert upward_edges(graph) == ["matches.selectors -> ladder.models (layer 5 -> layer 6)"]
