"""The embedded default on every core: once a tournament has played for ``PARALLEL_AFTER``
seconds in the calling process, the rest goes to spawned processes. Real processes, a real
SQLite store shared by all of them, and a real ``kill -9`` of one of them mid-tournament."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import threading

import pytest
import sqlalchemy as sa

from arena.store import db
from arena.store.models import Match, Result
from arena.tournaments import create_tournament, pending_match_ids
from tests.helpers import ARENA, ROOT, wait_until
from tests.support.platform import ratings_table, replayed
from workers import follow, pool


def holders(url: str, tournament_id: int) -> set[str]:
    """The processes that claimed the tournament's matches (``host:pid``)."""
    with db.transaction(url) as connection:
        rows = connection.execute(sa.select(Match.__table__.c.claimed_by)
                                  .where(Match.__table__.c.tournament_id == tournament_id)).scalars()
        return {str(r) for r in rows}


def results_per_match(url: str) -> list[int]:
    with db.transaction(url) as connection:
        return list(connection.execute(sa.select(sa.func.count()).select_from(Result.__table__)
                                       .group_by(Result.__table__.c.match_id)).scalars())


def test_a_long_tournament_is_shared_by_processes_and_each_match_recorded_once(embedded, monkeypatch):
    monkeypatch.setenv("ARENA_EMBEDDED_PROCESSES", "2")
    monkeypatch.setattr(pool, "PARALLEL_AFTER", 0.0)  # the pool from the second batch on
    with db.transaction() as connection:
        tid = create_tournament(connection, ["durak", "yaniv"], ["heuristic", "random", "random-2"], [2], 3, seed=4)
    status = follow.run_tournament(tid, wait=True, notice=None)
    assert status["status"] == "done"
    assert all(g["done"] == g["total"] == 18 for g in status["games"].values())
    assert results_per_match(embedded) == [1] * 36
    here = f"{os.uname().nodename}:{os.getpid()}"
    claimed = holders(embedded, tid)
    assert here in claimed and len(claimed) >= 2, claimed  # this process, then the pool's
    assert ratings_table(embedded) == replayed(embedded)  # Elo in completion order, replayable


def test_one_process_keeps_every_match_in_the_calling_process(embedded, monkeypatch):
    monkeypatch.setenv("ARENA_EMBEDDED_PROCESSES", "1")
    monkeypatch.setattr(pool, "PARALLEL_AFTER", 0.0)
    with db.transaction() as connection:
        tid = create_tournament(connection, ["durak"], ["heuristic", "random"], [2], 4, seed=4)
    follow.run_tournament(tid, wait=True, notice=None)
    assert holders(embedded, tid) == {f"{os.uname().nodename}:{os.getpid()}"}


def test_a_pool_process_killed_mid_tournament_is_one_error_and_a_rerun_finishes(embedded, monkeypatch):
    """The fault: a pool process dies (``kill -9``) while it holds matches. The tournament
    stops with ``PlayerProcessLost``; what the dead process held stays unfinished, and running
    the tournament again plays every match left, each recorded once."""
    monkeypatch.setenv("ARENA_EMBEDDED_PROCESSES", "2")
    monkeypatch.setenv("ARENA_BATCH_SIZE", "1")
    with db.transaction() as connection:
        # The search at its full budget: each match takes long enough to be killed in.
        tid = create_tournament(connection, ["durak"], ["search", "heuristic"], [2], 6, seed=9)
        ids = pending_match_ids(connection, tid)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            pool.play_in_processes([[m] for m in ids], 2, lambda batch: None)
        except BaseException as error:  # noqa: BLE001 (handed to the test's thread)
            errors.append(error)

    thread = threading.Thread(target=run)
    thread.start()

    def running() -> bool:
        with db.read() as connection:
            return connection.execute(sa.select(sa.func.count()).select_from(Match.__table__)
                                      .where(Match.__table__.c.status == "running")).scalar_one() > 0

    wait_until(running, 60)
    victims = multiprocessing.active_children()
    assert victims
    os.kill(victims[0].pid, signal.SIGKILL)
    thread.join(120)
    assert not thread.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], pool.PlayerProcessLost), errors
    with db.read() as connection:
        left = pending_match_ids(connection, tid)
    assert left  # the dead process's match at least

    monkeypatch.setenv("ARENA_EMBEDDED_PROCESSES", "1")
    status = follow.run_tournament(tid, wait=True, notice=None)
    assert status["status"] == "done" and status["games"]["durak"]["done"] == len(ids)
    assert results_per_match(embedded) == [1] * len(ids)
    assert ratings_table(embedded) == replayed(embedded)


