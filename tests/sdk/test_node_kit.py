"""The Node (TypeScript) starter kit in sdk/node against a real `arena serve`: the kit is
installed from the npm registry (`npm ci`, cached by its lockfile) and compiled with `tsc`
from a copy of its sources; its bots run as real Node processes on the real gateway.

Checked: the kit takes the protocol from proto/ when built or packed (git holds no copy); the kit's own tests pass; its random
bot plays a rated tournament over every registered game with no strike and reaches every
leaderboard; its Crazy 8s bot plays challenges it asked for with its own token, and is
registered, challenged and rated in a tournament through the kit's own Arena tool; a refused
token, a newer process with the same token and a revoked token stop a bot for good; a bot
comes back by itself when the server restarts; TLS with the CA from ARENA_TLS_CA."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena import games
from arena.referee import external
from arena.server.embedded import BackgroundServer
from arena.server.settings import ServerSettings
from arena.store import db
from tests.support.grpc import start_bot

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "sdk" / "node"
NODE, NPM = shutil.which("node"), shutil.which("npm")
ADMIN = (("authorization", "Bearer admin-secret"),)
# Where the installed node_modules are kept between runs, one folder per lockfile.
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "arena" / "node-kit"
UNREACHABLE: list[str] = []  # why npm ci could not reach the registry, once it has failed
# npm's words for a registry it cannot reach (no network, no DNS, a proxy in the way).
OFFLINE = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "ECONNRESET", "ENETUNREACH",
           "network request", "request to https://registry")



def node_major() -> int:
    if NODE is None:
        return 0
    version = subprocess.run([NODE, "--version"], capture_output=True, text=True, timeout=30).stdout
    return int(version.strip().lstrip("v").split(".")[0] or 0)


pytestmark = [
    pytest.mark.skipif(NODE is None or NPM is None, reason="node and npm are not installed (the Node kit needs them)"),
    pytest.mark.skipif(NODE is not None and node_major() < 18, reason="the Node kit needs Node 18 or later"),
]


def node_modules() -> Path:
    """The kit's dependencies, installed with `npm ci` once per lockfile (skips every test that
    needs them, after one try, when the registry cannot be reached)."""
    if UNREACHABLE:
        pytest.skip(UNREACHABLE[0])
    lock = b"".join((KIT / name).read_bytes() for name in ("package.json", "package-lock.json"))
    target = CACHE / hashlib.sha256(lock).hexdigest()[:16]
    if (target / "node_modules" / ".package-lock.json").exists():
        return target / "node_modules"
    CACHE.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=CACHE, prefix="installing-"))
    for name in ("package.json", "package-lock.json"):
        shutil.copy(KIT / name, staging / name)
    try:
        done = subprocess.run([NPM, "ci", "--no-audit", "--no-fund", "--loglevel=error", "--fetch-retry-mintimeout=2000",
                               "--fetch-retry-maxtimeout=10000"], cwd=staging,
                              capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        shutil.rmtree(staging, ignore_errors=True)
        UNREACHABLE.append("npm ci took over 10 minutes: the npm registry is not reachable")
        pytest.skip(UNREACHABLE[0])
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        said = [line for line in done.stderr.splitlines() if any(word in line for word in OFFLINE)]
        if said:
            UNREACHABLE.append(f"the npm registry cannot be reached (npm ci: {said[0].strip()})")
            pytest.skip(UNREACHABLE[0])
        raise AssertionError(f"npm ci failed:\n{done.stdout}\n{done.stderr}")
    try:
        staging.rename(target)  # atomic: a parallel run sees a whole install or none
    except OSError:  # another run got there first
        shutil.rmtree(staging, ignore_errors=True)
    return target / "node_modules"


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kit compiled from a fresh copy of its sources (the working tree stays clean)."""
    modules = node_modules()
    # Laid out as in the repository (sdk/node beside proto/) so that the kit's own script
    # copies the protocol in, as it does when the kit is built or packed.
    base = tmp_path_factory.mktemp("node-kit")
    (base / "proto").symlink_to(ROOT / "proto", target_is_directory=True)
    copy = base / "sdk" / "node"
    copy.mkdir(parents=True)
    for name in ("src", "scripts"):
        shutil.copytree(KIT / name, copy / name)
    for name in ("package.json", "package-lock.json", "tsconfig.json"):
        shutil.copy(KIT / name, copy / name)
    (copy / "node_modules").symlink_to(modules, target_is_directory=True)
    synced = subprocess.run([NODE, "scripts/sync-proto.mjs"], cwd=copy, capture_output=True, text=True, timeout=60)
    assert synced.returncode == 0, synced.stderr
    built = subprocess.run([NODE, "node_modules/typescript/bin/tsc", "-p", "."], cwd=copy,
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, f"tsc failed:\n{built.stdout}\n{built.stderr}"
    return copy


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(address: str, tls: tuple[Path, Path] | None = None) -> BackgroundServer:
    cert, key = tls or (None, None)
    return BackgroundServer(ServerSettings(address=address, admin_token="admin-secret",
                                           tls_cert=cert and str(cert), tls_key=key and str(key)))


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A fresh embedded store (SQLite, no Redis) for the servers of one test."""
    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'arena.db'}")
    monkeypatch.delenv("ARENA_REDIS_URL", raising=False)
    monkeypatch.setenv("ARENA_GRACE_SECONDS", "10")
    external.forget()  # bot ids start again at 1 in the fresh database
    yield
    db.dispose_all()


@pytest.fixture
def server(store: None) -> Iterator[BackgroundServer]:
    running = start_server("127.0.0.1:0")
    yield running
    running.stop()


@pytest.fixture
def arena(server: BackgroundServer) -> Iterator[arena_pb2_grpc.ArenaStub]:
    with grpc.insecure_channel(server.address) as channel:
        yield arena_pb2_grpc.ArenaStub(channel)


class NodeBot:
    """A kit bot as a real Node process, its output in a file."""

    def __init__(self, kit: Path, script: str, address: str, token: str, log: Path, tls_ca: Path | None = None,
                 args: tuple[str, ...] = ()) -> None:
        self.log = log
        env = {**os.environ, "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": address}
        env.pop("ARENA_TLS", None)
        env.pop("ARENA_TLS_CA", None)
        if tls_ca is not None:
            env["ARENA_TLS_CA"] = str(tls_ca)
        with log.open("wb") as out:
            self.process = subprocess.Popen([str(NODE), f"dist/bots/{script}.js", *args], cwd=kit, env=env,
                                            stdout=out, stderr=subprocess.STDOUT)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, text: str, count: int = 1, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while self.output().count(text) < count:
            assert time.monotonic() < deadline, f"never saw {text!r} x{count}:\n{self.output()}"
            assert self.process.poll() is None, f"the bot exited ({self.process.returncode}):\n{self.output()}"
            time.sleep(0.05)

    def exit_code(self, timeout: float = 30) -> int:
        return self.process.wait(timeout)

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.terminate()  # SIGTERM: the kit ends its stream and exits cleanly
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        return self.output()


def arena_tool(kit: Path, address: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The kit's command line for the Arena service (dist/tools/arena.js)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    return subprocess.run([str(NODE), "dist/tools/arena.js", *args, "--address", address], cwd=kit,
                          env={**environment, **(env or {})}, capture_output=True, text=True, timeout=120)


def register(arena: arena_pb2_grpc.ArenaStub, name: str) -> arena_pb2.RegisterBotResponse:
    return arena.RegisterBot(arena_pb2.RegisterBotRequest(name=name, owner="tests"))


def connected(reply: arena_pb2.RegisterBotResponse, bot: NodeBot) -> None:
    """Waits until the server holds the bot's stream (then its matches reach it)."""
    assert external.wait_connected([int(reply.bot_id)], 30), f"{reply.name} never connected:\n{bot.output()}"


def wait_done(arena: arena_pb2_grpc.ArenaStub, match_id: str, timeout: float = 60) -> arena_pb2.MatchDetail:
    deadline = time.monotonic() + timeout
    while (detail := arena.GetMatch(arena_pb2.MatchRef(match_id=match_id))).summary.status not in ("done", "aborted"):
        assert time.monotonic() < deadline, f"match {match_id} still {detail.summary.status}"
        time.sleep(0.1)
    return detail


def assert_played_cleanly(detail: arena_pb2.MatchDetail, name: str) -> None:
    """Done, with every decision `ok` (or forced) and some of them the bot's."""
    assert detail.summary.status == "done", detail.summary
    seat = list(detail.summary.players).index(name)
    codes = {d.code for d in detail.decisions}
    assert codes - {"forced"} == {"ok"}, f"{detail.summary.game}: {codes}"
    assert any(d.seat == seat for d in detail.decisions), f"{name} made no decision in {detail.summary.game}"


def test_the_kit_carries_the_protocol_of_the_repository(kit: Path) -> None:
    """The protocol has one home, proto/: git holds no copy in the kit, which takes one when it
    is built or packed, and the packed kit carries exactly the repository's files."""
    tracked = subprocess.run(["git", "ls-files", "sdk/node/proto"], cwd=ROOT, capture_output=True, text=True)
    assert tracked.returncode == 0 and tracked.stdout == ""
    ours = sorted(p.name for p in (ROOT / "proto" / "arena" / "v1").glob("*.proto"))
    for name in ours:
        assert (kit / "proto" / "arena" / "v1" / name).read_bytes() == \
            (ROOT / "proto" / "arena" / "v1" / name).read_bytes(), f"{name} differs"
    check = subprocess.run([NODE, "scripts/sync-proto.mjs", "--check"], cwd=kit, capture_output=True, text=True,
                           timeout=60)
    assert check.returncode == 0, check.stderr
    packed = subprocess.run([NPM, "pack", "--dry-run", "--json", "--ignore-scripts"], cwd=kit,
                            capture_output=True, text=True, timeout=120)
    assert packed.returncode == 0, packed.stderr
    files = {entry["path"] for entry in json.loads(packed.stdout)[0]["files"]}
    assert {f"proto/arena/v1/{name}" for name in ours} <= files


def test_the_kits_own_tests_pass(kit: Path) -> None:
    tests = sorted(str(p.relative_to(kit)) for p in (kit / "dist" / "test").glob("*.test.js"))
    assert tests
    done = subprocess.run([NODE, "--test", *tests], cwd=kit, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_random_bot_plays_every_game_in_a_rated_tournament(
        kit: Path, server: BackgroundServer, arena: arena_pb2_grpc.ArenaStub, tmp_path: Path) -> None:
    reply = register(arena, "node-random")
    bot = NodeBot(kit, "random", server.address, reply.token, tmp_path / "random.log")
    try:
        connected(reply, bot)
        ref = arena.CreateTournament(arena_pb2.CreateTournamentRequest(
            name="node cup", games=[arena_pb2.TournamentGame(game=g, table_sizes=[2]) for g in games.names()],
            bots=["node-random", "house:random"], repetitions=1, rated=True, seed=11), metadata=ADMIN)
        updates = list(arena.FollowTournament(ref, timeout=150))
    finally:
        output = bot.stop()
    assert updates[-1].status == "done", updates[-1]
    assert {p.game for p in updates[-1].progress} == set(games.names())
    assert all(p.done == p.total > 0 for p in updates[-1].progress), updates[-1].progress
    assert "connected as node-random" in output
    assert reply.token not in output, "the kit must never log the token"
    assert "WARNING" not in output and "ERROR" not in output, output

    listed = arena.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=ref.tournament_id, bot="node-random",
                                                            limit=1000)).matches
    assert {m.game for m in listed} == set(games.names())
    for summary in listed:
        assert_played_cleanly(arena.GetMatch(arena_pb2.MatchRef(match_id=summary.match_id)), "node-random")
    for game in games.names():
        rows = {r.bot: r for r in arena.GetLeaderboard(arena_pb2.LeaderboardRequest(game=game)).rows}
        assert "node-random" in rows and rows["node-random"].matches > 0, (game, rows.keys())


