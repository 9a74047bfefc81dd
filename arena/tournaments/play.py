"""The work of one task: claim scheduled matches, play each, record each in its own
transaction. Every match is idempotent on its own: a batch that dies half-way leaves the
recorded matches recorded, and a redelivery plays only the rest.

A poison match (one that raises while it is set up, played or recorded) is marked ``failed``
with its error and the rest of its batch is played and recorded as usual. Faults of the
surroundings (the database or the broker out of reach, the task's time limit) are not the
match's: they propagate (``arena.errors.outage``), for the task to wait them out (``workers.outage``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
import sqlalchemy.exc
from sqlalchemy.engine import Connection

from arena import metrics
from arena.errors import BadInput, NotFound, outage
from arena.referee import Clock, HousePlayer, Player, play_match
from arena.settings import load
from arena.store import db
from arena.store.models import Match, Tournament, utcnow
from arena.store.queries import bots_by_id
from arena.store.results import finish_if_complete, record_results
from arena.store.statuses import MatchStatus, TournamentStatus

from . import leases

log = logging.getLogger(__name__)
match_t = Match.__table__
tournament_t = Tournament.__table__

ERROR_CHARS = 2000  # an error is kept for the operator, not as a log

def describe(stage: str, error: BaseException) -> str:
    """The error kept on a failed match: where it failed (setup, play, record) and why."""
    text = " ".join(str(error).split()) or "(no message)"
    return f"{stage}: {type(error).__name__}: {text}"[:ERROR_CHARS]


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


# How a claimed match is played: ``play_match`` on this thread's own loop, or, in a live
# worker (``workers.live``), on the process's one shared loop.
_run_match: Callable[..., Any] = play_match
_this_thread = threading.local()  # a runner for the current thread alone (``using_runner``)


def set_match_runner(runner: Callable[..., Any]) -> None:
    """Play this process's matches with ``runner`` (same arguments as ``play_match``)."""
    global _run_match
    _run_match = runner


@contextlib.contextmanager
def using_runner(runner: Callable[..., Any]) -> Iterator[None]:
    """Play the matches of the current thread with ``runner`` meanwhile."""
    _this_thread.runner = runner
    try:
        yield
    finally:
        _this_thread.runner = None


def _runner() -> Callable[..., Any]:
    return getattr(_this_thread, "runner", None) or _run_match


def first_set(*values: float | None) -> float:
    """The first value that is not None (a match's own clock, its tournament's, a default)."""
    return next(float(v) for v in values if v is not None)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def claim_matches(
    connection: Connection, match_ids: Sequence[int], worker: str, max_attempts: int, lease_seconds: float = 0.0
) -> list[MatchSpec]:
    """Mark the claimable matches among ``match_ids`` as running, held by ``worker`` with a
    lease of ``lease_seconds`` (0: no lease), and count the attempt.

    A match delivered more than ``max_attempts`` times is a poison match: it is marked
    failed instead of being played again; so is a match whose row cannot be set up (its
    options, seats or clock unreadable), with the error. Finished, cancelled and failed
    matches are skipped, and so are running ones another worker's live lease holds, which
    makes duplicate deliveries cheap and harmless."""
    now = utcnow()
    free = leases.CLAIMABLE
    claimable = leases.claimable(now, worker, leases.gone_holders(connection, match_ids, worker))
    rows = connection.execute(_CLAIMABLE_ROWS, {"ids": list(match_ids), **claimable}).all()
    if not rows:
        return []
    bots = bots_by_id(connection, [b for row in rows if isinstance(row.seating, list) for b in row.seating
                                   if isinstance(b, int)])
    specs = []
    for row in rows:
        attempts = row.attempts + 1
        # The condition is checked again on the newest row version: a match that another
        # delivery claimed or recorded since the select above must be left to it.
        still_pending = (match_t.c.id == row.id) & free
        if attempts > max_attempts:
            error = f"delivered {row.attempts} times without being recorded (ARENA_MAX_ATTEMPTS={max_attempts})"
            if connection.execute(match_t.update().where(still_pending).values(status=MatchStatus.FAILED, error=error),
                                  claimable).rowcount:
                metrics.match_failed(row.game, "attempts")
            continue
        try:
            spec = _spec(row, bots)
        except Exception as error:  # a row that cannot even be read is a poison match
            if outage(error):
                raise
            failed = connection.execute(
                match_t.update().where(still_pending)
                .values(status=MatchStatus.FAILED, attempts=attempts, claimed_by=worker, error=describe("setup", error)),
                claimable,
            ).rowcount
            if failed:
                metrics.match_failed(row.game, "error")
            continue
        claimed = connection.execute(_CLAIM, {"b_id": row.id, "b_attempts": attempts, "b_worker": worker, "b_now": now,
                                              "b_lease": leases.expiry(now, lease_seconds), **claimable}).rowcount
        if claimed:
            specs.append(spec)
    return specs


