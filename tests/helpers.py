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
