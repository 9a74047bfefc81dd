"""``Arena.AnalyseMatch`` with ``arena serve`` on the embedded default: a finished match's
analysis is queued, computed in the server's own analysis process (not on its loop) and
kept; asked again it is served as kept; a sealed match, an unknown match or seat and a bad id
are refused; new computations are rate-limited per caller."""

from __future__ import annotations

import json

import grpc
import pytest
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.server.settings import ServerSettings
from arena.store import db
from arena.store.models import Analysis, Match
from arena.store.statuses import MatchStatus
from tests.helpers import wait_until
from tests.support.grpc import ADMIN, GAME

pytestmark = pytest.mark.timeout(240)
match_t = Match.__table__


@pytest.fixture
def server_settings() -> ServerSettings:
    return ServerSettings(address="127.0.0.1:0", admin_token="admin-secret", analysis_worlds=4,
                          analysis_decisions=6, analysis_per_minute=2)


def finished_matches(arena: arena_pb2_grpc.ArenaStub) -> list[int]:
    """The matches of a small finished tournament of house bots (duplicate pairs)."""
    ref = arena.CreateTournament(arena_pb2.CreateTournamentRequest(
        name="analysed", games=[arena_pb2.TournamentGame(game=GAME, table_sizes=[2])],
        bots=["house:random", "house:heuristic"], repetitions=1, seed=5), metadata=ADMIN)
    assert list(arena.FollowTournament(ref, timeout=120))[-1].status == "done"
    with db.read() as connection:
        return list(connection.execute(sa.select(match_t.c.id).where(
            match_t.c.tournament_id == int(ref.tournament_id)).order_by(match_t.c.id)).scalars())


def ask(arena: arena_pb2_grpc.ArenaStub, match_id: int | str, seat: int, **kwargs) -> arena_pb2.AnalysisReply:
    return arena.AnalyseMatch(arena_pb2.AnalyseMatchRequest(match_id=str(match_id), seat=seat), **kwargs)


def kept() -> int:
    with db.read() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(Analysis.__table__)).scalar_one()


def test_an_analysis_is_queued_computed_apart_and_then_served_as_kept(arena: arena_pb2_grpc.ArenaStub) -> None:
    match_id = finished_matches(arena)[0]
    assert ask(arena, match_id, 0).status == "queued"
    assert ask(arena, match_id, 0).status == "queued"  # on its way: nothing more queued, nothing counted
    replies: list[arena_pb2.AnalysisReply] = []
    wait_until(lambda: replies.append(ask(arena, match_id, 0)) or replies[-1].status == "done", 120,
               poll=0.5, what="the analysis")
    analysis = json.loads(replies[-1].analysis_json)
    assert analysis["seat"] == 0 and analysis["game"] == GAME
    assert analysis["budget"] == {"worlds": 4, "actions": 10, "decisions": 6, "depth": None, "confirm": 16,
                                  "plies": 1_500_000}
    assert 1 <= len(analysis["decisions"]) <= 6
    for decision in analysis["decisions"]:
        assert decision["best"] in [a["action"] for a in decision["actions"]]
    assert kept() == 1
    # Kept: served again as it is, whoever asks, past the rate of new computations.
    for _ in range(4):
        assert ask(arena, match_id, 0).analysis_json == replies[-1].analysis_json
    assert kept() == 1


def test_sealed_unknown_and_bad_requests_are_refused(arena: arena_pb2_grpc.ArenaStub) -> None:
    ids = finished_matches(arena)
    cases = [(ids[-1] + 100, 0, grpc.StatusCode.NOT_FOUND, "no match"),
             ("x1", 0, grpc.StatusCode.INVALID_ARGUMENT, "match"),
             (ids[0], 2, grpc.StatusCode.INVALID_ARGUMENT, "seat must be between 0 and 1"),
             # The deal is played again (its twin scheduled): sealed, both rotations.
             (ids[1], 0, grpc.StatusCode.FAILED_PRECONDITION, "its deal is still being played"),
             (ids[0], 0, grpc.StatusCode.FAILED_PRECONDITION, "its deal is still being played")]
    for number, (match_id, seat, code, text) in enumerate(cases):
        if number == 3:
            with db.transaction() as connection:
                connection.execute(match_t.update().where(match_t.c.id == ids[1])
                                   .values(status=MatchStatus.SCHEDULED))
        with pytest.raises(grpc.RpcError) as refused:
            ask(arena, match_id, seat)
        assert refused.value.code() == code and text in (refused.value.details() or "")
    assert kept() == 0


def test_new_computations_are_rate_limited_per_caller(arena: arena_pb2_grpc.ArenaStub) -> None:
    ids = finished_matches(arena)
    assert ask(arena, ids[0], 0).status == "queued"
    assert ask(arena, ids[0], 1).status == "queued"
    with pytest.raises(grpc.RpcError) as refused:
        ask(arena, ids[1], 0)
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "at most 2 analyses a minute" in (refused.value.details() or "")
    assert dict(refused.value.trailing_metadata() or ())["retry-after"]
    assert ask(arena, ids[1], 0, metadata=ADMIN).status == "queued"  # the admin is not counted


def test_a_failed_analysis_is_told_once_and_then_queued_again(arena: arena_pb2_grpc.ArenaStub,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # Read by the server's analysis process when it starts, at the first request.
    monkeypatch.setenv("ARENA_ANALYSIS_MEMORY_MB", "1")
    match_id = finished_matches(arena)[0]
    assert ask(arena, match_id, 0).status == "queued"
    replies: list[arena_pb2.AnalysisReply] = []
    wait_until(lambda: replies.append(ask(arena, match_id, 0)) or replies[-1].status != "queued", 120,
               poll=0.5, what="the analysis to fail")
    assert replies[-1].status == "failed" and not replies[-1].analysis_json
    assert "more than the 1 MiB of memory" in replies[-1].reason
    assert ask(arena, match_id, 0).status == "queued"  # asked again at once
    assert kept() == 0
