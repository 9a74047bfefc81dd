"""Embedded mode heals too, with real processes: ``arena serve`` on a private SQLite file is
killed (``kill -9``) while a tournament's matches are being played; a new ``arena serve`` on
the same file plays what the dead one left, by itself, each match recorded once; a command
line run killed mid-tournament is finished by the server; two servers on one file elect one
healer."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys

import grpc
import pytest
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.store import db
from arena.store.models import Match, MatchSeat, RatingHistory, Result, Tournament
from tests.helpers import ARENA, ROOT, wait_until
from tests.support.services import free_port

pytestmark = pytest.mark.timeout(120)
match_t, result_t, tournament_t = Match.__table__, Result.__table__, Tournament.__table__
GAME = "crazy_eights"

# A bot of the SDK that thinks a little, so that its matches are still being played when
# the server is killed.
SLOW_BOT = """
import time
from arena_bot import cli
from arena_bot.examples.random_bot import RandomBot

class SlowBot(RandomBot):
    def act(self, turn):
        time.sleep(0.03)
        return super().act(turn)

cli.main(SlowBot(seed=1), "a slow random bot")
"""


@pytest.fixture
def served(tmp_path):
    """The environment of an embedded arena on its own SQLite file, with short leases and
    sweeps; ``start(name)`` runs ``arena serve`` in it (all killed afterwards)."""
    token = secrets.token_urlsafe(32)
    env = dict(os.environ) | {
        "PYTHONPATH": str(ROOT), "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}",
        "ARENA_ADMIN_TOKEN": token, "ARENA_GRPC_ADDRESS": f"127.0.0.1:{free_port()}",
        "ARENA_GATEWAY_METRICS_PORT": "0", "ARENA_METRICS_PORT": "0", "ARENA_EMBEDDED_PROCESSES": "1",
        "ARENA_LEASE_SECONDS": "2", "ARENA_SUPERVISOR_SECONDS": "0.5", "ARENA_GRACE_SECONDS": "30",
    }
    for name in ("ARENA_REDIS_URL", "PROMETHEUS_MULTIPROC_DIR", "ARENA_CONFIG"):
        env.pop(name, None)
    started: list[subprocess.Popen] = []

    def start(name: str, *argv: str, extra: dict[str, str] | None = None) -> subprocess.Popen:
        command = list(argv) or [ARENA, "serve"]
        process = subprocess.Popen(command, env=env | (extra or {}), cwd=ROOT,
                                   stdout=(tmp_path / f"{name}.log").open("ab"), stderr=subprocess.STDOUT)
        started.append(process)
        return process

    yield env, start, (("authorization", f"Bearer {token}"),)
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    db.dispose_all()


def rows(url: str, tournament_id: int) -> list:
    with db.read(url) as connection:
        return connection.execute(sa.select(match_t).where(match_t.c.tournament_id == tournament_id)
                                  .order_by(match_t.c.id)).all()


def tournament_done(url: str, tournament_id: int) -> bool:
    with db.read(url) as connection:
        return connection.execute(sa.select(tournament_t.c.status)
                                  .where(tournament_t.c.id == tournament_id)).scalar_one() == "done"


def recorded(url: str) -> tuple[int, int, int]:
    """(results, distinct matches with a result, rating history rows)."""
    with db.read(url) as connection:
        results = connection.execute(sa.select(sa.func.count()).select_from(result_t)).scalar_one()
        matches = connection.execute(sa.select(sa.func.count(sa.distinct(result_t.c.match_id)))).scalar_one()
        history = connection.execute(sa.select(sa.func.count()).select_from(RatingHistory.__table__)).scalar_one()
    return results, matches, history


def ratings_check(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([ARENA, "ratings", "recompute", "--check"], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


def kill(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(10)


def test_a_killed_embedded_server_started_again_plays_what_it_left(served, tmp_path):
    """The embedded healing fault: an SDK bot and house bots in a rated tournament on an
    embedded server, killed while the bot's matches are played; the next server plays them
    again with nobody typing a command, the bot reconnects, and the tournament ends with
    every match recorded once and the ratings consistent."""
    env, start, admin = served
    url = env["ARENA_DATABASE_URL"]
    first = start("serve1")
    channel = grpc.insecure_channel(env["ARENA_GRPC_ADDRESS"])
    grpc.channel_ready_future(channel).result(timeout=60)
    stub = arena_pb2_grpc.ArenaStub(channel)
    token = stub.RegisterBot(arena_pb2.RegisterBotRequest(name="sdk-slow")).token
    (tmp_path / "slow_bot.py").write_text(SLOW_BOT)
    start("bot", sys.executable, str(tmp_path / "slow_bot.py"),
          extra={"ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": env["ARENA_GRPC_ADDRESS"]})
    wait_until(lambda: "connected as" in (tmp_path / "bot.log").read_text(), 60, what="the bot to connect")
    ref = stub.CreateTournament(arena_pb2.CreateTournamentRequest(
        name="healing", games=[arena_pb2.TournamentGame(game=GAME, table_sizes=[2])],
        bots=["sdk-slow", "heuristic", "random"], repetitions=1, rated=True, seed=7,
        move_deadline_ms=5000, time_bank_ms=30000), metadata=admin)
    tid = int(ref.tournament_id)
    channel.close()

    with db.read(url) as connection:
        bot_id = connection.execute(sa.text("select id from bot where name = 'sdk-slow'")).scalar_one()

    def bot_match_running():
        return [row for row in rows(url, tid) if row.status == "running" and bot_id in row.seating]

    running = wait_until(bot_match_running, 60, poll=0.05, what="a match of the bot being played")
    kill(first)
    orphans = {row.id: row for row in rows(url, tid) if row.status == "running"}
    assert set(orphans) >= {row.id for row in running}
    assert all(row.claimed_by == f"{socket.gethostname()}:{first.pid}" for row in orphans.values())

    start("serve2")
    wait_until(lambda: tournament_done(url, tid), 90, poll=0.2, what="the tournament to finish")
    final = rows(url, tid)
    assert {row.status for row in final} == {"done"}, [(r.id, r.status, r.error) for r in final]
    for row in final:
        if row.id in orphans:
            assert row.attempts == orphans[row.id].attempts + 1  # played again once, here
            assert row.claimed_by != orphans[row.id].claimed_by
    results, distinct, history = recorded(url)
    assert results == distinct == len(final)  # every match recorded, once
    assert history == 2 * len(final)  # two-player matches: one history row per seat, once
    check = ratings_check(env)
    assert check.returncode == 0, check.stdout + check.stderr
    log = (tmp_path / "serve2.log").read_text()
    assert "sent again (lease_lapsed)" in log, log[-3000:]
    assert (tmp_path / "bot.log").read_text().count("connected as") >= 2  # it came back to the new server
    with db.read(url) as connection:
        seats = connection.execute(sa.select(MatchSeat.__table__).where(
            MatchSeat.__table__.c.match_id.in_([row.id for row in running]),
            MatchSeat.__table__.c.bot_id == bot_id)).all()
    assert len(seats) == len(running) and not any(seat.forfeited for seat in seats)  # played, not forfeited


def test_a_killed_command_line_run_is_finished_by_the_server(served, tmp_path):
    """House bots only: ``arena tournament create --run`` killed mid-tournament leaves
    matches running and scheduled (sent by the dead command); an embedded server on the same
    file plays them all as it starts, each once."""
    env, start, _ = served
    url = env["ARENA_DATABASE_URL"]
    cli = start("cli", ARENA, "tournament", "create", "--game", "durak", "--bots", "search,heuristic,random",
                "--sizes", "2", "--repetitions", "2", "--seed", "3", "--run",
                extra={"ARENA_BATCH_SIZE": "1"})

    def some_done_some_running():
        try:
            with db.read(url) as connection:
                statuses = set(connection.execute(sa.select(match_t.c.status)).scalars())
        except db.SchemaNotReady:  # the command is still making the store
            return False
        return {"done", "running", "scheduled"} <= statuses

    wait_until(some_done_some_running, 90, poll=0.05, what="the run to be half-way")
    kill(cli)
    with db.read(url) as connection:
        tid = connection.execute(sa.select(sa.func.max(tournament_t.c.id))).scalar_one()
    left = {row.id: row.status for row in rows(url, tid) if row.status != "done"}
    assert "running" in left.values() and "scheduled" in left.values()

    start("serve")
    wait_until(lambda: tournament_done(url, tid), 90, poll=0.2, what="the tournament to finish")
    final = rows(url, tid)
    assert {row.status for row in final} == {"done"}
    results, distinct, _ = recorded(url)
    assert results == distinct == len(final)
    check = ratings_check(env)
    assert check.returncode == 0, check.stdout + check.stderr
    log = (tmp_path / "serve.log").read_text()
    assert "(lease_lapsed)" in log and "(no_task)" in log, log[-3000:]


LEADER = """
import sys, time
from arena.store.leader import StoreLeader
leader = StoreLeader(sys.argv[1])
print("leading" if leader.lead() else "standing by", flush=True)
time.sleep(120)
"""


def test_one_process_per_store_heals_and_another_takes_over_when_it_dies(db_url):
    """Two servers on one store (a SQLite file, or PostgreSQL with no Redis): one sweeps, the
    other stands by; it takes over when the first stops, or is killed (``kill -9``: the
    database's host releases the lock with the process)."""
    from workers.embedded_supervisor import EmbeddedSupervisor
    from workers.pool import play

    first, second = (EmbeddedSupervisor(0.2, 2, url=db_url, name=n, send=play) for n in ("first", "second"))
    assert first.sweep() != {} and second.sweep() == {}
    assert first.sweep() != {} and second.sweep() == {}
    first.stop()
    assert second.sweep() != {}
    second.stop()

    holder = subprocess.Popen([sys.executable, "-c", LEADER, db_url], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ) | {"PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout.readline().strip() == "leading"
        third = EmbeddedSupervisor(0.2, 2, url=db_url, name="third", send=play)
        assert third.sweep() == {}
        kill(holder)
        wait_until(lambda: third.sweep() != {}, 10, what="the leadership to pass on")
        third.stop()
    finally:
        if holder.poll() is None:
            kill(holder)


def test_a_match_played_again_is_recorded_once_when_its_old_holder_comes_back(db_url, monkeypatch):
    """A holder that stalls past its lease (not dead: on another machine, or stopped) loses
    its match to the embedded supervisor, which plays it again; when the old holder comes
    back and records its own result, nothing changes."""
    from arena.referee import Clock
    from arena.store.results import record_results
    from arena.tournaments import create_tournament, pending_match_ids
    from arena.tournaments.play import PLAYER_FACTORIES, claim_matches, play_match
    from workers.embedded_supervisor import EmbeddedSupervisor
    from workers.pool import play

    monkeypatch.setenv("ARENA_LEASE_SECONDS", "1")
    with db.transaction(db_url) as connection:
        tid = create_tournament(connection, [GAME], ["random", "random-2"], sizes=[2], seed=9)
    with db.transaction(db_url) as connection:
        ids = pending_match_ids(connection, tid)
        (spec,) = claim_matches(connection, ids[:1], "elsewhere:1", max_attempts=5, lease_seconds=0.5)
    healer = EmbeddedSupervisor(0.2, 0.5, url=db_url, name="healer", send=play)
    wait_until(lambda: healer.sweep().get("lease_lapsed"), 10, what="the lease to lapse")
    wait_until(lambda: rows(db_url, tid)[0].status == "done", 30, what="the match to be played again")
    healer.stop()
    players = [PLAYER_FACTORIES["house"](spec, seat) for seat in range(len(spec.bots))]
    late = play_match(spec.game, players, spec.seed, spec.options, Clock(move=2.0, bank=30.0))
    before = recorded(db_url)
    with db.transaction(db_url) as connection:
        assert record_results(connection, [(spec.id, late)]) == []
    # One result; no rating yet, as the deal's other rotation is still to be played (a
    # duplicate group is rated once it is over).
    assert recorded(db_url) == before == (1, 1, 0)
    assert rows(db_url, tid)[0].claimed_by != "elsewhere:1"


def test_sent_matches_are_played_again_only_when_their_sender_is_gone(db_url):
    """Scheduled matches a process sent itself wait in its memory: the embedded supervisor
    leaves those of a live process alone (a command line run still working), plays those of
    a process gone from this machine, and those of its own server's dispatch that ended
    without playing them."""
    from arena.tournaments import create_tournament, leases, pending_match_ids
    from arena.tournaments.play import worker_name
    from workers.embedded_supervisor import EmbeddedSupervisor
    from workers.pool import play
    from workers.send import mark_sent

    with db.transaction(db_url) as connection:
        tid = create_tournament(connection, [GAME], ["random", "random-2", "random-3"], sizes=[2], seed=5)
    with db.read(db_url) as connection:
        ids = pending_match_ids(connection, tid)
    host = socket.gethostname()
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    healer = EmbeddedSupervisor(0.2, 2, url=db_url, name="healer", send=play)
    try:
        mark_sent(ids[0:2], db_url, holder=f"{host}:{alive.pid}")
        mark_sent(ids[2:4], db_url, holder=f"{host}:{ended.pid}")
        with leases.queued_here(ids[4:6]):
            mark_sent(ids[4:6], db_url, holder=worker_name())
            assert healer.sweep()["no_task"] == 2  # the gone sender's only
        assert healer.sweep()["no_task"] == 2  # this server's dispatch ended: now its own
        assert healer.sweep()["no_task"] == 0

        def statuses():
            return [row.status for row in rows(db_url, tid)]

        wait_until(lambda: statuses()[2:] == ["done"] * 4, 60, what="the abandoned matches to be played")
        assert statuses()[:2] == ["scheduled"] * 2
    finally:
        healer.stop()
        alive.kill()
        alive.wait()


def test_matches_taken_from_a_gone_sender_are_not_taken_again_while_they_start(db_url):
    """The embedded supervisor takes a gone sender's matches and hands them to a thread that
    plays them; until that thread marks them sent itself (it may not have started yet on a
    busy machine), the next sweep must not find them the gone sender's again and send them
    twice."""
    import threading

    from arena.tournaments import create_tournament, pending_match_ids
    from workers.embedded_supervisor import EmbeddedSupervisor
    from workers.send import mark_sent

    with db.transaction(db_url) as connection:
        tid = create_tournament(connection, [GAME], ["random", "random-2"], sizes=[2], seed=5)
    with db.read(db_url) as connection:
        ids = pending_match_ids(connection, tid)
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    go = threading.Event()
    sent: list[list[int]] = []

    def slow_send(match_ids):  # a sender whose thread has not got to its matches yet
        sent.append(list(match_ids))
        go.wait(30)

    healer = EmbeddedSupervisor(0.2, 2, url=db_url, name="healer", send=slow_send)
    try:
        mark_sent(ids[:2], db_url, holder=f"{socket.gethostname()}:{ended.pid}")
        assert healer.sweep()["no_task"] == 2
        assert healer.sweep()["no_task"] == 0, "taken again before their player marked them"
        wait_until(lambda: sent, 10, what="the matches to be handed on")
        assert sent == [sorted(ids[:2])]
    finally:
        go.set()
        healer.stop()
