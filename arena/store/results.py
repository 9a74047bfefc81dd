"""Recording finished matches: result, seats, transcript and Elo in one transaction, once.

Exactly once, whatever the retries and duplicate deliveries: the ``result`` row is keyed by
the match id and inserted with insert-or-nothing; a second delivery inserts nothing and its
transaction is rolled back before it changes anything.

No deadlocks and a replayable order: a writer locks the rating rows of its matches' bots in
(bot id, game) order, and only then takes its ``seq`` values (completion order). Matches
sharing a bot are therefore serialized, and ``seq`` follows that order. On SQLite the whole
transaction holds the database write lock (``BEGIN IMMEDIATE``).

A rated duplicate group is rated when it is over, not match by match: while a rotation of
the same deal is still scheduled or running, a finished rotation's result is recorded but its
Elo waits (its results are sealed, and the leaderboard must not tell them either). The
recording that ends the group rates every waiting rotation with its own, in ``seq`` order; a
group whose last rotations end without a result (failed, cancelled) is rated by
``settle_groups`` (after each batch, through ``finish_if_complete``, and when a tournament is
cancelled). Each result keeps when its Elo was applied (``rating_round``, ``rating_step``),
and replaying results in that order, then by ``seq``, gives exactly the stored ratings.
"""

from __future__ import annotations

import logging
from collections.abc import Set
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import ratings
from arena.referee import MatchResult

from . import db
from .models import Match, MatchSeat, Rating, RatingHistory, Result, Tournament, Transcript, utcnow
from .statuses import MatchStatus, TournamentStatus

log = logging.getLogger(__name__)

match_t = Match.__table__
result_t = Result.__table__
seat_t = MatchSeat.__table__
transcript_t = Transcript.__table__
rating_t = Rating.__table__
history_t = RatingHistory.__table__
tournament_t = Tournament.__table__


# The recording path runs for every match: its statements are built once, with bound
# parameters, so each execution is a cache hit instead of a fresh construction.
_statements: dict[tuple[str, str, int], Any] = {}


def _statement(connection: Connection, name: str, size: int = 0):
    key = (connection.dialect.name, name, size)
    found = _statements.get(key)
    if found is None:
        found = _statements[key] = _BUILDERS[name](connection, size)
    return found


def _build_upsert_ratings(_connection: Connection, size: int):
    # As text: SQLAlchemy never caches a multi-row INSERT, so built from its constructs this
    # statement was compiled again at every recording. Both dialects spell it alike. The
    # no-op update locks an existing row and returns its newest values; ``columns`` types them.
    rows = ", ".join(f"(:bot{i}, :game{i}, :initial, 0, 0, 0, 0)" for i in range(size))
    returned = ", ".join(column.name for column in rating_t.c)
    return sa.text(
        f"INSERT INTO {rating_t.name} (bot_id, game, elo, information, matches, wins, rank_sum) VALUES {rows} "
        f"ON CONFLICT (bot_id, game) DO UPDATE SET elo = {rating_t.name}.elo RETURNING {returned}"
    ).columns(*rating_t.c)


def _build_insert_results(connection: Connection, _size: int):
    return db.conflict_insert(connection, result_t).on_conflict_do_nothing().returning(result_t.c.match_id, result_t.c.seq)


_BUILDERS = {"upsert_ratings": _build_upsert_ratings, "insert_results": _build_insert_results}

