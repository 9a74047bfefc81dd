"""Credentials are checked once, for every service, before any servicer runs.

A call without an ``authorization`` entry is anonymous and passes untouched. A call that
presents one (a bot's token, the admin token, or anything else) must present a good one:
a wrong, revoked or malformed credential gets UNAUTHENTICATED and counts against the peer's
failed-attempt limit (``Access``), whatever the call, even one anonymous callers may make
(``ListGames``, a Rules call, ``RegisterBot`` while registration is open). Served as
anonymous instead, a revoked bot would go on using the server without noticing, and a
guessed token would cost nothing to try.

The caller found is handed to the servicer (``access.RESOLVED``), so ``Access.caller`` does
not look the token up again. Exempt: standard health checking (probes carry no credentials,
and must never fail for a reason other than health) and the bot gateway, whose stream
authenticates its own token against the same limiter.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import grpc

from .access import RESOLVED, Access, presents_credentials

EXEMPT = ("/grpc.health.v1.Health/", "/arena.v1.BotGateway/")


class TokenCheck(grpc.aio.ServerInterceptor):
    """The server interceptor: resolves the caller of every call that presents credentials."""

    def __init__(self, access: Access) -> None:
        self.access = access

    async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]],
                                details: grpc.HandlerCallDetails) -> Any:
        handler = await continuation(details)
        if handler is None or details.method.startswith(EXEMPT):
            return handler
        if not presents_credentials(details.invocation_metadata):
            return handler  # anonymous: nothing to check, and nothing to slow down
        return _checked(handler, self.access)


def _checked(handler: Any, access: Access) -> Any:
    """``handler`` with its behaviour run after ``access`` has resolved the caller."""
    if handler.request_streaming and handler.response_streaming:
        make, behaviour = grpc.stream_stream_rpc_method_handler, handler.stream_stream
    elif handler.request_streaming:
        make, behaviour = grpc.stream_unary_rpc_method_handler, handler.stream_unary
    elif handler.response_streaming:
        make, behaviour = grpc.unary_stream_rpc_method_handler, handler.unary_stream
    else:
        make, behaviour = grpc.unary_unary_rpc_method_handler, handler.unary_unary

    # gRPC serves each call in a task of its own, and a task runs in its own copy of the
    # context: the caller set here is seen by this call's servicer only, and goes with it.
    if inspect.isasyncgenfunction(behaviour):
        async def streamed(request: Any, context: Any) -> Any:
            RESOLVED.set(await access.resolve(context))
            async for reply in behaviour(request, context):
                yield reply

        wrapped: Any = streamed
    else:
        async def answered(request: Any, context: Any) -> Any:
            RESOLVED.set(await access.resolve(context))
            result = behaviour(request, context)
            return await result if inspect.isawaitable(result) else result

        wrapped = answered
    return make(wrapped, request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer)