# The claim's statements, built once (a claim runs for every match).
_CLAIMABLE_ROWS = (
    sa.select(match_t, tournament_t.c.move_time, tournament_t.c.time_bank)
    .outerjoin(tournament_t, tournament_t.c.id == match_t.c.tournament_id)
    .where(match_t.c.id.in_(sa.bindparam("ids", expanding=True)), leases.CLAIMABLE)
    .order_by(match_t.c.id)
)
_CLAIM = (
    match_t.update()
    .where(match_t.c.id == sa.bindparam("b_id"), leases.CLAIMABLE)
    .values(status=MatchStatus.RUNNING, attempts=sa.bindparam("b_attempts"), claimed_by=sa.bindparam("b_worker"),
            started_at=sa.bindparam("b_now"), lease_until=sa.bindparam("b_lease"))
)
_OVER_TOURNAMENTS = (
    sa.select(match_t.c.tournament_id)
    .where(match_t.c.id.in_(sa.bindparam("ids", expanding=True)), match_t.c.tournament_id.is_not(None),
           match_t.c.status.in_(MatchStatus.OVER))
    .distinct()
)


def _spec(row: Any, bots: dict[int, Any]) -> MatchSpec:
    default = Clock()
    clock = Clock(move=first_set(row.clock_move, row.move_time, default.move),
                  bank=first_set(row.clock_bank, row.time_bank, default.bank))
    seats = tuple(
        {"id": b, "name": bots[b].name, "kind": bots[b].kind, "strategy": bots[b].strategy, "think": bots[b].think}
        for b in row.seating
    )
    return MatchSpec(row.id, row.tournament_id, row.game, dict(row.options), int(row.seed), seats, clock)


@dataclass
class ClaimedBatch:
    """Matches this process has claimed: played one by one, then recorded in one transaction.

    ``play_and_record`` takes a batch from claim to record on the calling thread; a live
    worker (``workers.live``) claims and records on its store threads and plays on its loop.
    Either way the same phases, in the same order, keep a match exactly once."""

    specs: list[MatchSpec]
    worker: str
    url: str | None
    elo_k: float
    lease: float
    tournaments: set[int]  # to close once recorded: the batch's own and those already over
    finished: list[tuple[int, Any]] = field(default_factory=list)
    failures: list[tuple[MatchSpec, str]] = field(default_factory=list)

    @property
    def by_id(self) -> dict[int, MatchSpec]:
        return {spec.id: spec for spec in self.specs}

    def keeper(self) -> leases.LeaseKeeper:
        """Renews the batch's leases while it is held (a ``with`` block)."""
        return leases.LeaseKeeper([spec.id for spec in self.specs], self.worker, self.lease, self.url)

    @staticmethod
    def players(spec: MatchSpec) -> list[Player]:
        return [PLAYER_FACTORIES[bot["kind"]](spec, seat) for seat, bot in enumerate(spec.bots)]

    def failed(self, spec: MatchSpec, stage: str, error: BaseException) -> None:
        """``spec`` raised ``error`` while being set up or played: it is failed by itself,
        unless the error is the surroundings' (an outage), which stops the batch: what
        finished is recorded, the rest handed back, and the error goes on up."""
        if outage(error):
            _salvage(self.finished, self.failures, self.by_id, spec.id, self.worker, self.url, self.elo_k)
            raise error
        self.failures.append((spec, describe(stage, error)))

    def record(self) -> list[int]:
        """Record what finished and mark what failed; returns the ids this call recorded."""
        return _record(self.finished, self.failures, self.by_id, self.url, self.elo_k)

    def close(self, recorded: Sequence[int]) -> None:
        """Count the batch on /metrics and close its tournaments that have nothing left (after
        the recordings have committed, see ``finish_if_complete``)."""
        fresh, failed = set(recorded), {spec.id for spec, _ in self.failures}
        for match_id, result in self.finished:
            if match_id not in failed:
                metrics.observe_match(result, MatchStatus.DONE if match_id in fresh else "duplicate")
        for tournament_id in sorted(self.tournaments):
            with db.transaction(self.url) as connection:
                finish_if_complete(connection, tournament_id)


