"""One leader per store, without Redis: the embedded supervisor's election.

Several processes may share one store with no broker between them (two ``arena serve`` on
one SQLite file, a server restarted while the old one is still dying). Only one of them
should heal it, and the lock must end with its holder, however it ends (``kill -9``
included), so that another takes over without waiting for a time-to-live:

- a SQLite file: an exclusive ``flock`` on a file beside it (``<file>.leader``); the kernel
  releases it when the process that holds it dies. SQLite's own files can only be shared on
  one machine, and so can this lock.
- PostgreSQL: a session-level advisory lock (``pg_try_advisory_lock``) on a connection kept
  for it; the server releases it when that connection ends.
- an in-memory SQLite database belongs to one process: it always leads.

Without ``fcntl`` (Windows) a SQLite store always leads: run one server per file there.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import IO, Any

import sqlalchemy as sa

from . import db

log = logging.getLogger(__name__)

# The advisory lock's key: any fixed 64-bit number that no other application on the same
# PostgreSQL uses (these are the bytes of "arenasup").
ADVISORY_KEY = int.from_bytes(b"arenasup", "big") - (1 << 63)
ROLES = ("", "ladder")  # the leaders a store elects: the supervisor's, the ladder's


def lock_file(url: str, role: str = "") -> str | None:
    """The file whose lock elects the leader of the SQLite store at ``url`` (for ``role``:
    the supervisor's is the plain one); None for any other store (and for an in-memory one)."""
    url = db.normalize_url(url)
    if not url.startswith("sqlite"):
        return None
    path = url.split("///", 1)[-1] if "///" in url else ""
    path = path.split("?", 1)[0]
    suffix = f".{role}" if role else ""
    return f"{path}{suffix}.leader" if path and path != ":memory:" else None


class StoreLeader:
    """``lead()`` takes or keeps the leadership of the store at ``url`` and says whether this
    process holds it; ``release()`` gives it up (dying gives it up too). Each ``role`` (the
    supervisor's, ``""``; the ladder's, ``"ladder"``) elects its own leader."""

    def __init__(self, url: str, role: str = "") -> None:
        self.url = db.normalize_url(url)
        self.role = role
        # One advisory lock per role: the supervisor's key, and the next numbers for the others.
        self.key = ADVISORY_KEY + ROLES.index(role)
        self._lock = threading.Lock()
        self._file: IO[bytes] | None = None
        self._connection: sa.Connection | None = None

    def lead(self) -> bool:
        with self._lock:
            if self.url.startswith("postgresql"):
                return self._lead_postgres()
            path = lock_file(self.url, self.role)
            if path is None:
                return True  # in memory: nobody else can see this store
            return self._lead_file(path)

    def _lead_file(self, path: str) -> bool:
        if self._file is not None:
            return True  # a flock holds until we close the file
        try:
            import fcntl
        except ImportError:
            return True
        handle = open(path, "ab")  # noqa: SIM115 - kept open while leading
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        handle.truncate(0)
        handle.write(f"{os.getpid()}\n".encode())  # who leads, for a curious operator
        handle.flush()
        self._file = handle
        return True

    def _lead_postgres(self) -> bool:
        if self._connection is not None:
            try:
                # The lock lives as long as this connection: check it is still there.
                self._connection.exec_driver_sql("SELECT 1")
                self._connection.commit()
                return True
            except sa.exc.SQLAlchemyError:
                self._drop_connection()
        connection = db.engine(self.url).connect()
        try:
            got = bool(connection.execute(sa.select(sa.func.pg_try_advisory_lock(self.key))).scalar_one())
            connection.commit()
        except BaseException:
            connection.close()
            raise
        if not got:
            connection.close()
            return False
        self._connection = connection
        return True

    def _drop_connection(self) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        try:
            connection.invalidate()  # never back to the pool holding the lock
            connection.close()
        except Exception:
            pass

    def release(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()  # closing the file releases its flock
                self._file = None
            if self._connection is not None:
                try:
                    self._connection.execute(sa.select(sa.func.pg_advisory_unlock(self.key)))
                    self._connection.commit()
                except sa.exc.SQLAlchemyError:
                    pass  # the connection is gone, and the lock with it
                self._drop_connection()

    def __enter__(self) -> StoreLeader:
        return self

    def __exit__(self, *_: Any) -> None:
        self.release()
