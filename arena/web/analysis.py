"""Analyses on the web face: the kept one read from the store, a new one asked of the Arena
service.

The web face reads, never writes: asking for an analysis is a write (a task queued, a row
kept), so the route that asks is only a forwarder to ``Arena.AnalyseMatch`` (where the
disclosure rule, the rate per caller, the queue bound and the workers are), and what it
answers is mapped to HTTP. The store is only ever read here, through ``arena.store.analyses``
and its one disclosure check: a sealed match has no analysis to show (404, as its replay).
"""

from __future__ import annotations

import json
from typing import Any

import grpc
from arena_bot import sdk
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.errors import ArenaError, NotFound
from arena.referee.analysis import AnalysisBudget
from arena.store import analyses, db

from .settings import WebSettings

# Seconds the Arena service has to answer a forwarded request.
CALL_SECONDS = 10.0
# gRPC refusals as HTTP statuses.
STATUSES = {
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 503,
}


class Refused(ArenaError):
    """The Arena service refused or could not take the request: ``status`` is its HTTP
    status, ``retry_after`` the seconds it asked to wait, if any."""

    def __init__(self, message: str, status: int, retry_after: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


def budget(settings: WebSettings) -> AnalysisBudget:
    """The budget whose analyses the web face shows (the server's: ``ARENA_ANALYSIS_*``)."""
    return AnalysisBudget.from_settings(settings)


def kept(url: str | None, match_id: int, seat: int, settings: WebSettings) -> dict[str, Any]:
    """``{match_id, seat, key, analysis}``: the kept analysis, or null when none is kept yet.
    ``NotFound`` for no such match and for a sealed one (nothing of it may be shown);
    ``BadInput`` for a seat the match does not have."""
    chosen = budget(settings)
    try:
        with db.read(url) as connection:
            found = analyses.lookup(connection, match_id, seat, chosen)
    except analyses.Sealed:
        raise NotFound(f"no analysis for match {match_id}: its deal is not over") from None
    return {"match_id": match_id, "seat": seat, "key": chosen.key, "analysis": found}


def ask(settings: WebSettings, match_id: int, seat: int) -> dict[str, Any]:
    """Forward a request for an analysis to the Arena service: ``{status, analysis}``
    (``queued``, ``done``, or ``failed`` with its ``reason``: the last computation failed and
    asking again queues it again); ``Refused`` with the service's reason otherwise."""
    request = arena_pb2.AnalyseMatchRequest(match_id=str(match_id), seat=seat)
    with _channel(settings) as channel:
        try:
            reply = arena_pb2_grpc.ArenaStub(channel).AnalyseMatch(request, timeout=CALL_SECONDS)
        except grpc.RpcError as error:
            code = error.code()
            wait = retry_after(error)
            reason = error.details() or code.name
            if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                reason = "the arena service cannot be reached: try again later"
            raise Refused(reason, STATUSES.get(code, 502), str(wait) if wait else None) from None
    done = reply.status == "done"
    answer = {"status": reply.status, "analysis": json.loads(reply.analysis_json) if done else None}
    if reply.status == "failed":
        answer["reason"] = reply.reason
    return answer


def retry_after(error: grpc.RpcError) -> str | None:
    """The ``retry-after`` seconds a refusal carries in its trailing metadata, if any."""
    trailing: Any = error.trailing_metadata() or ()  # type: ignore[attr-defined]
    for key, value in trailing:
        if key == "retry-after":
            return str(value)
    return None


def _channel(settings: WebSettings) -> grpc.Channel:
    """A channel to the Arena service: the SDK's ``Connection``, the one home of channels to
    the server, trusting the server's own certificate when it serves TLS."""
    return sdk.Connection(address=settings.arena_address, token="", tls_ca=settings.arena_tls_cert,
                          tls=False).blocking_channel()
