"""Recording finished matches: result, seats, transcript and Elo in one transaction, once.

Exactly once, whatever the retries and duplicate deliveries: the ``result`` row is keyed by
the match id and inserted with insert-or-nothing; a second delivery inserts nothing and its
transaction is rolled back before it changes anything.

No deadlocks and a replayable order: a writer locks the rating rows of the match's bots in
bot id order, and only then takes its ``seq`` (completion order). Two matches sharing a bot are therefore serialized, and ``seq``
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


def _insert(connection: Connection, table: sa.Table):
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(table)


def insert_or_nothing(connection: Connection, table: sa.Table, rows: list[dict[str, Any]] | dict[str, Any]):
    """``INSERT ... ON CONFLICT DO NOTHING`` in the connection's dialect."""
    return _insert(connection, table).values(rows).on_conflict_do_nothing()


# The recording path runs once per match: its statements are built once, with bound
# parameters, so each execution is a cache hit instead of a fresh construction.
_statements: dict[tuple[str, str, int], Any] = {}


def _statement(connection: Connection, name: str, size: int = 0):
    key = (connection.dialect.name, name, size)
    found = _statements.get(key)
    if found is None:
        found = _statements[key] = _BUILDERS[name](connection, size)
    return found


def _build_upsert_ratings(connection: Connection, size: int):
    rows = [
        {"bot_id": sa.bindparam(f"bot{i}"), "game": sa.bindparam("game"), "elo": ratings.INITIAL,
         "information": 0.0, "matches": 0, "wins": 0.0, "rank_sum": 0}
        for i in range(size)
    ]
    upsert = _insert(connection, rating_t).values(rows)
    # The no-op update locks an existing row and returns its newest values.
    upsert = upsert.on_conflict_do_update(index_elements=["bot_id", "game"], set_={"elo": rating_t.c.elo})
    return upsert.returning(*rating_t.c)


def _build_insert_result(connection: Connection, _size: int):
    return (
        _insert(connection, result_t)
        .values(match_id=sa.bindparam("match_id"), game=sa.bindparam("game"), finished_at=sa.bindparam("finished_at"),
                duration_ms=sa.bindparam("duration_ms"), decisions=sa.bindparam("decisions"),
                capped=sa.bindparam("capped"))
        .on_conflict_do_nothing()
        .returning(result_t.c.seq)
    )


_BUILDERS = {"upsert_ratings": _build_upsert_ratings, "insert_result": _build_insert_result}

_SELECT_MATCH = sa.select(match_t).where(match_t.c.id == sa.bindparam("match_id"))
_MATCH_DONE = match_t.update().where(match_t.c.id == sa.bindparam("match_id")).values(status="done")
_UPDATE_RATING = (
    rating_t.update()
    .where(rating_t.c.bot_id == sa.bindparam("b_bot"), rating_t.c.game == sa.bindparam("b_game"))
    .values(elo=sa.bindparam("b_elo"), information=sa.bindparam("b_information"),
            matches=sa.bindparam("b_matches"), wins=sa.bindparam("b_wins"),
            rank_sum=sa.bindparam("b_rank_sum"), last_played=sa.bindparam("b_when"))
)
_FINISH = (
    tournament_t.update()
    .where(
        tournament_t.c.id == sa.bindparam("tid"),
        tournament_t.c.status == "running",
        ~sa.select(match_t.c.id)
        .where(match_t.c.tournament_id == sa.bindparam("tid"), match_t.c.status.in_(PENDING))
        .exists(),
    )
    .values(status="done", finished_at=sa.bindparam("when"))
)
_INSERT_SEATS = seat_t.insert()
_INSERT_TRANSCRIPT = transcript_t.insert()
_INSERT_HISTORY = history_t.insert()


def lock_ratings(connection: Connection, game: str, bot_ids: list[int]) -> dict[int, Any]:
    """Create missing rating rows and lock them, in bot id order, in one statement."""
    bots = sorted(set(bot_ids))
    params = {f"bot{i}": bot for i, bot in enumerate(bots)} | {"game": game}
    rows = connection.execute(_statement(connection, "upsert_ratings", len(bots)), params).all()
    return {row.bot_id: row for row in rows}


def record_result(connection: Connection, match_id: int, result: MatchResult, k: float = ratings.DEFAULT_K) -> bool:
    """Record a finished match inside the caller's transaction.

    Returns False, changing nothing, when the match was already recorded (the caller
    should roll back or simply commit the empty transaction)."""
    match = connection.execute(_SELECT_MATCH, {"match_id": match_id}).one()
    if match.status == "done":
        return False  # the common duplicate; the unique result row is the real guard
    seating: list[int] = list(match.seating)
    locked = lock_ratings(connection, match.game, seating) if match.rated else {}
    now = utcnow()
    inserted = connection.execute(
        _statement(connection, "insert_result"),
        {"match_id": match_id, "game": match.game, "finished_at": now, "duration_ms": result.duration * 1000.0,
         "decisions": len(result.decisions), "capped": result.capped},
    ).first()
    if inserted is None:
        return False
    seq = inserted.seq
    connection.execute(
        _INSERT_SEATS,
        [
            {"match_id": match_id, "seat": seat, "bot_id": bot, "score": result.scores[seat],
             "rank": result.ranks[seat], "strikes": result.strikes[seat], "forfeited": result.forfeited[seat]}
            for seat, bot in enumerate(seating)
        ],
    )
    connection.execute(_INSERT_TRANSCRIPT, {"match_id": match_id, "data": result.transcript()})
    if match.rated:
        apply_ratings(connection, match.game, match_id, seq, seating, result.ranks, locked, k, now)
    connection.execute(_MATCH_DONE, {"match_id": match_id})
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
    updates, history = [], []
    for seat, bot in enumerate(seating):
        if bot in seating[:seat]:
            continue  # a bot in two seats: both seats' changes go to its one row
        seats = [s for s, b in enumerate(seating) if b == bot]
        row = locked[bot]
        after = row.elo + sum(deltas[s] for s in seats)
        updates.append({
            "b_bot": bot, "b_game": game, "b_elo": after,
            "b_information": row.information + sum(info[s] for s in seats),
            "b_matches": row.matches + 1, "b_wins": row.wins + ratings.win_credit(ranks[seat], ranks),
            "b_rank_sum": row.rank_sum + ranks[seat], "b_when": when,
        })
        history.append({"seq": seq, "match_id": match_id, "bot_id": bot, "game": game,
                        "before": row.elo, "after": after})
    connection.execute(_UPDATE_RATING, updates)
    connection.execute(_INSERT_HISTORY, history)


def finish_if_complete(connection: Connection, tournament_id: int) -> bool:
    """Mark the tournament done if none of its matches is pending; True if this call did.

    Run it in a transaction *after* the one that recorded a match: whichever recording
    commits last then sees every other one, so no lock on the tournament is needed and
    recordings of one tournament never wait for each other."""
    return connection.execute(_FINISH, {"tid": tournament_id, "when": utcnow()}).rowcount > 0


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
