"""Who is calling: anonymous, a bot (its token) or the admin (the admin token).

Every Arena call starts by asking ``Access.caller``; the authorization table in
docs/operations.md ("Who may do what") says what each kind of caller may do, and the
servicer enforces it call by call. Credentials presented to any service are resolved once,
before the servicer runs, by ``arena.server.token_check``, so that the open calls (reads,
Rules, RegisterBot) refuse a bad token as the others do. A token that is presented but wrong is
an error (UNAUTHENTICATED), never silently anonymous, and each such failure counts against the peer:
past ``ARENA_AUTH_FAILURES_PER_MINUTE`` failures in a minute, a peer's credentialed calls are
refused with RESOURCE_EXHAUSTED until the minute has passed, so tokens cannot be guessed at
line speed.
"""

from __future__ import annotations

import hmac
import time
from collections import deque
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import grpc

from arena.referee.gateway import BotIdentity, bearer_token, peer_address

WINDOW = 60.0  # seconds over which failed attempts are counted


@dataclass(frozen=True)
class Caller:
    """The authenticated caller of one call."""

    admin: bool = False
    bot: BotIdentity | None = None

    @property
    def anonymous(self) -> bool:
        return not self.admin and self.bot is None


# The caller of the call being served, once ``TokenCheck`` (arena.server.token_check) has
# resolved it for every service: the servicers then ask ``Access.caller`` without looking the
# token up a second time.
RESOLVED: ContextVar[Caller | None] = ContextVar("arena_caller", default=None)


class WindowLimiter:
    """At most ``limit`` events per key (a peer address, a token) in any ``window`` seconds,
    counted over a sliding window; ``limit`` 0 means no limit. Used for failed authentications
    and for Rules calls.

    Events less than ``window / SLOTS`` apart are counted together, so a key costs at most
    ``SLOTS`` entries however high its limit (an event then leaves the window up to that much
    later: never sooner). Limits up to ``SLOTS`` are counted event by event, exactly."""

    SLOTS = 64

    def __init__(self, limit: int, window: float, clock: Callable[[], float] = time.monotonic,
                 max_keys: int = 100_000) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.max_keys = max_keys
        self.tick = window / self.SLOTS if limit > self.SLOTS else 0.0
        self.events: dict[str, deque[list[float]]] = {}  # key -> [time, count] oldest first

    def _recent(self, key: str) -> deque[list[float]]:
        found = self.events.get(key)
        if found is None:
            return deque()
        cutoff = self.clock() - self.window
        while found and found[0][0] < cutoff:
            found.popleft()
        if not found:
            del self.events[key]
        return found

    def count(self, key: str) -> int:
        """Events of ``key`` in the window."""
        return int(sum(n for _, n in self._recent(key)))

    def blocked(self, key: str) -> bool:
        return self.limit > 0 and self.count(key) >= self.limit

    def record(self, key: str) -> None:
        if self.limit <= 0:
            return
        now = self.clock()
        recent = self._recent(key)
        if recent and self.tick and now - recent[-1][0] < self.tick:
            recent[-1][1] += 1
            return
        self.events.setdefault(key, recent).append([now, 1])
        if len(self.events) > self.max_keys:  # bounded memory under a spray of addresses
            self.events.pop(next(iter(self.events)))

    def retry_after(self, key: str) -> float:
        """Seconds until ``key`` may act again (0 when it may now): until enough of its
        oldest events have left the window."""
        if not self.blocked(key):
            return 0.0
        excess = self.count(key) - self.limit + 1
        for when, n in self._recent(key):
            excess -= int(n)
            if excess <= 0:
                return max(0.0, when + self.window - self.clock())
        return 0.0


class AttemptLimiter(WindowLimiter):
    """Failed authentication attempts per peer address over the last minute."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(per_minute, WINDOW, clock)
        self.per_minute = per_minute

    def failed(self, peer: str) -> None:
        self.record(peer)


class Access:
    """Resolves callers from their metadata; ``authenticate`` maps a bot token to its bot."""

    def __init__(self, admin_token: str | None, authenticate: Callable[[str], Awaitable[BotIdentity | None]],
                 limiter: AttemptLimiter) -> None:
        self.admin_token = admin_token
        self.authenticate = authenticate
        self.limiter = limiter

    def is_admin_token(self, token: str) -> bool:
        return bool(self.admin_token) and hmac.compare_digest(token.encode(), (self.admin_token or "").encode())

    async def caller(self, context: Any) -> Caller:
        """Who is calling, or the call is aborted (a wrong token, or too many of them)."""
        known = RESOLVED.get()
        return known if known is not None else await self.resolve(context)

    async def resolve(self, context: Any) -> Caller:
        """Who is calling, from the call's metadata: anonymous without credentials; any
        credentials presented must be good, or the call is aborted (UNAUTHENTICATED, or
        RESOURCE_EXHAUSTED once the peer has failed too often)."""
        metadata = context.invocation_metadata()
        if not presents_credentials(metadata):
            return Caller()
        peer = peer_address(context)
        if self.limiter.blocked(peer):
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                "too many failed authentication attempts: try again in a minute")
        token = bearer_token(metadata)
        if token is not None and self.is_admin_token(token):
            return Caller(admin=True)
        identity = await self.authenticate(token) if token is not None else None
        if identity is None:
            self.limiter.failed(peer)
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "unknown or revoked token" if token is not None
                                else "credentials must be 'authorization: Bearer <token>'")
        return Caller(bot=identity)

    async def require_admin(self, context: Any) -> Caller:
        who = await self.caller(context)
        if not who.admin:
            if not self.admin_token:
                await context.abort(grpc.StatusCode.PERMISSION_DENIED,
                                    "admin calls are disabled: the server has no ARENA_ADMIN_TOKEN")
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "admin token required")
        return who

    async def require_bot(self, context: Any) -> Caller:
        who = await self.caller(context)
        if who.anonymous:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "a bot's token is required (authorization: Bearer <token>)")
        return who


def presents_credentials(metadata: Any) -> bool:
    """Whether the call carries an ``authorization`` entry at all (well-formed or not)."""
    return any(key.lower() == "authorization" for key, _ in metadata or ())
