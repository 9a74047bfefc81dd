"""A bot's Hello names the games it plays: a seat in any other game is not waited for. The
bot forfeits it at once (its grace period is for bots that went away, not for ones that said
no), and the match goes on without it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from tests.helpers import ROOT, wait_until
from tests.support.grpc import ADMIN, register, wait_connected

DURAK_ONLY = textwrap.dedent("""
    import os
    from arena_bot.sdk import Bot, Connection, run

    class DurakOnly(Bot):
        games = ["durak"]

        def act(self, turn):
            return turn.legal_actions[0]

    run(DurakOnly(), Connection(address=os.environ["ARENA_ADDRESS"], token=os.environ["ARENA_BOT_TOKEN"]))
""")


@pytest.mark.timeout(120)
def test_a_seat_in_a_game_the_bot_does_not_play_is_forfeited_at_once(
        arena: arena_pb2_grpc.ArenaStub, server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_GRACE_SECONDS", "600")  # a bot merely away would be waited for that long
    token = register(arena, "durak-only")
    bot = subprocess.Popen([sys.executable, "-c", DURAK_ONLY], cwd=ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL,
                           env={**os.environ, "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": server.address})
    try:
        wait_connected(token)
        ref = arena.CreateTournament(arena_pb2.CreateTournamentRequest(
            games=[arena_pb2.TournamentGame(game="crazy_eights", table_sizes=[2])],
            bots=["durak-only", "random"], rated=False), metadata=ADMIN)
        wait_until(lambda: arena.FollowTournament(ref).next().status == "done", timeout=60, poll=0.5,
                   what="the tournament to end without waiting out the grace period")
    finally:
        bot.kill()
        bot.wait(10)
    matches = arena.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=ref.tournament_id)).matches
    assert len(matches) == 2
    for summary in matches:
        detail = arena.GetMatch(arena_pb2.MatchRef(match_id=summary.match_id))
        seat = list(detail.summary.players).index("durak-only")
        assert {d.code for d in detail.decisions if d.seat == seat} <= {"forfeited"}, "never asked to move"
        assert detail.summary.ranks[seat] == 2


def test_a_challenge_in_a_game_the_bot_does_not_play_is_refused_at_once(
        arena: arena_pb2_grpc.ArenaStub, server) -> None:
    import grpc

    token = register(arena, "durak-only")
    bot = subprocess.Popen([sys.executable, "-c", DURAK_ONLY], cwd=ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL,
                           env={**os.environ, "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": server.address})
    try:
        wait_connected(token)
        with pytest.raises(grpc.RpcError) as refused:
            arena.Challenge(arena_pb2.ChallengeRequest(game="crazy_eights", players=["durak-only", "random"]),
                            metadata=(("authorization", f"Bearer {token}"),))
    finally:
        bot.kill()
        bot.wait(10)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "does not play crazy_eights" in refused.value.details()
