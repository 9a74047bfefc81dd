"""Bounds and errors on the gRPC side, as a stranger meets them: `arena serve` on the embedded
default with a real SQLite store, real gRPC calls, the real `arena` command. Bad ids are
INVALID_ARGUMENT or NOT_FOUND with a short message, never UNKNOWN; a wrong or revoked token is
UNAUTHENTICATED on every call, never served as anonymous."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from arena_bot.v1 import arena_pb2, arena_pb2_grpc, rules_pb2, rules_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from tests.helpers import ARENA
from tests.support.grpc import ADMIN, GAME, register

# Everything a caller might type where an id belongs, and is none.
BAD_IDS = ["", "0", "-1", "-9223372036854775808", "abc", "1e3", "1.0", "0x10", "+1", " 1", "1 ", "1\n",
           "\u0663", "\u00b9", "9223372036854775808", "18446744073709551616", "99999999999999999999",
           "9" * 1000, "1" + "0" * 100_000]
# Well-formed ids that name nothing.
MISSING_IDS = ["1", "007", str(2**31), str(2**63 - 1)]


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def failure(call: Callable[..., Any], request: Any, **kwargs: Any) -> grpc.RpcError:
    """The error ``call`` ends with (a stream is read to its end)."""
    with pytest.raises(grpc.RpcError) as caught:
        result = call(request, timeout=30, **kwargs)
        if not hasattr(result, "ListFields"):
            list(result)
    return caught.value


def id_calls(stub: arena_pb2_grpc.ArenaStub) -> list[tuple[str, Callable[[str], grpc.RpcError]]]:
    """Every Arena RPC that takes an id, as (name, the error it gives for an id)."""
    return [
        ("GetMatch", lambda i: failure(stub.GetMatch, arena_pb2.MatchRef(match_id=i))),
        ("ListMatches", lambda i: failure(stub.ListMatches, arena_pb2.ListMatchesRequest(tournament_id=i))),
        ("FollowTournament", lambda i: failure(stub.FollowTournament, arena_pb2.TournamentRef(tournament_id=i))),
        ("CancelTournament", lambda i: failure(stub.CancelTournament, arena_pb2.TournamentRef(tournament_id=i),
                                               metadata=ADMIN)),
        ("AnalyseMatch", lambda i: failure(stub.AnalyseMatch, arena_pb2.AnalyseMatchRequest(match_id=i, seat=1))),
    ]


def test_bad_ids_are_invalid_arguments_on_every_rpc_and_missing_ones_not_found(arena) -> None:
    """Before, an id past 64 bits reached SQLite and came back UNKNOWN ("OverflowError")."""
    register(arena, "first")  # the store exists from the first write on
    for name, call in id_calls(arena):
        for text in BAD_IDS:
            if name == "ListMatches" and text == "":
                continue  # no tournament named: every match, not an id
            error = call(text)
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (name, text[:30], error.code(), error.details())
            assert len(error.details()) < 200 and "expected a whole number" in error.details(), (name, error.details())
        for text in MISSING_IDS:
            if name == "ListMatches":
                assert arena.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=text)).matches == []
                continue
            error = call(text)
            assert error.code() == grpc.StatusCode.NOT_FOUND, (name, text, error.code(), error.details())
            assert len(error.details()) < 200


def test_no_rpc_answers_unknown_to_an_id_shaped_value_in_any_text_field(arena, server) -> None:
    """Every unary and server-streaming call of the Arena and Rules services, every text field
    of its request set to each bad id in turn, as the admin (so that no call stops at the
    door): whatever the answer, it is never UNKNOWN (an exception the service did not expect)."""
    register(arena, "first")
    tried = 0
    with grpc.insecure_channel(server.address) as channel:
        for module in (arena_pb2, rules_pb2):
            for service in module.DESCRIPTOR.services_by_name.values():
                for method in service.methods:
                    if method.client_streaming:
                        continue
                    request_type = getattr(module, method.input_type.name)
                    reply_type = getattr(module, method.output_type.name)
                    path = f"/{service.full_name}/{method.name}"
                    make = channel.unary_stream if method.server_streaming else channel.unary_unary
                    call = make(path, request_serializer=request_type.SerializeToString,
                                response_deserializer=reply_type.FromString)
                    fields = [f.name for f in request_type.DESCRIPTOR.fields
                              if f.type == f.TYPE_STRING and not f.is_repeated]
                    for field in fields:
                        for text in BAD_IDS + MISSING_IDS:
                            request = request_type(**{field: text})
                            try:
                                answer = call(request, metadata=ADMIN, timeout=30)
                                if method.server_streaming:
                                    list(answer)
                            except grpc.RpcError as error:
                                assert error.code() != grpc.StatusCode.UNKNOWN, (path, field, text[:30], error.details())
                                assert len(error.details() or "") < 400, (path, field)
                            tried += 1
    assert tried > 300


@pytest.mark.parametrize("argv", [
    ["match", "show"], ["tournament", "status"], ["tournament", "cancel"], ["tournament", "run"],
    ["tournament", "retry-failed"],
])
def test_the_command_line_refuses_bad_ids_in_one_line(tmp_path: Path, argv: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_DATABASE_URL"] = f"sqlite:///{tmp_path / 'arena.db'}"
    subprocess.run([ARENA, "db", "upgrade"], env=env, check=True, capture_output=True, timeout=120)
    for text in ("99999999999999999999", "-5", "abc"):
        done = subprocess.run([ARENA, *argv, text], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, (argv, text, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("arena: ") and "expected a whole number" in lines[0], \
            done.stderr
    done = subprocess.run([ARENA, *argv, "12345"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, \
        done.stderr


# ----- tokens ---------------------------------------------------------------------------------

def token_calls(channel: grpc.Channel) -> list[tuple[str, Callable[..., Any]]]:
    """Calls an anonymous caller may make, each as (name, call taking ``metadata``)."""
    stub = arena_pb2_grpc.ArenaStub(channel)
    rules = rules_pb2_grpc.RulesStub(channel)

    def follow(metadata: Any) -> Any:
        return list(stub.FollowTournament(arena_pb2.TournamentRef(tournament_id="1"), metadata=metadata, timeout=30))

    return [
        ("ListGames", lambda m: stub.ListGames(arena_pb2.ListGamesRequest(), metadata=m, timeout=30)),
        ("GetLeaderboard", lambda m: stub.GetLeaderboard(arena_pb2.LeaderboardRequest(game=GAME), metadata=m,
                                                         timeout=30)),
        ("ListMatches", lambda m: stub.ListMatches(arena_pb2.ListMatchesRequest(), metadata=m, timeout=30)),
        ("GetMatch", lambda m: stub.GetMatch(arena_pb2.MatchRef(match_id="1"), metadata=m, timeout=30)),
        ("AnalyseMatch", lambda m: stub.AnalyseMatch(arena_pb2.AnalyseMatchRequest(match_id="1"), metadata=m,
                                                     timeout=30)),
        ("FollowTournament", follow),
        ("RegisterBot", lambda m: stub.RegisterBot(arena_pb2.RegisterBotRequest(name="newcomer"), metadata=m,
                                                   timeout=30)),
        ("Rules.NewState", lambda m: rules.NewState(rules_pb2.NewStateRequest(game=GAME, num_players=2, seed=1),
                                                    metadata=m, timeout=30)),
    ]


def code_of(call: Callable[..., Any], metadata: Any) -> grpc.StatusCode:
    try:
        call(metadata)
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


@pytest.mark.parametrize("presented", ["wrong", "revoked", "not bearer"])
def test_a_wrong_or_revoked_token_is_unauthenticated_on_every_call(arena, server, presented: str) -> None:
    """Before, a read call, a Rules call or RegisterBot with a bad token was served as if
    anonymous: a revoked bot never learned it was cut off."""
    revoked = register(arena, "turncoat")
    live = register(arena, "loyal")
    arena.RevokeBot(arena_pb2.RevokeBotRequest(name="turncoat"), metadata=ADMIN)
    bad = {"wrong": bearer("wrong"), "revoked": bearer(revoked),
           "not bearer": (("authorization", "Basic YWRtaW46YWRtaW4="),)}[presented]
    with grpc.insecure_channel(server.address) as channel:
        for name, call in token_calls(channel):
            assert code_of(call, bad) == grpc.StatusCode.UNAUTHENTICATED, name
            # Anonymous, with a live bot's token and with the admin's, the same call is served.
            for metadata in (None, bearer(live), ADMIN):
                assert code_of(call, metadata) in (grpc.StatusCode.OK, grpc.StatusCode.NOT_FOUND,
                                                   grpc.StatusCode.ALREADY_EXISTS), (name, metadata)
        # Server reflection checks what is presented too; health checking answers probes as is.
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        asked = reflection_pb2.ServerReflectionRequest(list_services="")
        for metadata, code in [(bad, grpc.StatusCode.UNAUTHENTICATED), (bearer(live), grpc.StatusCode.OK)]:
            assert code_of(lambda m: list(reflection.ServerReflectionInfo(iter([asked]), metadata=m, timeout=30)),
                           metadata) == code
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), metadata=bad, timeout=30)
        assert health.status == health_pb2.HealthCheckResponse.SERVING


def test_failed_tokens_on_reads_count_against_the_peer(server) -> None:
    with grpc.insecure_channel(server.address) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        for _ in range(server.settings.auth_failures_per_minute):
            assert code_of(lambda m: stub.ListGames(arena_pb2.ListGamesRequest(), metadata=m), bearer("guess")) \
                == grpc.StatusCode.UNAUTHENTICATED
        rules = rules_pb2_grpc.RulesStub(channel)
        new_state = rules_pb2.NewStateRequest(game=GAME, num_players=2, seed=1)
        assert code_of(lambda m: rules.NewState(new_state, metadata=m), ADMIN) == grpc.StatusCode.RESOURCE_EXHAUSTED
        # Anonymous calls from the same peer are still served.
        assert stub.ListGames(arena_pb2.ListGamesRequest()).games
        assert rules.NewState(new_state).state_json


# ----- names ----------------------------------------------------------------------------------

def test_names_are_whole_unique_whatever_their_case_and_the_house_namespace_is_reserved(arena) -> None:
    """Before, `heuristic\\n` and `rt-alice\\n` registered (the pattern's `$` matched before a
    final newline), as did `Heuristic`, `RANDOM` and `alice` beside `Alice`."""
    register(arena, "Alice")
    for name, code in [
        ("heuristic\n", grpc.StatusCode.INVALID_ARGUMENT), ("rt-alice\n", grpc.StatusCode.INVALID_ARGUMENT),
        ("Heuristic", grpc.StatusCode.INVALID_ARGUMENT), ("RANDOM", grpc.StatusCode.INVALID_ARGUMENT),
        ("Search-2", grpc.StatusCode.INVALID_ARGUMENT), ("HOUSE-bot", grpc.StatusCode.INVALID_ARGUMENT),
        ("alice", grpc.StatusCode.ALREADY_EXISTS), ("ALICE", grpc.StatusCode.ALREADY_EXISTS),
    ]:
        error = failure(arena.RegisterBot, arena_pb2.RegisterBotRequest(name=name))
        assert error.code() == code, (name, error.code(), error.details())
        assert len(error.details()) < 200
    assert failure(arena.RegisterBot, arena_pb2.RegisterBotRequest(name="alice")).details().startswith(
        "a bot named 'Alice' exists already")
    register(arena, "rt-alice")  # the same name without the newline is a name like any other
    register(arena, "Randomized")  # a strategy's name only as its own word is reserved


# ----- deploy ---------------------------------------------------------------------------------

STRONG_ADMIN_TOKEN = "k3Vd9QeR7xLw2ZpT5nHbYc8sJm4GfA6uXo1iKe0tNzq"  # as secrets.token_urlsafe(32) makes them


def test_only_loopback_addresses_and_localhost_itself_open_registration() -> None:
    """Before, any host starting with `127.` or equal to `localhost` counted as loopback by its
    spelling: `127.example.org` opened registration to the world."""
    from arena.server.settings import ServerSettings
    from arena.settings import load

    for host in ("127.0.0.1", "127.3.2.1", "localhost", "LocalHost", "[::1]", "[::ffff:127.0.0.1]"):
        assert ServerSettings.from_settings(load({"ARENA_GRPC_ADDRESS": f"{host}:50051"})).registration_open, host
    for host in ("127.example.org", "localhost.example.org", "127.0.0.1.nip.io", "0.0.0.0", "[::]", "10.1.2.3",
                 "example.org"):
        settings = ServerSettings.from_settings(load({"ARENA_GRPC_ADDRESS": f"{host}:50051"}))
        assert not settings.loopback and not settings.registration_open, host


def serve(tmp_path: Path, address: str, **env: str) -> subprocess.Popen[str]:
    """`arena serve` on ``address`` with a private SQLite store, its log on stderr."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    environment |= {"ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}", "ARENA_GATEWAY_METRICS_PORT": "0",
                    "ARENA_SUPERVISOR_SECONDS": "0", **env}
    return subprocess.Popen([ARENA, "serve", "--address", address], env=environment, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def log_until_listening(process: subprocess.Popen[str]) -> list[str]:
    """The server's log lines up to "arena listening" (then it is stopped)."""
    lines: list[str] = []
    try:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if "arena listening" in line:
                break
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert any("arena listening" in line for line in lines), "".join(lines)
    return lines


def test_serving_plaintext_beyond_this_machine_warns(tmp_path: Path) -> None:
    from tests.support.services import free_port

    exposed = log_until_listening(serve(tmp_path, f"0.0.0.0:{free_port()}"))
    warnings = [line for line in exposed if "WARNING" in line and "without TLS" in line]
    assert len(warnings) == 1 and "ARENA_TLS_CERT" in warnings[0], "".join(exposed)
    local = log_until_listening(serve(tmp_path, f"127.0.0.1:{free_port()}"))
    assert not any("without TLS" in line for line in local), "".join(local)


@pytest.mark.parametrize("token", ["admin-secret", "x" * 64, "abcabcabcabcabcabcabcabcabcabcabcabc"])
def test_a_weak_admin_token_is_refused_at_start_up(tmp_path: Path, token: str) -> None:
    from tests.support.services import free_port

    refused = serve(tmp_path, f"127.0.0.1:{free_port()}", ARENA_ADMIN_TOKEN=token)
    try:
        _, err = refused.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        refused.kill()
        refused.communicate()
        pytest.fail("the server started with a weak admin token")
    assert refused.returncode == 2, err
    assert err.startswith("arena: ARENA_ADMIN_TOKEN: must ") and "secrets.token_urlsafe(32)" in err, err
    assert token not in err, "a secret, even a weak one, is never repeated in a log"
    log_until_listening(serve(tmp_path, f"127.0.0.1:{free_port()}", ARENA_ADMIN_TOKEN=STRONG_ADMIN_TOKEN))
