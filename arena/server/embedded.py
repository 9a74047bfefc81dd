"""The whole server on a background thread of this process: ``arena demo`` and tests use it
to put real bot processes on a real gateway next to the embedded pipeline."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from .app import RunningServer
from .settings import ServerSettings


class BackgroundServer:
    """``arena serve``'s services on their own event loop thread; ``address`` once started."""

    def __init__(self, settings: ServerSettings) -> None:
        from . import serve

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="arena-server", daemon=True)
        self.thread.start()
        self.running: RunningServer = self.call(serve.start(settings))
        host = settings.address.rsplit(":", 1)[0]
        self.address = f"{host}:{self.running.port}"

    def call(self, coro: Any, timeout: float = 30) -> Any:
        """Run a coroutine on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self, grace: float = 1.0) -> None:
        self.call(self.running.stop(grace))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
