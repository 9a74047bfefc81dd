"""Recording finished matches: result, seats, transcript and Elo in one transaction, once.

Exactly once, whatever the retries and duplicate deliveries: the ``result`` row is keyed by
the match id and inserted with insert-or-nothing; a second delivery inserts nothing and its
transaction is rolled back before it changes anything.

No deadlocks and a replayable order: a writer locks, in this fixed order, the tournament
row, then the rating rows of the match's bots sorted by bot id, and only then takes its
``seq`` (completion order). Two matches sharing a bot are therefore serialized, and ``seq``
follows that order, so replaying results by ``seq`` gives exactly the stored ratings. On
SQLite the whole transaction holds the database write lock (``BEGIN IMMEDIATE``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import ratings
from arena.referee import MatchResult

from .models import Match, MatchSeat, Rating, RatingHistory, Result, Tournament, Transcript, utcnow

PENDING = ("scheduled", "running")

match_t = Match.__table__
result_t = Result.__table__
seat_t = MatchSeat.__table__
transcript_t = Transcript.__table__
rating_t = Rating.__table__
history_t = RatingHistory.__table__
tournament_t = Tournament.__table__


def insert_or_nothing(connection: Connection, table: sa.Table, rows: list[dict[str, Any]] | dict[str, Any]):
    """``INSERT ... ON CONFLICT DO NOTHING`` in the connection's dialect."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(table).values(rows).on_conflict_do_nothing()


def _for_update(connection: Connection, query):
    return query.with_for_update() if connection.dialect.name == "postgresql" else query


def lock_ratings(connection: Connection, game: str, bot_ids: list[int]) -> dict[int, Any]:
    """Create missing rating rows and lock them, sorted by bot id; returns them by bot."""
    bots = sorted(set(bot_ids))
    for bot in bots:  # one at a time, in order: inserts also take row locks
        connection.execute(
            insert_or_nothing(
                connection,
                rating_t,
                {"bot_id": bot, "game": game, "elo": ratings.INITIAL, "information": 0.0,
                 "matches": 0, "wins": 0.0, "rank_sum": 0},
            )
        )
    rows = connection.execute(
        _for_update(
            connection,
            sa.select(rating_t).where(rating_t.c.game == game, rating_t.c.bot_id.in_(bots)).order_by(rating_t.c.bot_id),
        )
    ).all()
    return {row.bot_id: row for row in rows}


def record_result(connection: Connection, match_id: int, result: MatchResult, k: float = ratings.DEFAULT_K) -> bool:
    """Record a finished match inside the caller's transaction.

    Returns False, changing nothing, when the match was already recorded (the caller
    should roll back or simply commit the empty transaction)."""
    match = connection.execute(sa.select(match_t).where(match_t.c.id == match_id)).one()
    if match.status == "done":
        return False  # the common duplicate; the unique result row is the real guard
    if match.tournament_id is not None:
        connection.execute(
            _for_update(connection, sa.select(tournament_t.c.id).where(tournament_t.c.id == match.tournament_id))
        ).one()
    seating: list[int] = list(match.seating)
    locked = lock_ratings(connection, match.game, seating) if match.rated else {}
    now = utcnow()
    inserted = connection.execute(
        insert_or_nothing(
            connection,
            result_t,
            {"match_id": match_id, "game": match.game, "finished_at": now,
             "duration_ms": result.duration * 1000.0, "decisions": len(result.decisions),
             "capped": result.capped},
        ).returning(result_t.c.seq)
    ).first()
    if inserted is None:
        return False
    seq = inserted.seq
    connection.execute(
        seat_t.insert(),
        [
            {"match_id": match_id, "seat": seat, "bot_id": bot, "score": result.scores[seat],
             "rank": result.ranks[seat], "strikes": result.strikes[seat], "forfeited": result.forfeited[seat]}
            for seat, bot in enumerate(seating)
        ],
    )
    connection.execute(transcript_t.insert().values(match_id=match_id, data=result.transcript()))
    if match.rated:
        apply_ratings(connection, match.game, match_id, seq, seating, result.ranks, locked, k, now)
    connection.execute(
        match_t.update().where(match_t.c.id == match_id).values(status="done")
    )
    if match.tournament_id is not None:
        _maybe_finish(connection, match.tournament_id, now)
    return True


