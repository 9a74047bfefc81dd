"""Tournaments, challenges and revocation name bots as registration compares them: whatever
their case. `Heuristic` and `house:Heuristic` are the house heuristic, `ALICE` is the registered
`Alice`; two spellings of one bot are one bot, refused as a tournament's two entrants."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import grpc
import pytest
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.store import db
from arena.store.models import Bot, Match
from tests.helpers import ARENA
from tests.support.grpc import ADMIN, GAME, register, start_bot, wait_connected

pytestmark = pytest.mark.timeout(180)


def played(arena: arena_pb2_grpc.ArenaStub, ref: arena_pb2.MatchRef) -> arena_pb2.MatchDetail:
    deadline = time.monotonic() + 60
    while (detail := arena.GetMatch(ref)).summary.status in ("scheduled", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
    return detail


def test_a_challenge_seats_bots_named_in_any_case(arena: arena_pb2_grpc.ArenaStub, server) -> None:
    token = register(arena, "Alice")
    bot = start_bot("arena_bot.examples.random_bot", server.address, token)
    try:
        wait_connected(token)
        # The calling bot may spell itself as it likes, and the house bot too.
        mine = arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=["ALICE", "house:Heuristic"]),
                               metadata=(("authorization", f"Bearer {token}"),))
        by_admin = arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=["RANDOM", "alice"]), metadata=ADMIN)
        details = [played(arena, mine), played(arena, by_admin)]
    finally:
        bot.terminate()
        bot.communicate(timeout=10)
    assert [list(d.summary.players) for d in details] == [["Alice", "heuristic"], ["random", "Alice"]]
    assert [d.summary.status for d in details] == ["done", "done"]
    with pytest.raises(grpc.RpcError) as refused:
        arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=["house:Nobody", "alice"]), metadata=ADMIN)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details().startswith("no house bot 'nobody'"), refused.value.details()


def test_a_tournament_names_bots_in_any_case_and_one_bot_once(arena: arena_pb2_grpc.ArenaStub) -> None:
    register(arena, "Alice")

    def create(*bots: str) -> arena_pb2.TournamentRef:
        return arena.CreateTournament(arena_pb2.CreateTournamentRequest(
            games=[arena_pb2.TournamentGame(game=GAME, table_sizes=[2])], bots=list(bots), rated=False), metadata=ADMIN)

    for same in (["heuristic", "Heuristic"], ["random", "house:RANDOM"], ["alice", "ALICE"]):
        with pytest.raises(grpc.RpcError) as refused:
            create(*same)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, same
        assert "the same bot" in refused.value.details(), refused.value.details()
    ref = create("Heuristic", "RANDOM-2")
    matches = arena.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=ref.tournament_id)).matches
    assert matches and {p for m in matches for p in m.players} == {"heuristic", "random-2"}


def test_the_command_line_creates_a_tournament_of_bots_in_any_case(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | {"ARENA_DATABASE_URL": url}

    def create(bots: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([ARENA, "tournament", "create", "--game", GAME, "--bots", bots], env=env,
                              capture_output=True, text=True, timeout=120)

    made = create("Heuristic,random")
    assert made.returncode == 0, made.stderr
    twice = create("heuristic,house:Heuristic")
    assert twice.returncode == 2 and twice.stderr.startswith("arena: ") and "the same bot" in twice.stderr, twice.stderr
    try:
        with db.read(url) as connection:
            bots = dict(connection.execute(sa.select(Bot.__table__.c.id, Bot.__table__.c.name)).all())
            seated = {bots[b] for (seating,) in connection.execute(sa.select(Match.__table__.c.seating))
                      for b in seating}
    finally:
        db.dispose_all()
    assert sorted(bots.values()) == ["heuristic", "random"] and seated == {"heuristic", "random"}


def test_revoking_names_the_bot_in_any_case(arena: arena_pb2_grpc.ArenaStub) -> None:
    token = register(arena, "Alice")
    assert arena.RevokeBot(arena_pb2.RevokeBotRequest(name="ALICE"), metadata=ADMIN).revoked
    with pytest.raises(grpc.RpcError) as refused:
        arena.ListMatches(arena_pb2.ListMatchesRequest(), metadata=(("authorization", f"Bearer {token}"),))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