def merged(batches: Sequence[ClaimedBatch]) -> ClaimedBatch:
    """Several batches of this process as one, to record in one transaction and close once:
    each match is still recorded exactly once (its own result row), and a recording spends
    its round trips, its rating locks and its commit once for all of them."""
    first = batches[0]
    return ClaimedBatch(
        [spec for batch in batches for spec in batch.specs], first.worker, first.url, first.elo_k, first.lease,
        set().union(*(batch.tournaments for batch in batches)),
        [match for batch in batches for match in batch.finished],
        [failure for batch in batches for failure in batch.failures],
    )


def claim(match_ids: Sequence[int], url: str | None = None) -> ClaimedBatch:
    """Claim what can be claimed of ``match_ids`` for this process (``claim_matches``)."""
    config = load()
    worker = worker_name()
    # Embedded too: another process on the same store (a second server, a command line run,
    # this server started again after a crash) tells a match being played from a lost one
    # by its lease (``workers.embedded_supervisor``).
    lease = config.lease_seconds
    with db.transaction(url) as connection:
        specs = claim_matches(connection, match_ids, worker, config.max_attempts, lease)
        over = failed_tournaments(connection, match_ids)
    tournaments = {spec.tournament_id for spec in specs} | over
    return ClaimedBatch(specs, worker, url, config.elo_k, lease, {t for t in tournaments if t is not None})


def play_and_record(match_ids: Sequence[int], url: str | None = None) -> list[int]:
    """Claim, play and record ``match_ids``; returns the ids this call recorded. A match
    that raises is marked failed with its error; the others are played and recorded.

    While the batch is played its leases are renewed. Should the surroundings fail under it
    (the task's soft time limit, the broker, the mailbox), what finished is recorded and the
    rest handed back to the supervisor before the error goes on up."""
    batch = claim(match_ids, url)
    with batch.keeper():
        for spec in batch.specs:
            stage = "setup"
            try:
                players = batch.players(spec)
                stage = "play"
                result = _runner()(spec.game, players, spec.seed, spec.options, spec.clock, match_id=str(spec.id))
            except Exception as error:
                batch.failed(spec, stage, error)
                continue
            batch.finished.append((spec.id, result))
        recorded = batch.record()
    batch.close(recorded)
    return recorded


def _salvage(finished: list[tuple[int, Any]], failures: list[tuple[MatchSpec, str]], specs: dict[int, MatchSpec],
             interrupted: int, worker: str, url: str | None, k: float) -> None:
    """The batch is being stopped at ``interrupted``: record what finished and hand the rest
    back, as far as the database allows (if it does not, the leases lapse and the supervisor
    sends them again all the same)."""
    done = {match_id for match_id, _ in finished} | {spec.id for spec, _ in failures}
    rest = [m for m in specs if m not in done]
    try:
        _record(finished, failures, specs, url, k)
        with db.transaction(url) as connection:
            leases.hand_back(connection, rest, worker, started=[interrupted])
    except Exception as error:
        log.warning("matches %s left to lapse (could not hand them back: %s)", rest, error)


