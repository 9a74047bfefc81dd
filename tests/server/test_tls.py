"""TLS end to end: a real ``arena serve`` process given a self-signed certificate for
localhost and 127.0.0.1 (``ARENA_TLS_CERT``, ``ARENA_TLS_KEY``) answers clients that trust
it, refuses plaintext clients and clients that trust another CA, a real SDK bot process
connects over TLS in each of the SDK's ways of being given the CA, the example search bot's
``Rules`` client too, and ``arena challenge`` is played over TLS given the CA in the same ways."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from arena_bot.v1 import arena_pb2, arena_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena import games
from tests.helpers import ARENA, arena_serve, stop, wait_until
from tests.support.services import free_port

ROOT = Path(__file__).resolve().parents[2]
ADMIN_TOKEN = "tls0admin0token0for0the0arena0tests0ok"
pytestmark = pytest.mark.timeout(180)


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate and key made by the ``openssl`` command line for localhost and 127.0.0.1."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command line is not installed")
    folder.mkdir()
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


@dataclass
class TlsServer:
    port: int
    cert: Path

    def channel(self, host: str = "localhost", roots: bytes | None = None) -> grpc.Channel:
        trusted = self.cert.read_bytes() if roots is None else roots
        return grpc.secure_channel(f"{host}:{self.port}", grpc.ssl_channel_credentials(root_certificates=trusted))


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[TlsServer]:
    cert, key = self_signed(tmp_path / "tls")
    port = free_port()
    env = dict(os.environ) | {
        "PYTHONPATH": str(ROOT), "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}",
        "ARENA_GRPC_ADDRESS": f"127.0.0.1:{port}", "ARENA_GATEWAY_METRICS_PORT": "0",
        "ARENA_TLS_CERT": str(cert), "ARENA_TLS_KEY": str(key), "ARENA_ADMIN_TOKEN": ADMIN_TOKEN,
    }
    env.pop("ARENA_REDIS_URL", None)
    log = tmp_path / "serve.log"
    server = TlsServer(port, cert)
    with arena_serve(env, log):
        with server.channel() as channel:
            try:
                grpc.channel_ready_future(channel).result(timeout=60)
            except grpc.FutureTimeoutError:
                pytest.fail(f"arena serve never answered over TLS:\n{log.read_text()[-3000:]}")
        yield server


def test_a_client_trusting_the_certificate_lists_games_and_checks_health(tls_server: TlsServer) -> None:
    with tls_server.channel("localhost") as channel:
        listed = arena_pb2_grpc.ArenaStub(channel).ListGames(arena_pb2.ListGamesRequest(), timeout=10)
        assert {game.name for game in listed.games} == set(games.names())
    with tls_server.channel("127.0.0.1") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "arena.v1.Arena", "arena.v1.BotGateway"):
            reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING, service


def refusal(channel: grpc.Channel) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as refused:
        arena_pb2_grpc.ArenaStub(channel).ListGames(arena_pb2.ListGamesRequest(), timeout=5)
    return refused.value.code()


def test_plaintext_clients_and_clients_trusting_another_ca_are_refused(tls_server: TlsServer,
                                                                       tmp_path: Path) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{tls_server.port}") as channel:
        assert refusal(channel) == grpc.StatusCode.UNAVAILABLE
    other_cert, _ = self_signed(tmp_path / "other")
    with tls_server.channel(roots=other_cert.read_bytes()) as channel:
        assert refusal(channel) == grpc.StatusCode.UNAVAILABLE


def start_bot(server: TlsServer, name: str, log: Path, env: dict[str, str], args: list[str]) -> subprocess.Popen[bytes]:
    with server.channel() as channel:
        token = arena_pb2_grpc.ArenaStub(channel).RegisterBot(
            arena_pb2.RegisterBotRequest(name=name, owner="tests"), timeout=10).token
    full = dict(os.environ) | {"PYTHONPATH": str(ROOT), "ARENA_BOT_TOKEN": token} | env
    for unset in {"ARENA_TLS", "ARENA_TLS_CA"} - set(env):
        full.pop(unset, None)
    return subprocess.Popen([sys.executable, "-m", "arena_bot.examples.random_bot", "--address", f"localhost:{server.port}", *args],
                            env=full, cwd=ROOT, stdout=log.open("ab"), stderr=subprocess.STDOUT)


@pytest.mark.parametrize("way", ["ARENA_TLS_CA", "--ca", "ARENA_TLS"])
def test_an_sdk_bot_connects_over_tls(tls_server: TlsServer, tmp_path: Path, way: str) -> None:
    cert = str(tls_server.cert)
    env, args = {
        "ARENA_TLS_CA": ({"ARENA_TLS_CA": cert}, []),
        "--ca": ({}, ["--ca", cert]),
        # The system's roots, which gRPC lets a test replace with this certificate.
        "ARENA_TLS": ({"ARENA_TLS": "1", "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": cert}, []),
    }[way]
    log = tmp_path / "bot.log"
    bot = start_bot(tls_server, "tls-bot", log, env, args)
    try:
        wait_until(lambda: "connected as tls-bot" in log.read_text(), timeout=60, what="the bot to connect")
    finally:
        stop(bot)


def test_an_sdk_bot_without_tls_settings_does_not_connect(tls_server: TlsServer, tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    bot = start_bot(tls_server, "plain-bot", log, {}, [])
    try:
        wait_until(lambda: "connection lost" in log.read_text(), timeout=60, what="the bot's first attempt to fail")
        assert "connected as" not in log.read_text()
    finally:
        stop(bot)


def test_the_search_bot_reaches_the_rules_service_as_the_sdk_reaches_the_gateway(
        tls_server: TlsServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The example search bot's ``Rules`` client takes the SDK's TLS settings (``--ca`` or
    ARENA_TLS_CA); without them it is refused, as a plaintext client is."""
    from bots.search_bot import rules_from_argv

    state = games.get("durak").new_state(2, 1)
    seat = state.to_act()[0]
    address = ["--address", f"localhost:{tls_server.port}"]
    monkeypatch.delenv("ARENA_TLS", raising=False)
    monkeypatch.delenv("ARENA_RULES_ADDRESS", raising=False)
    for env, args in (({"ARENA_TLS_CA": str(tls_server.cert)}, []), ({}, ["--ca", str(tls_server.cert)]), ({}, [])):
        monkeypatch.delenv("ARENA_TLS_CA", raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        client, _, rest = rules_from_argv([*address, *args, "--max-matches", "1"])
        assert rest == [*address, *args, "--max-matches", "1"]
        with client.channel:
            if env or args:
                assert client.legal_actions(json.dumps(state.to_json()), seat) == state.legal_actions(seat)
            else:
                with pytest.raises(grpc.RpcError) as refused:
                    client.legal_actions(json.dumps(state.to_json()), seat)
                assert refused.value.code() == grpc.StatusCode.UNAVAILABLE


def challenge(server: TlsServer, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``arena challenge`` of two house bots, by the admin, against the TLS server."""
    full = {k: v for k, v in os.environ.items() if k not in ("ARENA_TLS", "ARENA_TLS_CA", "ARENA_BOT_TOKEN")}
    game = games.names()[0] if "crazy_eights" not in games.names() else "crazy_eights"
    argv = [ARENA, "challenge", game, "house:random", "house:heuristic", "--seed", "9",
            "--address", f"localhost:{server.port}", "--token", ADMIN_TOKEN, "--json", *args]
    return subprocess.run(argv, env=full | env, cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("way", ["--ca", "ARENA_TLS_CA", "--tls"])
def test_a_challenge_is_played_over_tls(tls_server: TlsServer, way: str) -> None:
    cert = str(tls_server.cert)
    env, args = {
        "--ca": ({}, ["--ca", cert]),
        "ARENA_TLS_CA": ({"ARENA_TLS_CA": cert}, []),
        # The system's roots, which gRPC lets a test replace with this certificate.
        "--tls": ({"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": cert}, ["--tls"]),
    }[way]
    done = challenge(tls_server, env, *args)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "done" and result["seed"] == 9 and result["moves"] > 0
    assert [s["bot"] for s in result["seats"]] == ["random", "heuristic"]
    assert sorted(s["rank"] for s in result["seats"])[0] == 1
    assert result["winners"] == [s["seat"] for s in result["seats"] if s["rank"] == 1]
    assert f"challenge match {result['match']} on localhost:{tls_server.port}" in done.stderr


def test_a_challenge_without_tls_or_trusting_another_ca_is_one_line(tls_server: TlsServer, tmp_path: Path) -> None:
    other_cert, _ = self_signed(tmp_path / "other")
    for args in ([], ["--ca", str(other_cert)]):
        done = challenge(tls_server, {}, *args)
        assert done.returncode == 2 and done.stdout == "", (done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"arena: localhost:{tls_server.port}: "), done.stderr
    missing = challenge(tls_server, {}, "--ca", str(tmp_path / "none.pem"))
    assert missing.returncode == 2 and missing.stderr.startswith("arena: CA certificate "), missing.stderr
