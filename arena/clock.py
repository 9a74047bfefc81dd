"""The time control of a match, and the arena's one home of its defaults.

Every place that needs a clock it was not given (a tournament drawn up without one, a
challenge that leaves it unset, the command line's flags, the store's columns) takes the
default from here: ``Clock().move`` and ``Clock().bank``. The rules the referee applies
with it are in ``arena.referee.match``.

Below the referee and the store on purpose: both use it, and the store must not import the
referee.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Clock:
    """Time control of a match: seconds per move, the overage bank, strikes to forfeit."""

    move: float = 2.0
    bank: float = 30.0
    strikes: int = 3

    @classmethod
    def from_ms(cls, move_ms: int, bank_ms: int) -> Clock:
        """A clock from the protocol's milliseconds, where 0 (unset) means the default."""
        default = cls()
        return cls(move=move_ms / 1000 or default.move, bank=bank_ms / 1000 or default.bank)
