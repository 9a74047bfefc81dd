"""Running a tournament: its pending matches sent to the workers (or, embedded, played here)
and followed to the end.

Following a tournament rides through a database outage: one notice line when it begins,
and the progress carries on when the database is back (``workers.outage``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from arena.settings import load
from arena.store import db
from arena.store.queries import tournament_status
from arena.store.results import finish_if_complete
from arena.store.statuses import MatchStatus, TournamentStatus
from arena.tournaments import pending_match_ids

from . import pool
from .app import app
from .outage import ride_out, stderr_notice
from .send import check_broker, send

Progress = Callable[[int, int], None]
Notice = Callable[[BaseException], None]


def wait_for(tournament_id: int, progress: Progress | None = None, timeout: float | None = None,
             poll: float = 0.5, notice: Notice | None = stderr_notice) -> dict:
    """Block until the tournament has no pending match; returns its status. An unreachable
    database is waited out (``notice`` once per outage, ``workers.outage.Outage`` past
    ``ARENA_OUTAGE_SECONDS``)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        status = read_status(tournament_id, notice)
        done = sum(g[over] for g in status["games"].values() for over in MatchStatus.OVER)
        total = sum(g["total"] for g in status["games"].values())
        if progress:
            progress(done, total)
        if status["status"] != TournamentStatus.RUNNING:
            return status
        if done >= total:
            # Every match is over and the last recorder has not closed it yet (or died before
            # it could): close it here rather than report a finished tournament as running.
            close(tournament_id, notice)
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError(f"tournament {tournament_id}: {done}/{total} after {timeout} s")
        time.sleep(poll)


def close(tournament_id: int, notice: Notice | None = stderr_notice) -> None:
    """Mark the tournament done if nothing of it is pending (see ``finish_if_complete``)."""

    def finish() -> None:
        with db.transaction() as connection:
            finish_if_complete(connection, tournament_id)

    ride_out(finish, "command", notice=notice)


def read_status(tournament_id: int, notice: Notice | None = stderr_notice) -> dict:
    """The tournament's status, waiting out an unreachable database."""

    def read() -> dict:
        with db.read() as connection:
            return tournament_status(connection, tournament_id)

    return ride_out(read, "command", notice=notice)


def run_tournament(tournament_id: int, wait: bool = True, progress: Progress | None = None,
                   batch_size: int | None = None, notice: Notice | None = stderr_notice) -> dict:
    """Send every pending match of a tournament and, if ``wait``, follow it to the end."""
    return run_tournaments([tournament_id], wait, progress, batch_size, notice)[0]


def run_tournaments(tournament_ids: Sequence[int], wait: bool = True, progress: Progress | None = None,
                    batch_size: int | None = None, notice: Notice | None = stderr_notice) -> list[dict]:
    """``run_tournament`` for several tournaments at once: their matches go out together
    (embedded, played here: one pool of processes plays them all). ``progress`` follows the
    matches played here, or, with workers, the one tournament followed."""
    check_broker()
    for tournament_id in tournament_ids:
        close(tournament_id, notice)  # one whose last recording's process died before closing it

    def pending() -> list[int]:
        with db.read() as connection:
            return [m for tournament_id in tournament_ids for m in pending_match_ids(connection, tournament_id)]

    ids = ride_out(pending, "command", notice=notice)
    embedded = load().embedded
    if embedded:
        pool.play(ids, batch_size, progress)
    else:
        send(ids, app, batch_size)
    if wait or embedded:
        follow = progress if not embedded and len(tournament_ids) == 1 else None
        return [wait_for(tournament_id, follow, notice=notice) for tournament_id in tournament_ids]
    return [read_status(tournament_id, notice) for tournament_id in tournament_ids]
