"""What a match may show to anyone who asks, and when: the arena's one disclosure rule.

A match's seed rebuilds its whole deal (every hand, the stock order, every later shuffle), its
transcript replays it, and its results (ranks, scores, strikes, decision count, duration) tell
how the deal played out. None of it may leave the arena while any seat could still use it:

- a match that is not over shows only public facts (game, options, players, status);
- a finished match stays **sealed** (no seed, no transcript, no results) while *any* match
  dealing the same cards (same game, same seed) is still scheduled or being played, whatever
  its tournament and that tournament's status (running, done or cancelled: a cancelled
  tournament's started matches play on) and whether it is a challenge. Equal deals come from
  the rotations of one duplicate group, from a rerun of a tournament's deals
  (``--same-deals-as``) and from challenges with a chosen seed.

Every reader (the Arena service, the command line, the web pages and the JSON API) asks this
module: ``public_detail`` and ``seal_listing`` for match documents, ``sealed`` and
``sealed_ids`` for single matches and lists of them, ``results_shown`` for the sums that
standings, crosstables and bot pages add up in the database. It reads no match document
itself (``arena.store.queries`` does, and uses ``results_shown``): the documents are handed in.

The lookup is by deal: the ``(seed, status)`` index finds the unfinished matches of a seed in
one seek, so its cost does not grow with the recorded matches.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from .models import Match
from .statuses import MatchStatus

match_t = Match.__table__

# Seeds asked about in one statement: well under every database's limit of bound parameters.
CHUNK = 500


def _field(match: Any, name: str) -> Any:
    """A field of a match given as a dict (the read helpers) or a row (SQLAlchemy)."""
    return match[name] if isinstance(match, dict) else getattr(match, name)


def _deal(match: Any) -> tuple[str, int]:
    return (_field(match, "game"), int(_field(match, "seed")))


def deals_in_play(connection: Connection, matches: Iterable[Any]) -> set[tuple[str, int]]:
    """The (game, seed) deals among ``matches`` that some unfinished match still plays, in
    any tournament of any status or in a challenge."""
    seeds = sorted({int(_field(m, "seed")) for m in matches if _field(m, "seed") is not None})
    found: set[tuple[str, int]] = set()
    for start in range(0, len(seeds), CHUNK):
        rows = connection.execute(
            sa.select(match_t.c.game, match_t.c.seed).distinct()
            .where(match_t.c.seed.in_(seeds[start : start + CHUNK]), match_t.c.status.in_(MatchStatus.PENDING))
        ).all()
        found |= {(r.game, int(r.seed)) for r in rows}
    return found


def sealed(connection: Connection, match: Any) -> bool:
    """True while ``match`` (a row or dict with ``status``, ``game`` and ``seed``) may not show
    its seed, transcript or results."""
    return _field(match, "status") != MatchStatus.DONE or _deal(match) in deals_in_play(connection, [match])


def sealed_ids(connection: Connection, matches: Iterable[Any]) -> set[int]:
    """The ids among ``matches`` (rows or dicts with ``id``, ``status``, ``game``, ``seed``)
    that may not show their seed, transcript or results."""
    matches = list(matches)
    in_play = deals_in_play(connection, [m for m in matches if _field(m, "status") == MatchStatus.DONE])
    return {int(_field(m, "id")) for m in matches if _field(m, "status") != MatchStatus.DONE or _deal(m) in in_play}


def results_shown(match: Any = match_t) -> Any:
    """A condition on ``match`` (the match table or an alias of it) that keeps the matches
    whose results may be shown in sums (standings, crosstables, a bot's record against each
    opponent): it leaves out every match whose seed an unfinished match still deals. The
    unfinished seeds are read once per statement (the database builds them into a lookup
    from the status index), so the sum costs one probe per row it already reads. Unfinished
    matches have no results to leave out; a finished match of another game that happens to
    share a seed is left out a little longer than needed, never shown too early."""
    unfinished = match_t.alias("unfinished")
    return match.c.seed.notin_(sa.select(unfinished.c.seed).where(unfinished.c.status.in_(MatchStatus.PENDING)))


def withhold(match: dict[str, Any]) -> dict[str, Any]:
    """``match`` without anything that tells the deal or its outcome."""
    return match | {"seed": None, "transcript": None, "seats": [], "finished_at": None, "duration_ms": None,
                    "sealed": True}


def public_detail(connection: Connection, match: dict[str, Any]) -> dict[str, Any]:
    """A match document (``queries.match_detail``) as anyone may see it: whole once the deal is
    over everywhere, otherwise with seed, transcript and results withheld (``sealed`` says
    which)."""
    if sealed(connection, match):
        return withhold(match)
    return match | {"sealed": False}


def seal_listing(connection: Connection, matches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A listing of matches (``queries.recent_matches`` rows, which carry ``seed``) as anyone
    may see it: results only for matches whose deal is over, and never a seed."""
    hidden = sealed_ids(connection, matches)
    return [withhold(m) if m["id"] in hidden else m | {"seed": None, "sealed": False} for m in matches]


def withheld_errors(connection: Connection, matches: Iterable[Any]) -> set[int]:
    """The ids among failed ``matches`` whose error must not be shown: an error may quote the
    deal (a card, a hand), so it follows the deal's seal."""
    matches = list(matches)
    in_play = deals_in_play(connection, matches)
    return {int(_field(m, "id")) for m in matches if _deal(m) in in_play}
