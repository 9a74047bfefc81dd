"""A progress bar on stderr for long runs (``rich``), silent when stderr is not a terminal unless
forced; forced there, it writes its final state once, as one plain line."""

from __future__ import annotations

import sys
import time

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(ProgressColumn):
    """Matches a second since the bar was made: the first report may already be the last one
    (an embedded run plays before it reports), too soon for rich's own speed estimate."""

    def render(self, task: Task) -> Text:
        return Text(f"{task.fields['rate']:6.1f}/s", style="progress.data.speed")


class ProgressBar:
    """Call with (done, total); ``close()`` ends the bar, leaving its last state on screen."""

    def __init__(self, label: str, force: bool = False) -> None:
        self.label = label
        self.enabled = force or sys.stderr.isatty()
        self.started = time.monotonic()
        self.bar: tuple[Progress, TaskID] | None = None  # once drawn: rich's progress and its one task
        # Whether a caller must end the bar's line before writing to stderr itself: never, as
        # while the bar is shown rich moves whatever is written to stderr above it.
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        if self.bar is None:
            from . import console

            # stdout stays where it is: only stderr (notices, logs) is shown above the bar.
            progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                TimeElapsedColumn(), TimeRemainingColumn(), console=console(stderr=True),
                redirect_stdout=False,
            )
            self.bar = progress, progress.add_task(self.label, total=total, rate=0.0)
            progress.start()
        progress, task = self.bar
        rate = done / max(1e-9, time.monotonic() - self.started)
        progress.update(task, completed=done, total=total, rate=rate)

    def close(self) -> None:
        if self.bar is not None:
            self.bar[0].stop()
            self.bar = None
