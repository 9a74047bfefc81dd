"""Settings of the gRPC server, from the environment, validated once at start-up (by
``arena.settings``, which types, ranges and documents every ``ARENA_*`` variable).

The table of every setting, with its range and meaning, is generated from that model into
docs/operations.md (``python -m arena.settings --markdown``).
"""

from __future__ import annotations

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
    # What one bot may ask of the others with Arena.Challenge (see arena.settings).
    challenge_move_seconds: float = 10.0
    challenge_bank_seconds: float = 60.0
    challenges_per_minute: int = 10
    challenges_at_once: int = 8

    @property
    def loopback(self) -> bool:
        """True when the server listens on a loopback address only."""
        host = self.address.rsplit(":", 1)[0].strip("[]")
        return host in ("localhost", "::1") or host.startswith("127.")

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
