"""Reads and small writes the CLI and services need: bots, leaderboards, status, transcripts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import ratings
from arena.errors import NotFound
from arena.stats.groups import Group

from .disclosure import results_shown
from .models import Bot, Match, MatchSeat, Rating, Result, Tournament, Transcript, utcnow
from .statuses import MatchStatus

bot_t = Bot.__table__
match_t = Match.__table__
seat_t = MatchSeat.__table__
rating_t = Rating.__table__
result_t = Result.__table__
tournament_t = Tournament.__table__
transcript_t = Transcript.__table__


def ensure_house_bot(connection: Connection, name: str, strategy: str | None = None, think: float = 0.0) -> int:
    """The id of bot ``name``, creating it as a house bot playing ``strategy`` (default: the
    name up to its first ``-``, so ``heuristic-2`` plays the heuristic) when absent."""
    found = connection.execute(sa.select(bot_t.c.id).where(bot_t.c.name == name)).first()
    if found is not None:
        return found.id
    strategy = strategy or name.split("-", 1)[0]
    return connection.execute(
        bot_t.insert().values(name=name, kind="house", strategy=strategy, think=think,
                              created_at=utcnow()).returning(bot_t.c.id)
    ).scalar_one()


_BOTS_BY_ID = sa.select(bot_t).where(bot_t.c.id.in_(sa.bindparam("ids", expanding=True)))


def bots_by_id(connection: Connection, ids: list[int]) -> dict[int, Any]:
    rows = connection.execute(_BOTS_BY_ID, {"ids": sorted(set(ids))}).all()
    return {row.id: row for row in rows}


@dataclass(frozen=True)
class LeaderboardRow:
    """One line of a game's leaderboard."""

    rank: int
    bot: str
    elo: float
    low: float
    high: float
    matches: int
    win_rate: float
    mean_rank: float
    last_played: datetime | None
    provisional: bool = False  # its interval is still wide (``arena.ratings.provisional``): shown with "?"


def leaderboard(connection: Connection, game: str, limit: int = 50) -> list[LeaderboardRow]:
    """The bots of ``game`` by Elo, best first: read from the rating rows alone, so its cost
    does not grow with the number of recorded matches."""
    rows = connection.execute(
        sa.select(rating_t, bot_t.c.name)
        .join(bot_t, bot_t.c.id == rating_t.c.bot_id)
        .where(rating_t.c.game == game)
        .order_by(rating_t.c.elo.desc(), bot_t.c.name)
        .limit(limit)
    ).all()
    board = []
    for place, row in enumerate(rows, start=1):
        low, high = ratings.interval(row.elo, row.information)
        board.append(
            LeaderboardRow(place, row.name, row.elo, low, high, row.matches,
                           row.wins / row.matches if row.matches else 0.0,
                           row.rank_sum / row.matches if row.matches else 0.0, row.last_played,
                           ratings.provisional(row.information))
        )
    return board


@dataclass(frozen=True)
class Meetings:
    """How one bot fared against another in a game's rated matches, counted as Elo counts
    them: in every match they both played, the better final rank wins, the same rank draws."""

    wins: int
    draws: int
    losses: int


def head_to_head(connection: Connection, game: str, bots: list[str]) -> dict[tuple[str, str], Meetings]:
    """The meetings of every two of ``bots`` in ``game``, keyed (bot, opponent), both ways
    round, over the matches whose results may be shown (``arena.store.disclosure``); pairs
    that never met are absent. Read through the seats of these bots alone, so
    keep ``bots`` to a leaderboard's top few."""
    names = dict(connection.execute(sa.select(bot_t.c.id, bot_t.c.name).where(bot_t.c.name.in_(bots))).all())
    if len(names) < 2:
        return {}
    mine, theirs = seat_t.alias("mine"), seat_t.alias("theirs")
    rows = connection.execute(
        sa.select(
            mine.c.bot_id.label("bot"),
            theirs.c.bot_id.label("opponent"),
            sa.func.sum(sa.case((mine.c.rank < theirs.c.rank, 1), else_=0)).label("wins"),
            sa.func.sum(sa.case((mine.c.rank == theirs.c.rank, 1), else_=0)).label("draws"),
            sa.func.sum(sa.case((mine.c.rank > theirs.c.rank, 1), else_=0)).label("losses"),
        )
        .join(theirs, sa.and_(theirs.c.match_id == mine.c.match_id, theirs.c.bot_id != mine.c.bot_id))
        .join(match_t, match_t.c.id == mine.c.match_id)
        .where(mine.c.bot_id.in_(names), theirs.c.bot_id.in_(names), match_t.c.game == game,
               match_t.c.rated.is_(True), results_shown())
        .group_by(mine.c.bot_id, theirs.c.bot_id)
    ).all()
    return {(names[r.bot], names[r.opponent]): Meetings(int(r.wins), int(r.draws), int(r.losses)) for r in rows}


