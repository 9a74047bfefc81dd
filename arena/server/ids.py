"""Row ids as callers write them: one parser for every RPC and command that takes an id.

An id on the wire is text (``"17"``). Anything that is not a whole number the store could
hold (empty, negative, zero, ``"1e3"``, ``"١٢"``, or past 64 bits, which SQLite refuses with an
OverflowError) is a ``BadId`` (a ``ValueError``) with a short message, so that it becomes
INVALID_ARGUMENT on gRPC and exit code 2 on the command line, never a traceback. A well-formed
id that names no row is the caller's NOT_FOUND, decided where the row is looked up.

>>> parse_id("17", "match")
17
>>> parse_id("99999999999999999999", "match")
Traceback (most recent call last):
...
arena.server.ids.BadId: match id '99999999999999999999': expected a whole number from 1 to 9223372036854775807
"""

from __future__ import annotations

from arena.errors import BadInput

MAX_ID = 2**63 - 1  # the largest signed 64-bit integer: SQLite's and PostgreSQL's bigint
SHOWN = 40  # characters of a bad id quoted back in the message


class BadId(BadInput):
    """Text that cannot be a row id."""


def parse_id(text: str | int, what: str) -> int:
    """``text`` as the id of a ``what`` (``"match"``, ``"tournament"``), or ``BadId``."""
    raw = str(text)
    # ``isdigit`` would take other scripts' digits and superscripts; ids are ASCII only. Eight
    # characters past MAX_ID's nineteen digits is plenty for leading zeros and keeps int()
    # from ever reading a huge string.
    if raw.isascii() and raw.isdigit() and len(raw) <= 27:
        value = int(raw)
        if 1 <= value <= MAX_ID:
            return value
    shown = raw if len(raw) <= SHOWN else raw[:SHOWN] + "..."
    raise BadId(f"{what} id {shown!r}: expected a whole number from 1 to {MAX_ID}")