_SELECT_MATCHES = sa.select(match_t).where(match_t.c.id.in_(sa.bindparam("ids", expanding=True)))
_MATCH_DONE = match_t.update().where(match_t.c.id == sa.bindparam("b_match")).values(status=MatchStatus.DONE)
_RATED_AT = (
    result_t.update()
    .where(result_t.c.match_id == sa.bindparam("b_match"))
    .values(rating_round=sa.bindparam("b_round"), rating_step=sa.bindparam("b_step"))
)
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
        tournament_t.c.status == TournamentStatus.RUNNING,
        ~sa.select(match_t.c.id)
        .where(match_t.c.tournament_id == sa.bindparam("tid"), match_t.c.status.in_(MatchStatus.PENDING))
        .exists(),
    )
    .values(status=TournamentStatus.DONE, finished_at=sa.bindparam("when"))
)
_GROUPS_IN_PLAY = (
    sa.select(match_t.c.tournament_id, match_t.c.game, match_t.c.seed).distinct()
    .where(match_t.c.tournament_id.in_(sa.bindparam("tournaments", expanding=True)),
           match_t.c.game.in_(sa.bindparam("games", expanding=True)),
           match_t.c.status.in_(MatchStatus.PENDING), match_t.c.seed.in_(sa.bindparam("seeds", expanding=True)))
)
_WAITING = (
    sa.select(result_t.c.seq, result_t.c.finished_at, match_t.c.id, match_t.c.tournament_id, match_t.c.game,
              match_t.c.seed, match_t.c.seating)
    .join(match_t, match_t.c.id == result_t.c.match_id)
    .where(result_t.c.rating_round.is_(None), match_t.c.tournament_id.in_(sa.bindparam("tournaments", expanding=True)))
)
_RANKS = sa.select(seat_t.c.match_id, seat_t.c.seat, seat_t.c.rank).where(
    seat_t.c.match_id.in_(sa.bindparam("matches", expanding=True)))
_INSERT_SEATS = seat_t.insert()
_INSERT_TRANSCRIPT = transcript_t.insert()
_INSERT_HISTORY = history_t.insert()


def lock_ratings(connection: Connection, keys: list[tuple[int, str]]) -> dict[tuple[int, str], dict[str, Any]]:
    """Create missing rating rows and lock them, in (bot id, game) order, in one statement;
    returns their current values by (bot id, game)."""
    keys = sorted(set(keys))
    params: dict[str, Any] = {"initial": ratings.INITIAL}
    for i, (bot, game) in enumerate(keys):
        params[f"bot{i}"] = bot
        params[f"game{i}"] = game
    rows = connection.execute(_statement(connection, "upsert_ratings", len(keys)), params).all()
    return {(row.bot_id, row.game): dict(row._mapping) for row in rows}


def record_result(connection: Connection, match_id: int, result: MatchResult, k: float = ratings.DEFAULT_K) -> bool:
    """Record one finished match inside the caller's transaction; False (nothing changed)
    when it was already recorded."""
    return bool(record_results(connection, [(match_id, result)], k))


def record_results(
    connection: Connection, finished: list[tuple[int, MatchResult]], k: float = ratings.DEFAULT_K
) -> list[int]:
    """Record finished matches inside the caller's transaction; returns the ids recorded
    now (matches already recorded are skipped, each on its own).

    Several matches in one transaction share its round trips and its commit; each match
    is still all-or-nothing and exactly-once through its unique result row."""
    if not finished:
        return []
    ids = sorted({match_id for match_id, _ in finished})
    matches = {row.id: row for row in connection.execute(_SELECT_MATCHES, {"ids": ids})}
    results = {match_id: result for match_id, result in finished}
    todo = [m for m in ids if matches[m].status != MatchStatus.DONE]
    if not todo:
        return []  # the common duplicate; the unique result rows are the real guard
    rated = [matches[m] for m in todo if matches[m].rated]
    keys = [(bot, m.game) for m in rated for bot in m.seating] + _waiting_keys(connection, rated)
    locked = lock_ratings(connection, keys) if keys else {}
    now = utcnow()
    # Inserted in match id order (two writers never wait for each other's rows crosswise);
    # ``seq`` is drawn only now, after the rating locks.
    inserted = connection.execute(
        _statement(connection, "insert_results"),
        [
            {"match_id": m, "game": matches[m].game, "finished_at": now,
             "duration_ms": results[m].duration * 1000.0, "decisions": len(results[m].decisions),
             "capped": results[m].capped, "rating_round": None if matches[m].rated else 0, "rating_step": 0}
            for m in todo
        ],
    ).all()
    order = sorted((row.seq, row.match_id) for row in inserted)
    if not order:
        return []
    seats, transcripts, done = [], [], []
    finished_now: list[Finished] = []
    for seq, match_id in order:
        match, result = matches[match_id], results[match_id]
        seating = list(match.seating)
        seats += [
            {"match_id": match_id, "seat": seat, "bot_id": bot, "score": result.scores[seat],
             "rank": result.ranks[seat], "strikes": result.strikes[seat], "forfeited": result.forfeited[seat]}
            for seat, bot in enumerate(seating)
        ]
        transcripts.append({"match_id": match_id, "data": result.transcript()})
        done.append({"b_match": match_id})
        if match.rated:
            finished_now.append(Finished(seq, match_id, match.tournament_id, match.game, int(match.seed),
                                         seating, list(result.ranks), now))
    connection.execute(_INSERT_SEATS, seats)
    connection.execute(_INSERT_TRANSCRIPT, transcripts)
    connection.execute(_MATCH_DONE, done)  # before the groups are looked at: these are over
    if finished_now:
        rate_groups(connection, locked, finished_now, (order[-1][0], 0), k)
    return [match_id for _, match_id in order]


