"""The arena's errors, in one place: the types of the errors a person is told about, the one
classifier of outages, and the one way an error is put on a line.

A user-facing error (``ArenaError``) is a refusal of what was asked, a name that names
nothing, a value out of range, a store not made yet; its message is for the person who
asked. An outage (``outage``) is a fault of the surroundings: the database or the broker out
of reach, a lost connection, a killed process, a time limit. The ``arena`` command prints
either on one line with exit code 2; anything else is a bug and shows its traceback, a bare
``KeyError`` or ``ValueError`` included.

Each user-facing type is also the built-in type its callers caught before it existed
(``UnknownGame`` is a ``KeyError``, ``BadInput`` a ``ValueError``), so that code catching
those goes on working. This module imports nothing but the standard library when loaded: the
games' rules use it.
"""

from __future__ import annotations

from dataclasses import dataclass


class ArenaError(Exception):
    """An error whose message is for the person who asked: shown on one line, no traceback."""


class BadInput(ArenaError, ValueError):
    """A value the arena refuses: an argument, an option, an id, a name, a clock, a count."""


class NotFound(ArenaError, KeyError):
    """Nothing by that name or id (a tournament, a match). Its text is its message, without
    the quotes a ``KeyError`` puts around it."""

    def __str__(self) -> str:
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()


class UnknownGame(NotFound):
    """No game of that name; the message lists the known ones."""


class UnknownBot(NotFound, ValueError):
    """No bot of that name (a house bot's strategy, or a registered bot)."""


@dataclass(frozen=True)
class Fault:
    """What ``outage`` found at fault: the ``service`` out of reach (``"database"``,
    ``"broker"``, or ``""`` for a lost connection, a killed process, a time limit), and
    whether it is ``passing``: the database cannot be reached or used *for now* (server down
    or restarting, connection dropped, pool exhausted, a SQLite file locked or unreadable),
    which waiting may cure."""

    service: str
    passing: bool = False


# By the module of an error's type (its first part): drivers and clients of the surroundings.
_SERVICES = {"sqlalchemy": "database", "psycopg": "database", "sqlite3": "database",
             "redis": "broker", "kombu": "broker", "celery": "broker", "billiard": ""}

# SQLite reports both "cannot reach the file now" and "your SQL is wrong" as OperationalError:
# only these messages mean the database is out of reach for a while.
_SQLITE_OUTAGE = ("locked", "busy", "unable to open", "disk i/o", "readonly database")


def outage(error: BaseException) -> Fault | None:
    """The fault of the surroundings ``error`` is, or None when it is not one (a bug, a
    refusal, a match's own error): any error of the database (only some of them ``passing``),
    of the broker or the mailbox's Redis, a lost connection or process, a time limit."""
    import sqlalchemy.exc

    if isinstance(error, sqlalchemy.exc.SQLAlchemyError):
        return Fault("database", _passing(error))
    service = _SERVICES.get(type(error).__module__.split(".")[0])
    if service is not None:
        return Fault(service)
    if isinstance(error, ConnectionError | TimeoutError | ChildProcessError):
        return Fault("")
    return None


def _passing(error: BaseException) -> bool:
    import sqlalchemy.exc

    if isinstance(error, sqlalchemy.exc.TimeoutError | sqlalchemy.exc.InterfaceError):
        return True
    if isinstance(error, sqlalchemy.exc.DBAPIError) and error.connection_invalidated:
        return True
    if isinstance(error, sqlalchemy.exc.OperationalError):
        if type(error.orig).__module__.startswith("sqlite3"):
            text = str(error.orig).lower()
            return any(marker in text for marker in _SQLITE_OUTAGE)
        return True
    return False


def first_line(error: BaseException) -> str:
    """The gist of ``error`` on one line: the driver's own first line for a database error
    (SQLAlchemy's message runs on with the SQL), a ``KeyError``'s text without its quotes,
    the type's name when there is no text."""
    cause = getattr(error, "orig", None) or error
    text = cause.args[0] if isinstance(cause, KeyError) and len(cause.args) == 1 else cause
    lines = str(text).strip().splitlines()
    return lines[0] if lines else type(cause).__name__