def _record(finished: list[tuple[int, Any]], failures: list[tuple[MatchSpec, str]],
            specs: dict[int, MatchSpec], url: str | None, k: float) -> list[int]:
    """Record the batch in one transaction (one commit for all), with its failures. Should
    that raise for a reason of its own (not an outage), each match is recorded alone, so a
    match that cannot be recorded fails by itself (it joins ``failures``)."""
    def record(batch: list[tuple[int, Any]], failed: list[tuple[MatchSpec, str]]) -> list[int]:
        with db.transaction(url) as connection:
            recorded = record_results(connection, batch, k)
            mark_failed(connection, failed)
        return recorded

    try:
        return db.retrying_rollbacks(lambda: record(finished, failures))
    except Exception as error:
        if not _match_fault(error):
            raise
    recorded = []
    for match_id, result in finished:
        try:
            recorded += db.retrying_rollbacks(lambda: record([(match_id, result)], []))  # noqa: B023
        except Exception as error:
            if not _match_fault(error):
                raise
            failures.append((specs[match_id], describe("record", error)))
    with db.transaction(url) as connection:
        mark_failed(connection, failures)
    return recorded


def _match_fault(error: BaseException) -> bool:
    # While recording, a database error that is not an outage (a constraint, a value the
    # column refuses) may belong to one match; the broker or the time limit never does.
    fault = outage(error)
    if fault is not None and fault.passing:
        return False
    return fault is None or isinstance(error, sqlalchemy.exc.SQLAlchemyError)


def mark_failed(connection: Connection, failures: list[tuple[MatchSpec, str]]) -> int:
    """Mark matches failed with their errors (those still pending: a match another delivery
    recorded meanwhile stays done); returns how many changed."""
    changed = 0
    for spec, error in failures:
        still_pending = (match_t.c.id == spec.id) & match_t.c.status.in_(MatchStatus.PENDING)
        if connection.execute(match_t.update().where(still_pending).values(status=MatchStatus.FAILED, error=error)).rowcount:
            metrics.match_failed(spec.game, "error")
            changed += 1
    return changed


def reschedule_failed(connection: Connection, tournament_id: int, match_ids: Sequence[int] | None = None) -> list[int]:
    """Put a tournament's failed matches (or those of ``match_ids``) back to ``scheduled``,
    with their attempts and error cleared, and reopen the tournament if it was closed;
    returns their ids. Dispatching them is the caller's (after this commits)."""
    tournament = connection.execute(
        sa.select(tournament_t.c.status).where(tournament_t.c.id == tournament_id)
    ).scalar_one_or_none()
    if tournament is None:
        raise NotFound(f"no tournament {tournament_id}")
    if tournament == TournamentStatus.CANCELLED:
        raise BadInput(f"tournament {tournament_id} is cancelled")
    query = sa.select(match_t.c.id).where(match_t.c.tournament_id == tournament_id, match_t.c.status == MatchStatus.FAILED)
    if match_ids is not None:
        query = query.where(match_t.c.id.in_(list(match_ids)))
    ids = list(connection.execute(query.order_by(match_t.c.id)).scalars())
    if not ids:
        return []
    connection.execute(
        match_t.update().where(match_t.c.id.in_(ids), match_t.c.status == MatchStatus.FAILED)
        .values(status=MatchStatus.SCHEDULED, attempts=0, error=None, claimed_by=None, started_at=None)
    )
    connection.execute(
        tournament_t.update().where(tournament_t.c.id == tournament_id, tournament_t.c.status == TournamentStatus.DONE)
        .values(status=TournamentStatus.RUNNING, finished_at=None)
    )
    return ids


def failed_tournaments(connection: Connection, match_ids: Sequence[int]) -> set[int]:
    """Tournaments of ``match_ids`` that are over on the match side (done, failed or
    cancelled), whose status may still need to be closed (read in the claim's transaction)."""
    return set(connection.execute(_OVER_TOURNAMENTS, {"ids": list(match_ids)}).scalars())
