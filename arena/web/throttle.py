"""Per-peer rate limit of the web face (``ARENA_WEB_READ_RATE``, see ``arena.ratelimit``).

Pages and the JSON API count against the reader's address; static files (a stylesheet, two
scripts, an icon: small, cached by browsers) do not. A reader past the rate gets 429 with
``Retry-After`` and a one-line reason, as JSON under ``/api/`` and as text elsewhere.
"""

from __future__ import annotations

import json
from typing import Any

from arena.ratelimit import RateLimiter

FREE = ("/static/", "/favicon.ico")


class Throttle:
    """ASGI middleware: 429 for a peer past ``limiter``'s rates."""

    def __init__(self, app: Any, limiter: RateLimiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self.limiter.enabled or scope["path"].startswith(FREE):
            await self.app(scope, receive, send)
            return
        peer = (scope.get("client") or ("unknown",))[0]
        wait = self.limiter.hit(peer)
        if wait is None:
            await self.app(scope, receive, send)
            return
        reason = f"too many requests from this address: try again in {wait} s"
        if scope["path"].startswith("/api/"):
            body, kind = json.dumps({"detail": reason}).encode(), b"application/json"
        else:
            body, kind = reason.encode() + b"\n", b"text/plain; charset=utf-8"
        await send({"type": "http.response.start", "status": 429, "headers": [
            (b"content-type", kind), (b"content-length", str(len(body)).encode()),
            (b"retry-after", str(wait).encode())]})
        await send({"type": "http.response.body", "body": body})
