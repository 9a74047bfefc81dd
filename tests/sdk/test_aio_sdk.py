"""The asyncio SDK (``arena_bot.aio``) against the whole server as ``arena serve`` runs it, with
bots as real processes: a single asyncio bot in several games, a fleet of 40 bots in one
process on shared connections, a revoked bot leaving its fleet, an ``act`` that raises, and a
fleet coming back after the server restarts."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena import games
from arena.referee import external
from arena.server import serve
from tests.helpers import ROOT
from tests.support.grpc import ADMIN, GAME, register, start_bot, wait_connected

FLEET = 40


def bearer(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


def wait_over(stub: arena_pb2_grpc.ArenaStub, refs: list[arena_pb2.MatchRef], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    pending = list(refs)
    while pending and time.monotonic() < deadline:
        pending = [r for r in pending if stub.GetMatch(r).summary.status in ("scheduled", "running")]
        time.sleep(0.2)
    assert not pending, f"{len(pending)} matches still playing"


def codes_by_seat(detail: arena_pb2.MatchDetail) -> dict[int, list[str]]:
    seats: dict[int, list[str]] = {}
    for decision in detail.decisions:
        seats.setdefault(decision.seat, []).append(decision.code)
    return seats


def start_fleet(address: str, tokens_file: Path, log: Path) -> subprocess.Popen[bytes]:
    """The fleet logs a line per bot and more: to a file, so a full pipe never stalls it."""
    env = {**os.environ, "ARENA_ADDRESS": address, "PYTHONPATH": str(ROOT)}
    env.pop("ARENA_BOT_TOKEN", None)
    with log.open("wb") as out:
        # Its bots accept each other's challenges, two at a time.
        return subprocess.Popen([sys.executable, "-m", "bots.fleet", "--tokens-file", str(tokens_file), "--seed", "1",
                                 "--accept-challenges", "--max-challenges", "2"],
                                env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)


def stop(process: subprocess.Popen[bytes]) -> str:
    process.terminate()
    output = process.communicate(timeout=10)[0]
    return output.decode() if output else ""


def server_connections(pid: int, port: int) -> int:
    """Established TCP connections from process ``pid`` to ``port`` on this machine."""
    sockets = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            sockets.add(target[len("socket:["):-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            remote_port, state, inode = int(fields[2].rsplit(":", 1)[1], 16), fields[3], fields[9]
            count += inode in sockets and remote_port == port and state == "01"
    return count


def rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0])


def test_an_asyncio_bot_plays_challenges_in_several_games(arena, server) -> None:
    token = register(arena, "aio-bot")
    bot = start_bot("bots.aio_random_bot", server.address, token)
    played = sorted({GAME, "durak", "yaniv"} & set(games.names()))
    try:
        wait_connected(token)
        refs = [arena.Challenge(arena_pb2.ChallengeRequest(game=game, players=players), metadata=bearer(token))
                for game in played for players in (["aio-bot", "house:random"], ["house:random", "aio-bot"])]
        wait_over(arena, refs)
    finally:
        output = stop(bot)
    for ref in refs:
        detail = arena.GetMatch(ref)
        assert detail.summary.status == "done", detail.summary
        seat = list(detail.summary.players).index("aio-bot")
        assert set(codes_by_seat(detail)[seat]) - {"forced"} == {"ok"}, detail.summary
    assert token not in output, "the SDK must never log the token"
    assert "connected as aio-bot" in output


def test_a_fleet_of_forty_bots_plays_in_one_process_on_shared_connections(arena, server, tmp_path: Path) -> None:
    names = [f"fleet-{n:02d}" for n in range(FLEET)]
    tokens = {name: register(arena, name) for name in names}
    tokens_file = tmp_path / "tokens"
    tokens_file.write_text("# name token\n" + "".join(f"{name} {tokens[name]}\n" for name in names))
    fleet = start_fleet(server.address, tokens_file, tmp_path / "fleet.log")
    try:
        for token in tokens.values():
            wait_connected(token)
        # Every bot against a house bot, and every bot against another of the fleet, at once.
        against_house = [arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=[name, "house:random"]),
                                         metadata=bearer(tokens[name])) for name in names]
        among_fleet = [arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=names[n:n + 2]), metadata=ADMIN)
                       for n in range(0, FLEET, 2)]
        cup = arena.CreateTournament(arena_pb2.CreateTournamentRequest(
            name="fleet cup", games=[arena_pb2.TournamentGame(game=GAME, table_sizes=[2])],
            bots=names[:4], repetitions=1, rated=True), metadata=ADMIN)
        wait_over(arena, against_house + among_fleet)
        finished = list(arena.FollowTournament(cup, timeout=60))[-1]
        connections = server_connections(fleet.pid, int(server.address.rsplit(":", 1)[1]))
        rss = rss_kib(fleet.pid)
    finally:
        stop(fleet)
    output = (tmp_path / "fleet.log").read_text()
    assert finished.status == "done" and finished.progress[0].done == finished.progress[0].total == 12
    for ref in against_house + among_fleet:
        detail = arena.GetMatch(ref)
        assert detail.summary.status == "done", detail.summary
        assert {code for codes in codes_by_seat(detail).values() for code in codes} - {"forced"} == {"ok"}, "no strikes"
    for name in names:
        played = arena.ListMatches(arena_pb2.ListMatchesRequest(bot=name)).matches
        assert sum(m.status == "done" for m in played) >= 2, name
    assert connections == -(-FLEET // 16), "16 streams share one connection"
    assert all(token not in output for token in tokens.values()), "the SDK must never log a token"
    print(f"fleet of {FLEET}: RSS {rss} KiB, {connections} connections")


def test_a_revoked_bot_leaves_its_fleet_and_the_others_play_on(arena, server, tmp_path: Path) -> None:
    tokens = {name: register(arena, name) for name in ("doomed", "steady-1", "steady-2")}
    tokens_file = tmp_path / "tokens"
    tokens_file.write_text("".join(f"{name} {token}\n" for name, token in tokens.items()))
    fleet = start_fleet(server.address, tokens_file, tmp_path / "fleet.log")
    try:
        for token in tokens.values():
            wait_connected(token)
        assert arena.RevokeBot(arena_pb2.RevokeBotRequest(name="doomed"), metadata=ADMIN).revoked
        deadline = time.monotonic() + 20
        while "[doomed] stopped" not in (tmp_path / "fleet.log").read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        refs = [arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=["steady-1", "steady-2"]),
                                metadata=bearer(tokens["steady-1"])) for _ in range(2)]
        wait_over(arena, refs)
        still_running = fleet.poll() is None
    finally:
        stop(fleet)
    output = (tmp_path / "fleet.log").read_text()
    assert "[doomed] stopped: revoked" in output, output[-2000:]
    assert output.count("connected as doomed") == 1, "a revoked bot does not come back"
    assert still_running, "the fleet plays on with its other bots"
    for ref in refs:
        detail = arena.GetMatch(ref)
        assert detail.summary.status == "done"
        assert {code for codes in codes_by_seat(detail).values() for code in codes} - {"forced"} == {"ok"}
    with pytest.raises(grpc.RpcError) as refused:
        arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=["doomed", "house:random"]),
                        metadata=bearer(tokens["doomed"]))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


# A bot whose act is blocking work (run in a thread by the SDK) and raises once per match.
CLUMSY = textwrap.dedent("""
    import threading, time
    from arena_bot.aio import AsyncBot, run

    class Clumsy(AsyncBot):
        blocking = True
        max_matches = 2
        every_decision = True  # asked at every decision, so the match is long enough to go on

        def __init__(self):
            self.turns = {}

        def act(self, turn):
            assert threading.current_thread() is not threading.main_thread()
            time.sleep(0.002)
            seen = self.turns[turn.match.match_id] = self.turns.get(turn.match.match_id, 0) + 1
            if seen == 2:
                raise RuntimeError("clumsy")
            return turn.legal_actions[0]

    run(Clumsy())
