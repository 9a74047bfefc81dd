"""``arena.v1.Rules``: the rules engine over gRPC, stateless. States travel as the JSON of
``State.to_json``; nothing is kept between calls.

Anyone may call it, so every call is treated as a stranger's: it is rate-limited per peer
address and per bot token, then run in a worker process of ``RulesPool`` (bounded in wall
clock, CPU time and memory), where the client's state is checked against its game's schema
before any game code runs. The event loop here only admits calls and relays replies.
"""

from __future__ import annotations

import hashlib
from typing import Any

import grpc
from arena_bot.v1 import rules_pb2, rules_pb2_grpc
from google.protobuf.message import Message

from arena.ratelimit import RateLimiter, average_with_burst
from arena.referee.gateway import bearer_token, peer_address

from .rules_pool import RulesPool
from .rules_work import MAX_STATE_JSON, brief, json_object

__all__ = ["MAX_STATE_JSON", "RateLimits", "RulesService", "brief", "json_object"]


class RateLimits:
    """Rules calls per peer address and per bot token, one count each: ``burst`` at once, then
    ``per_second`` on average (``arena.ratelimit.average_with_burst``)."""

    def __init__(self, per_second: float, burst: int) -> None:
        self.limiter = RateLimiter(average_with_burst(per_second, burst))

    def wait(self, context: Any) -> int | None:
        """``None`` and the call is counted, or the whole seconds this caller must wait."""
        keys = [f"peer {peer_address(context)}"]
        token = bearer_token(context.invocation_metadata())
        if token:  # kept as a digest only: the limiter's memory holds no credential
            keys.append(f"token {hashlib.sha256(token.encode()).hexdigest()}")
        return self.limiter.hit(*keys)


class RulesService(rules_pb2_grpc.RulesServicer):
    """Every call is a pure function of its request, computed in the worker pool."""

    def __init__(self, pool: RulesPool, limits: RateLimits | None = None) -> None:
        self.pool = pool
        self.limits = limits

    async def NewState(self, request: rules_pb2.NewStateRequest, context: Any) -> rules_pb2.StateReply:
        return await self._run("NewState", request, rules_pb2.StateReply, context)

    async def LegalActions(self, request: rules_pb2.StateRequest, context: Any) -> rules_pb2.LegalActionsReply:
        return await self._run("LegalActions", request, rules_pb2.LegalActionsReply, context)

    async def Apply(self, request: rules_pb2.ApplyRequest, context: Any) -> rules_pb2.StateReply:
        return await self._run("Apply", request, rules_pb2.StateReply, context)

    async def Observe(self, request: rules_pb2.StateRequest, context: Any) -> rules_pb2.ObserveReply:
        return await self._run("Observe", request, rules_pb2.ObserveReply, context)

    async def Resample(self, request: rules_pb2.ResampleRequest, context: Any) -> rules_pb2.StateReply:
        return await self._run("Resample", request, rules_pb2.StateReply, context)

    async def _run(self, method: str, request: Message, reply_type: Any, context: Any) -> Any:
        if self.limits is not None:
            wait = self.limits.wait(context)
            if wait is not None:
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                    f"too many Rules calls: try again in {wait} s")
        result = await self.pool.run(method, request.SerializeToString())
        if result.code != "OK":
            await context.abort(grpc.StatusCode[result.code], brief(result.detail))
        return reply_type.FromString(result.reply)
