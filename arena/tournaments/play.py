"""The work of one task: claim scheduled matches, play each, record each in its own
transaction. Every match is idempotent on its own: a batch that dies half-way leaves the
recorded matches recorded, and a redelivery plays only the rest.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import metrics
from arena.config import settings
from arena.referee import Clock, HousePlayer, Player, play_match
from arena.store import db
from arena.store.models import Match, Tournament, utcnow
from arena.store.queries import bots_by_id
from arena.store.results import finish_if_complete, record_results

match_t = Match.__table__
tournament_t = Tournament.__table__


@dataclass(frozen=True)
class MatchSpec:
    """What a worker needs to play a claimed match; plain data, no ORM objects."""

    id: int
    tournament_id: int | None
    game: str
    options: dict[str, Any]
    seed: int
    bots: tuple[dict[str, Any], ...]  # per seat: id, name, kind, strategy, think
    clock: Clock


PlayerFactory = Callable[[MatchSpec, int], Player]


def _house_player(spec: MatchSpec, seat: int) -> Player:
    bot = spec.bots[seat]
    return HousePlayer(spec.game, bot["strategy"], seat, spec.seed, think=bot["think"])


def _external_player(spec: MatchSpec, seat: int) -> Player:
    from arena.referee.external import external_player  # the mailbox only where needed

    return external_player(spec, seat)


# Bot kind -> how to build its player for a seat.
PLAYER_FACTORIES: dict[str, PlayerFactory] = {"house": _house_player, "external": _external_player}


def first_set(*values: float | None) -> float:
    """The first value that is not None (a match's own clock, its tournament's, a default)."""
    return next(float(v) for v in values if v is not None)


def register_player_kind(kind: str, factory: PlayerFactory) -> None:
    """Make bots of ``kind`` playable: ``factory(spec, seat)`` returns the seat's player."""
    PLAYER_FACTORIES[kind] = factory


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def claim_matches(
    connection: Connection, match_ids: Sequence[int], worker: str, max_attempts: int
) -> list[MatchSpec]:
    """Mark the still-pending matches among ``match_ids`` as running and count the attempt.

    A match delivered more than ``max_attempts`` times is a poison match: it is marked
    failed instead of being played again. Finished, cancelled and failed matches are
    skipped, which makes duplicate deliveries cheap."""
    rows = connection.execute(
        sa.select(match_t, tournament_t.c.move_time, tournament_t.c.time_bank)
        .outerjoin(tournament_t, tournament_t.c.id == match_t.c.tournament_id)
        .where(match_t.c.id.in_(list(match_ids)), match_t.c.status.in_(("scheduled", "running")))
        .order_by(match_t.c.id)
    ).all()
    if not rows:
        return []
    bots = bots_by_id(connection, [b for row in rows for b in row.seating])
    specs = []
    now = utcnow()
    for row in rows:
        attempts = row.attempts + 1
        # The status condition is checked again on the newest row version: a match that
        # another delivery recorded since the select above must not be put back to running.
        still_pending = (match_t.c.id == row.id) & match_t.c.status.in_(("scheduled", "running"))
        if attempts > max_attempts:
            if connection.execute(match_t.update().where(still_pending).values(status="failed")).rowcount:
                metrics.MATCHES.labels(game=row.game, status="failed").inc()
            continue
        claimed = connection.execute(
            match_t.update()
            .where(still_pending)
            .values(status="running", attempts=attempts, claimed_by=worker, started_at=now)
        ).rowcount
        if not claimed:
            continue
        clock = Clock(move=first_set(row.clock_move, row.move_time, 2.0),
                      bank=first_set(row.clock_bank, row.time_bank, 30.0))
        seats = tuple(
            {"id": b, "name": bots[b].name, "kind": bots[b].kind, "strategy": bots[b].strategy,
             "think": bots[b].think}
            for b in row.seating
        )
        specs.append(MatchSpec(row.id, row.tournament_id, row.game, dict(row.options), int(row.seed), seats, clock))
    return specs


def play_and_record(match_ids: Sequence[int], url: str | None = None) -> list[int]:
    """Claim, play and record ``match_ids``; returns the ids this call recorded."""
    config = settings()
    with db.transaction(url) as connection:
        specs = claim_matches(connection, match_ids, worker_name(), config.max_attempts)
    tournaments = {spec.tournament_id for spec in specs} | failed_tournaments(match_ids, url)
    finished = []
    for spec in specs:
        players = [PLAYER_FACTORIES[bot["kind"]](spec, seat) for seat, bot in enumerate(spec.bots)]
        finished.append((spec.id, play_match(spec.game, players, spec.seed, spec.options, spec.clock,
                                             match_id=str(spec.id))))
    # One transaction for the batch: each match in it is still recorded whole and at most
    # once, and the batch shares one commit instead of paying one per match.
    with db.transaction(url) as connection:
        recorded = record_results(connection, finished, config.elo_k)
    fresh = set(recorded)
    for match_id, result in finished:
        metrics.observe_match(result, "done" if match_id in fresh else "duplicate")
    # After the recordings have committed (see ``finish_if_complete``).
    for tournament_id in sorted(t for t in tournaments if t is not None):
        with db.transaction(url) as connection:
            finish_if_complete(connection, tournament_id)
    return recorded


def failed_tournaments(match_ids: Sequence[int], url: str | None = None) -> set[int]:
    """Tournaments of ``match_ids`` that are over on the match side (done, failed or
    cancelled), whose status may still need to be closed."""
    with db.transaction(url) as connection:
        return set(
            connection.execute(
                sa.select(match_t.c.tournament_id)
                .where(match_t.c.id.in_(list(match_ids)), match_t.c.tournament_id.is_not(None),
                       match_t.c.status.in_(("done", "failed", "cancelled")))
                .distinct()
            ).scalars()
        )
