"""Seals that hold with `arena serve` on the embedded default, a real SQLite
store and a real bot process: deal seeds are keyed by a secret of each tournament, a rerun of
the same deals reproduces them, and a deal stays sealed on every reader while any match plays
it, whatever its tournament's status."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa
from arena_bot.v1 import arena_pb2
from fastapi.testclient import TestClient

from arena.cli import main as cli
from arena.server.arena_service import start_in_background
from arena.store import db
from arena.store.models import Match, Tournament
from arena.web.app import create_app
from tests.helpers import ROOT, wait_until
from tests.support.grpc import ADMIN, GAME, register, wait_connected

match_t = Match.__table__
tournament_t = Tournament.__table__


def matches_of(tournament_id: int) -> list[sa.Row]:
    with db.read() as connection:
        return connection.execute(sa.select(match_t.c.id, match_t.c.seed, match_t.c.status)
                                  .where(match_t.c.tournament_id == tournament_id).order_by(match_t.c.id)).all()


def round_robin(name: str, seed: int) -> arena_pb2.CreateTournamentRequest:
    return arena_pb2.CreateTournamentRequest(
        name=name, games=[arena_pb2.TournamentGame(game=GAME, table_sizes=[2])],
        bots=["house:random", "house:heuristic"], repetitions=2, seed=seed)


def test_same_master_seed_deals_differently_unless_the_key_is_copied(arena, capsys) -> None:
    """The derivation depends on the stored key: two tournaments with one master seed deal
    different cards; `--same-deals-as` (key and seed copied) deals the same ones. The key is
    served by no read path."""
    first, second = (int(arena.CreateTournament(round_robin(n, 41234), metadata=ADMIN).tournament_id)
                     for n in ("t1", "t2"))
    for ref in (first, second):
        arena.CancelTournament(arena_pb2.TournamentRef(tournament_id=str(ref)), metadata=ADMIN)
    assert cli(["tournament", "create", "--game", GAME, "--bots", "house:random,house:heuristic", "--sizes", "2",
                "--repetitions", "2", "--same-deals-as", str(first), "--name", "t3"]) == 0
    assert cli(["tournament", "create", "--game", GAME, "--bots", "random", "--same-deals-as", str(first),
                "--seed", "1"]) == 2
    assert "one or the other" in capsys.readouterr().err
    with db.read() as connection:
        rows = connection.execute(sa.select(tournament_t.c.id, tournament_t.c.seed, tournament_t.c.deal_key)
                                  .order_by(tournament_t.c.id)).all()
    third = rows[-1].id
    assert [r.seed for r in rows] == [41234] * 3
    assert len(rows[0].deal_key) == 64 and rows[0].deal_key != rows[1].deal_key
    assert rows[2].deal_key == rows[0].deal_key
    deals = {t: [m.seed for m in matches_of(t)] for t in (first, second, third)}
    assert len(set(deals[first])) == 2  # two repetitions, two deals, each in two rotations
    assert not set(deals[first]) & set(deals[second])
    assert deals[third] == deals[first]
    # No reader serves a key: not the Arena service, the command line, the web face.
    texts = [str(arena.FollowTournament(arena_pb2.TournamentRef(tournament_id=str(t))).next()) for t in deals]
    texts.append(str(arena.ListMatches(arena_pb2.ListMatchesRequest(limit=100))))
    for argv in (["tournament", "status", "--json", str(first)], ["tournament", "list", "--json"]):
        cli(argv)
        texts.append(capsys.readouterr().out)
    with TestClient(create_app(os.environ["ARENA_DATABASE_URL"])) as web:
        texts += [web.get(path).text for path in (f"/api/v1/tournaments/{first}", f"/tournaments/{first}",
                                                   "/api/v1/tournaments", "/tournaments", "/")]
    for row in rows:
        assert all(row.deal_key not in text and row.deal_key.upper() not in text for text in texts)


def test_cancelling_a_rerun_does_not_unseal_the_deal_it_plays(arena, server, tmp_path: Path, capsys) -> None:
    """T2 reruns T1's deals; the admin cancels T2 while its match plays: T1's replay of that
    deal stays sealed on gRPC GetMatch, the web page, the JSON API and the command line until
    the match is over. Before the fix, a cancelled tournament's matches were not looked at."""
    hold = tmp_path / "hold"
    hold.touch()
    token = register(arena, "held")
    env = {**os.environ, "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": server.address, "ARENA_HOLD_FILE": str(hold),
           "PYTHONPATH": str(ROOT)}
    bot = subprocess.Popen([sys.executable, "-m", "tests.referee.held_bot"], env=env, cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=(tmp_path / "bot.err").open("w"))
    try:
        wait_connected(token)
        request = round_robin("t1", 41234)
        request.repetitions = 1
        t1 = arena.CreateTournament(request, metadata=ADMIN)
        assert list(arena.FollowTournament(t1, timeout=120))[-1].status == "done"
        replay = matches_of(int(t1.tournament_id))[0]
        assert not arena.GetMatch(arena_pb2.MatchRef(match_id=str(replay.id))).sealed
        assert cli(["tournament", "create", "--game", GAME, "--bots", "held,house:random", "--sizes", "2",
                    "--same-deals-as", t1.tournament_id, "--move-time", "60", "--time-bank", "120"]) == 0
        with db.read() as connection:
            t2 = connection.execute(sa.select(sa.func.max(tournament_t.c.id))).scalar_one()
        assert {m.seed for m in matches_of(t2)} == {replay.seed}
        start_in_background(t2)
        wait_until(lambda: any(m.status == "running" for m in matches_of(t2)), 120,
                   what="a match of the second rotation to run")
        arena.CancelTournament(arena_pb2.TournamentRef(tournament_id=str(t2)), metadata=ADMIN)
        with db.read() as connection:
            assert connection.execute(sa.select(tournament_t.c.status).where(tournament_t.c.id == t2)).scalar_one() \
                == "cancelled"
        assert "running" in {m.status for m in matches_of(t2)}

        detail = arena.GetMatch(arena_pb2.MatchRef(match_id=str(replay.id)))
        assert detail.sealed and detail.seed == 0 and not detail.decisions and not detail.summary.ranks
        with TestClient(create_app(os.environ["ARENA_DATABASE_URL"])) as web:
            shown = web.get(f"/api/v1/matches/{replay.id}").json()
            assert shown["sealed"] and not shown["replay"] and "seed" not in shown
            assert web.get(f"/api/v1/matches/{replay.id}/replay").status_code == 404
            page = web.get(f"/matches/{replay.id}")
            assert page.status_code == 200 and "withheld" in page.text and str(replay.seed) not in page.text
        capsys.readouterr()
        assert cli(["match", "show", str(replay.id)]) == 0
        assert "sealed until its deal is over" in capsys.readouterr().out
    finally:
        hold.unlink(missing_ok=True)  # the held match plays on to its end
        wait_until(lambda: not any(m.status in ("scheduled", "running") for m in matches_of(t2)) if "t2" in locals()
                   else True, 120, what="the second rotation to end")
        bot.terminate()
        bot.wait(timeout=30)
    assert not arena.GetMatch(arena_pb2.MatchRef(match_id=str(replay.id))).sealed  # the deal is over everywhere
