"""Where analyses run embedded (``workers.analysis``): in a process of their own, killed past
their time bound or failed past their memory ceiling with nothing kept, the reason told once
and then asked for again at once, at most a queue's worth at once."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from arena.referee.analysis import AnalysisBudget
from arena.store import analyses, db
from arena.store.models import Analysis
from arena.tournaments.play import play_and_record
from tests.helpers import wait_until
from tests.support.platform import small_tournament
from workers.analysis import Analyses, Busy

# Under a 1 MiB ceiling a fresh analysis process cannot even load the games' code; without a
# ceiling this budget is minutes of work, past what the tests wait for.
MEMORY_HUNGRY = AnalysisBudget(worlds=1000, confirm=1000, decisions=8)

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def finished(embedded: str) -> list[int]:
    _, ids = small_tournament(embedded)
    play_and_record(ids, embedded)
    return ids


def test_an_analysis_past_its_time_is_stopped_and_may_be_asked_again(embedded: str, finished: list[int]) -> None:
    # Far more work than a second allows: every decision on a thousand deals.
    asked = Analyses(AnalysisBudget(worlds=1000, confirm=1000), seconds=1.0, queue=4)
    try:
        started = time.monotonic()
        assert asked.ask(finished[0], 0)
        assert (finished[0], 0) in asked
        wait_until(lambda: (finished[0], 0) not in asked, 60, what="the analysis to be stopped")
        assert time.monotonic() - started < 30
        with db.read(embedded) as connection:
            assert connection.execute(sa.select(sa.func.count()).select_from(Analysis.__table__)).scalar_one() == 0
        assert asked.ask(finished[0], 0)  # stopped: it may be asked for again
    finally:
        asked.close()


def kept_rows(url: str) -> int:
    with db.read(url) as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(Analysis.__table__)).scalar_one()


def test_an_analysis_past_its_memory_ceiling_fails_with_the_reason_and_may_be_asked_again_at_once(
        embedded: str, finished: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_ANALYSIS_MEMORY_MB", "1")  # read by the analysis process when it starts
    asked = Analyses(MEMORY_HUNGRY, seconds=60, queue=4)
    try:
        assert asked.ask(finished[0], 0)
        reason = wait_until(lambda: asked.failure(finished[0], 0), 60, what="the analysis to fail")
        assert "more than the 1 MiB of memory" in reason and "ARENA_ANALYSIS_MEMORY_MB" in reason
        assert asked.failure(finished[0], 0) is None  # told once
        assert kept_rows(embedded) == 0
        assert (finished[0], 0) not in asked
        assert asked.ask(finished[0], 0)  # queued again at once, not waiting for the time bound
        # The process that failed goes on computing: the same computation, asked again, fails
        # the same way (another seat's need not: a seat with few decisions fits in 1 MiB).
        assert "1 MiB" in wait_until(lambda: asked.failure(finished[0], 0), 60, what="the second failure")
        assert kept_rows(embedded) == 0
    finally:
        asked.close()


def test_the_queue_is_bounded_and_a_done_analysis_leaves_it(embedded: str, finished: list[int]) -> None:
    budget = AnalysisBudget(worlds=3, decisions=3)
    asked = Analyses(budget, seconds=60, queue=2)
    try:
        assert asked.ask(finished[0], 0) and asked.ask(finished[0], 1)
        with pytest.raises(Busy, match="2 analyses are waiting or running"):
            asked.ask(finished[1], 0)

        def kept() -> bool:
            with db.read(embedded) as connection:
                return all(analyses.stored(connection, finished[0], seat, budget) for seat in (0, 1))

        wait_until(kept, 60, what="both analyses")
        wait_until(lambda: (finished[0], 1) not in asked, 10, what="the queue to empty")
        assert asked.ask(finished[1], 0)
    finally:
        asked.close()