def test_the_crazy_eights_bot_plays_challenges_with_its_own_token(
        kit: Path, server: BackgroundServer, arena: arena_pb2_grpc.ArenaStub, tmp_path: Path) -> None:
    reply = register(arena, "node-eights")
    bot = NodeBot(kit, "crazyEights", server.address, reply.token, tmp_path / "eights.log")
    own = (("authorization", f"Bearer {reply.token}"),)
    try:
        connected(reply, bot)
        refs = [arena.Challenge(arena_pb2.ChallengeRequest(game="crazy_eights", players=players), metadata=own)
                for players in (["node-eights", "house:heuristic"], ["heuristic", "node-eights"],
                                ["node-eights", "house:random", "house:heuristic"])]
        details = [wait_done(arena, ref.match_id) for ref in refs]
        bot.wait_for("): rank ", count=len(refs))  # onMatchEnd heard every MatchEnded
    finally:
        output = bot.stop()
    for detail in details:
        assert_played_cleanly(detail, "node-eights")
    assert "WARNING" not in output and "ERROR" not in output, output


def test_the_kits_bot_is_challenged_by_another_bot_only_as_its_flags_accept(
        kit: Path, server: BackgroundServer, arena: arena_pb2_grpc.ArenaStub, tmp_path: Path) -> None:
    """The kit's command line sets the Hello's challenge policy: accepted in Crazy 8s only. (The
    random bot plays every game, so Durak is declined by the policy, not by its Hello's games.)"""
    reply, challenger = register(arena, "node-sparring"), register(arena, "py-challenger")
    bot = NodeBot(kit, "random", server.address, reply.token, tmp_path / "sparring.log",
                  args=("--accept-challenges", "--challenge-games", "crazy_eights"))
    other = start_bot("arena_bot.examples.random_bot", server.address, challenger.token)
    own = (("authorization", f"Bearer {challenger.token}"),)
    try:
        connected(reply, bot)
        connected(challenger, bot)
        with pytest.raises(grpc.RpcError) as caught:
            arena.Challenge(arena_pb2.ChallengeRequest(game="durak", players=["py-challenger", "node-sparring"]),
                            metadata=own)
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert caught.value.details() == "bot node-sparring does not accept challenges for durak"
        ref = arena.Challenge(arena_pb2.ChallengeRequest(game="crazy_eights", players=["py-challenger", "node-sparring"]),
                              metadata=own)
        detail = wait_done(arena, ref.match_id)
    finally:
        output = bot.stop()
        other.terminate()
        other.communicate(timeout=30)
    assert_played_cleanly(detail, "node-sparring")
    assert "WARNING" not in output and "ERROR" not in output, output


