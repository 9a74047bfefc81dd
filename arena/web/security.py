"""Headers every answer of the web face carries, and redirects that never name a host.

* ``Content-Security-Policy``: the pages load scripts, style sheets and data from this origin
  only, run no inline script, and may not be framed (``frame-ancestors 'none'``; ``X-Frame-Options``
  says the same to older browsers).
* ``X-Content-Type-Options: nosniff``: a replay's JSON is never run as a script.
* Redirects (Starlette's trailing-slash redirect, ``/favicon.ico``) carry a path, never an
  absolute URL: the absolute one is built from the request's ``Host`` header, which the
  client chooses, so a forged ``Host`` would send a reader elsewhere (or poison a cache).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

# Style attributes are allowed (the games' docs render table alignment as ``style=``), style
# sheets and scripts only from this origin.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]


def relative(location: str) -> str:
    """``location`` without scheme and host: ``http://evil.example/a?b`` -> ``/a?b``."""
    parts = urlsplit(location)
    path = parts.path or "/"
    if path.startswith("//"):  # "//host/x" would still name a host
        path = "/" + path.lstrip("/")
    return urlunsplit(("", "", path, parts.query, parts.fragment))


class SecurityHeaders:
    """ASGI middleware: adds ``HEADERS`` to every HTTP answer and makes ``Location`` relative."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def secured(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() not in {name for name, _ in HEADERS}]
                headers = [(k, relative(v.decode("latin-1")).encode("latin-1")) if k.lower() == b"location" else (k, v)
                           for k, v in headers]
                message["headers"] = [*headers, *HEADERS]
            await send(message)

        await self.app(scope, receive, secured)
