"""What a coroutine can tell of the event loop it runs on."""

from __future__ import annotations

import asyncio


def loop_gone() -> bool:
    """Whether the running coroutine is being closed with no event loop to run it (a loop
    closed while a listener still listened): nothing may be awaited any more."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return True
    return False