def test_the_crazy_eights_bot_is_rated_through_the_kits_arena_tool(
        kit: Path, server: BackgroundServer, tmp_path: Path) -> None:
    registered = arena_tool(kit, server.address, "register", "node-rated", "--owner", "tests")
    assert registered.returncode == 0, registered.stderr
    token = registered.stdout.split("token: ", 1)[1].split()[0]
    bot = NodeBot(kit, "crazyEights", server.address, token, tmp_path / "rated.log")
    try:
        bot.wait_for("connected as node-rated")
        challenge = arena_tool(kit, server.address, "challenge", "crazy_eights", "node-rated", "house:random",
                               env={"ARENA_BOT_TOKEN": token})
        assert challenge.returncode == 0 and ": done;" in challenge.stdout, challenge.stdout + challenge.stderr
        played = arena_tool(kit, server.address, "tournament", "--game", "crazy_eights",
                            "--bots", "node-rated,heuristic,random", "--repetitions", "2",
                            env={"ARENA_ADMIN_TOKEN": "admin-secret"})
    finally:
        output = bot.stop()
    assert played.returncode == 0, played.stdout + played.stderr
    assert "done: crazy_eights 12/12" in played.stdout, played.stdout
    rows = [line.split() for line in played.stdout.splitlines() if "node-rated" in line]
    # rank, bot, elo, (interval), matches: in 2 of the 3 pairings, both seatings, 2 deals each
    assert len(rows) == 1 and int(rows[0][4]) == 8, played.stdout
    assert "WARNING" not in output and "ERROR" not in output, output
    assert token not in output
    board = arena_tool(kit, server.address, "leaderboard", "crazy_eights")
    assert board.returncode == 0 and "node-rated" in board.stdout, board.stdout


