"""An analysis asked for on the distributed arena is computed by a real Celery worker on Redis
and kept in PostgreSQL once, equal to the analysis computed here from the transcript."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from arena.referee.analysis import AnalysisBudget, analyse
from arena.store import analyses, db
from arena.store.models import Analysis, Transcript
from arena.tournaments.play import play_and_record
from tests.helpers import wait_until
from tests.support.platform import cli, fast_games, make_tournament
from workers.analysis import Analyses

# Under a 1 MiB ceiling a fresh analysis process cannot even load the games' code; without a
# ceiling this budget is minutes of work, past what the tests wait for.
MEMORY_HUNGRY = AnalysisBudget(worlds=1000, confirm=1000, decisions=8)

pytestmark = pytest.mark.timeout(180)


def test_a_worker_computes_an_analysis_and_keeps_it_once(cluster, workers) -> None:
    url = cluster["ARENA_DATABASE_URL"]
    workers(cluster, concurrency=1)
    tid, ids = make_tournament(url, ["random", "heuristic"], games=fast_games(1))
    assert "done" in cli(cluster, "tournament", "run", str(tid))
    budget = AnalysisBudget(worlds=4, decisions=8)
    asked = Analyses(budget, seconds=60, queue=4)
    try:
        assert asked.ask(ids[0], 1)
        assert not asked.ask(ids[0], 1)  # on its way: not sent twice
        assert (ids[0], 1) in asked

        def kept() -> dict | None:
            with db.read(url) as connection:
                return analyses.stored(connection, ids[0], 1, budget)

        found = wait_until(kept, 120, poll=0.5, what="the worker's analysis")
    finally:
        asked.close()
    with db.read(url) as connection:
        transcript = connection.execute(sa.select(Transcript.__table__.c.data)
                                        .where(Transcript.__table__.c.match_id == ids[0])).scalar_one()
        count = connection.execute(sa.select(sa.func.count()).select_from(Analysis.__table__)).scalar_one()
    assert found == analyse(transcript, 1, ids[0], budget)
    assert count == 1


def test_a_worker_past_the_memory_ceiling_leaves_the_reason_and_the_analysis_may_be_asked_again(
        cluster, workers) -> None:
    url = cluster["ARENA_DATABASE_URL"]
    _, ids = make_tournament(url, ["random", "heuristic"], games=fast_games(1))
    play_and_record(ids, url)  # here: the analysis is the worker process's first task
    workers(cluster | {"ARENA_ANALYSIS_MEMORY_MB": "1"}, concurrency=1)
    asked = Analyses(MEMORY_HUNGRY, seconds=60, queue=4)
    try:
        assert asked.ask(ids[0], 0)
        assert not asked.ask(ids[0], 0)  # on its way
        # The worker's reason, left in Redis, is read by the server (here) once.
        reason = wait_until(lambda: asked.failure(ids[0], 0), 120, poll=0.5, what="the worker's failure")
        assert "more than the 1 MiB of memory" in reason and "ARENA_ANALYSIS_MEMORY_MB" in reason
        assert asked.failure(ids[0], 0) is None
        assert (ids[0], 0) not in asked
        assert asked.ask(ids[0], 0)  # queued again at once, not when its pending mark lapses
    finally:
        asked.close()
    with db.read(url) as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(Analysis.__table__)).scalar_one() == 0
