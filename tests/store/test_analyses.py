"""Analyses in the store (``arena.store.analyses``) on SQLite and PostgreSQL: computed once
and kept, the same as the analysis computed by hand from the transcript; refused while the
deal is sealed, for an unknown match or seat, with nothing written."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from arena.errors import BadInput, NotFound
from arena.referee.analysis import AnalysisBudget, analyse
from arena.store import analyses, db
from arena.store.models import Analysis, Match, Transcript
from arena.store.statuses import MatchStatus
from arena.tournaments.play import play_and_record
from tests.support.platform import small_tournament

BUDGET = AnalysisBudget(worlds=4, decisions=5)
match_t = Match.__table__


def rows(url: str) -> list[sa.Row]:
    with db.read(url) as connection:
        return connection.execute(sa.select(Analysis.__table__)).all()


@pytest.fixture
def played(db_url: str) -> tuple[str, list[int]]:
    """A finished tournament of duplicate pairs: every deal played from both seats."""
    _, ids = small_tournament(db_url)
    play_and_record(ids, db_url)
    return db_url, ids


def test_an_analysis_is_computed_once_and_kept(played: tuple[str, list[int]]) -> None:
    url, ids = played
    first = analyses.analyse_match(ids[0], 1, BUDGET, url)
    with db.read(url) as connection:
        transcript = connection.execute(sa.select(Transcript.__table__.c.data)
                                        .where(Transcript.__table__.c.match_id == ids[0])).scalar_one()
    assert first == analyse(transcript, 1, ids[0], BUDGET)
    kept = rows(url)
    assert [(r.match_id, r.seat, r.budget) for r in kept] == [(ids[0], 1, BUDGET.key)]
    assert analyses.analyse_match(ids[0], 1, BUDGET, url) == first
    assert rows(url) == kept  # served from its row: nothing computed or written again
    other = AnalysisBudget(worlds=5, decisions=5)
    analyses.analyse_match(ids[0], 1, other, url)
    assert sorted(r.budget for r in rows(url)) == sorted([BUDGET.key, other.key])


def test_a_sealed_deal_is_not_analysed(played: tuple[str, list[int]]) -> None:
    url, ids = played
    with db.transaction(url) as connection:
        seed = connection.execute(sa.select(match_t.c.seed).where(match_t.c.id == ids[0])).scalar_one()
        twins = connection.execute(sa.select(match_t.c.id).where(match_t.c.seed == seed, match_t.c.id != ids[0])
                                   ).scalars().all()
        assert twins, "duplicate format: the same deal from the other seat"
        # The twin is played again (scheduled), so the deal is in play: both are sealed.
        connection.execute(match_t.update().where(match_t.c.id == twins[0]).values(status=MatchStatus.SCHEDULED))
    for match_id in (ids[0], twins[0]):
        with pytest.raises(analyses.Sealed, match="its deal is still being played"):
            analyses.analyse_match(match_id, 0, BUDGET, url)
    assert rows(url) == []


@pytest.mark.parametrize(("match", "seat", "error"), [(10**6, 0, NotFound), (None, 2, BadInput),
                                                      (None, -1, BadInput)])
def test_an_unknown_match_or_seat_is_refused(played: tuple[str, list[int]], match: int | None, seat: int,
                                             error: type[Exception]) -> None:
    url, ids = played
    with pytest.raises(error):
        analyses.analyse_match(match or ids[0], seat, BUDGET, url)
    assert rows(url) == []