def test_a_refused_token_is_final(kit: Path, server: BackgroundServer, tmp_path: Path) -> None:
    bot = NodeBot(kit, "random", server.address, "not-a-token-at-all", tmp_path / "refused.log")
    try:
        assert bot.exit_code() == 1
    finally:
        output = bot.stop()
    assert "UNAUTHENTICATED" in output and "giving up" in output, output
    assert "reconnecting" not in output
    assert "not-a-token-at-all" not in output


def test_replaced_and_revoked_stop_a_bot_for_good(
        kit: Path, server: BackgroundServer, arena: arena_pb2_grpc.ArenaStub, tmp_path: Path) -> None:
    reply = register(arena, "node-twice")
    first = NodeBot(kit, "random", server.address, reply.token, tmp_path / "first.log")
    second = None
    try:
        first.wait_for("connected as node-twice")
        second = NodeBot(kit, "random", server.address, reply.token, tmp_path / "second.log")
        second.wait_for("connected as node-twice")
        assert first.exit_code() == 1, "the replaced process must stop, not fight the newer one"
        assert "giving up: replaced" in first.output(), first.output()
        assert second.process.poll() is None, second.output()

        assert arena.RevokeBot(arena_pb2.RevokeBotRequest(name="node-twice"), metadata=ADMIN).revoked
        assert second.exit_code() == 1
        assert "giving up: revoked" in second.output(), second.output()
    finally:
        outputs = first.stop() + (second.stop() if second else "")
    assert "reconnecting" not in outputs
    assert reply.token not in outputs


