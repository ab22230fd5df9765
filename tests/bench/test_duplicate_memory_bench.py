"""bench/duplicate_memory.py at its tiny size, in the suite (as tests/bench/test_benches.py runs
every other bench): the remembering greedy plays one Kaiser match and one Sergeant Major match
in real sandboxes, then the positive controls (in-process, and the program unsandboxed with
one /tmp). Asserted: what it printed, and the counts it printed that do not vary (the
sandboxed seats recognise no deal, the controls' seats every deal they could), never a swing
or a timing."""

from __future__ import annotations

import re

import pytest

from tests.bench.test_benches import Env, assert_prints, run_bench

RECOGNISED = re.compile(r"recognised (\d+) of the (\d+) (?:deals|hands)")


def section(out: str, title: str) -> str:
    """The section whose heading (a line that is not indented) starts with `title`, with its
    indented lines."""
    lines = out.splitlines()
    heading = next(i for i, line in enumerate(lines) if line.startswith(title))
    body = lines[heading + 1:]
    end = next((i for i, line in enumerate(body) if not line.startswith(" ")), len(body))
    return "\n".join([lines[heading], *body[:end]])


@pytest.mark.sandbox
@pytest.mark.timeout(180)
def test_duplicate_memory_shows_no_memory_sandboxed_and_the_control_remembering(
        bench_env: Env) -> None:
    out = run_bench("duplicate_memory", "--tiny", env=bench_env)

    assert_prints(out, "sandbox: ", "load average", "swing per board", "games won by the bot",
                  "a fair coin", "points share", "ups per hand", "total ")
    sandboxed = [section(out, "Kaiser, sandboxed"), section(out, "Sergeant Major, sandboxed")]
    controls = [section(out, f"positive control, {game}, {how}")
                for game in ("Kaiser", "Sergeant Major") for how in ("in-process", "the bot")]
    for part in sandboxed + controls:
        assert "forfeits 0" in part, part
    for part in sandboxed:  # each game new processes, a new /tmp: nothing to recognise
        found, could = map(int, RECOGNISED.search(part).groups())  # type: ignore[union-attr]
        assert (found, could > 0) == (0, True), part
    # Without a memory the bot is builtin:greedy: both tables play every board alike.
    assert "boards the two tables played differently: 0" in sandboxed[0], sandboxed[0]
    for part in controls:  # one memory through the match: every later deal recognised
        found, could = map(int, RECOGNISED.search(part).groups())  # type: ignore[union-attr]
        assert found == could > 0, part
