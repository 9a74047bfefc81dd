"""Analyses of finished matches in the store: asked for, computed once, kept.

An analysis (``arena.referee.analysis``) is deterministic for a (match, seat, budget), so it
is computed at most once per budget and then served from its row. It is refused for a match
that is not finished or whose deal is still sealed (``arena.store.disclosure``, the one rule):
its values would tell how the deal lies. The computing side (``analyse_match``) checks the
rule again when it runs, as a deal can be dealt again between the asking and the computing.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import memory
from arena.errors import ArenaError, BadInput, NotFound
from arena.referee.analysis import AnalysisBudget, analyse

from . import db, disclosure
from .models import Analysis, Match, Transcript, utcnow

analysis_t = Analysis.__table__
match_t = Match.__table__
transcript_t = Transcript.__table__


class Sealed(ArenaError):
    """A match that may not be analysed yet: not finished, or its deal still in play."""


def stored(connection: Connection, match_id: int, seat: int, budget: AnalysisBudget) -> dict[str, Any] | None:
    """The kept analysis of ``seat`` in ``match_id`` under ``budget``, if computed."""
    found = connection.execute(sa.select(analysis_t.c.data).where(
        analysis_t.c.match_id == match_id, analysis_t.c.seat == seat, analysis_t.c.budget == budget.key)
    ).scalar_one_or_none()
    return dict(found) if found is not None else None


def check(connection: Connection, match_id: int, seat: int) -> None:
    """Raise unless ``seat`` of ``match_id`` may be analysed: ``NotFound`` (no such match),
    ``Sealed`` (unfinished, or its deal still in play), ``BadInput`` (no such seat)."""
    match = connection.execute(
        sa.select(match_t.c.id, match_t.c.game, match_t.c.seed, match_t.c.status, match_t.c.seating)
        .where(match_t.c.id == match_id)
    ).first()
    if match is None:
        raise NotFound(f"no match {match_id}")
    if disclosure.sealed(connection, match):
        raise Sealed(f"match {match_id} cannot be analysed: it is not finished or its deal is still being played")
    if not 0 <= seat < len(match.seating):
        raise BadInput(f"seat must be between 0 and {len(match.seating) - 1}")


def lookup(connection: Connection, match_id: int, seat: int, budget: AnalysisBudget) -> dict[str, Any] | None:
    """``check`` the request, then the kept analysis if there is one (None: to compute)."""
    check(connection, match_id, seat)
    return stored(connection, match_id, seat, budget)


def analyse_match(match_id: int, seat: int, budget: AnalysisBudget, url: str | None = None,
                  memory_mb: int | None = None) -> dict[str, Any]:
    """The analysis of ``seat`` in ``match_id``: the kept one, or computed now and kept (a
    second computation of the same one, in a race, keeps the first row; they are equal).
    ``memory_mb``: the computation may take at most that much more memory (``memory.ceiling``;
    past it ``MemoryError``, nothing kept); the store's reads and writes are outside it."""
    with db.read(url) as connection:
        found = lookup(connection, match_id, seat, budget)
        if found is not None:
            return found
        transcript = connection.execute(
            sa.select(transcript_t.c.data).where(transcript_t.c.match_id == match_id)).scalar_one_or_none()
    if transcript is None:
        raise NotFound(f"no transcript for match {match_id}")
    with memory.ceiling(memory_mb) if memory_mb is not None else nullcontext():
        data = analyse(transcript, seat, match_id, budget)
    with db.transaction(url) as connection:
        check(connection, match_id, seat)
        connection.execute(db.conflict_insert(connection, analysis_t).values(
            match_id=match_id, seat=seat, budget=budget.key, data=data, created_at=utcnow()).on_conflict_do_nothing())
    return data
