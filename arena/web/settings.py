"""Settings of the web face, from the environment (read when the app is built).

``ARENA_WEB_ADDRESS``   where ``arena web`` listens (default ``127.0.0.1:8080``).
``ARENA_GRAFANA_URL``   the Grafana dashboard the status page links to (default the compose
                        file's ``http://127.0.0.1:3000/d/arena``; empty hides the link).
``ARENA_DOCS_DIR``      folder of the games' Markdown docs (default ``docs/games`` of the
                        source tree this package was installed from).
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

    @property
    def host(self) -> str:
        return self.address.rsplit(":", 1)[0]

    @property
    def port(self) -> int:
        return int(self.address.rsplit(":", 1)[1])


def web_settings() -> WebSettings:
    env = os.environ
    return WebSettings(
        address=env.get("ARENA_WEB_ADDRESS", DEFAULT_ADDRESS),
        grafana_url=env.get("ARENA_GRAFANA_URL", DEFAULT_GRAFANA),
        docs_dir=Path(env.get("ARENA_DOCS_DIR") or SOURCE_DOCS),
    )
