"""Who is calling: anonymous, a bot (its token) or the admin (the admin token).

Every Arena call starts by asking ``Access.caller``; the authorization table in
docs/operations.md ("Who may do what") says what each kind of caller may do, and the
servicer enforces it call by call. Credentials presented to any service are resolved once,
before the servicer runs, by ``arena.server.token_check``, so that the open calls (reads,
Rules, RegisterBot) refuse a bad token as the others do. A token that is presented but wrong is
an error (UNAUTHENTICATED), never silently anonymous, and each such failure counts against the peer:
past ``ARENA_AUTH_FAILURES_PER_MINUTE`` failures in a minute, a peer's credentialed calls are
refused with RESOURCE_EXHAUSTED until its oldest failure is a minute old (the refusal says
how long, see ``arena.ratelimit``), so tokens cannot be guessed at line speed.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import grpc

from arena.ratelimit import RateLimiter
from arena.referee.gateway import BotIdentity, bearer_token, peer_address


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


class Access:
    """Resolves callers from their metadata; ``authenticate`` maps a bot token to its bot."""

    def __init__(self, admin_token: str | None, authenticate: Callable[[str], Awaitable[BotIdentity | None]],
                 limiter: RateLimiter) -> None:
        self.admin_token = admin_token
        self.authenticate = authenticate
        self.limiter = limiter  # failed authentications per peer (``ARENA_AUTH_FAILURES_PER_MINUTE``)

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
        wait = self.limiter.wait(peer)  # only failures count: checking costs nothing
        if wait is not None:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"too many failed authentication attempts: try again in {wait} s",
                                trailing_metadata=(("retry-after", str(wait)),))
        token = bearer_token(metadata)
        if token is not None and self.is_admin_token(token):
            return Caller(admin=True)
        identity = await self.authenticate(token) if token is not None else None
        if identity is None:
            self.limiter.hit(peer)
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

