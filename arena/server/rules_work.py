"""One Rules call, as a Rules worker process runs it: the request's bytes in, a ``CallResult``
out (the reply's bytes, or a status name and a short reason).

This module runs inside the pool's worker processes (``arena.server.rules_pool``), never on the
gateway's event loop: whatever a stranger's state makes the game code do, it does it here,
under the worker's memory bound (``RLIMIT_AS``, set once in ``start_worker``) and the call's
CPU bound (``RLIMIT_CPU``, moved forward before each call). It imports the rules and the
generated messages only, no gRPC, so a worker starts quickly.
"""

from __future__ import annotations

import json
import logging
import random
import resource
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena_bot.v1 import rules_pb2

from arena import games
from arena.games import State
from arena.memory import MIB, bound_address_space

log = logging.getLogger(__name__)

MAX_STATE_JSON = 4 * 1024 * 1024


@dataclass(frozen=True)
class CallResult:
    """What became of one call: ``code`` is a gRPC status name (``OK``, ``INVALID_ARGUMENT``,
    ``RESOURCE_EXHAUSTED``, ...); ``reply`` the serialized reply when OK, else ``detail``."""

    code: str
    reply: bytes = b""
    detail: str = ""


class Refused(Exception):
    """A call refused with a status and a short reason for the caller."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = brief(detail)


def invalid(detail: str) -> Refused:
    return Refused("INVALID_ARGUMENT", detail)


# ----- the worker process ---------------------------------------------------------------------
def start_worker(memory_mb: int) -> None:
    """Initialise a worker process: bound its address space, offer it first to the kernel's
    out-of-memory killer (a container's memory limit must cost a worker, never the gateway),
    leave Ctrl-C to the server (which stops the pool itself), and load every game."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with open("/proc/self/oom_score_adj", "w") as oom:
            oom.write("1000")
    except OSError:  # not Linux, or not allowed: the address-space bound still holds
        pass
    bound_address_space(memory_mb * MIB)
    games.names()


def ready() -> None:
    """Nothing: scheduled once so that the pool starts its workers before the first call."""


def bound_cpu(seconds: int) -> None:
    """Let this process use ``seconds`` more of CPU time; past it the kernel kills it (SIGXCPU),
    and the pool reports the call as over its bound and starts a fresh worker."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = int(usage.ru_utime + usage.ru_stime) + 1
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = used + seconds
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def call(method: str, request: bytes, cpu_seconds: int) -> CallResult:
    """Run one Rules call (``method`` is the RPC's name) on its serialized request."""
    bound_cpu(cpu_seconds)
    handler, request_type = HANDLERS[method]
    return answer(method, lambda: handler(request_type.FromString(request)).SerializeToString())


def answer(method: str, compute: Callable[[], bytes]) -> CallResult:
    """The result of ``compute`` (a serialized reply), or what went wrong as a status and a
    short reason: never Python's own text."""
    try:
        return CallResult("OK", reply=compute())
    except Refused as refused:
        return CallResult(refused.code, detail=refused.detail)
    except MemoryError:
        return CallResult("RESOURCE_EXHAUSTED", detail="the call needed more memory than a Rules call may use")
    except RecursionError:
        return CallResult("INVALID_ARGUMENT", detail="not a valid state: nested too deeply")
    except Exception as error:  # noqa: BLE001 - game code on a stranger's state: any failure is theirs
        # The state passed its game's schema check yet the rules could not use it: tell the
        # caller no more than that (never Python's text), keep the trace for the operator.
        log.warning("Rules %s failed on a client's state", method, exc_info=True)
        return CallResult("INVALID_ARGUMENT",
                          detail=f"not a valid state: the rules could not use it ({type(error).__name__})")


# ----- the calls ------------------------------------------------------------------------------
def new_state(request: rules_pb2.NewStateRequest) -> rules_pb2.StateReply:
    try:
        game = games.get(request.game)
        options = json_object(request.options_json) if request.options_json else {}
        state = game.new_state(request.num_players, request.seed, options)
    except (KeyError, ValueError) as error:
        raise invalid(reason(error)) from None
    return state_reply(state)


def legal_actions(request: rules_pb2.StateRequest) -> rules_pb2.LegalActionsReply:
    state = seated_state(request.state_json, request.seat)
    return rules_pb2.LegalActionsReply(legal_actions=state.legal_actions(request.seat))


def apply(request: rules_pb2.ApplyRequest) -> rules_pb2.StateReply:
    state = seated_state(request.state_json, request.seat)
    try:
        state.apply(request.seat, request.action)
    except games.IllegalAction as error:
        raise invalid(str(error)) from None
    return state_reply(state)


def observe(request: rules_pb2.StateRequest) -> rules_pb2.ObserveReply:
    state = seated_state(request.state_json, request.seat)
    return rules_pb2.ObserveReply(observation_json=games.dumps(state.observation(request.seat)))


def resample(request: rules_pb2.ResampleRequest) -> rules_pb2.StateReply:
    state = seated_state(request.state_json, request.seat)
    return state_reply(state.resample_hidden(request.seat, random.Random(request.seed)))


HANDLERS: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "NewState": (new_state, rules_pb2.NewStateRequest),
    "LegalActions": (legal_actions, rules_pb2.StateRequest),
    "Apply": (apply, rules_pb2.ApplyRequest),
    "Observe": (observe, rules_pb2.StateRequest),
    "Resample": (resample, rules_pb2.ResampleRequest),
}


# ----- helpers --------------------------------------------------------------------------------
def seated_state(state_json: str, seat: int) -> State:
    """A client's state, checked against its game's schema before any game code runs, and a
    seat of it; else ``Refused`` with INVALID_ARGUMENT and the reason."""
    if len(state_json) > MAX_STATE_JSON:
        raise invalid("state_json too large")
    try:
        data = json.loads(state_json)
    except RecursionError:
        raise invalid("not a valid state: nested too deeply") from None
    except ValueError as error:
        raise invalid(f"not a valid state: not JSON ({error})") from None
    if not isinstance(data, dict):
        raise invalid("not a valid state: expected a JSON object")
    name = data.get("game")
    if not isinstance(name, str):
        raise invalid("not a valid state: no game named")
    try:
        state = games.get(name).state_from_json(data)  # checks the schema first
    except (KeyError, ValueError) as error:
        raise invalid(f"not a valid state: {reason(error)}") from None
    if seat >= state.num_players:
        raise invalid(f"no seat {seat} in a {state.num_players}-player state")
    return state


def reason(error: Exception) -> str:
    """An exception's message without the quotes ``str(KeyError(...))`` adds."""
    if isinstance(error, KeyError) and error.args:
        return str(error.args[0])
    return str(error)


def json_object(text: str, limit: int = 65536) -> dict[str, Any]:
    """A JSON object from a request's ``options_json``, or ValueError (too long, nested too
    deeply, not an object): the Rules and Arena services read options the same way."""
    if len(text) > limit:
        raise ValueError("options_json too large")
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError("options_json nested too deeply") from None
    if not isinstance(value, dict):
        raise ValueError("options_json must be a JSON object")
    return value


def brief(detail: str, limit: int = 300) -> str:
    """An error detail short enough for a status trailer: an echo of a 100 kB action would
    overflow gRPC's metadata limit and turn a clear error into a dropped stream."""
    return detail if len(detail) <= limit else detail[:limit] + "…"


def state_reply(state: State) -> rules_pb2.StateReply:
    reply = rules_pb2.StateReply(state_json=games.dumps(state.to_json()), to_act=state.to_act(),
                                 terminal=state.is_terminal())
    if reply.terminal:
        outcome = state.outcome()
        reply.scores.extend(outcome.scores)
        reply.ranks.extend(outcome.ranks)
    return reply