@dataclass(frozen=True)
class Finished:
    """A recorded rated match, as rating needs it."""

    seq: int
    match_id: int
    tournament_id: int | None
    game: str
    seed: int
    seating: list[int]
    ranks: list[int]
    finished_at: datetime

    @property
    def group(self) -> tuple[Any, ...]:
        """Its duplicate group: the tournament's matches of one game and deal (a challenge is
        its own group)."""
        if self.tournament_id is None:
            return ("match", self.match_id)
        return (self.tournament_id, self.game, self.seed)


def _waiting_keys(connection: Connection, rated: list[Any]) -> list[tuple[int, str]]:
    """The (bot, game) keys of the recorded rotations that wait for the duplicate groups of
    ``rated`` (match rows): should a group end now, they are rated with it. Their locks are
    taken with the others in one sorted statement, because a second lock taken later, out of
    that order, can close a cycle with another recording (PostgreSQL then rolls one back)."""
    groups = {(m.tournament_id, m.game, int(m.seed)) for m in rated if m.tournament_id is not None}
    waiting = _waiting(connection, sorted({g[0] for g in groups}))
    return [(bot, w.game) for w in waiting if w.group in groups for bot in w.seating]


def _groups_in_play(connection: Connection, candidates: list[Finished]) -> set[tuple[Any, ...]]:
    """The duplicate groups of ``candidates`` with a match still scheduled or running (read
    through the (tournament, game, status) index)."""
    tournaments = sorted({c.tournament_id for c in candidates if c.tournament_id is not None})
    if not tournaments:
        return set()
    rows = connection.execute(_GROUPS_IN_PLAY, {"tournaments": tournaments, "games": sorted({c.game for c in candidates}),
                                                "seeds": sorted({c.seed for c in candidates})}).all()
    return {(r.tournament_id, r.game, int(r.seed)) for r in rows}


def _waiting(connection: Connection, tournament_ids: list[int], exclude: Set[int] = frozenset()) -> list[Finished]:
    """The recorded rated matches of these tournaments whose Elo waits for their group
    (found through the ``rating_round`` index: only waiting results have none)."""
    if not tournament_ids:
        return []
    rows = connection.execute(_WAITING, {"tournaments": tournament_ids}).all()
    rows = [r for r in rows if r.id not in exclude]
    if not rows:
        return []
    ranks: dict[int, dict[int, int]] = {}
    for seat in connection.execute(_RANKS, {"matches": [r.id for r in rows]}):
        ranks.setdefault(seat.match_id, {})[seat.seat] = seat.rank
    return [Finished(r.seq, r.id, r.tournament_id, r.game, int(r.seed), list(r.seating),
                     [ranks[r.id][s] for s in range(len(r.seating))], r.finished_at) for r in rows]


