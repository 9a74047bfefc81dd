"""The maximum-likelihood leaderboard (``arena.stats.ml``) read from the store.

It counts the results the online Elo counts: rated matches whose Elo has been applied (a
rotation waiting for its duplicate group to end waits here too, so nothing sealed shows).

One statement reads them, already summed per bootstrap unit: each match's ranks become one
text (``bot:rank`` per seat), and the database counts the matches of each unit that ended in
each ranking. A duplicate group is a tournament's matches of one game and deal (its seed),
as ``arena.store.results`` groups them for Elo; a challenge is its own unit. The fit then runs
on those counts, whose size grows with the groups rather than the seats. Its cost still grows
with the results, so a reader that serves many requests keeps it (``version`` says when
it must be fitted again): see ``arena.web.views.ml_leaderboard``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena.stats import ml

from . import db
from .models import Bot, Match, MatchSeat, MLFit, Result, utcnow

bot_t = Bot.__table__
match_t = Match.__table__
seat_t = MatchSeat.__table__
result_t = Result.__table__
fit_t = MLFit.__table__

Version = tuple[int, int, int] | None


@dataclass(frozen=True)
class MLRow:
    """One line of the maximum-likelihood leaderboard: ``los_next`` is the likelihood that
    the bot is stronger than the next one down (None on the last line)."""

    rank: int
    bot: str
    rating: float
    low: float
    high: float
    los_next: float | None


def _rated(game: str) -> sa.ColumnElement[bool]:
    return sa.and_(result_t.c.game == game, match_t.c.rated.is_(True), result_t.c.rating_round.is_not(None))


def version(connection: Connection, game: str) -> Version:
    """Where the game's rated results stand: the (round, step, seq) of the last one rated
    (``arena.store.results``). It changes whenever a result is rated, so a fit kept with it
    is current while it has not changed."""
    row = connection.execute(
        sa.select(result_t.c.rating_round, result_t.c.rating_step, result_t.c.seq)
        .join(match_t, match_t.c.id == result_t.c.match_id)
        .where(_rated(game))
        .order_by(result_t.c.rating_round.desc(), result_t.c.rating_step.desc(), result_t.c.seq.desc())
        .limit(1)
    ).first()
    return None if row is None else (int(row.rating_round), int(row.rating_step), int(row.seq))


def rated_units(connection: Connection, game: str) -> dict[tuple[int, int], ml.Unit]:
    """The game's rated results, summed per unit: keyed (tournament, seed) for a duplicate
    group, (-1, match id) for a challenge."""
    seat_text = sa.cast(seat_t.c.bot_id, sa.String) + ":" + sa.cast(seat_t.c.rank, sa.String)
    per_match = (
        sa.select(match_t.c.id, match_t.c.tournament_id, match_t.c.seed,
                  sa.func.aggregate_strings(seat_text, ",").label("ranks"))
        .select_from(result_t.join(match_t, match_t.c.id == result_t.c.match_id)
                     .join(seat_t, seat_t.c.match_id == result_t.c.match_id))
        .where(_rated(game))
        .group_by(match_t.c.id, match_t.c.tournament_id, match_t.c.seed)
        .subquery()
    )
    tournament = sa.func.coalesce(per_match.c.tournament_id, -1).label("tournament")
    deal = sa.case((per_match.c.tournament_id.is_(None), per_match.c.id), else_=per_match.c.seed).label("deal")
    rows = connection.execute(
        sa.select(tournament, deal, per_match.c.ranks, sa.func.count().label("matches"))
        .group_by(tournament, deal, per_match.c.ranks)
    )
    parsed: dict[str, list[tuple[int, int]]] = {}
    found: dict[tuple[int, int], ml.Unit] = {}
    for row in rows:
        ranking = parsed.get(row.ranks)
        if ranking is None:
            ranking = parsed[row.ranks] = [_seat(s) for s in row.ranks.split(",")]
        found.setdefault((int(row.tournament), int(row.deal)), ml.Unit()).add(ranking, int(row.matches))
    return found


def _seat(text: str) -> tuple[int, int]:
    bot, rank = text.split(":")
    return int(bot), int(rank)


LISTED = 1000  # lines of a list the web fits and keeps


def leaderboard(connection: Connection, game: str, limit: int = LISTED, replicas: int = ml.REPLICAS) -> list[MLRow]:
    """The game's bots by maximum-likelihood rating, best first, with their 95 % interval and
    LOS over the next; fitted over every rated result (the ``limit`` only cuts the list)."""
    listed = ml.fit(rated_units(connection, game), replicas=replicas)[:limit]
    names = dict(connection.execute(
        sa.select(bot_t.c.id, bot_t.c.name).where(bot_t.c.id.in_([r.bot for r in listed]))).all())
    return [MLRow(place, names[r.bot], r.rating, r.low, r.high, r.los_next)
            for place, r in enumerate(listed, start=1)]


def kept(connection: Connection, game: str) -> tuple[Version, list[MLRow]] | None:
    """The game's last list kept in the store, with the ``version`` it was fitted on (None
    when none was kept, or when it was kept by a release whose lines read otherwise: it is
    fitted again)."""
    row = connection.execute(sa.select(fit_t.c.version, fit_t.c.rows).where(fit_t.c.game == game)).first()
    if row is None:
        return None
    stood: Version = None if row.version is None else (int(row.version[0]), int(row.version[1]), int(row.version[2]))
    try:
        return stood, [MLRow(**r) for r in row.rows]
    except TypeError:
        return None


def keep(connection: Connection, game: str, stood: Version, rows: list[MLRow]) -> None:
    """Keep ``rows``, fitted on the results as they stood at ``stood``, as the game's list (in
    one statement: two web processes keeping the same game at once leave the later list)."""
    insert = db.conflict_insert(connection, fit_t).values(
        game=game, version=None if stood is None else list(stood), rows=[asdict(r) for r in rows], fitted_at=utcnow())
    connection.execute(insert.on_conflict_do_update(
        index_elements=[fit_t.c.game], set_={name: insert.excluded[name] for name in ("version", "rows", "fitted_at")}))


def current(connection: Connection, game: str, limit: int = LISTED) -> list[MLRow]:
    """The game's list: the one kept, where the rated results have not moved since it was
    fitted and it holds the lines asked for; else fitted now."""
    stored = kept(connection, game)
    if stored is not None and stored[0] == version(connection, game) and (
            limit <= len(stored[1]) or len(stored[1]) < LISTED):
        return stored[1][:limit]
    return leaderboard(connection, game, limit)