@pytest.mark.parametrize("value", ["-1", "257", "many"])
def test_a_bad_process_count_is_refused(embedded, monkeypatch, value):
    from arena.settings import load

    monkeypatch.setenv("ARENA_EMBEDDED_PROCESSES", value)
    with pytest.raises(ValueError, match="embedded_processes"):
        load()


def test_unset_means_one_process_per_core(embedded, monkeypatch):
    from arena.settings import cores, load

    monkeypatch.delenv("ARENA_EMBEDDED_PROCESSES", raising=False)
    assert load().embedded_processes == cores() >= 1


def pool_children(parent: int) -> list[int]:
    """Processes of ``parent``'s pool (spawned by multiprocessing), read from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                argv = cmdline.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == parent and b"spawn_main" in argv:
            found.append(int(entry))
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc to find the pool's processes")
def test_a_pool_process_killed_under_the_command_line_is_replaced_and_nothing_is_lost(embedded):
    """The fault a user meets: ``kill -9`` of a pool process while ``arena tournament run``
    plays. The run goes on by itself on a fresh pool, says so once, and ends with every
    match recorded once."""
    env = {**os.environ, "ARENA_DATABASE_URL": embedded, "ARENA_EMBEDDED_PROCESSES": "2", "ARENA_BATCH_SIZE": "1"}
    env.pop("ARENA_REDIS_URL", None)
    with db.transaction() as connection:
        tid = create_tournament(connection, ["durak"], ["search", "heuristic"], [2], 8, seed=11)
        total = len(pending_match_ids(connection, tid))
    command = [ARENA, "tournament", "run", str(tid)]
    cli = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def playing_child() -> int | None:
        for pid in pool_children(cli.pid):
            with db.read() as connection:
                held = connection.execute(
                    sa.select(sa.func.count()).select_from(Match.__table__)
                    .where(Match.__table__.c.status == "running", Match.__table__.c.claimed_by.like(f"%:{pid}"))
                ).scalar_one()
            if held:
                return pid
        return None

    victim = wait_until(playing_child, 90, poll=0.05, what="a pool process playing a match")
    os.kill(victim, signal.SIGKILL)
    out, err = cli.communicate(timeout=300)
    assert cli.returncode == 0, (out, err)
    assert err.count("left for a fresh pool") == 1 and "Traceback" not in err, err
    assert results_per_match(embedded) == [1] * total
    with db.read() as connection:
        assert pending_match_ids(connection, tid) == []
    assert ratings_table(embedded) == replayed(embedded)


def test_a_script_without_a_main_guard_runs_its_tournament_once(embedded, tmp_path):
    """Spawned processes re-run an unguarded script's top level; the pool's processes must not
    (each would start a tournament of its own)."""
    script = tmp_path / "unguarded.py"
    script.write_text(
        "from arena.store import db\n"
        "from arena.tournaments import create_tournament\n"
        "from workers import follow, pool\n"
        "pool.PARALLEL_AFTER = 0.0\n"
        "with db.transaction() as connection:\n"
        "    tid = create_tournament(connection, ['durak'], ['heuristic', 'random'], [2], 6, seed=2)\n"
        "print(follow.run_tournament(tid, notice=None)['status'])\n"
    )
    env = {**os.environ, "ARENA_DATABASE_URL": embedded, "ARENA_EMBEDDED_PROCESSES": "2", "ARENA_BATCH_SIZE": "1",
           "PYTHONPATH": str(ROOT)}
    env.pop("ARENA_REDIS_URL", None)
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr
    with db.read() as connection:
        assert connection.execute(sa.text("select count(*) from tournament")).scalar_one() == 1
        claimed = connection.execute(sa.text("select count(distinct claimed_by) from match")).scalar_one()
    assert claimed >= 2  # the script's process and the pool's