def duplicate_pairs(connection: Connection, game: str, upper: str, lower: str) -> list[Group]:
    """The duplicate pairs ``upper`` and ``lower`` played head to head in ``game``'s rated
    matches, scored for ``upper`` (``arena.stats.groups``): one deal of a tournament played
    twice, the seats swapped, both finished and shown (``arena.store.disclosure``). A deal
    whose other seating is missing, unfinished or sealed is no pair and is left out.

    These are the groups of ``arena test`` at two players, read from whatever tournaments
    the two met in (a round robin's two-player tables are such pairs)."""
    names = dict(connection.execute(sa.select(bot_t.c.name, bot_t.c.id).where(bot_t.c.name.in_([upper, lower]))).all())
    if len(names) < 2:
        return []
    mine, theirs, third = seat_t.alias("mine"), seat_t.alias("theirs"), seat_t.alias("third")
    # Matches of these two alone: a third seat would change what the pair compares. Asked per
    # match through the seat table's key, so the cost follows the two bots' matches only.
    two_alone = ~sa.exists().where(third.c.match_id == match_t.c.id, third.c.seat > 1)
    rows = connection.execute(
        sa.select(match_t.c.tournament_id, match_t.c.seed, mine.c.seat, mine.c.rank, theirs.c.rank.label("other"))
        .join(mine, mine.c.match_id == match_t.c.id)
        .join(theirs, theirs.c.match_id == match_t.c.id)
        .where(match_t.c.game == game, match_t.c.rated.is_(True), match_t.c.tournament_id.is_not(None),
               mine.c.bot_id == names[upper], theirs.c.bot_id == names[lower],
               two_alone, results_shown())
        .order_by(match_t.c.tournament_id, match_t.c.seed, mine.c.seat)
    ).all()
    deals: dict[tuple[int, int], dict[int, float]] = {}
    for row in rows:
        score = 1.0 if row.rank < row.other else 0.5 if row.rank == row.other else 0.0
        deals.setdefault((row.tournament_id, row.seed), {})[row.seat] = score
    return [Group((seats[0], seats[1]), (1 - seats[0], 1 - seats[1]), shared=True)
            for seats in deals.values() if set(seats) == {0, 1}]


def tournament_status(connection: Connection, tournament_id: int) -> dict[str, Any]:
    """The tournament row and, per game, matches done out of the total (with failures)."""
    tournament = connection.execute(sa.select(tournament_t).where(tournament_t.c.id == tournament_id)).first()
    if tournament is None:
        raise NotFound(f"no tournament {tournament_id}")
    counts = connection.execute(
        sa.select(match_t.c.game, match_t.c.status, sa.func.count())
        .where(match_t.c.tournament_id == tournament_id)
        .group_by(match_t.c.game, match_t.c.status)
    ).all()
    per_game: dict[str, dict[str, int]] = {}
    for game, status, count in counts:
        entry = per_game.setdefault(game, {MatchStatus.DONE: 0, "total": 0, MatchStatus.FAILED: 0, MatchStatus.CANCELLED: 0})
        entry["total"] += count
        if status in entry:
            entry[status] += count
    return {"id": tournament.id, "name": tournament.name, "status": tournament.status,
            "rated": tournament.rated, "games": dict(sorted(per_game.items()))}