def test_a_bot_comes_back_by_itself_when_the_server_restarts(kit: Path, store: None, tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    first = start_server(address)
    with grpc.insecure_channel(address) as channel:
        reply = register(arena_pb2_grpc.ArenaStub(channel), "node-patient")
    bot = NodeBot(kit, "random", address, reply.token, tmp_path / "patient.log")
    second = None
    try:
        bot.wait_for("connected as node-patient")
        first.stop()
        bot.wait_for("reconnecting in")
        second = start_server(address)  # the same store: the token still holds
        bot.wait_for("connected as node-patient", count=2)
        with grpc.insecure_channel(address) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            ref = stub.Challenge(arena_pb2.ChallengeRequest(game="crazy_eights",
                                                            players=["node-patient", "house:random"]), metadata=ADMIN)
            assert_played_cleanly(wait_done(stub, ref.match_id), "node-patient")
    finally:
        bot.stop()
        if second is not None:
            second.stop()


def test_the_bot_connects_over_tls_with_the_ca_from_arena_tls_ca(kit: Path, store: None, tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command line is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout", str(key),
                    "-out", str(cert), "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    port = free_port()
    server = start_server(f"127.0.0.1:{port}", (cert, key))
    credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
    bot = None
    try:
        with grpc.secure_channel(f"localhost:{port}", credentials) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            reply = register(stub, "node-private")
            bot = NodeBot(kit, "crazyEights", f"localhost:{port}", reply.token, tmp_path / "tls.log", tls_ca=cert)
            connected(reply, bot)
            ref = stub.Challenge(arena_pb2.ChallengeRequest(game="crazy_eights", players=["node-private", "random"]),
                                 metadata=(("authorization", f"Bearer {reply.token}"),))
            assert_played_cleanly(wait_done(stub, ref.match_id), "node-private")
    finally:
        if bot is not None:
            bot.stop()
        server.stop()
