"""What a match may show to anyone who asks, and when.

A match's seed rebuilds its whole deal (every hand, the stock order, every later shuffle), and
its transcript replays it. Neither may leave the arena while any seat could still use them:

- a match that is not over shows only public facts (game, options, players, status);
- in duplicate format every rotation of a group replays the *same* deal (and tournaments drawn
  up with the same master seed deal the same cards), so a finished match stays **sealed** (no
  seed, no transcript, no scores or ranks) while a match of the same game with the same seed is
  still scheduled or being played.

Every read path that serves matches (the Arena service, the command line, the web face) goes
through ``public_detail`` or ``seal_listing`` so the rule lives in one place.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from .models import Match, Tournament
from .queries import match_detail

match_t = Match.__table__
tournament_t = Tournament.__table__

UNFINISHED = ("scheduled", "running")


def _field(match: Any, name: str) -> Any:
    """A field of a match given as a dict (the read helpers) or a row (SQLAlchemy)."""
    return match[name] if isinstance(match, dict) else getattr(match, name)


def _deal(match: Any) -> tuple[str, int]:
    return (_field(match, "game"), int(_field(match, "seed")))


def deals_in_play(connection: Connection, matches: list[Any]) -> set[tuple[str, int]]:
    """The (game, seed) deals among ``matches`` that some unfinished match still plays.

    Equal deals come from the same tournament (duplicate format), from running tournaments
    drawn up with the same master seed, and from challenges; each is looked up through the
    (tournament, game, status) index, so the cost does not grow with the recorded matches."""
    seeds = sorted({int(_field(m, "seed")) for m in matches if _field(m, "seed") is not None})
    if not seeds:
        return set()
    own = {_field(m, "tournament_id") for m in matches} - {None}
    scopes = set(own)
    if own:
        masters = connection.execute(sa.select(tournament_t.c.seed).where(tournament_t.c.id.in_(own))).scalars().all()
        scopes |= set(connection.execute(sa.select(tournament_t.c.id).where(
            tournament_t.c.seed.in_(masters), tournament_t.c.status == "running")).scalars())
    in_scope = match_t.c.tournament_id.is_(None)
    if scopes:
        in_scope = in_scope | match_t.c.tournament_id.in_(sorted(scopes))
    rows = connection.execute(
        sa.select(match_t.c.game, match_t.c.seed)
        .where(in_scope, match_t.c.status.in_(UNFINISHED), match_t.c.seed.in_(seeds))
    ).all()
    return {(r.game, int(r.seed)) for r in rows}


def sealed(connection: Connection, match: Any) -> bool:
    """True while ``match`` may not show its seed, transcript or results."""
    return _field(match, "status") != "done" or _deal(match) in deals_in_play(connection, [match])


def withhold(match: dict[str, Any]) -> dict[str, Any]:
    """``match`` without anything that tells the deal or its outcome."""
    return match | {"seed": None, "transcript": None, "seats": [], "sealed": True}


def public_detail(connection: Connection, match_id: int) -> dict[str, Any]:
    """``queries.match_detail`` as anyone may see it: whole once the deal is over everywhere,
    otherwise with seed, transcript and results withheld (``sealed`` says which)."""
    match = match_detail(connection, match_id)
    if sealed(connection, match):
        return withhold(match)
    return match | {"sealed": False}


def seal_listing(connection: Connection, matches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A listing of matches (``queries.recent_matches`` rows, which carry ``seed``) as anyone
    may see it: results only for matches whose deal is over, and never a seed."""
    in_play = deals_in_play(connection, matches)
    shown = []
    for match in matches:
        hidden = match["status"] != "done" or _deal(match) in in_play
        shown.append(withhold(match) if hidden else match | {"seed": None, "sealed": False})
    return shown