def failed_match_counts(connection: Connection, tournament_ids: list[int]) -> dict[int, int]:
    """Failed matches per tournament, for the tournaments among ``tournament_ids`` that have
    any (read through the tournament, game, status index)."""
    if not tournament_ids:
        return {}
    rows = connection.execute(
        sa.select(match_t.c.tournament_id, sa.func.count())
        .where(match_t.c.tournament_id.in_(tournament_ids), match_t.c.status == MatchStatus.FAILED)
        .group_by(match_t.c.tournament_id)
    ).all()
    return {int(tid): int(count) for tid, count in rows}


def match_detail(connection: Connection, match_id: int) -> dict[str, Any]:
    """A match with its seats (bot names, scores, ranks) and transcript, if finished."""
    match = connection.execute(sa.select(match_t).where(match_t.c.id == match_id)).first()
    if match is None:
        raise NotFound(f"no match {match_id}")
    names = {row.id: row.name for row in bots_by_id(connection, list(match.seating)).values()}
    seats = connection.execute(
        sa.select(seat_t).where(seat_t.c.match_id == match_id).order_by(seat_t.c.seat)
    ).all()
    transcript = connection.execute(
        sa.select(transcript_t.c.data).where(transcript_t.c.match_id == match_id)
    ).scalar_one_or_none()
    result = connection.execute(sa.select(result_t).where(result_t.c.match_id == match_id)).first()
    return {
        "id": match.id,
        "tournament_id": match.tournament_id,
        "game": match.game,
        "options": match.options,
        "seed": match.seed,
        "status": match.status,
        "rated": match.rated,
        "seating": [names.get(b, str(b)) for b in match.seating],
        "seats": [dict(row._mapping) | {"bot": names.get(row.bot_id)} for row in seats],
        "finished_at": result.finished_at if result else None,
        "duration_ms": result.duration_ms if result else None,
        "transcript": transcript,
    }


def recent_matches(connection: Connection, tournament_id: int | None = None, bot: str | None = None,
                   limit: int = 50) -> list[dict[str, Any]]:
    """Matches newest first, optionally of one tournament or with one bot, with their seats'
    ranks (empty until finished); the same keys as ``match_detail`` but no transcript.

    Rows carry the match's ``seed``: callers that show them to anyone pass them through
    ``arena.store.disclosure.seal_listing`` first."""
    query = sa.select(match_t).order_by(match_t.c.id.desc())
    if tournament_id is not None:
        query = query.where(match_t.c.tournament_id == tournament_id)
    if bot is None:
        matches = connection.execute(query.limit(limit)).all()
    else:
        bot_id = connection.execute(sa.select(bot_t.c.id).where(bot_t.c.name == bot)).scalar_one_or_none()
        matches = [] if bot_id is None else _with_bot(connection, query, bot_id, limit)
    if not matches:
        return []
    ids = [m.id for m in matches]
    names = {row.id: row.name for row in bots_by_id(connection, sorted({b for m in matches for b in m.seating})).values()}
    seats: dict[int, list[Any]] = {}
    for row in connection.execute(sa.select(seat_t).where(seat_t.c.match_id.in_(ids)).order_by(seat_t.c.seat)):
        seats.setdefault(row.match_id, []).append(dict(row._mapping))
    finished = dict(connection.execute(sa.select(result_t.c.match_id, result_t.c.finished_at)
                                       .where(result_t.c.match_id.in_(ids))).all())
    return [{"id": m.id, "tournament_id": m.tournament_id, "game": m.game, "status": m.status, "seed": m.seed,
             "seating": [names.get(b, str(b)) for b in m.seating], "seats": seats.get(m.id, []),
             "finished_at": finished.get(m.id)} for m in matches]


BOT_SCAN = 20_000  # newest matches a listing filtered by bot looks through, at most


def _with_bot(connection: Connection, query: Any, bot_id: int, limit: int, page: int = 1000,
              scan: int = BOT_SCAN) -> list[Any]:
    """The newest ``limit`` rows of ``query`` that seat ``bot_id`` among its newest ``scan``
    rows (seating is a JSON list, which no index covers portably, so it is read a page at a
    time; the bound keeps an anonymous listing for a bot that rarely plays from reading the
    whole table)."""
    found: list[Any] = []
    offset = 0
    while len(found) < limit and offset < scan:
        rows = connection.execute(query.limit(page).offset(offset)).all()
        found += [m for m in rows if bot_id in m.seating]
        if len(rows) < page:
            break
        offset += page
    return found[:limit]
