"""The Rules service can never stall, starve or kill the server.

A real server, its real pool of worker processes and real clients: the reported attack is
refused at once; a call made heavy on purpose (``rules_stall``) runs in a worker while the
gateway's loop goes on answering health checks and relaying a real SDK bot's moves; a call
past its wall clock, CPU or memory bound gets a clear status and its worker is replaced;
calls past the rate limit are told when to try again; and no state, however edited, gets
``UNKNOWN``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from arena_bot.v1 import gateway_pb2_grpc, rules_pb2, rules_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena import games
from arena.referee import Clock, HousePlayer, run_match
from arena.referee.gateway import Gateway
from arena.referee.mailbox import LocalMailbox
from arena.server.embedded import BackgroundServer
from arena.server.settings import ServerSettings
from tests.referee import rules_stall
from tests.support.grpc import GAME, by_token, remote, start_bot, wait_online


def server(**bounds: Any) -> BackgroundServer:
    """The Rules service (with health and reflection) whose workers can stall on purpose."""
    return BackgroundServer(ServerSettings(address="127.0.0.1:0", **bounds), [], rules_work=rules_stall.call)


@pytest.fixture
def stalling() -> Iterator[BackgroundServer]:
    running = server(rules_call_seconds=60, rules_cpu_seconds=60, rules_workers=2)
    yield running
    running.stop()


@contextlib.contextmanager
def serving(**bounds: Any) -> Iterator[Any]:
    """A Rules stub on a fresh ``server(**bounds)``, both closed after."""
    running = server(**bounds)
    channel, stub = rules(running.address)
    try:
        yield stub
    finally:
        channel.close()
        running.stop()


def rules(address: str, token: str | None = None) -> tuple[grpc.Channel, Any]:
    channel = grpc.insecure_channel(address)
    return channel, rules_pb2_grpc.RulesStub(channel)


def brag_state(stub: Any, **edits: Any) -> str:
    data = json.loads(stub.NewState(rules_pb2.NewStateRequest(game="bastard_brag", num_players=2, seed=1)).state_json)
    data["state"].update(edits)
    return json.dumps(data)


def refused(call: Any, request: Any, **kwargs: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call(request, timeout=60, **kwargs)
    return caught.value


def test_the_reported_attack_is_an_invalid_argument_at_once(stalling: BackgroundServer) -> None:
    """A Bastard Brag state with num_players 2*10^7 took 2 s and 760 MB on the gateway's loop."""
    channel, stub = rules(stalling.address)
    with channel:
        state = brag_state(stub, num_players=20_000_000)
        for call, request in [(stub.LegalActions, rules_pb2.StateRequest(state_json=state, seat=0)),
                              (stub.Observe, rules_pb2.StateRequest(state_json=state, seat=0)),
                              (stub.Resample, rules_pb2.ResampleRequest(state_json=state, seat=0, seed=1)),
                              (stub.Apply, rules_pb2.ApplyRequest(state_json=state, seat=0, action="pass"))]:
            error = refused(call, request)
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "20000000 players not allowed" in error.details() and len(error.details()) < 300


def test_health_is_answered_while_a_heavy_rules_call_runs(stalling: BackgroundServer) -> None:
    channel, stub = rules(stalling.address)
    with channel:
        state = brag_state(stub)  # the pool's workers are up
        heavy = stub.Observe.future(rules_pb2.StateRequest(state_json=state, seat=rules_stall.SPIN_SEAT))
        time.sleep(0.5)  # the worker is spinning
        health = health_pb2_grpc.HealthStub(channel)
        for _ in range(5):
            reply = health.Check(health_pb2.HealthCheckRequest(service="arena.v1.Rules"), timeout=10)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        # Ordering, not speed: every check came back while the heavy call was still running.
        assert not heavy.done()
        # Other Rules calls are served by the other worker meanwhile.
        assert stub.LegalActions(rules_pb2.StateRequest(state_json=state, seat=0), timeout=30).legal_actions
        assert not heavy.done()
        heavy.cancel()


def test_a_bots_moves_are_relayed_while_a_heavy_rules_call_runs() -> None:
    """A real SDK bot plays a whole match on the gateway while a Rules call burns a worker."""
    mailbox = LocalMailbox()
    gateway = Gateway(mailbox, by_token, heartbeat=0.2)
    running = BackgroundServer(ServerSettings(address="127.0.0.1:0", rules_call_seconds=120, rules_cpu_seconds=120),
                               [(gateway_pb2_grpc.add_BotGatewayServicer_to_server, gateway, "arena.v1.BotGateway")],
                               rules_work=rules_stall.call)
    bot = start_bot("arena_bot.examples.random_bot", running.address, "tok-alice")
    channel, stub = rules(running.address)
    try:
        wait_online(mailbox, "1")
        state = brag_state(stub)
        heavy = stub.Observe.future(rules_pb2.StateRequest(state_json=state, seat=rules_stall.SPIN_SEAT))
        time.sleep(0.5)
        players = [remote(mailbox, "1", "m1", 0), HousePlayer(GAME, "random", 1, 5)]
        result = asyncio.run(run_match(GAME, players, 5, clock=Clock(move=2.0, bank=5.0), match_id="m1"))
        assert not heavy.done(), "the match ended while the heavy call was still running"
        assert not any(result.forfeited) and not any(result.strikes), (result.forfeited, result.strikes)
        heavy.cancel()
    finally:
        channel.close()
        bot.terminate()
        bot.communicate(timeout=10)
        running.stop()


