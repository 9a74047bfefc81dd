"""Settings of the web face: a typed view of the web settings of the one model,
``arena.settings.ArenaSettings`` (``from_settings``), built when the app is.

``address`` is ``ARENA_WEB_ADDRESS``; ``grafana_url`` ``ARENA_GRAFANA_URL`` (empty hides the
link); ``docs_dir`` ``ARENA_DOCS_DIR``, by default ``docs/games`` of the source tree this
package was installed from; the limits on reads are ``ARENA_WEB_READ_RATE``,
``ARENA_REPLAY_CACHE_MB`` and ``ARENA_LIVE_SNAPSHOT_SECONDS``; requests for an analysis are
forwarded to the Arena service at ``ARENA_GRPC_ADDRESS`` (``arena.web.analysis``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import arena
from arena.settings import ArenaSettings

SOURCE_DOCS = Path(arena.__file__).resolve().parents[1] / "docs" / "games"


@dataclass(frozen=True)
class WebSettings:
    """The web face's settings."""

    address: str
    grafana_url: str
    docs_dir: Path
    read_rate: str  # requests per peer address (``arena.ratelimit`` notation); empty: no limit
    replay_cache_bytes: int  # replays of finished matches kept, by the size of their JSON
    live_snapshot_seconds: float  # how long every viewer shares one read of a live page
    ladder_seconds: float = 2.0  # the ladder's pass, to tell its fresh view of who is online from a stale one
    # The Arena service a request for an analysis is forwarded to (the web face writes
    # nothing itself), the budget whose analyses it shows, and how many one reader may ask for.
    arena_address: str = "127.0.0.1:50051"
    arena_tls_cert: str | None = None  # the server's certificate, trusted when it serves TLS
    analysis_worlds: int = 24
    analysis_decisions: int = 120
    analysis_plies: int = 1_500_000
    analysis_per_minute: int = 6

    @staticmethod
    def from_settings(settings: ArenaSettings) -> WebSettings:
        return WebSettings(
            address=settings.web_address,
            grafana_url=settings.grafana_url,
            docs_dir=Path(settings.docs_dir) if settings.docs_dir else SOURCE_DOCS,
            read_rate=settings.web_read_rate,
            replay_cache_bytes=settings.replay_cache_mb << 20,
            live_snapshot_seconds=settings.live_snapshot_seconds,
            ladder_seconds=settings.ladder_seconds,
            arena_address=local_address(settings.grpc_address),
            arena_tls_cert=settings.tls_cert,
            analysis_worlds=settings.analysis_worlds,
            analysis_decisions=settings.analysis_decisions,
            analysis_plies=settings.analysis_plies,
            analysis_per_minute=settings.analysis_per_minute,
        )

    @property
    def host(self) -> str:
        return self.address.rsplit(":", 1)[0]

    @property
    def port(self) -> int:
        return int(self.address.rsplit(":", 1)[1])


def local_address(address: str) -> str:
    """Where this machine reaches a server listening on ``address``: a wildcard host (``0.0.0.0``,
    ``[::]``) is reached on the loopback address."""
    host, port = address.rsplit(":", 1)
    return f"127.0.0.1:{port}" if host.strip("[]") in ("0.0.0.0", "::", "") else address