def rate_groups(connection: Connection, locked: dict[tuple[int, str], dict[str, Any]], candidates: list[Finished],
                rated_at: tuple[int, int], k: float) -> list[int]:
    """Apply the Elo of every candidate whose duplicate group is over, with the rotations of
    those groups that waited for it, in ``seq`` order, under the locks of ``locked`` (taken
    by the caller, more are taken here if a waiting rotation needs them); candidates of groups
    still being played wait. ``rated_at`` is the (round, step) recorded for ratings replay.
    Returns the ids rated."""
    in_play = _groups_in_play(connection, candidates)
    ready = [c for c in candidates if c.group not in in_play]
    groups = {c.group for c in ready}
    ids = {c.match_id for c in candidates}
    ready += [w for w in _waiting(connection, sorted({c.tournament_id for c in ready if c.tournament_id is not None}),
                                  ids) if w.group in groups]
    if not ready:
        return []
    missing = {(bot, c.game) for c in ready for bot in c.seating} - set(locked)
    if missing:
        # A rotation recorded since the caller took its locks: this lock comes out of order
        # (PostgreSQL may roll the transaction back to break a cycle; it is then retried).
        log.info("rating locks taken late for %s", sorted(missing))
        locked |= lock_ratings(connection, list(missing))
    history: list[dict[str, Any]] = []
    touched: set[tuple[int, str]] = set()
    ready.sort(key=lambda c: c.seq)
    for c in ready:
        history += rate_match(locked, c.game, c.match_id, c.seq, c.seating, c.ranks, k, c.finished_at)
        touched.update((bot, c.game) for bot in c.seating)
    connection.execute(
        _UPDATE_RATING,
        [
            {"b_bot": bot, "b_game": game, "b_elo": row["elo"], "b_information": row["information"],
             "b_matches": row["matches"], "b_wins": row["wins"], "b_rank_sum": row["rank_sum"],
             "b_when": row["last_played"]}
            for (bot, game), row in sorted(locked.items())
            if (bot, game) in touched
        ],
    )
    connection.execute(_INSERT_HISTORY, history)
    connection.execute(_RATED_AT, [{"b_match": c.match_id, "b_round": rated_at[0], "b_step": rated_at[1]}
                                   for c in ready])
    return [c.match_id for c in ready]


def settle_groups(connection: Connection, tournament_id: int, k: float | None = None) -> list[int]:
    """Rate the tournament's waiting rotations whose group is over without a recording to
    rate them (its last rotations failed or were cancelled). Returns the ids rated."""
    waiting = _waiting(connection, [tournament_id])
    in_play = _groups_in_play(connection, waiting)
    ready = [w for w in waiting if w.group not in in_play]
    if not ready:  # the common case: nothing waits, or its group is still being played
        return []
    if k is None:
        from arena.settings import load

        k = load().elo_k
    locked = lock_ratings(connection, [(bot, w.game) for w in ready for bot in w.seating])
    # Read again under the locks: a recording or another settle may have rated them meanwhile.
    # A group that began waiting since is left to the next settle: its locks would be taken
    # now out of order, and two settles (or a settle and a recording) could wait on each other.
    waiting = [w for w in _waiting(connection, [tournament_id])
               if all((bot, w.game) in locked for bot in w.seating)]
    if not waiting:
        return []
    last = connection.execute(sa.select(sa.func.max(result_t.c.seq))).scalar_one()
    step = connection.execute(sa.select(sa.func.max(result_t.c.rating_step))
                              .where(result_t.c.rating_round == last)).scalar_one() or 0
    return rate_groups(connection, locked, waiting, (int(last), step + 1), k)


