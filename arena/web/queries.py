"""Reads the web face needs beyond ``arena.store.queries``: bot pages, tournament standings,
home and status figures. What of a match may be shown (its seed, transcript and results) is
asked of ``arena.store.disclosure``, the arena's one disclosure rule, on every read here.

Every function takes a read connection (``arena.store.db.read``) and returns plain data
(dicts, lists, dataclasses) that the pages render and the API serves as JSON.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import games, ratings
from arena.errors import NotFound
from arena.referee.transcript import FORCED, FORFEITED, OK
from arena.store import disclosure
from arena.store.models import RatingHistory
from arena.store.queries import (
    bot_t,
    bots_by_id,
    leaderboard,
    match_t,
    rating_t,
    result_t,
    seat_t,
    tournament_t,
    transcript_t,
)
from arena.store.statuses import MatchStatus, TournamentStatus

history_t = RatingHistory.__table__


# ----- leaderboards ----------------------------------------------------------------------------

SORT_KEYS = ("rank", "bot", "elo", "interval", "matches", "win_rate", "mean_rank", "last_played")
NATURAL_DESC = ("elo", "matches", "win_rate", "last_played")  # columns read best-first from the top


def sorted_leaderboard(connection: Connection, game: str, sort: str = "rank", descending: bool | None = None,
                       limit: int = 1000) -> list[dict[str, Any]]:
    """The game's leaderboard (``arena.store.queries.leaderboard``) with each bot's kind,
    sorted by ``sort`` (one of ``SORT_KEYS``); rank stays the Elo rank."""
    if sort not in SORT_KEYS:
        raise ValueError(f"cannot sort by {sort!r}; one of {', '.join(SORT_KEYS)}")
    rows = [asdict(r) for r in leaderboard(connection, game, limit)]
    kinds = dict(connection.execute(
        sa.select(bot_t.c.name, bot_t.c.kind).where(bot_t.c.name.in_([r["bot"] for r in rows]))).all())
    for row in rows:
        row["house"] = kinds.get(row["bot"]) == "house"
        row["interval"] = row["high"] - row["low"]
    if descending is None:
        descending = sort in NATURAL_DESC
    if sort != "rank":
        def key(row: dict[str, Any]) -> Any:
            value = row[sort]
            return (value is not None, value if value is not None else 0)
        rows.sort(key=key, reverse=descending)
    elif descending:
        rows.reverse()
    return rows


# ----- matches -----------------------------------------------------------------------------------

def match_summaries(connection: Connection, ids: list[int]) -> list[dict[str, Any]]:
    """Public summaries of matches, in the order of ``ids``: game, status, the bots in
    their seats with rank, score, strikes and forfeits, decisions and duration, once the
    match may show its results (``sealed`` False, see ``arena.store.disclosure``). Never a seed."""
    if not ids:
        return []
    matches = {m.id: m for m in connection.execute(sa.select(
        match_t.c.id, match_t.c.tournament_id, match_t.c.game, match_t.c.seed, match_t.c.status, match_t.c.seating,
        match_t.c.rated, match_t.c.started_at).where(match_t.c.id.in_(ids)))}
    hidden = disclosure.sealed_ids(connection, matches.values())
    shown = [i for i in ids if i not in hidden]
    names = {b.id: b.name for b in bots_by_id(connection, [b for m in matches.values() for b in m.seating]).values()}
    seats: dict[int, dict[int, Any]] = defaultdict(dict)
    for row in connection.execute(sa.select(seat_t).where(seat_t.c.match_id.in_(shown))):
        seats[row.match_id][row.seat] = row
    results = {r.match_id: r for r in connection.execute(
        sa.select(result_t.c.match_id, result_t.c.finished_at, result_t.c.decisions, result_t.c.duration_ms,
                  result_t.c.capped).where(result_t.c.match_id.in_(shown)))}
    out = []
    for match_id in ids:
        m = matches.get(match_id)
        if m is None:
            continue
        result = results.get(match_id)
        out.append({
            "id": m.id, "tournament_id": m.tournament_id, "game": m.game, "status": m.status,
            "rated": m.rated, "started_at": m.started_at, "sealed": match_id in hidden,
            "finished_at": result.finished_at if result else None,
            "decisions": result.decisions if result else None,
            "duration_ms": result.duration_ms if result else None,
            "capped": result.capped if result else None,
            "seats": [_seat(seat, bot_id, names, seats[match_id].get(seat)) for seat, bot_id in enumerate(m.seating)],
        })
    return out


def _seat(seat: int, bot_id: int, names: dict[int, str], row: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"seat": seat, "bot": names.get(bot_id, str(bot_id))}
    if row is not None:
        entry |= {"rank": row.rank, "score": row.score, "strikes": row.strikes, "forfeited": row.forfeited}
    return entry


def match_page(connection: Connection, match_id: int) -> dict[str, Any]:
    """A match for its page: the public summary, its options and clock, and, only once it is
    no longer sealed (``arena.store.disclosure``), its seed and whether a transcript exists."""
    match = connection.execute(sa.select(match_t).where(match_t.c.id == match_id)).first()
    if match is None:
        raise NotFound(f"no match {match_id}")
    detail = match_summaries(connection, [match_id])[0]
    detail["options"] = match.options
    detail["replay"] = not detail["sealed"]
    if detail["replay"]:
        detail["seed"] = match.seed
        detail["has_transcript"] = connection.execute(
            sa.select(transcript_t.c.match_id).where(transcript_t.c.match_id == match_id)).first() is not None
    elif match.status == MatchStatus.DONE:
        detail["withheld"] = "its deal is still being played in another match"
    return detail


def transcript_if_allowed(connection: Connection, match_id: int) -> dict[str, Any]:
    """The transcript of a finished match whose deal is no longer in play; ``NotFound``
    for anything else (an unfinished match has no transcript to serve)."""
    match = connection.execute(
        sa.select(match_t.c.id, match_t.c.game, match_t.c.seed, match_t.c.status).where(match_t.c.id == match_id)
    ).first()
    if match is None or disclosure.sealed(connection, match):
        raise NotFound(f"no replay for match {match_id}")
    data = connection.execute(
        sa.select(transcript_t.c.data).where(transcript_t.c.match_id == match_id)).scalar_one_or_none()
    if data is None:
        raise NotFound(f"no transcript for match {match_id}")
    return data


def _with_status(connection: Connection, status: str) -> list[Any]:
    """Conditions that together select the matches of ``status``, each an exact prefix of
    the (tournament, game, status) index, so no status lookup scans the whole table.
    Unfinished matches live only in tournaments that are not done (a tournament is marked
    done once nothing of it is pending) and in challenges (no tournament)."""
    scope = sa.select(tournament_t.c.id)
    if status in MatchStatus.PENDING:
        scope = scope.where(tournament_t.c.status != TournamentStatus.DONE)
    tournaments = list(connection.execute(scope).scalars())
    names = games.names()
    where = [sa.and_(match_t.c.tournament_id.is_(None), match_t.c.game.in_(names), match_t.c.status == status)]
    if tournaments:  # an empty IN would make SQLite scan the table
        where.append(sa.and_(match_t.c.tournament_id.in_(tournaments), match_t.c.game.in_(names),
                             match_t.c.status == status))
    return where


def match_ids(connection: Connection, status: str | None = None, limit: int = 50,
              before: int | None = None) -> list[int]:
    """Ids of the newest matches (older than ``before``: the next page), optionally of one
    status."""
    older = [match_t.c.id < before] if before is not None else []
    if status is None:
        return list(connection.execute(
            sa.select(match_t.c.id).where(*older).order_by(match_t.c.id.desc()).limit(limit)).scalars())
    # Sorted here: with ORDER BY id and a LIMIT, SQLite may walk the whole table by id
    # hoping to meet the rare status early, instead of seeking the index.
    found = [i for where in _with_status(connection, status)
             for i in connection.execute(sa.select(match_t.c.id).where(where, *older)).scalars()]
    return sorted(found, reverse=True)[:limit]


def count_with_status(connection: Connection, status: str) -> int:
    """How many matches have ``status``."""
    return sum(connection.execute(sa.select(sa.func.count()).select_from(match_t).where(where)).scalar_one()
               for where in _with_status(connection, status))


def live_matches(connection: Connection, limit: int = 20) -> list[dict[str, Any]]:
    """Matches being played now, newest first."""
    return match_summaries(connection, match_ids(connection, MatchStatus.RUNNING, limit))


# ----- tournaments ---------------------------------------------------------------------------------

def tournaments(connection: Connection, status: str | None = None, limit: int = 20,
                exclude: str | None = None, before: int | None = None) -> list[dict[str, Any]]:
    """Tournaments newest first (of one status, or all but ``exclude``; older than ``before``,
    the next page) with done/total per tournament. The tournament seed is left out: it derives
    every deal."""
    query = sa.select(tournament_t).order_by(tournament_t.c.id.desc()).limit(limit)
    if before is not None:
        query = query.where(tournament_t.c.id < before)
    if status is not None:
        query = query.where(tournament_t.c.status == status)
    if exclude is not None:
        query = query.where(tournament_t.c.status != exclude)
    rows = connection.execute(query).all()
    counts: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    if rows:
        for tid, st, n in connection.execute(
            sa.select(match_t.c.tournament_id, match_t.c.status, sa.func.count())
            .where(match_t.c.tournament_id.in_([r.id for r in rows]))
            .group_by(match_t.c.tournament_id, match_t.c.status)
        ):
            counts[tid][st] += n
    return [{"id": r.id, "name": r.name, "status": r.status, "rated": r.rated,
             "games": list(r.spec.get("games", [])), "bots": list(r.spec.get("bots", [])),
             "created_at": r.created_at, "finished_at": r.finished_at,
             "done": sum(counts[r.id][s] for s in MatchStatus.OVER),
             "total": sum(counts[r.id].values())} for r in rows]


def tournament_page(connection: Connection, tournament_id: int, groups_per_game: int = 40,
                    page: int = 1) -> dict[str, Any]:
    """A tournament with, per game, its progress, standings, crosstable and the ``page``-th
    ``groups_per_game`` duplicate deal groups (the matches that replay one deal, side by
    side). Standings and crosstables are summed by the database, so a tournament of many
    thousand matches costs a few aggregate reads."""
    row = connection.execute(sa.select(tournament_t).where(tournament_t.c.id == tournament_id)).first()
    if row is None:
        raise NotFound(f"no tournament {tournament_id}")
    in_tournament = match_t.c.tournament_id == tournament_id
    sections: dict[str, dict[str, Any]] = {}
    for game, status, count in connection.execute(
        sa.select(match_t.c.game, match_t.c.status, sa.func.count()).where(in_tournament)
        .group_by(match_t.c.game, match_t.c.status)
    ):
        section = sections.setdefault(game, {"progress": dict.fromkeys(
            (MatchStatus.DONE, MatchStatus.RUNNING, MatchStatus.SCHEDULED, MatchStatus.FAILED, MatchStatus.CANCELLED,
             "total"), 0)})
        section["progress"][status] = section["progress"].get(status, 0) + count
        section["progress"]["total"] += count
    # Standings and crosstables add up only results that may be shown: a duplicate group's
    # finished rotations count once no match plays its deal any more.
    shown_results = sa.and_(in_tournament, disclosure.results_shown())
    cross = _crosstable(connection, shown_results)
    standings = _standings(connection, shown_results, cross)
    bot_ids = {b for per_game in standings.values() for b in per_game}
    skip = (page - 1) * groups_per_game
    groups = {game: _deal_groups(connection, in_tournament, game, groups_per_game, skip) for game in sections}
    bot_ids |= {b for per_game in groups.values() for group in per_game for m in group for b in m.seating}
    names = {b.id: b.name for b in bots_by_id(connection, list(bot_ids)).values()}
    seat_rows: dict[int, dict[int, Any]] = defaultdict(dict)
    listed = [m for per_game in groups.values() for group in per_game for m in group]
    hidden = disclosure.sealed_ids(connection, listed)
    shown = [m.id for m in listed if m.id not in hidden]
    for s in connection.execute(sa.select(seat_t).where(seat_t.c.match_id.in_(shown))):
        seat_rows[s.match_id][s.seat] = s
    for game, section in sections.items():
        table = sorted(({"bot": names.get(b, str(b))} | e for b, e in standings.get(game, {}).items()),
                       key=lambda e: (-e["pair_score"], e["mean_rank"], e["bot"]))
        for place, entry in enumerate(table, start=1):
            entry["place"] = place
        order = [e["bot"] for e in table]
        results: dict[str, dict[str, list[int]]] = {a: {} for a in order}
        for (a, b), wdl in cross.get(game, {}).items():
            results.setdefault(names.get(a, str(a)), {})[names.get(b, str(b))] = wdl
        section["standings"] = table
        section["crosstable"] = {"bots": order, "results": results}
        section["deals"] = connection.execute(
            sa.select(sa.func.count(sa.distinct(match_t.c.seed))).where(in_tournament, match_t.c.game == game)
        ).scalar_one()
        section["deal_groups"] = [
            {"deal": number, "matches": [
                {"id": m.id, "status": m.status,
                 "seats": [_seat(seat, b, names, seat_rows[m.id].get(seat)) for seat, b in enumerate(m.seating)]}
                for m in group]}
            for number, group in enumerate(groups[game], start=skip + 1)]
        section["more_deals"] = section["deals"] > skip + len(groups[game])
    return {"id": row.id, "name": row.name, "status": row.status, "rated": row.rated,
            "created_at": row.created_at, "finished_at": row.finished_at,
            "move_time": row.move_time, "time_bank": row.time_bank, "spec": dict(row.spec),
            "done": sum(s["progress"][over] for s in sections.values() for over in MatchStatus.OVER),
            "total": sum(s["progress"]["total"] for s in sections.values()),
            "games": dict(sorted(sections.items())), "page": page,
            "pages": max(1, -(-max((s["deals"] for s in sections.values()), default=0) // groups_per_game))}


def _standings(connection: Connection, in_tournament: Any,
               crosstable: dict[str, dict[tuple[int, int], list[int]]]) -> dict[str, dict[int, dict[str, Any]]]:
    """Per game and bot: matches played, wins (rank 1), mean rank, strikes and forfeits, and
    the share of pairwise games won (a draw counts half)."""
    out: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for game, bot, played, wins, rank_sum, strikes, forfeits in connection.execute(
        sa.select(match_t.c.game, seat_t.c.bot_id, sa.func.count(), sa.func.sum(sa.case((seat_t.c.rank == 1, 1), else_=0)),
                  sa.func.sum(seat_t.c.rank), sa.func.sum(seat_t.c.strikes),
                  sa.func.sum(sa.case((seat_t.c.forfeited, 1), else_=0)))
        .join(match_t, match_t.c.id == seat_t.c.match_id).where(in_tournament)
        .group_by(match_t.c.game, seat_t.c.bot_id)
    ):
        out[game][bot] = {"played": played, "wins": int(wins), "mean_rank": _ratio(rank_sum, played),
                          "strikes": int(strikes), "forfeits": int(forfeits), "pair_score": 0.0}
    for game, cross in crosstable.items():
        totals: dict[int, list[float]] = defaultdict(lambda: [0.0, 0])
        for (a, _b), (w, d, lo) in cross.items():
            totals[a][0] += w + d / 2
            totals[a][1] += w + d + lo
        for bot, (points, pairs) in totals.items():
            if bot in out[game]:
                out[game][bot]["pair_score"] = _ratio(points, pairs)
    return out


def _crosstable(connection: Connection, in_tournament: Any) -> dict[str, dict[tuple[int, int], list[int]]]:
    """Per game and ordered pair of bots: wins, draws and losses of the first against the
    second, counted pair by pair within each finished match."""
    me, them = seat_t.alias("me"), seat_t.alias("them")
    out: dict[str, dict[tuple[int, int], list[int]]] = defaultdict(dict)
    for game, a, b, w, d, lo in connection.execute(
        sa.select(match_t.c.game, me.c.bot_id, them.c.bot_id,
                  sa.func.sum(sa.case((me.c.rank < them.c.rank, 1), else_=0)),
                  sa.func.sum(sa.case((me.c.rank == them.c.rank, 1), else_=0)),
                  sa.func.sum(sa.case((me.c.rank > them.c.rank, 1), else_=0)))
        .select_from(match_t.join(me, me.c.match_id == match_t.c.id)
                     .join(them, sa.and_(them.c.match_id == match_t.c.id, them.c.seat != me.c.seat)))
        .where(in_tournament).group_by(match_t.c.game, me.c.bot_id, them.c.bot_id)
    ):
        out[game][(a, b)] = [int(w), int(d), int(lo)]
    return out


def _deal_groups(connection: Connection, in_tournament: Any, game: str, limit: int, skip: int = 0) -> list[list[Any]]:
    """``limit`` deals of a game in schedule order after the first ``skip``, each the matches
    that play it."""
    seeds = list(connection.execute(
        sa.select(match_t.c.seed).where(in_tournament, match_t.c.game == game)
        .group_by(match_t.c.seed).order_by(sa.func.min(match_t.c.id)).offset(skip).limit(limit)).scalars())
    groups: dict[int, list[Any]] = {seed: [] for seed in seeds}
    for m in connection.execute(
        sa.select(match_t.c.id, match_t.c.game, match_t.c.seed, match_t.c.seating, match_t.c.status)
        .where(in_tournament, match_t.c.game == game, match_t.c.seed.in_(seeds)).order_by(match_t.c.id)
    ):
        groups[m.seed].append(m)
    return list(groups.values())


def _ratio(a: float, b: float) -> float:
    return a / b if b else 0.0


# ----- bots --------------------------------------------------------------------------------------

def bot_page(connection: Connection, name: str, recent: int = 20, faults: int = 30,
             before: int | None = None) -> dict[str, Any]:
    """A bot: its ratings (with its rank in each game), results against each opponent,
    recent (older than ``before``: the next page) and live matches, and the matches where it
    took strikes or forfeited."""
    bot = connection.execute(sa.select(bot_t).where(bot_t.c.name == name)).first()
    if bot is None:
        raise NotFound(f"no bot {name!r}")
    ratings_out = []
    for r in connection.execute(sa.select(rating_t).where(rating_t.c.bot_id == bot.id).order_by(rating_t.c.game)):
        low, high = ratings.interval(r.elo, r.information)
        above = connection.execute(sa.select(sa.func.count()).select_from(rating_t).where(
            rating_t.c.game == r.game, rating_t.c.elo > r.elo)).scalar_one()
        ratings_out.append({"game": r.game, "rank": above + 1, "elo": r.elo, "low": low, "high": high,
                            "matches": r.matches, "win_rate": _ratio(r.wins, r.matches),
                            "mean_rank": _ratio(r.rank_sum, r.matches), "last_played": r.last_played,
                            "provisional": ratings.provisional(r.information)})
    older = [seat_t.c.match_id < before] if before is not None else []
    recent_ids = list(connection.execute(
        sa.select(seat_t.c.match_id).where(seat_t.c.bot_id == bot.id, *older)
        .order_by(seat_t.c.match_id.desc()).limit(recent + 1)
    ).scalars())
    more = len(recent_ids) > recent
    recent_ids = recent_ids[:recent]
    live = [m for m in live_matches(connection, 200) if any(s["bot"] == name for s in m["seats"])]
    fault_rows = connection.execute(
        sa.select(seat_t.c.match_id, seat_t.c.seat, seat_t.c.strikes, seat_t.c.forfeited, match_t.c.id,
                  match_t.c.game, match_t.c.seed, match_t.c.status)
        .join(match_t, match_t.c.id == seat_t.c.match_id)
        .where(seat_t.c.bot_id == bot.id, sa.or_(seat_t.c.strikes > 0, seat_t.c.forfeited))
        .order_by(seat_t.c.match_id.desc()).limit(faults)
    ).all()
    # Strikes and forfeits are results too: sealed with the match.
    hidden = disclosure.sealed_ids(connection, fault_rows)
    fault_rows = [f for f in fault_rows if f.match_id not in hidden]
    return {"id": bot.id, "name": bot.name, "kind": bot.kind, "strategy": bot.strategy,
            "created_at": bot.created_at, "ratings": ratings_out,
            "opponents": opponents(connection, bot.id), "live": live,
            "recent": match_summaries(connection, recent_ids), "before": before,
            "older": recent_ids[-1] if more else None,
            "faults": [_fault(connection, f) for f in fault_rows]}


def _fault(connection: Connection, row: Any) -> dict[str, Any]:
    """A match where the bot took strikes: the codes of its faulty decisions, from the
    transcript when it may be shown."""
    entry: dict[str, Any] = {"match_id": row.match_id, "seat": row.seat, "strikes": row.strikes,
                             "forfeited": row.forfeited, "codes": None, "first_turn": None}
    try:
        transcript = transcript_if_allowed(connection, row.match_id)
    except NotFound:
        return entry
    codes: dict[str, int] = defaultdict(int)
    for index, (_turn, seat, _action, _ms, code) in enumerate(transcript["decisions"]):
        if seat == row.seat and code not in (OK, FORCED, FORFEITED):  # struck decisions only
            codes[code] += 1
            if entry["first_turn"] is None:
                entry["first_turn"] = index + 1
    entry["codes"] = dict(codes)
    entry["game"] = transcript["game"]
    return entry


def opponents(connection: Connection, bot_id: int) -> list[dict[str, Any]]:
    """Per game, opponent and rated or not: matches met, and wins, draws and losses by final
    rank, over the matches whose results may be shown (``arena.store.disclosure``). Rated
    results (tournaments) and unrated ones (challenges, practice) are counted apart: only the
    first move a rating."""
    me, them = seat_t.alias("me"), seat_t.alias("them")
    rows = connection.execute(
        sa.select(result_t.c.game, them.c.bot_id, match_t.c.rated, sa.func.count(),
                  sa.func.sum(sa.case((me.c.rank < them.c.rank, 1), else_=0)),
                  sa.func.sum(sa.case((me.c.rank == them.c.rank, 1), else_=0)),
                  sa.func.sum(sa.case((me.c.rank > them.c.rank, 1), else_=0)))
        .select_from(me.join(them, sa.and_(them.c.match_id == me.c.match_id, them.c.seat != me.c.seat))
                     .join(result_t, result_t.c.match_id == me.c.match_id)
                     .join(match_t, match_t.c.id == me.c.match_id))
        .where(me.c.bot_id == bot_id, disclosure.results_shown())
        .group_by(result_t.c.game, them.c.bot_id, match_t.c.rated)
    ).all()
    names = {b.id: b.name for b in bots_by_id(connection, [r[1] for r in rows]).values()}
    out = [{"game": game, "opponent": names.get(other, str(other)), "rated": bool(rated), "met": met, "wins": w,
            "draws": d, "losses": lo, "score": _ratio(w + d / 2, met)} for game, other, rated, met, w, d, lo in rows]
    return sorted(out, key=lambda r: (not r["rated"], r["game"], -r["met"], r["opponent"]))


def rating_history(connection: Connection, bot_id: int, points: int = 300) -> dict[str, list[dict[str, Any]]]:
    """Per game, the bot's Elo after each rated match in completion order, thinned to at
    most ``points`` points (the first and the newest always kept).

    Reached through the bot's seats and the (match, bot) key of the history, both indexed,
    so the cost follows the bot's own matches, not the size of the store."""
    rows = connection.execute(
        sa.select(history_t.c.game, history_t.c.seq, history_t.c.match_id, history_t.c.before, history_t.c.after)
        .select_from(seat_t.join(history_t, sa.and_(history_t.c.match_id == seat_t.c.match_id,
                                                    history_t.c.bot_id == seat_t.c.bot_id)))
        # In the order the ratings moved (a duplicate group is rated once it is over, so a
        # rotation's Elo may move after a later-recorded match's).
        .where(seat_t.c.bot_id == bot_id).order_by(history_t.c.id)
    ).all()
    per_game: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        per_game[row.game].append(row)
    out: dict[str, list[dict[str, Any]]] = {}
    for game, game_rows in sorted(per_game.items()):
        step = max(1, -(-len(game_rows) // points))
        kept = [(i, r) for i, r in enumerate(game_rows) if i % step == 0 or i == len(game_rows) - 1]
        out[game] = [{"n": 0, "seq": None, "match_id": None, "elo": game_rows[0].before}] + [
            {"n": i + 1, "seq": r.seq, "match_id": r.match_id, "elo": r.after} for i, r in kept]
    return out


# ----- home and status -----------------------------------------------------------------------------

def status_figures(connection: Connection, window: int = 2000) -> dict[str, Any]:
    """What the store tells about the pipeline: matches queued, in flight and failed, the
    processes that claimed the newest matches (workers, or ``arena serve`` when embedded),
    the last failures, and per game the newest ``window`` results' throughput and faults."""
    counts = {s: count_with_status(connection, s) for s in (MatchStatus.SCHEDULED, MatchStatus.RUNNING, MatchStatus.FAILED)}
    newest = connection.execute(
        sa.select(result_t.c.match_id, result_t.c.game, result_t.c.finished_at, result_t.c.duration_ms,
                  result_t.c.decisions, match_t.c.id, match_t.c.seed, match_t.c.status)
        .join(match_t, match_t.c.id == result_t.c.match_id).order_by(result_t.c.seq.desc()).limit(window)
    ).all()
    # A sealed match's duration, decisions and strikes are its results: left out until its deal is over.
    hidden = disclosure.sealed_ids(connection, newest)
    newest = [r for r in newest if r.match_id not in hidden]
    ids = [r.match_id for r in newest]
    claimers: dict[str, dict[str, Any]] = {}
    for claimed_by, status, started in connection.execute(
        sa.select(match_t.c.claimed_by, match_t.c.status, match_t.c.started_at)
        .where(match_t.c.id.in_(ids + match_ids(connection, MatchStatus.RUNNING, 10_000)))
    ):
        if not claimed_by:
            continue
        entry = claimers.setdefault(claimed_by, {"process": claimed_by, "running": 0, "recent": 0, "last_start": None})
        entry["running" if status == MatchStatus.RUNNING else "recent"] += 1
        if started is not None and (entry["last_start"] is None or started > entry["last_start"]):
            entry["last_start"] = started
    per_game: dict[str, dict[str, Any]] = {}
    for r in newest:
        g = per_game.setdefault(r.game, {"game": r.game, "matches": 0, "duration_ms": 0.0, "decisions": 0,
                                      "first": r.finished_at, "last": r.finished_at})
        g["matches"] += 1
        g["duration_ms"] += r.duration_ms
        g["decisions"] += r.decisions
        g["first"] = min(g["first"], r.finished_at)
        g["last"] = max(g["last"], r.finished_at)
    faults: dict[str, int | None] = dict(connection.execute(
        sa.select(result_t.c.game, sa.func.sum(seat_t.c.strikes))
        .join(seat_t, seat_t.c.match_id == result_t.c.match_id)
        .where(result_t.c.match_id.in_(ids)).group_by(result_t.c.game)).all()) if ids else {}
    forfeits: dict[str, int] = dict(connection.execute(
        sa.select(result_t.c.game, sa.func.count())
        .join(seat_t, seat_t.c.match_id == result_t.c.match_id)
        .where(result_t.c.match_id.in_(ids), seat_t.c.forfeited).group_by(result_t.c.game)).all()) if ids else {}
    for g in per_game.values():
        span = (g["last"] - g["first"]).total_seconds()
        g["per_minute"] = g["matches"] * 60 / span if span > 0 else None
        g["mean_ms"] = g["duration_ms"] / g["matches"]
        g["mean_decisions"] = g["decisions"] / g["matches"]
        g["strikes"] = int(faults.get(g["game"]) or 0)
        g["forfeits"] = int(forfeits.get(g["game"]) or 0)
    failed_ids = match_ids(connection, MatchStatus.FAILED, 10)
    return {"queued": counts[MatchStatus.SCHEDULED], "in_flight": counts[MatchStatus.RUNNING],
            "failed": counts[MatchStatus.FAILED],
            "processes": sorted(claimers.values(), key=lambda e: e["process"]),
            "window": len(newest), "games": sorted(per_game.values(), key=lambda g: g["game"]),
            "recent_failures": match_summaries(connection, failed_ids)}
