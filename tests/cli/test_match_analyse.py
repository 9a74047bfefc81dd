"""``arena match analyse``: in this process on the embedded store, or asked of a running
server (``--address``); ``--json`` the kept document; a sealed match or a bad seat is one line."""

from __future__ import annotations

import json
import re

import pytest
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.cli import main
from arena.store import db
from arena.store.models import Match
from arena.store.statuses import MatchStatus
from tests.support.grpc import ADMIN, GAME

match_t = Match.__table__


def test_analyse_in_this_process_then_served_as_kept(embedded, capsys, monkeypatch) -> None:
    monkeypatch.setenv("ARENA_ANALYSIS_WORLDS", "4")
    monkeypatch.setenv("ARENA_ANALYSIS_DECISIONS", "5")
    assert main(["tournament", "create", "--game", GAME, "--bots", "random,heuristic", "--sizes", "2",
                 "--seed", "3", "--run"]) == 0
    capsys.readouterr()
    assert main(["match", "analyse", "1", "--seat", "0"]) == 0
    shown = capsys.readouterr().out
    assert re.search(r"match 1, seat 0 \(crazy_eights, win probability, budget w4-a10-d5-pend-c16-m1500000\): \d+ decisions judged, "
                     r"average loss [\d.]+ points, accuracy [\d.]+; \d+ blunders?, \d+ mistakes?, "
                     r"\d+ inaccurac(y|ies)( \(cut short\))?$", shown, re.M)
    assert re.search(r"^\s+\d+\s+turn \d+\s+\S.* loss\s+-?[\d.]+ ± [\d.]+", shown, re.M)
    assert "inaccuracys" not in shown
    assert main(["match", "analyse", "1", "--seat", "0", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["seat"] == 0 and document["key"] == "w4-a10-d5-pend-c16-m1500000"
    with db.transaction() as connection:
        connection.execute(match_t.update().where(match_t.c.id == 2).values(status=MatchStatus.SCHEDULED))
    assert main(["match", "analyse", "1", "--seat", "1"]) == 2
    assert "its deal is still being played" in capsys.readouterr().err
    assert main(["match", "analyse", "1", "--seat", "7"]) == 2


@pytest.mark.timeout(240)
def test_analyse_asks_a_running_server(arena: arena_pb2_grpc.ArenaStub, server, capsys, monkeypatch) -> None:
    ref = arena.CreateTournament(arena_pb2.CreateTournamentRequest(
        name="a", games=[arena_pb2.TournamentGame(game=GAME, table_sizes=[2])],
        bots=["house:random", "house:heuristic"], repetitions=1, seed=9), metadata=ADMIN)
    assert list(arena.FollowTournament(ref, timeout=120))[-1].status == "done"
    with db.read() as connection:
        match_id = connection.execute(sa.select(sa.func.min(match_t.c.id))).scalar_one()
    assert main(["match", "analyse", str(match_id), "--seat", "1", "--address", server.address, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["seat"] == 1 and document["decisions"]
    reply = arena.AnalyseMatch(arena_pb2.AnalyseMatchRequest(match_id=str(match_id), seat=1))
    assert reply.status == "done" and json.loads(reply.analysis_json) == document