def rate_match(
    standings: dict[tuple[int, str], dict[str, Any]],
    game: str,
    match_id: int,
    seq: int,
    seating: list[int],
    ranks: list[int],
    k: float,
    when: datetime,
) -> list[dict[str, Any]]:
    """Apply one match's Elo to ``standings`` (rows by (bot, game), changed in place) and
    return its history rows. ``recompute`` replays results through the same arithmetic."""
    before = [standings[(bot, game)]["elo"] for bot in seating]
    deltas, info = ratings.match_update(before, ranks, k, seating)
    history = []
    for seat, bot in enumerate(seating):
        if bot in seating[:seat]:
            continue  # a bot in two seats: both seats' changes go to its one row
        seats = [s for s, b in enumerate(seating) if b == bot]
        row = standings[(bot, game)]
        after = row["elo"] + sum(deltas[s] for s in seats)
        history.append({"seq": seq, "match_id": match_id, "bot_id": bot, "game": game,
                        "before": row["elo"], "after": after})
        row["elo"] = after
        row["information"] += sum(info[s] for s in seats)
        row["matches"] += 1
        row["wins"] += ratings.win_credit(ranks[seat], ranks)
        row["rank_sum"] += ranks[seat]
        row["last_played"] = when
    return history


def finish_if_complete(connection: Connection, tournament_id: int) -> bool:
    """Mark the tournament done if none of its matches is pending; True if this call did.

    Run it in a transaction *after* the one that recorded a match: whichever recording
    commits last then sees every other one, so no lock on the tournament is needed and
    recordings of one tournament never wait for each other. Duplicate groups that ended
    without a recording to rate them are rated first (``settle_groups``)."""
    settle_groups(connection, tournament_id)
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
    """Every rating rebuilt from the recorded results of rated matches, in the order their Elo
    was applied (``rating_round``, ``rating_step``, then ``seq``)."""
    query = (
        sa.select(result_t.c.seq, result_t.c.match_id, result_t.c.game, result_t.c.finished_at,
                  seat_t.c.seat, seat_t.c.bot_id, seat_t.c.rank)
        .join(match_t, match_t.c.id == result_t.c.match_id)
        .join(seat_t, seat_t.c.match_id == result_t.c.match_id)
        .where(match_t.c.rated.is_(True), result_t.c.rating_round.is_not(None))
        .order_by(result_t.c.rating_round, result_t.c.rating_step, result_t.c.seq, seat_t.c.seat)
    )
    rows: dict[tuple[int, str], dict[str, Any]] = {}
    # A rotation waiting for its group has locked (so made) its bots' rating rows already.
    for bot, game in connection.execute(
        sa.select(seat_t.c.bot_id, result_t.c.game).distinct()
        .join(result_t, result_t.c.match_id == seat_t.c.match_id).where(result_t.c.rating_round.is_(None))
    ):
        rows.setdefault((bot, game), {"elo": ratings.INITIAL, "information": 0.0, "matches": 0,
                                      "wins": 0.0, "rank_sum": 0, "last_played": None})
    history: dict[tuple[int, str], list[tuple[int, int, float, float]]] = {}
    current: list[Any] = []

    def flush() -> None:
        if not current:
            return
        first = current[0]
        seating = [row.bot_id for row in current]
        for bot in seating:
            rows.setdefault((bot, first.game), {"elo": ratings.INITIAL, "information": 0.0, "matches": 0,
                                                "wins": 0.0, "rank_sum": 0, "last_played": None})
        changes = rate_match(rows, first.game, first.match_id, first.seq, seating,
                             [row.rank for row in current], k, first.finished_at)
        for change in changes:
            history.setdefault((change["bot_id"], first.game), []).append(
                (change["seq"], change["match_id"], change["before"], change["after"]))
        current.clear()

    for row in connection.execute(query.execution_options(yield_per=5000)):
        if current and row.seq != current[0].seq:
            flush()
        current.append(row)
    flush()
    return {
        key: Standing(row["elo"], row["information"], row["matches"], row["wins"], row["rank_sum"],
                      row["last_played"], history.get(key, []))
        for key, row in rows.items()
    }


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
