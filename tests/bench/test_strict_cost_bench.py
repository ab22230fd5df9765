"""bench/strict_cost.py at its tiny size, in the suite (as tests/bench/test_benches.py runs every
other bench): it plays trivial and greedy bots in real sandboxes under the normal control (a
process a core) and under strict time (threads of one process) and prints matches a minute, a
strict match's wall time against its decisions x T, and the load average. Only that it ran and
what it printed is asserted, never a figure."""

from __future__ import annotations

import pytest

from tests.bench.test_benches import Env, assert_prints, run_bench


@pytest.mark.sandbox
@pytest.mark.timeout(240)
def test_strict_cost_prints_both_controls_rates_and_a_matchs_wall_time(bench_env: Env) -> None:
    out = run_bench("strict_cost", "--tiny", env=bench_env)

    assert_prints(out, "T = 20 ms", "trivial (bench/trivial_bot.py), 2 matches a run:",
                  "greedy (bots/examples/greedy.zip), 2 matches a run:",
                  "normal control:", "of the normal control", "the waiting alone allows",
                  "forfeits:", "load average")
    assert out.count("strict 20 ms, 2 at once (threads):") == 2, out