def apply_ratings(
    connection: Connection,
    game: str,
    match_id: int,
    seq: int,
    seating: list[int],
    ranks: list[int],
    locked: dict[int, Any],
    k: float,
    when: datetime,
) -> None:
    """Update the locked rating rows for one match and append their history."""
    before = [locked[bot].elo for bot in seating]
    deltas, info = ratings.match_update(before, ranks, k, seating)
    seen: set[int] = set()
    for seat, bot in enumerate(seating):
        if bot in seen:
            continue
        seen.add(bot)
        seats = [s for s, b in enumerate(seating) if b == bot]
        row = locked[bot]
        after = row.elo + sum(deltas[s] for s in seats)
        connection.execute(
            rating_t.update()
            .where(rating_t.c.bot_id == bot, rating_t.c.game == game)
            .values(
                elo=after,
                information=row.information + sum(info[s] for s in seats),
                matches=row.matches + 1,
                wins=row.wins + ratings.win_credit(ranks[seat], ranks),
                rank_sum=row.rank_sum + ranks[seat],
                last_played=when,
            )
        )
        connection.execute(
            history_t.insert().values(seq=seq, match_id=match_id, bot_id=bot, game=game, before=row.elo, after=after)
        )



def _maybe_finish(connection: Connection, tournament_id: int, when: datetime) -> None:
    pending = connection.execute(
        sa.select(sa.func.count())
        .select_from(match_t)
        .where(match_t.c.tournament_id == tournament_id, match_t.c.status.in_(PENDING))
    ).scalar_one()
    if pending == 0:
        connection.execute(
            tournament_t.update()
            .where(tournament_t.c.id == tournament_id, tournament_t.c.status == "running")
            .values(status="done", finished_at=when)
        )


@dataclass
class Standing:
    """A bot's rating in one game as ratings replay builds it."""

    elo: float = ratings.INITIAL
    information: float = 0.0
    matches: int = 0
    wins: float = 0.0
    rank_sum: int = 0
    last_played: datetime | None = None
    history: list[tuple[int, int, float, float]] = field(default_factory=list)


def replay_ratings(connection: Connection, k: float = ratings.DEFAULT_K) -> dict[tuple[int, str], Standing]:
    """Every rating rebuilt from the recorded results of rated matches, in ``seq`` order."""
    query = (
        sa.select(result_t.c.seq, result_t.c.match_id, result_t.c.game, result_t.c.finished_at,
                  seat_t.c.seat, seat_t.c.bot_id, seat_t.c.rank)
        .join(match_t, match_t.c.id == result_t.c.match_id)
        .join(seat_t, seat_t.c.match_id == result_t.c.match_id)
        .where(match_t.c.rated.is_(True))
        .order_by(result_t.c.seq, seat_t.c.seat)
    )
    standings: dict[tuple[int, str], Standing] = {}
    current: list[Any] = []

    def flush() -> None:
        if not current:
            return
        game, seq, match_id, when = current[0].game, current[0].seq, current[0].match_id, current[0].finished_at
        seating = [row.bot_id for row in current]
        ranks = [row.rank for row in current]
        table = {bot: standings.setdefault((bot, game), Standing()) for bot in seating}
        deltas, info = ratings.match_update([table[b].elo for b in seating], ranks, k, seating)
        seen: set[int] = set()
        for seat, bot in enumerate(seating):
            if bot in seen:
                continue
            seen.add(bot)
            seats = [s for s, b in enumerate(seating) if b == bot]
            st = table[bot]
            after = st.elo + sum(deltas[s] for s in seats)
            st.history.append((seq, match_id, st.elo, after))
            st.elo = after
            st.information += sum(info[s] for s in seats)
            st.matches += 1
            st.wins += ratings.win_credit(ranks[seat], ranks)
            st.rank_sum += ranks[seat]
            st.last_played = when
        current.clear()

    for row in connection.execute(query.execution_options(yield_per=5000)):
        if current and row.seq != current[0].seq:
            flush()
        current.append(row)
    flush()
    return standings


def recompute(connection: Connection, k: float = ratings.DEFAULT_K) -> int:
    """Rebuild the ``rating`` and ``rating_history`` tables from results; returns the number
    of (bot, game) ratings written."""
    standings = replay_ratings(connection, k)
    connection.execute(history_t.delete())
    connection.execute(rating_t.delete())
    if standings:
        connection.execute(
            rating_t.insert(),
            [
                {"bot_id": bot, "game": game, "elo": st.elo, "information": st.information,
                 "matches": st.matches, "wins": st.wins, "rank_sum": st.rank_sum, "last_played": st.last_played}
                for (bot, game), st in standings.items()
            ],
        )
        history = [
            {"seq": seq, "match_id": match_id, "bot_id": bot, "game": game, "before": before, "after": after}
            for (bot, game), st in standings.items()
            for seq, match_id, before, after in st.history
        ]
        for start in range(0, len(history), 5000):
            connection.execute(history_t.insert(), history[start : start + 5000])
    return len(standings)
