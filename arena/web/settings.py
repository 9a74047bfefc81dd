"""Settings of the web face, from the environment (read when the app is built).

``ARENA_WEB_ADDRESS``   where ``arena web`` listens (default ``127.0.0.1:8080``).
``ARENA_GRAFANA_URL``   the Grafana dashboard the status page links to (default the compose
                        file's ``http://127.0.0.1:3000/d/arena``; empty hides the link).
``ARENA_DOCS_DIR``      folder of the games' Markdown docs (default ``docs/games`` of the
                        source tree this package was installed from).

The limits on reads (``ARENA_WEB_READ_RATE``, ``ARENA_REPLAY_CACHE_MB``,
``ARENA_LIVE_SNAPSHOT_SECONDS``) come from the validated model, ``arena.settings``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import arena

DEFAULT_ADDRESS = "127.0.0.1:8080"
DEFAULT_GRAFANA = "http://127.0.0.1:3000/d/arena"
SOURCE_DOCS = Path(arena.__file__).resolve().parents[1] / "docs" / "games"


@dataclass(frozen=True)
class WebSettings:
    """A snapshot of the web face's settings."""

    address: str
    grafana_url: str
    docs_dir: Path
    read_rate: str = ""  # requests per peer address (``arena.ratelimit`` notation); empty: no limit
    replay_cache_bytes: int = 64 << 20  # replays of finished matches kept, by the size of their JSON
    live_snapshot_seconds: float = 2.0  # how long every viewer shares one read of a live page

    @property
    def host(self) -> str:
        return self.address.rsplit(":", 1)[0]

    @property
    def port(self) -> int:
        return int(self.address.rsplit(":", 1)[1])


def web_settings() -> WebSettings:
    from arena.settings import load

    env = os.environ
    model = load()
    return WebSettings(
        address=env.get("ARENA_WEB_ADDRESS", DEFAULT_ADDRESS),
        grafana_url=env.get("ARENA_GRAFANA_URL", DEFAULT_GRAFANA),
        docs_dir=Path(env.get("ARENA_DOCS_DIR") or SOURCE_DOCS),
        read_rate=model.web_read_rate,
        replay_cache_bytes=model.replay_cache_mb << 20,
        live_snapshot_seconds=model.live_snapshot_seconds,
    )
