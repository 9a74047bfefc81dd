"""Helpers every test folder may use: where the repository is, waiting on a condition, a real
``arena serve`` process."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The commands of the environment the tests run in, wherever it is (never a fixed ``.venv``).
BIN = Path(sys.executable).parent
ARENA = str(BIN / "arena")
CELERY = str(BIN / "celery")


def wait_until(predicate, timeout: float = 60.0, poll: float = 0.1, what: str = "condition"):
    """Poll ``predicate`` until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(poll)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, as an operator stops it; SIGKILL if it takes too long."""
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()


@contextlib.contextmanager
def arena_serve(env: dict[str, str], log: Path, *args: str) -> Iterator[subprocess.Popen[bytes]]:
    """A real ``arena serve`` process (with ``args``) and the environment ``env``, output to ``log``."""
    process = subprocess.Popen([ARENA, "serve", *args], env=env, cwd=ROOT,
                               stdout=log.open("ab"), stderr=subprocess.STDOUT)
    try:
        yield process
    finally:
        stop(process)


def plain_bradley_terry(games: list[tuple[int, int, float]], prior_draws: float = 1.0,
                        sweeps: int = 20000) -> dict[int, float]:
    """An Elo-scale Bradley-Terry fit written apart from ``arena.stats.ml``, to check it:
    Zermelo's iteration over ``(a, b, score of a)`` games (a draw is half a win each way),
    with ``prior_draws`` draws of each bot against a virtual bot of strength 1, anchored at a
    mean of 1500."""
    import math

    bots = sorted({a for a, _, _ in games} | {b for _, b, _ in games})
    wins = {i: prior_draws / 2 for i in bots}
    met: dict[tuple[int, int], float] = {}
    for a, b, score in games:
        wins[a] += score
        wins[b] += 1 - score
        met[(a, b)] = met.get((a, b), 0) + 1
        met[(b, a)] = met.get((b, a), 0) + 1
    gamma = dict.fromkeys(bots, 1.0)
    for _ in range(sweeps):
        new = {}
        for i in bots:
            seen = prior_draws / (gamma[i] + 1.0)
            seen += sum(n / (gamma[i] + gamma[j]) for (a, j), n in met.items() if a == i)
            new[i] = wins[i] / seen
        moved = max(abs(math.log(new[i] / gamma[i])) for i in bots)
        gamma = new
        if moved < 1e-13:
            break
    elo = {i: 400 * math.log10(g) for i, g in gamma.items()}
    mean = sum(elo.values()) / len(elo)
    return {i: 1500 + e - mean for i, e in elo.items()}
