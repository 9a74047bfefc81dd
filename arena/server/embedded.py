"""The whole server on a background thread of this process: ``arena demo`` and tests use it
to put real bot processes on a real gateway next to the embedded pipeline."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from .app import RunningServer, start_server
from .settings import ServerSettings


class BackgroundServer:
    """A gRPC server on its own event loop thread (as in production, the gateway and the
    runner never share a loop); ``address`` once started.

    ``services=None`` runs everything ``arena serve`` runs; a list runs the Rules service,
    health and reflection plus those ``(add_function, servicer, name)`` services only.
    ``rules_work`` replaces what a Rules worker does with a call (tests stall one on purpose)."""

    def __init__(self, settings: ServerSettings, services: list[Any] | None = None,
                 rules_work: Any = None) -> None:
        from . import serve

        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="arena-server", daemon=True)
        self.thread.start()
        starting = (serve.start(settings) if services is None
                    else start_server(settings, services, rules_work=rules_work))
        self.running: RunningServer = self.call(starting)
        host = settings.address.rsplit(":", 1)[0]
        self.address = f"{host}:{self.running.port}"

    def call(self, coro: Any, timeout: float = 30) -> Any:
        """Run a coroutine on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self, grace: float = 1.0) -> None:
        self.call(self.running.stop(grace))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
