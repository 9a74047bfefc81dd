"""Memory ceilings on work that strangers may ask for: the address space a process may map
(``RLIMIT_AS``), so that game code run for someone else fails with ``MemoryError`` in its own
process rather than taking the host's memory."""

from __future__ import annotations

import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager

MIB = 1024 * 1024


def bound_address_space(limit: int) -> None:
    """Let this process map at most ``limit`` bytes from now on (never above its hard limit)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def address_space() -> int | None:
    """The bytes this process maps now (None where ``/proc`` does not say: not Linux)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@contextmanager
def ceiling(extra_mb: int) -> Iterator[None]:
    """Within the block, this process may map at most ``extra_mb`` MiB beyond what it maps on
    entry; afterwards its limit is what it was. What the process held before (a worker's
    imports, its connections) is not the block's to pay for, so the ceiling means the same in a
    lean process and in a Celery worker. Where the process's mapping cannot be read, no
    ceiling is set. An error raised with the process at its ceiling is a ``MemoryError``."""
    now = address_space()
    before = resource.getrlimit(resource.RLIMIT_AS)
    limit = None if now is None else now + extra_mb * MIB
    if limit is not None:
        bound_address_space(limit)
    try:
        yield
    except MemoryError:
        raise
    except Exception as error:
        # Out of memory inside a C routine (the compiler, a codec) can surface as another
        # error; one raised with the process at its ceiling is taken for what it is.
        if limit is not None and (address_space() or 0) + MIB >= limit:
            raise MemoryError(f"at the ceiling of {extra_mb} MiB: {error}") from error
        raise
    finally:
        resource.setrlimit(resource.RLIMIT_AS, before)
