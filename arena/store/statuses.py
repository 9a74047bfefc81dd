"""The statuses of matches and tournaments: the one place their values and meanings live.

They are ``StrEnum`` members, so each one *is* its string: the ``status`` columns, the JSON
API, the protocol's ``status`` fields and the command line hold the same text as before
(``str(MatchStatus.DONE) == MatchStatus.DONE.value == "done"``), and a status read back from
the database (a plain string) compares equal to its member.
"""

from __future__ import annotations

from enum import StrEnum, nonmember


class MatchStatus(StrEnum):
    """Where a match is in its life (``match.status``)."""

    SCHEDULED = "scheduled"
    """Waiting to be played. Written when a tournament is drawn up
    (``arena.tournaments.service.create_tournament``) or a challenge is made
    (``arena.server.challenge.create``); written again when a running match is handed back or
    its lease lapsed (``arena.tournaments.leases``) and when a failed one is retried
    (``arena.tournaments.play.reschedule_failed``)."""

    RUNNING = "running"
    """Claimed by a worker and being played (``arena.tournaments.play.claim_matches``), under
    a lease the worker renews while it plays."""

    DONE = "done"
    """Played and recorded, with its result, exactly once (``arena.store.results``)."""

    CANCELLED = "cancelled"
    """Never played: its tournament was cancelled before it started
    (``arena.tournaments.service.cancel_tournament``)."""

    FAILED = "failed"
    """A poison match: it raised while set up, played or recorded, or was delivered more than
    ``ARENA_MAX_ATTEMPTS`` times (``arena.tournaments.play``); ``match.error`` says why.
    ``arena tournament retry-failed`` schedules it again."""

    ABORTED = "aborted"
    """A challenge one of whose external bots went away after it was asked for and did not
    come back within the grace period (``arena.server.challenge.play``; a bot not connected
    when it is asked for is refused at once): nothing is recorded, no one is rated."""

    PENDING = nonmember((SCHEDULED, RUNNING))
    """Not over: still to be played or being played. A tournament with a pending match is not
    done, a deal that one plays stays sealed (``arena.store.disclosure``), and a duplicate
    group with one waits for its Elo (``arena.store.results``)."""

    OVER = nonmember((DONE, FAILED, CANCELLED))
    """How a tournament's match ends: its progress counts these as done (``aborted`` is a
    challenge's alone)."""


class TournamentStatus(StrEnum):
    """Where a tournament is in its life (``tournament.status``)."""

    RUNNING = "running"
    """Drawn up with matches to play (``arena.tournaments.service.create_tournament``), or
    reopened when its failed matches are retried (``arena.tournaments.play.reschedule_failed``)."""

    DONE = "done"
    """No match of it is pending any more: closed after its last match is recorded
    (``arena.store.results.finish_if_complete``, also from the supervisor's sweep), or drawn
    up with no match at all. Some of its matches may have failed."""

    CANCELLED = "cancelled"
    """Stopped by its operator (``arena.tournaments.service.cancel_tournament``): its matches
    not started are cancelled, those being played finish and are recorded."""
