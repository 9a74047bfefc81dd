"""Ranges for everything a caller may ask of a tournament or a challenge, checked before a
single row or plan is built: a request for four billion repetitions must cost an error
message, not the server's memory.

``ARENA_MAX_TOURNAMENT_MATCHES`` (default 100000) caps the matches of one tournament; a bot's
challenge has the narrower clock of ``ARENA_CHALLENGE_MOVE_SECONDS`` and
``ARENA_CHALLENGE_BANK_SECONDS``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from arena.errors import BadInput

MAX_REPETITIONS = 1000
MAX_BOTS = 256
MAX_NAME = 200
MOVE_TIME = (0.01, 600.0)  # seconds per decision
TIME_BANK = (0.0, 3600.0)  # overage seconds per seat and match
MAX_GROUPS = 500  # groups per table size before a balanced design replaces all combinations


def max_tournament_matches() -> int:
    from arena.settings import load

    return load().max_tournament_matches


def check_clock(move_time: float, time_bank: float) -> None:
    """The referee's clock: a sane deadline and bank, or ``BadInput`` naming the range."""
    if not (MOVE_TIME[0] <= move_time <= MOVE_TIME[1]) or math.isnan(move_time):
        raise BadInput(f"move time must be {MOVE_TIME[0]:g}-{MOVE_TIME[1]:g} s, not {move_time:g}")
    if not (TIME_BANK[0] <= time_bank <= TIME_BANK[1]) or math.isnan(time_bank):
        raise BadInput(f"time bank must be {TIME_BANK[0]:g}-{TIME_BANK[1]:g} s, not {time_bank:g}")


def check_challenge_clock(move_time: float, time_bank: float, max_move: float, max_bank: float) -> None:
    """A bot's challenge holds its opponents no longer than the server allows
    (``ARENA_CHALLENGE_MOVE_SECONDS``, ``ARENA_CHALLENGE_BANK_SECONDS``); else ``BadInput``
    naming the limit."""
    check_clock(move_time, time_bank)
    if move_time > max_move:
        raise BadInput(f"a challenge's move time is at most {max_move:g} s on this server "
                         f"(ARENA_CHALLENGE_MOVE_SECONDS), not {move_time:g}")
    if time_bank > max_bank:
        raise BadInput(f"a challenge's time bank is at most {max_bank:g} s on this server "
                         f"(ARENA_CHALLENGE_BANK_SECONDS), not {time_bank:g}")


def groups_bound(bots: int, size: int, max_groups: int = MAX_GROUPS) -> int:
    """At most how many groups ``schedule.round_robin`` draws for one table size."""
    if size > bots:
        return 0
    combinations = math.comb(bots, size)
    if combinations <= max_groups:
        return combinations
    meetings = max(1, max_groups * math.comb(size, 2) // math.comb(bots, 2))
    return 3 * math.ceil(meetings * math.comb(bots, 2) / math.comb(size, 2))


def check_tournament(games: Sequence[str], bots: int, sizes: Sequence[int], repetitions: int,
                     move_time: float, time_bank: float, name: str = "") -> None:
    """Every count, time and size of a tournament request in range; else ``BadInput``."""
    if not games:
        raise BadInput("a tournament needs at least one game")
    if not 2 <= bots <= MAX_BOTS:
        raise BadInput(f"a tournament needs 2-{MAX_BOTS} distinct bots, not {bots}")
    if not 1 <= repetitions <= MAX_REPETITIONS:
        raise BadInput(f"repetitions must be 1-{MAX_REPETITIONS}, not {repetitions}")
    if len(name) > MAX_NAME:
        raise BadInput(f"a tournament name has at most {MAX_NAME} characters")
    check_clock(move_time, time_bank)
    if any(not 1 <= s <= bots for s in sizes):
        raise BadInput(f"table sizes must be 1-{bots} (the number of bots), not {list(sizes)}")


def check_match_count(bots: int, sizes_per_game: Sequence[Sequence[int]], repetitions: int) -> None:
    """The matches the schedule will draw, bounded from above by its own arithmetic, under
    the cap; else ``BadInput``. Runs before any plan is built."""
    matches = repetitions * sum(groups_bound(bots, s) * s for sizes in sizes_per_game for s in sizes)
    cap = max_tournament_matches()
    if matches > cap:
        raise BadInput(f"this tournament could hold up to {matches} matches, more than the cap of {cap} "
                         "(ARENA_MAX_TOURNAMENT_MATCHES): fewer bots, sizes or repetitions")
