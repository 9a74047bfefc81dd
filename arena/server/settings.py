"""Settings of the gRPC server, from the environment, validated once at start-up (by
``arena.settings``, which types, ranges and documents every ``ARENA_*`` variable).

The table of every setting, with its range and meaning, is generated from that model into
docs/operations.md (``python -m arena.settings --markdown``).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass


@dataclass(frozen=True)
class ServerSettings:
    address: str = "127.0.0.1:50051"
    admin_token: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    max_message_bytes: int = 1024 * 1024
    max_streams: int = 16
    max_matches_per_bot: int = 8
    keepalive_ms: int = 20_000
    grace_seconds: float = 5.0
    registration: str = "auto"
    auth_failures_per_minute: int = 20
    # The Rules service's worker pool and limits (see ``arena.settings`` for each one's meaning).
    rules_workers: int = 2
    rules_queue: int = 64
    rules_call_seconds: float = 5.0
    rules_cpu_seconds: int = 5
    rules_memory_mb: int = 256
    rules_calls_per_second: float = 2000.0
    rules_burst: int = 4000
    # Reads of the Arena service per peer (``arena.ratelimit`` notation). Unlimited unless
    # asked: servers built in code (tests, benchmarks) choose; ``from_env`` gives the model's.
    read_rate: str = ""
    follow_streams: int = 64
    follow_streams_per_peer: int = 4
    # What one bot may ask of the others with Arena.Challenge (see arena.settings).
    challenge_move_seconds: float = 10.0
    challenge_bank_seconds: float = 60.0
    challenges_per_minute: int = 10
    challenges_at_once: int = 8

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

    @staticmethod
    def from_env(env: dict[str, str] | None = None) -> ServerSettings:
        """The settings from ``env`` (default the environment and ``ARENA_CONFIG``'s file), as
        validated by ``arena.settings``; a wrong value raises ``ValueError``."""
        from arena.settings import load

        model = load(env)
        return ServerSettings(
            address=model.grpc_address,
            admin_token=model.admin_token or None,
            tls_cert=model.tls_cert or None,
            tls_key=model.tls_key or None,
            max_message_bytes=model.max_message_bytes,
            max_streams=model.max_streams,
            max_matches_per_bot=model.max_matches_per_bot,
            registration=model.registration,
            auth_failures_per_minute=model.auth_failures_per_minute,
            rules_workers=model.rules_workers,
            rules_queue=model.rules_queue,
            rules_call_seconds=model.rules_call_seconds,
            rules_cpu_seconds=model.rules_cpu_seconds,
            rules_memory_mb=model.rules_memory_mb,
            rules_calls_per_second=model.rules_calls_per_second,
            rules_burst=model.rules_burst,
            read_rate=model.read_rate,
            follow_streams=model.follow_streams,
            follow_streams_per_peer=model.follow_streams_per_peer,
            challenge_move_seconds=model.challenge_move_seconds,
            challenge_bank_seconds=model.challenge_bank_seconds,
            challenges_per_minute=model.challenges_per_minute,
            challenges_at_once=model.challenges_at_once,
        )

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
