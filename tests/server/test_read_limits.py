"""The Arena service's reads against a stranger who reads too much, on a real server and a
real SQLite store: a per-peer read rate that says when to retry, and follow streams capped
per peer and in all."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.server.embedded import BackgroundServer
from arena.server.settings import ServerSettings
from arena.store import db
from arena.tournaments import create_tournament

ADMIN = (("authorization", "Bearer admin-secret"),)


@pytest.fixture
def make_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., BackgroundServer]]:
    """Starts real servers with the given settings over one fresh store."""
    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'arena.db'}")
    monkeypatch.delenv("ARENA_REDIS_URL", raising=False)
    db.engine()  # the schema, as `arena serve` makes it
    started: list[BackgroundServer] = []

    def make(**settings) -> BackgroundServer:
        started.append(BackgroundServer(ServerSettings(address="127.0.0.1:0", admin_token="admin-secret", **settings)))
        return started[-1]

    yield make
    for server in started:
        server.stop()
    db.dispose_all()


def running_tournament() -> int:
    """A tournament in the store that nobody plays: it stays running while followed."""
    with db.transaction() as c:
        return create_tournament(c, ["durak"], ["random", "random-2"], [2], 1, name="followed")


def test_reads_past_the_rate_are_refused_with_when_to_retry(make_server) -> None:
    server = make_server(read_rate="5/minute")
    with grpc.insecure_channel(server.address) as channel:
        arena = arena_pb2_grpc.ArenaStub(channel)
        arena.ListGames(arena_pb2.ListGamesRequest(), timeout=30)
        arena.GetLeaderboard(arena_pb2.LeaderboardRequest(game="durak"), timeout=30)
        arena.ListMatches(arena_pb2.ListMatchesRequest(), timeout=30)
        with pytest.raises(grpc.RpcError) as missing:
            arena.GetMatch(arena_pb2.MatchRef(match_id="12345"), timeout=30)
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND  # counted all the same
        arena.ListGames(arena_pb2.ListGamesRequest(), timeout=30)
        for call in (lambda: arena.ListGames(arena_pb2.ListGamesRequest(), timeout=30),
                     lambda: arena.GetMatch(arena_pb2.MatchRef(match_id="1"), timeout=30),
                     lambda: next(iter(arena.FollowTournament(arena_pb2.TournamentRef(tournament_id="1"), timeout=30)))):
            with pytest.raises(grpc.RpcError) as refused:
                call()
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "try again in" in refused.value.details()
            retry = dict(refused.value.trailing_metadata())["retry-after"]
            assert 1 <= int(retry) <= 60
        # The admin is not counted.
        assert arena.ListGames(arena_pb2.ListGamesRequest(), metadata=ADMIN, timeout=30).games


def follow(arena: arena_pb2_grpc.ArenaStub, tournament_id: int) -> tuple[grpc.Future, arena_pb2.TournamentStatus]:
    """An open follow stream and its first status."""
    stream = arena.FollowTournament(arena_pb2.TournamentRef(tournament_id=str(tournament_id)), timeout=60)
    return stream, next(stream)


def refused_follow(arena: arena_pb2_grpc.ArenaStub, tournament_id: int) -> str:
    with pytest.raises(grpc.RpcError) as refused:
        follow(arena, tournament_id)
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    return refused.value.details()


def test_follow_streams_are_capped_per_peer(make_server) -> None:
    server = make_server(follow_streams_per_peer=2, follow_streams=10)
    tournament = running_tournament()
    with grpc.insecure_channel(server.address) as channel:
        arena = arena_pb2_grpc.ArenaStub(channel)
        first, status = follow(arena, tournament)
        assert status.status == "running"
        second, _ = follow(arena, tournament)
        assert "already follows 2" in refused_follow(arena, tournament)
        first.cancel()
        # The cancelled stream's place comes free once the server has seen it go.
        for _ in range(100):
            try:
                third, _ = follow(arena, tournament)
                break
            except grpc.RpcError:
                time.sleep(0.1)
        else:
            raise AssertionError("a closed follow stream kept its place")
        second.cancel()
        third.cancel()


def test_follow_streams_are_capped_in_all(make_server) -> None:
    server = make_server(follow_streams_per_peer=10, follow_streams=2)
    tournament = running_tournament()
    with grpc.insecure_channel(server.address) as one, grpc.insecure_channel(server.address) as two:
        streams = [follow(arena_pb2_grpc.ArenaStub(one), tournament)[0],
                   follow(arena_pb2_grpc.ArenaStub(two), tournament)[0]]
        assert "follows 2 tournaments at once" in refused_follow(arena_pb2_grpc.ArenaStub(two), tournament)
        for stream in streams:
            stream.cancel()
