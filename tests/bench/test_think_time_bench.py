"""bench/think_time_channel.py at its tiny size, in the suite (as tests/bench/test_benches.py runs
every other bench): it plays the think-time pair and an honest bot in real sandboxes and prints
the channel's figures, the detector's verdicts, the host's load and the closing table. Only that
it ran and what it printed is asserted, never a figure."""

from __future__ import annotations

import pytest

from tests.bench.test_benches import Env, assert_prints, run_bench


@pytest.mark.sandbox
@pytest.mark.timeout(180)
def test_think_time_channel_prints_the_channel_and_the_detectors_verdicts(bench_env: Env) -> None:
    out = run_bench("think_time_channel", "--tiny", env=bench_env)

    assert_prints(out, "load average", "think-time pair (4-bit symbols, 2 ms a step, sleep)",
                  "symbols sent", "decoded right", "bits a move: >=",
                  "a receiver that knew its base line", "detector", "the pair:",
                  "the pair, counted time alone:",
                  "minimal (bots/examples/minimal_bot.py), normal:",
                  "| clock | bot | load | partner read right |",
                  "| normal | the pair, 4-bit symbols, 2 ms a step, sleep |")
    assert "FLAGGED" in out.split("the pair:")[1].splitlines()[0], out
