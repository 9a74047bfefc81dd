"""Settings of the gRPC server: a typed view of the settings of their own name in the one model,
``arena.settings.ArenaSettings`` (``from_settings``), or built in code (tests, benchmarks).

The table of every setting, with its range and meaning, is generated from that model into
docs/operations.md (``python -m arena.settings --markdown``).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, fields

from arena.settings import ArenaSettings

DEFAULT = ArenaSettings.model_construct()  # the model's defaults, reading no environment


@dataclass(frozen=True)
class ServerSettings:
    address: str = DEFAULT.grpc_address
    admin_token: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    max_message_bytes: int = DEFAULT.max_message_bytes
    max_streams: int = DEFAULT.max_streams
    max_matches_per_bot: int = DEFAULT.max_matches_per_bot
    keepalive_ms: int = 20_000
    # How long a stopping server lets calls in flight finish (not ``ARENA_GRACE_SECONDS``, a
    # disconnected bot's grace).
    shutdown_grace_seconds: float = 5.0
    registration: str = DEFAULT.registration
    auth_failures_per_minute: int = DEFAULT.auth_failures_per_minute
    # The Rules service's worker pool and limits (see ``arena.settings`` for each one's meaning).
    rules_workers: int = DEFAULT.rules_workers
    rules_queue: int = DEFAULT.rules_queue
    rules_call_seconds: float = DEFAULT.rules_call_seconds
    rules_cpu_seconds: int = DEFAULT.rules_cpu_seconds
    rules_memory_mb: int = DEFAULT.rules_memory_mb
    rules_calls_per_second: float = DEFAULT.rules_calls_per_second
    rules_burst: int = DEFAULT.rules_burst
    # Reads of the Arena service per peer (``arena.ratelimit`` notation). Unlimited unless
    # asked: servers built in code (tests, benchmarks) choose; ``from_settings`` gives the model's.
    read_rate: str = ""
    follow_streams: int = DEFAULT.follow_streams
    follow_streams_per_peer: int = DEFAULT.follow_streams_per_peer
    # What one bot may ask of the others with Arena.Challenge (see arena.settings).
    challenge_move_seconds: float = DEFAULT.challenge_move_seconds
    challenge_bank_seconds: float = DEFAULT.challenge_bank_seconds
    challenges_per_minute: int = DEFAULT.challenges_per_minute
    challenges_at_once: int = DEFAULT.challenges_at_once
    # Analyses of finished matches (see arena.settings).
    analysis_worlds: int = DEFAULT.analysis_worlds
    analysis_decisions: int = DEFAULT.analysis_decisions
    analysis_plies: int = DEFAULT.analysis_plies
    analysis_seconds: float = DEFAULT.analysis_seconds
    analysis_per_minute: int = DEFAULT.analysis_per_minute
    analysis_queue: int = DEFAULT.analysis_queue
    # The ladder: off unless asked in servers built in code (tests, benchmarks, the demo);
    # ``from_settings`` gives the model's (on).
    ladder: bool = False

    @staticmethod
    def from_settings(settings: ArenaSettings) -> ServerSettings:
        """The server's view of ``settings``: every field of the same name, and the address
        from ``grpc_address``."""
        shared = {f.name for f in fields(ServerSettings)} & set(ArenaSettings.model_fields)
        return ServerSettings(address=settings.grpc_address, **settings.model_dump(include=shared))

    @property
    def host(self) -> str:
        """The host part of ``address`` (``[::1]:50051`` -> ``::1``)."""
        return self.address.rsplit(":", 1)[0].strip("[]")

    @property
    def loopback(self) -> bool:
        """True when the server listens on a loopback address only: an IP address in
        127.0.0.0/8 or ``::1`` (read by ``ipaddress``), or the name ``localhost`` exactly.
        Any other name is not loopback, whatever it starts with: ``127.example.org`` and
        ``localhost.example.org`` resolve wherever their owner likes."""
        return is_loopback(self.host)

    @property
    def plaintext_exposed(self) -> bool:
        """True when the server listens beyond this machine without TLS: tokens and moves
        then cross the network in clear text."""
        return not self.loopback and not (self.tls_cert and self.tls_key)

    @property
    def registration_open(self) -> bool:
        """Whether anyone may register a bot (else only the admin)."""
        return self.registration == "open" or (self.registration == "auto" and self.loopback)

    def channel_options(self) -> list[tuple[str, int]]:
        """gRPC server options: message size limits, keepalive, streams per connection."""
        return [
            ("grpc.max_receive_message_length", self.max_message_bytes),
            ("grpc.max_send_message_length", 4 * self.max_message_bytes),
            ("grpc.max_concurrent_streams", self.max_streams),
            ("grpc.keepalive_time_ms", self.keepalive_ms),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
            ("grpc.keepalive_permit_without_calls", 1),
        ]


def is_loopback(host: str) -> bool:
    """Whether ``host`` (no port, no brackets) is a loopback address or exactly ``localhost``."""
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False  # a name, and no name but localhost is taken on trust
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1
    return address.is_loopback or (mapped is not None and mapped.is_loopback)
