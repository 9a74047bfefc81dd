"""A one-line progress bar on stderr for long runs (silent when stderr is not a terminal
unless forced)."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    """Call with (done, total); ``close()`` ends the line."""

    def __init__(self, label: str, force: bool = False, width: int = 30) -> None:
        self.label = label
        self.width = width
        self.enabled = force or sys.stderr.isatty()
        self.started = time.monotonic()
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        filled = int(self.width * done / total)
        rate = done / max(1e-9, time.monotonic() - self.started)
        bar = "#" * filled + "-" * (self.width - filled)
        sys.stderr.write(f"\r{self.label} [{bar}] {done}/{total} {rate:6.1f}/s")
        sys.stderr.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()
