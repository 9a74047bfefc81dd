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


def new_event_loop() -> asyncio.AbstractEventLoop:
    """An event loop for the live path: uvloop's where it is installed (a loop turn costs less
    there than in asyncio's own, and an external move is mostly loop turns), else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()
