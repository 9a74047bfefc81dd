"""A fresh `arena serve` never answers UNKNOWN: started on a new SQLite file (embedded, no web
face), it makes its schema at start, so every read on its empty store is answered (empty lists,
NOT_FOUND) before anything was ever written, over gRPC and from the command line beside it.
Read-only commands alone still never make a schema (tests/cli/test_cli_errors.py)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from tests.helpers import ARENA
from tests.support.services import free_port

pytestmark = pytest.mark.timeout(120)
GAME = "crazy_eights"


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """(address, environment) of `arena serve` on a SQLite file that does not exist yet. The
    supervisor is off: nothing but the server's start may make the schema, so without that a
    reader would meet an empty store for as long as the server runs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env |= {"ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}", "ARENA_GATEWAY_METRICS_PORT": "0",
            "ARENA_SUPERVISOR_SECONDS": "0"}
    address = f"127.0.0.1:{free_port()}"
    assert not (tmp_path / "arena.db").exists()
    server = subprocess.Popen([ARENA, "serve", "--address", address], env=env, stdout=subprocess.DEVNULL,
                              stderr=(tmp_path / "serve.log").open("w"))
    try:
        with grpc.insecure_channel(address) as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
        yield address, env
    finally:
        server.terminate()
        server.wait(30)


def code(call: Callable[..., Any], request: Any) -> tuple[grpc.StatusCode, str]:
    """The status an anonymous call ends with and its detail (a stream is read to its end)."""
    try:
        answer = call(request, timeout=30)
        if not hasattr(answer, "ListFields"):
            list(answer)
    except grpc.RpcError as error:
        return error.code(), error.details() or ""
    return grpc.StatusCode.OK, ""


def test_every_read_rpc_of_a_fresh_server_answers_its_empty_store(fresh: tuple[str, dict[str, str]]) -> None:
    address, _ = fresh
    with grpc.insecure_channel(address) as channel:
        arena = arena_pb2_grpc.ArenaStub(channel)
        reads = [
            ("ListGames", arena.ListGames, arena_pb2.ListGamesRequest(), grpc.StatusCode.OK),
            ("GetLeaderboard", arena.GetLeaderboard, arena_pb2.LeaderboardRequest(game=GAME), grpc.StatusCode.OK),
            ("ListMatches", arena.ListMatches, arena_pb2.ListMatchesRequest(), grpc.StatusCode.OK),
            ("ListMatches of a tournament", arena.ListMatches, arena_pb2.ListMatchesRequest(tournament_id="1"),
             grpc.StatusCode.OK),
            ("ListMatches of a bot", arena.ListMatches, arena_pb2.ListMatchesRequest(bot="alice"),
             grpc.StatusCode.OK),
            ("GetMatch", arena.GetMatch, arena_pb2.MatchRef(match_id="1"), grpc.StatusCode.NOT_FOUND),
            ("FollowTournament", arena.FollowTournament, arena_pb2.TournamentRef(tournament_id="1"),
             grpc.StatusCode.NOT_FOUND),
        ]
        answered = {name: code(call, request) for name, call, request, _ in reads}
        assert {name: status for name, (status, _) in answered.items()} == {
            name: expected for name, _, _, expected in reads}, answered
        assert not arena.GetLeaderboard(arena_pb2.LeaderboardRequest(game=GAME), timeout=30).rows
        assert not arena.ListMatches(arena_pb2.ListMatchesRequest(), timeout=30).matches


def test_the_command_line_reads_a_fresh_servers_store(fresh: tuple[str, dict[str, str]]) -> None:
    """`arena leaderboard`, `arena tournament list` and `arena match show` beside a fresh
    server: an empty leaderboard and listing, and no such match, never "run `arena db upgrade`"."""
    _, env = fresh
    board = subprocess.run([ARENA, "leaderboard", GAME], env=env, capture_output=True, text=True, timeout=120)
    assert board.returncode == 0, board.stderr
    listing = subprocess.run([ARENA, "tournament", "list", "--json"], env=env, capture_output=True, text=True,
                             timeout=120)
    assert listing.returncode == 0 and json.loads(listing.stdout) == [], (listing.stdout, listing.stderr)
    shown = subprocess.run([ARENA, "match", "show", "1"], env=env, capture_output=True, text=True, timeout=120)
    assert "db upgrade" not in shown.stderr and "Traceback" not in shown.stderr, shown.stderr
    assert shown.returncode == 2 and "no match 1" in shown.stderr, (shown.returncode, shown.stdout, shown.stderr)
