"""Serving the web app from a background thread: for ``arena serve`` to run the web face
beside the gRPC services, and for tests and benchmarks that need a real HTTP server."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import uvicorn
from fastapi import FastAPI


@dataclass
class BackgroundServer:
    """A uvicorn server running on its own thread; ``stop()`` shuts it down."""

    server: uvicorn.Server
    thread: threading.Thread

    @property
    def port(self) -> int:
        """The port listened on (the one the system chose when started with port 0)."""
        return int(self.server.servers[0].sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://{self.server.config.host}:{self.port}"

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)


def start(app: FastAPI, host: str = "127.0.0.1", port: int = 0, timeout: float = 20.0) -> BackgroundServer:
    """Start serving ``app`` on host:port (0: a free port) and return once it accepts
    connections."""
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, name=f"arena-web-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"the web server did not start on {host}:{port}")
        time.sleep(0.02)
    return BackgroundServer(server, thread)