""")


def test_an_act_that_raises_loses_one_turn_and_the_match_goes_on(arena, server) -> None:
    token = register(arena, "clumsy")
    env = {**os.environ, "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": server.address, "PYTHONPATH": str(ROOT)}
    bot = subprocess.Popen([sys.executable, "-c", CLUMSY], env=env, cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_connected(token)
        ref = arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=["clumsy", "house:random"],
                                                         move_deadline_ms=300, time_bank_ms=300),
                              metadata=bearer(token))
        wait_over(arena, [ref])
    finally:
        output = stop(bot)
    detail = arena.GetMatch(ref)
    assert detail.summary.status == "done"
    mine = codes_by_seat(detail)[0]  # it asked for every decision, forced ones too
    assert mine.count("timeout") == 1 and mine.count("ok") == len(mine) - 1 >= 3, mine
    assert "act() failed" in output and "RuntimeError: clumsy" in output
    assert "AssertionError" not in output, "a blocking act runs in a thread"


def test_a_fleet_comes_back_after_a_server_restart_on_as_few_connections(arena, server, tmp_path: Path) -> None:
    names = [f"back-{n:02d}" for n in range(20)]
    tokens = {name: register(arena, name) for name in names}
    tokens_file = tmp_path / "tokens"
    tokens_file.write_text("".join(f"{name} {tokens[name]}\n" for name in names))
    fleet = start_fleet(server.address, tokens_file, tmp_path / "fleet.log")
    port = int(server.address.rsplit(":", 1)[1])
    try:
        for token in tokens.values():
            wait_connected(token)
        server.call(server.running.stop(0))
        external.forget()  # the restarted server's gateway starts with no one connected
        time.sleep(1.5)  # every bot sees its stream drop and tries again, in vain
        server.running = server.call(serve.start(replace(server.settings, address=server.address)))
        for token in tokens.values():
            wait_connected(token)
        ref = arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=names[:2]), metadata=ADMIN)
        wait_over(arena, [ref])
        connections = server_connections(fleet.pid, port)
    finally:
        stop(fleet)
    output = (tmp_path / "fleet.log").read_text()
    assert all(output.count(f"connected as {name} ") == 2 for name in names)
    assert "stopped" not in output, "a restart is not final"
    assert {d.code for d in arena.GetMatch(ref).decisions} - {"forced"} == {"ok"}
    assert connections == 2, "the bots come back on the fleet's two channels, not one connection each"
