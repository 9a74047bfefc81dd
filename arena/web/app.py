"""The web application: pages, the JSON API and the static assets, on one FastAPI app.

``create_app(database_url)`` reads that store (default ``ARENA_DATABASE_URL``) through
``arena.store.db.read`` only; it never writes and never migrates."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from arena.errors import NotFound
from arena.ratelimit import RateLimiter, per_minute
from arena.referee.transcript import ReplayMismatch
from arena.settings import load

from . import api, caches, pages
from .security import SecurityHeaders
from .settings import WebSettings
from .throttle import Throttle

STATIC = Path(__file__).parent / "static"


def _is_api(request: Request) -> bool:
    return request.url.path.startswith(api.router.prefix)


def _error(request: Request, status: int, message: str) -> Response:
    if _is_api(request):
        return JSONResponse({"detail": message}, status_code=status)
    response = pages.render(request, "error.html", status=status, message=message)
    response.status_code = status
    return response


class ServerTiming:
    """ASGI middleware: a ``Server-Timing: app;dur=MS`` header on every response, the time
    from the request's arrival to its response headers (what benchmarks and browsers read)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()

        async def timed(message) -> None:
            if message["type"] == "http.response.start":
                ms = (time.perf_counter() - started) * 1000
                message["headers"] = [*message.get("headers", []), (b"server-timing", f"app;dur={ms:.2f}".encode())]
            await send(message)

        await self.app(scope, receive, timed)


def _unknown(error: RequestValidationError) -> str | None:
    """For a request whose only faults are in its path (an id that is no 64-bit integer),
    the 404 message naming what it asked for; else None."""
    faults = error.errors()
    if not faults or any(f.get("loc", ("",))[0] != "path" for f in faults):
        return None
    name, value = str(faults[0]["loc"][-1]), faults[0].get("input")
    return f"no {name.removesuffix('_id')} {value!r}"


def create_app(database_url: str | None = None, read_rate: str | None = None,
               settings: WebSettings | None = None) -> FastAPI:
    """The arena's web face over the store at ``database_url`` with ``settings`` (default the
    process's); ``read_rate`` (default the settings', empty: none) limits each reader's requests."""
    settings = settings or WebSettings.from_settings(load())
    caches.configure(settings.replay_cache_bytes, settings.live_snapshot_seconds)
    app = FastAPI(
        title="Arena", version="1", summary="Read-only API of the arena: games, leaderboards, bots, "
        "tournaments, matches and their replays.",
        # The interactive docs FastAPI offers load their assets from a CDN; /api renders the
        # schema on the server instead, so the reference works offline.
        openapi_url="/api/v1/openapi.json", docs_url=None, redoc_url=None,
    )
    app.state.database_url = database_url
    app.state.settings = settings
    # Requests for an analysis per reader's address (each is forwarded to the Arena service).
    app.state.analysis_rate = RateLimiter(per_minute(settings.analysis_per_minute))
    app.add_middleware(Throttle, limiter=RateLimiter(settings.read_rate if read_rate is None else read_rate))
    app.add_middleware(SecurityHeaders)
    app.add_middleware(ServerTiming)
    app.include_router(api.router)
    app.include_router(pages.router, include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return RedirectResponse("/static/favicon.svg", status_code=308)

    @app.exception_handler(NotFound)
    def not_found(request: Request, error: NotFound) -> Response:
        return _error(request, 404, str(error.args[0]) if error.args else "not found")

    @app.exception_handler(ReplayMismatch)
    def cannot_replay(request: Request, error: ReplayMismatch) -> Response:
        # A transcript recorded under other rules (the game's version changed since).
        return _error(request, 409, f"this match cannot be replayed with the current rules: {error}")

    @app.exception_handler(ValueError)
    def bad_request(request: Request, error: ValueError) -> Response:
        return _error(request, 400, str(error))

    @app.exception_handler(RequestValidationError)
    def invalid(request: Request, error: RequestValidationError) -> Response:
        if (unknown := _unknown(error)) is not None:
            return _error(request, 404, unknown)
        if _is_api(request):
            return JSONResponse({"detail": jsonable_encoder(error.errors())}, status_code=422)
        return _error(request, 400, "; ".join(str(e.get("msg")) for e in error.errors()))

    return app
