"""The Rules service over a real gRPC connection: a bot in another language can drive any
game through it, and bad input gets INVALID_ARGUMENT with a reason, never a crash."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import grpc
import pytest
from arena_bot.v1 import rules_pb2, rules_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena import games
from arena.server.embedded import BackgroundServer
from arena.server.settings import ServerSettings


@pytest.fixture
def rules_server() -> Iterator[BackgroundServer]:
    """These tests drive whole matches through the service as fast as they can: no rate limit
    (tests/server/test_rules_bounds.py tests the limit)."""
    server = BackgroundServer(ServerSettings(address="127.0.0.1:0", rules_calls_per_second=0), [])
    yield server
    server.stop()


@pytest.mark.parametrize("name", games.names())
def test_a_whole_match_through_the_rules_service(channel: grpc.Channel, name: str) -> None:
    """Play a random match purely through the service; it must end exactly as the same
    actions end it locally."""
    stub = rules_pb2_grpc.RulesStub(channel)
    game = games.get(name)
    n = game.min_players
    reply = stub.NewState(rules_pb2.NewStateRequest(game=name, num_players=n, seed=9))
    local = game.new_state(n, 9)
    rng = random.Random(1)
    steps = 0
    while not reply.terminal and steps < 300:
        seat = reply.to_act[0]
        legal = stub.LegalActions(rules_pb2.StateRequest(state_json=reply.state_json, seat=seat)).legal_actions
        assert list(legal) == local.legal_actions(seat)
        observed = stub.Observe(rules_pb2.StateRequest(state_json=reply.state_json, seat=seat))
        assert json.loads(observed.observation_json) == json.loads(games.dumps(local.observation(seat)))
        action = rng.choice(list(legal))
        reply = stub.Apply(rules_pb2.ApplyRequest(state_json=reply.state_json, seat=seat, action=action))
        local.apply(seat, action)
        steps += 1
    assert list(reply.to_act) == list(local.to_act())
    if reply.terminal:
        assert list(reply.ranks) == local.outcome().ranks


def test_resample_keeps_the_seats_view(channel: grpc.Channel) -> None:
    stub = rules_pb2_grpc.RulesStub(channel)
    name = games.names()[0]
    reply = stub.NewState(rules_pb2.NewStateRequest(game=name, num_players=2, seed=4))
    seat = reply.to_act[0]
    mine = stub.Observe(rules_pb2.StateRequest(state_json=reply.state_json, seat=seat)).observation_json
    other = stub.Resample(rules_pb2.ResampleRequest(state_json=reply.state_json, seat=seat, seed=3))
    assert stub.Observe(rules_pb2.StateRequest(state_json=other.state_json, seat=seat)).observation_json == mine


@pytest.mark.parametrize(
    "request_",
    [
        rules_pb2.NewStateRequest(game="no_such_game", num_players=2),
        rules_pb2.NewStateRequest(game=games.names()[0], num_players=99),
        rules_pb2.NewStateRequest(game=games.names()[0], num_players=2, options_json="{not json"),
        rules_pb2.NewStateRequest(game=games.names()[0], num_players=2, options_json='{"no_such_option": 1}'),
    ],
)
def test_bad_new_state_requests_are_invalid_arguments(channel: grpc.Channel, request_: object) -> None:
    stub = rules_pb2_grpc.RulesStub(channel)
    with pytest.raises(grpc.RpcError) as caught:
        stub.NewState(request_)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.details()


def test_illegal_actions_and_garbage_states_are_refused(channel: grpc.Channel) -> None:
    stub = rules_pb2_grpc.RulesStub(channel)
    reply = stub.NewState(rules_pb2.NewStateRequest(game=games.names()[0], num_players=2, seed=1))
    for bad in [
        rules_pb2.ApplyRequest(state_json=reply.state_json, seat=reply.to_act[0], action="not an action"),
        rules_pb2.ApplyRequest(state_json="[]", seat=0, action="x"),
        rules_pb2.ApplyRequest(state_json='{"game": "nope"}', seat=0, action="x"),
        rules_pb2.ApplyRequest(state_json="\xff" * 10, seat=0, action="x"),
    ]:
        with pytest.raises(grpc.RpcError) as caught:
            stub.Apply(bad)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_health_and_reflection_are_served(rules_server: object, channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ["", "arena.v1.Rules"]:
        status = health.Check(health_pb2.HealthCheckRequest(service=service)).status
        assert status == health_pb2.HealthCheckResponse.SERVING
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

    services = ProtoReflectionDescriptorDatabase(channel).get_services()
    assert "arena.v1.Rules" in services and "grpc.health.v1.Health" in services


def test_health_is_not_serving_during_graceful_shutdown(rules_server: object) -> None:
    server = rules_server
    with grpc.insecure_channel(server.address) as chan:  # type: ignore[attr-defined]
        health = health_pb2_grpc.HealthStub(chan)
        server.call(server.running.health.enter_graceful_shutdown())  # type: ignore[attr-defined]
        status = health.Check(health_pb2.HealthCheckRequest(service="arena.v1.Rules")).status
        assert status == health_pb2.HealthCheckResponse.NOT_SERVING


def test_reflection_v1_answers_beside_v1alpha(rules_server: object, channel: grpc.Channel) -> None:
    """Newer grpcurl and Postman ask for grpc.reflection.v1 first; its messages are v1alpha's."""
    from grpc_reflection.v1alpha import reflection_pb2

    call = channel.stream_stream("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                                 request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                                 response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
    replies = list(call(iter([reflection_pb2.ServerReflectionRequest(list_services=""),
                              reflection_pb2.ServerReflectionRequest(file_containing_symbol="arena.v1.Rules")])))
    listed = {s.name for s in replies[0].list_services_response.service}
    assert {"arena.v1.Rules", "grpc.reflection.v1.ServerReflection", "grpc.health.v1.Health"} <= listed
    assert replies[1].file_descriptor_response.file_descriptor_proto, "the Rules service's descriptor"


def test_bad_seats_and_huge_actions_are_clear_invalid_arguments(rules_server: object, channel: grpc.Channel) -> None:
    stub = rules_pb2_grpc.RulesStub(channel)
    state = stub.NewState(rules_pb2.NewStateRequest(game="crazy_eights", num_players=2, seed=3)).state_json
    for call, request in [(stub.LegalActions, rules_pb2.StateRequest(state_json=state, seat=99)),
                          (stub.Apply, rules_pb2.ApplyRequest(state_json=state, seat=99, action="x")),
                          (stub.Apply, rules_pb2.ApplyRequest(state_json=state, seat=0, action="x" * 100_000))]:
        with pytest.raises(grpc.RpcError) as caught:
            call(request)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, caught.value.details()
        assert len(caught.value.details()) < 1000
