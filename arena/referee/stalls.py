"""When was this event loop stalled? The gateway's own stalls, kept off the bots' clocks.

The gateway times a bot's move from the moment its turn is written to the stream until the
move is read from it. If the gateway's loop is blocked meanwhile (a long call in the same
process, the interpreter lock held by another thread), a move that reached the socket in time
is read only when the loop runs again, and the wait would be charged to the bot. A watcher
task wakes every ``tick`` seconds; when it wakes more than ``threshold`` late, the loop was
stalled in between, and that span is taken off any turn it overlaps. Shorter stalls are not
noticed (they cost the bot at most ``threshold``), and a stall while the bot was still thinking
is credited too: the server's delays go to the bot, never the other way round.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque

TICK = 0.05  # seconds between the watcher's wake-ups
THRESHOLD = 0.05  # lateness that counts as a stall
MEMORY = 1000  # stalls remembered (turns last at most a move clock plus a bank)


class StallWatch:
    """Spans of ``time.monotonic()`` during which one event loop ran nothing else."""

    def __init__(self, tick: float = TICK, threshold: float = THRESHOLD) -> None:
        self.tick = tick
        self.threshold = threshold
        self.spans: deque[tuple[float, float]] = deque(maxlen=MEMORY)
        self.last = time.monotonic()  # the watcher's latest wake-up
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Watch the running loop (once; later calls do nothing)."""
        if self._task is None or self._task.done():
            self.last = time.monotonic()
            self._task = asyncio.get_running_loop().create_task(self._watch(), name="arena-stall-watch")

    def stop(self) -> None:
        """Stop watching (nothing is timed on this loop any more)."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.tick)
            self.woke(time.monotonic())

    def woke(self, now: float) -> None:
        """The watcher woke at ``now``: anything past its due time beyond ``threshold`` was a
        stall."""
        due = self.last + self.tick
        if now - due > self.threshold:
            self.spans.append((due, now))
        self.last = now

    def stalled(self, start: float, end: float) -> float:
        """Seconds of ``[start, end]`` during which the loop was stalled, including a stall
        that ends only now (the watcher has not woken since)."""
        total = sum(max(0.0, min(stop, end) - max(begin, start)) for begin, stop in self.spans)
        due = self.last + self.tick
        if end - due > self.threshold:
            total += max(0.0, end - max(due, start))
        return total
