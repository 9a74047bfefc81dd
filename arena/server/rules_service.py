"""``arena.v1.Rules``: the rules engine over gRPC, stateless. States travel as the JSON of
``State.to_json``; nothing is kept between calls."""

from __future__ import annotations

import json
import random
from typing import Any

import grpc

from arena import games
from arena.games import IllegalAction, State
from arena.v1 import rules_pb2, rules_pb2_grpc

MAX_STATE_JSON = 4 * 1024 * 1024


class RulesService(rules_pb2_grpc.RulesServicer):
    """Every call is a pure function of its request."""

    async def NewState(self, request: rules_pb2.NewStateRequest, context: Any) -> rules_pb2.StateReply:
        try:
            game = games.get(request.game)
            options = json_object(request.options_json) if request.options_json else {}
            state = game.new_state(request.num_players, request.seed, options)
        except (KeyError, ValueError) as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, brief(str(error)))
        return state_reply(state)

    async def LegalActions(self, request: rules_pb2.StateRequest, context: Any) -> rules_pb2.LegalActionsReply:
        state = await load_state(request.state_json, context)
        await check_seat(state, request.seat, context)
        return rules_pb2.LegalActionsReply(legal_actions=state.legal_actions(request.seat))

    async def Apply(self, request: rules_pb2.ApplyRequest, context: Any) -> rules_pb2.StateReply:
        state = await load_state(request.state_json, context)
        await check_seat(state, request.seat, context)
        try:
            state.apply(request.seat, request.action)
        except IllegalAction as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, brief(str(error)))
        return state_reply(state)

    async def Observe(self, request: rules_pb2.StateRequest, context: Any) -> rules_pb2.ObserveReply:
        state = await load_state(request.state_json, context)
        await check_seat(state, request.seat, context)
        return rules_pb2.ObserveReply(observation_json=games.dumps(state.observation(request.seat)))

    async def Resample(self, request: rules_pb2.ResampleRequest, context: Any) -> rules_pb2.StateReply:
        state = await load_state(request.state_json, context)
        await check_seat(state, request.seat, context)
        return state_reply(state.resample_hidden(request.seat, random.Random(request.seed)))


async def load_state(state_json: str, context: Any) -> State:
    """Parse a serialized state, or abort the call with INVALID_ARGUMENT and the reason."""
    if len(state_json) > MAX_STATE_JSON:
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "state_json too large")
    try:
        data = json.loads(state_json)
        return games.get(data["game"]).state_from_json(data)
    except RecursionError:
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "not a valid state: nested too deeply")
        raise  # unreachable: abort raises
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, brief(f"not a valid state: {error}"))
        raise  # unreachable: abort raises


async def check_seat(state: State, seat: int, context: Any) -> None:
    if seat >= state.num_players:
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"no seat {seat} in a {state.num_players}-player state")


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
