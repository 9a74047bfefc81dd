"""The embedded default on one process and on every core: the same tournament of searching
house bots (``arena tournament create --run`` on a fresh SQLite file, as a user runs it),
with ``ARENA_EMBEDDED_PROCESSES=1`` and with the default (one process per core), in
alternating order, several rounds. Reports the wall clock of each and the paired ratio.

``python -m bench embedded`` (``ARENA_BENCH_EMBEDDED_ROUNDS`` rounds, default 3).
"""

from __future__ import annotations

import math
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from arena.settings import cores

ROOT = Path(__file__).resolve().parents[1]
TOURNAMENT = ["--game", "durak,shithead", "--bots", "search,heuristic,random", "--sizes", "2",
              "--repetitions", "3", "--seed", "17"]


def one_run(processes: int) -> float:
    """Seconds for the whole tournament, command line included."""
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "ARENA_DATABASE_URL": f"sqlite:///{scratch}/bench.db",
               "ARENA_EMBEDDED_PROCESSES": str(processes)}
        for name in ("ARENA_REDIS_URL", "ARENA_SEARCH_MS"):
            env.pop(name, None)
        started = time.perf_counter()
        subprocess.run([str(ROOT / ".venv/bin/arena"), "tournament", "create", *TOURNAMENT, "--run"],
                       env=env, check=True, capture_output=True)
        return time.perf_counter() - started


def main() -> None:
    rounds = int(os.environ.get("ARENA_BENCH_EMBEDDED_ROUNDS", "3"))
    every = cores()
    print(f"load average {os.getloadavg()[0]:.1f}; {every} cores; tournament: {' '.join(TOURNAMENT)}")
    if every < 2:
        print("one core: nothing to compare")
        return
    times: dict[int, list[float]] = {1: [], every: []}
    for number in range(rounds):
        order = [1, every] if number % 2 == 0 else [every, 1]  # alternate who goes first
        for processes in order:
            times[processes].append(one_run(processes))
    ratios = [one / many for one, many in zip(times[1], times[every], strict=True)]
    mean = statistics.fmean(ratios)
    spread = statistics.stdev(ratios) / math.sqrt(len(ratios)) if len(ratios) > 1 else 0.0
    print(f"one process: median {statistics.median(times[1]):.1f} s; {every} processes: median "
          f"{statistics.median(times[every]):.1f} s")
    print(f"speed-up on {every} processes (paired rounds): {mean:.2f}x ± {spread:.2f} (standard error)")


if __name__ == "__main__":
    main()