def test_a_call_past_its_wall_clock_gets_deadline_exceeded_and_its_worker_is_replaced() -> None:
    with serving(rules_call_seconds=1, rules_cpu_seconds=60, rules_workers=1) as stub:
        state = brag_state(stub)
        error = refused(stub.Observe, rules_pb2.StateRequest(state_json=state, seat=rules_stall.SPIN_SEAT))
        assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert "1 s" in error.details()
        # The only worker was killed; a fresh one answers the next call.
        assert stub.Observe(rules_pb2.StateRequest(state_json=state, seat=0), timeout=60).observation_json


def test_a_call_past_its_cpu_time_gets_resource_exhausted_and_its_worker_is_replaced() -> None:
    with serving(rules_call_seconds=120, rules_cpu_seconds=1, rules_workers=1) as stub:
        state = brag_state(stub)
        error = refused(stub.Observe, rules_pb2.StateRequest(state_json=state, seat=rules_stall.SPIN_SEAT))
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "CPU time or memory" in error.details()
        assert stub.Observe(rules_pb2.StateRequest(state_json=state, seat=0), timeout=60).observation_json


def test_a_call_past_its_memory_gets_resource_exhausted() -> None:
    with serving(rules_call_seconds=120, rules_cpu_seconds=60, rules_memory_mb=256, rules_workers=1) as stub:
        state = brag_state(stub)
        error = refused(stub.Observe, rules_pb2.StateRequest(state_json=state, seat=rules_stall.HOG_SEAT))
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "memory" in error.details()
        assert stub.Observe(rules_pb2.StateRequest(state_json=state, seat=0), timeout=60).observation_json


def test_calls_past_the_pools_queue_are_refused_at_once() -> None:
    with serving(rules_call_seconds=60, rules_cpu_seconds=60, rules_workers=1, rules_queue=1) as stub:
        state = brag_state(stub)
        spin = rules_pb2.StateRequest(state_json=state, seat=rules_stall.SPIN_SEAT)
        heavy = [stub.Observe.future(spin), stub.Observe.future(spin)]  # one runs, one waits
        time.sleep(0.5)
        error = refused(stub.Observe, rules_pb2.StateRequest(state_json=state, seat=0))
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "busy" in error.details() and "try again" in error.details()
        for call in heavy:
            call.cancel()


# ----- rate limits ---------------------------------------------------------------------------
def test_rules_calls_are_limited_per_peer_and_say_when_to_try_again() -> None:
    with serving(rules_calls_per_second=0.5, rules_burst=3) as stub:
        request = rules_pb2.NewStateRequest(game="crazy_eights", num_players=2, seed=1)
        for _ in range(3):
            stub.NewState(request, timeout=60)
        error = refused(stub.NewState, request)
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "try again in" in error.details() and error.details().endswith(" s")
        wait = int(error.details().split("try again in ")[1].split()[0])
        assert 1 <= wait <= 6


def test_rules_calls_are_limited_per_token_from_any_address() -> None:
    """One token spends its burst from IPv4; the same token from IPv6 (another peer) is
    refused, while that peer without the token is not."""
    running = BackgroundServer(ServerSettings(address="[::]:0", rules_calls_per_second=0.5, rules_burst=3), [],
                               rules_work=rules_stall.call)
    port = running.address.rsplit(":", 1)[1]
    token = (("authorization", "Bearer some-bot-token"),)
    request = rules_pb2.NewStateRequest(game="crazy_eights", num_players=2, seed=1)
    v4, stub4 = rules(f"127.0.0.1:{port}")
    v6, stub6 = rules(f"[::1]:{port}")
    try:
        for _ in range(3):
            stub4.NewState(request, timeout=60, metadata=token)
        assert refused(stub6.NewState, request, metadata=token).code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert stub6.NewState(request, timeout=60).state_json
    finally:
        v4.close()
        v6.close()
        running.stop()


# ----- errors: never UNKNOWN -----------------------------------------------------------------
@pytest.fixture(scope="module")
def fuzz_server() -> Iterator[BackgroundServer]:
    # Messages up to 8 MiB: a list stretched 10^5 long must reach the schema check.
    running = BackgroundServer(ServerSettings(address="127.0.0.1:0", rules_calls_per_second=0,
                                              max_message_bytes=8 * 1024 * 1024), [])
    yield running
    running.stop()


