"""`arena serve --web`: the web face beside the gRPC services, from a process of its own that
ends with the server's."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import grpc
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from tests.helpers import ARENA


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_serve(tmp_path: Path) -> tuple[subprocess.Popen[str], int, int, list]:
    """``arena serve --web`` as a real process; returns it, its ports and the games the web
    face listed once it answered."""
    grpc_port, web_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_DATABASE_URL"] = f"sqlite:///{tmp_path / 'arena.db'}"
    server = subprocess.Popen([ARENA, "serve", "--address",
                               f"127.0.0.1:{grpc_port}", "--metrics-port", "0", "--web", f"127.0.0.1:{web_port}"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    games = None
    while games is None and time.monotonic() < deadline and server.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{web_port}/api/v1/games", timeout=5) as reply:
                games = json.load(reply)
        except OSError:
            time.sleep(0.2)
    if not games:
        server.kill()
        raise AssertionError(f"the web face never answered: {server.communicate(timeout=30)[0][-3000:]}")
    return server, grpc_port, web_port, games


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux: /proc/PID/task/TID/children)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def listening_pid(port: int, candidates: list[int]) -> int | None:
    """Which of ``candidates`` holds the listening TCP socket on ``port`` (from /proc/net/tcp)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":  # 0A: LISTEN
                inodes.add(fields[9])
    for pid in candidates:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                return pid
    return None


def gone(pid: int, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z"):
                return True  # ended, waiting for its parent to collect it
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


def test_serve_runs_the_web_face_beside_grpc_in_its_own_process(tmp_path: Path) -> None:
    server, grpc_port, web_port, games = start_serve(tmp_path)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            listed = arena_pb2_grpc.ArenaStub(channel).ListGames(arena_pb2.ListGamesRequest(), timeout=30).games
        names = {g["name"] for g in (games if isinstance(games, list) else games.get("games", []))}
        assert names == {g.name for g in listed}
        # The web face listens from a child process; the gRPC port from the server itself.
        web = children(server.pid)
        assert listening_pid(web_port, [server.pid, *web]) in web
        assert listening_pid(grpc_port, [server.pid, *web]) == server.pid
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0]
    assert all(gone(pid) for pid in web), "the web face outlived the server"
    assert "Traceback" not in output, output[-3000:]


def test_the_web_face_ends_when_the_server_is_killed(tmp_path: Path) -> None:
    server, _grpc_port, web_port, _games = start_serve(tmp_path)
    web = children(server.pid)
    try:
        assert web
        server.kill()  # no chance to stop its children: the kernel tells them
        server.communicate(timeout=30)
        assert all(gone(pid) for pid in web), "the web face outlived a killed server"
    finally:
        for pid in web:
            if not gone(pid, 0):
                os.kill(pid, 9)