STATES = {name: games.get(name).new_state(games.get(name).min_players, 2) for name in games.names()}
for _name, _state in STATES.items():  # a few decisions in: every pile and hand dealt
    for _ in range(8):
        if not _state.is_terminal():
            _seat = _state.to_act()[0]
            _state.apply(_seat, sorted(_state.legal_actions(_seat))[0])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False) | st.text(max_size=8) | st.sampled_from(["2C", "AS", "RJ", "play", "pass"]),
    lambda inner: st.lists(inner, min_size=1, max_size=4) | st.dictionaries(st.text(max_size=6), inner, min_size=1,
                                                                            max_size=3),
    max_leaves=10)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a JSON value (lists and objects, recursively)."""
    found = [prefix]
    if isinstance(value, list):
        for i, item in enumerate(value):
            found += paths(item, (*prefix, i))
    elif isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    return found


def stretched(state: dict[str, Any]) -> None:
    """The longest list of the state, 10^5 entries long (the issue's quadratic edit)."""
    found = max((p for p in paths(state) if isinstance(dig(state, p), list)), key=lambda p: len(dig(state, p)))
    items = dig(state, found)
    items.extend([items[0] if items else 0] * 100_000)


def dig(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


SERVICE_EDITS = {
    "players 2*10^7": lambda s: s["state"].update(num_players=20_000_000),
    "players 10^9": lambda s: s["state"].update(num_players=10**9),
    "players zero": lambda s: s["state"].update(num_players=0),
    "players negative": lambda s: s["state"].update(num_players=-2),
    "players a string": lambda s: s["state"].update(num_players="2"),
    "a list 10^5 long": stretched,
    "an unknown phase": lambda s: s["state"].update(phase="no_such_phase"),
    "a missing attribute": lambda s: s["state"].pop("phase"),
    "hands a string": lambda s: s["state"].update(hands="AS"),
}


@pytest.mark.parametrize("edit", list(SERVICE_EDITS))
def test_every_game_refuses_edited_states_with_invalid_argument(fuzz_server: BackgroundServer, edit: str) -> None:
    with grpc.insecure_channel(fuzz_server.address) as channel:
        stub = rules_pb2_grpc.RulesStub(channel)
        for name, state in STATES.items():
            data = state.to_json()
            SERVICE_EDITS[edit](data)
            error = refused(stub.LegalActions, rules_pb2.StateRequest(state_json=json.dumps(data), seat=0))
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (name, error.code(), error.details())
            assert "not a valid state" in error.details() and len(error.details()) < 300


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(STATES)), data=st.data(), method=st.sampled_from(
    ["LegalActions", "Observe", "Apply", "Resample"]), seat=st.integers(min_value=0, max_value=12))
def test_no_edited_state_ever_gets_unknown(fuzz_server: BackgroundServer, name: str, data: Any, method: str,
                                           seat: int) -> None:
    state = STATES[name].to_json()
    where = data.draw(st.sampled_from(paths(state)[1:]))
    target: Any = state
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = data.draw(json_values)
    text = json.dumps(state)
    with grpc.insecure_channel(fuzz_server.address) as channel:
        stub = rules_pb2_grpc.RulesStub(channel)
        request: Any
        if method == "Apply":
            request = rules_pb2.ApplyRequest(state_json=text, seat=seat, action="pass")
        elif method == "Resample":
            request = rules_pb2.ResampleRequest(state_json=text, seat=seat, seed=1)
        else:
            request = rules_pb2.StateRequest(state_json=text, seat=seat)
        try:
            getattr(stub, method)(request, timeout=60)
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (error.code(), error.details())
            assert "Traceback" not in error.details() and len(error.details()) < 400


def test_rules_workers_are_the_first_the_kernel_kills_when_memory_runs_out(stalling: BackgroundServer) -> None:
    """In a container at its memory limit, the out-of-memory killer takes a worker, not the
    gateway: every worker offers itself first (oom_score_adj 1000), the server does not."""
    channel, stub = rules(stalling.address)
    with channel:
        brag_state(stub)
    deadline = time.monotonic() + 30  # a safety net: both workers are up by the first reply, or soon after
    while True:
        children = [int(p) for p in os.listdir("/proc") if p.isdigit() and parent_of(int(p)) == os.getpid()]
        scores = {pid: oom_score_adj(pid) for pid in children}
        if list(scores.values()).count(1000) >= 2 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert list(scores.values()).count(1000) >= 2, scores  # rules_workers=2
    assert oom_score_adj(os.getpid()) < 1000


def parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None


def oom_score_adj(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/oom_score_adj") as score:
            return int(score.read())
    except OSError:
        return None
