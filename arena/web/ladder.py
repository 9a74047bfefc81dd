"""What the web face shows of the ladder: who is online in each game, the boards with their
matches in play, the latest groups played out; and, on a bot's page, whether it is connected,
queued or playing, and its versions side by side.

The web face is a process of its own, without the gateways' presence: it reads what the
ladder's leader wrote on its last pass (``ladder_entry``), which is fresh while the ladder
runs (``FRESH_PASSES`` of its passes)."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import games, ratings
from arena.store import disclosure, versions
from arena.store.models import Bot, LadderEntry, Match, MatchSeat, Rating, Tournament, utcnow
from arena.store.statuses import MatchStatus

from .queries import opponents

bot_t, entry_t, match_t = Bot.__table__, LadderEntry.__table__, Match.__table__
seat_t, rating_t, tournament_t = MatchSeat.__table__, Rating.__table__, Tournament.__table__

FRESH_PASSES = 5  # a ladder entry older than this many passes is stale: its leader stopped
RECENT_GROUPS = 12  # groups listed under "played out lately"
NAMES_SHOWN = 100  # bots named per game on the ladder page (the count says how many more)


def _fresh(connection: Connection, pass_seconds: float) -> list[Any]:
    cutoff = utcnow() - timedelta(seconds=FRESH_PASSES * pass_seconds)
    return list(connection.execute(
        sa.select(entry_t, bot_t.c.name).join(bot_t, bot_t.c.id == entry_t.c.bot_id)
        .where(entry_t.c.seen_at >= cutoff).order_by(bot_t.c.name)).all())


def _running(connection: Connection, bot_ids: list[int]) -> set[int]:
    """Those of ``bot_ids`` seated in a match being played now."""
    wanted = set(bot_ids)
    rows = connection.execute(sa.select(match_t.c.seating).where(match_t.c.status == MatchStatus.RUNNING))
    return {bot for (seating,) in rows for bot in seating if bot in wanted}


def ladder_page(connection: Connection, pass_seconds: float) -> dict[str, Any]:
    """The ladder page: bots online per game, the boards, the latest groups played out."""
    entries = _fresh(connection, pass_seconds)
    playing = _running(connection, [e.bot_id for e in entries])
    online: dict[str, list[dict[str, Any]]] = {name: [] for name in games.names()}
    for entry in entries:
        for name in entry.games or games.names():
            if name in online:
                online[name].append({"bot": entry.name, "playing": entry.bot_id in playing,
                                     "in_play": entry.in_play, "max_matches": entry.max_matches})
    counts = connection.execute(
        sa.select(tournament_t.c.id, tournament_t.c.board, match_t.c.status, sa.func.count())
        .join(match_t, match_t.c.tournament_id == tournament_t.c.id)
        .where(tournament_t.c.kind == "ladder").group_by(tournament_t.c.id, tournament_t.c.board, match_t.c.status)
    ).all()
    boards: dict[str, dict[str, Any]] = {}
    for tournament_id, board, status, count in counts:
        row = boards.setdefault(board, {"board": board, "tournament_id": tournament_id, "in_play": 0, "played": 0})
        if status in MatchStatus.PENDING:
            row["in_play"] += count
        elif status == MatchStatus.DONE:
            row["played"] += count
    return {"online": {name: bots[:NAMES_SHOWN] for name, bots in online.items() if bots},
            "online_counts": {name: len(bots) for name, bots in online.items() if bots}, "connected": len(entries),
            "boards": sorted(boards.values(), key=lambda b: b["board"]), "groups": recent_groups(connection),
            "updated": max((e.seen_at for e in entries), default=None)}


def recent_groups(connection: Connection, limit: int = RECENT_GROUPS) -> list[dict[str, Any]]:
    """The latest ladder groups whose deal is played out: game, and each bot's points (a
    win counts 1, a draw ½ against each other seat, over the group's rotations)."""
    rows = connection.execute(
        sa.select(match_t.c.id, match_t.c.tournament_id, match_t.c.game, match_t.c.seed)
        .join(tournament_t, tournament_t.c.id == match_t.c.tournament_id)
        .where(tournament_t.c.kind == "ladder", match_t.c.status == MatchStatus.DONE, disclosure.results_shown())
        .order_by(match_t.c.id.desc()).limit(limit * 16)).all()
    groups: dict[tuple[int, int], dict[str, Any]] = {}
    for row in rows:
        key = (row.tournament_id, row.seed)
        if key not in groups and len(groups) >= limit:
            continue
        groups.setdefault(key, {"game": row.game, "matches": []})["matches"].append(row.id)
    ids = [m for group in groups.values() for m in group["matches"]]
    seats = connection.execute(
        sa.select(seat_t.c.match_id, seat_t.c.bot_id, seat_t.c.rank, bot_t.c.name)
        .join(bot_t, bot_t.c.id == seat_t.c.bot_id).where(seat_t.c.match_id.in_(ids))).all()
    by_match: dict[int, list[Any]] = defaultdict(list)
    for seat in seats:
        by_match[seat.match_id].append(seat)
    out = []
    for group in groups.values():
        points: dict[str, float] = defaultdict(float)
        for match_id in group["matches"]:
            for me in by_match[match_id]:
                for other in by_match[match_id]:
                    if other is not me:
                        points[me.name] += 1.0 if me.rank < other.rank else 0.5 if me.rank == other.rank else 0.0
        out.append({"game": group["game"], "matches": sorted(group["matches"]),
                    "points": sorted(points.items(), key=lambda p: (-p[1], p[0]))})
    return out


def bot_ladder(connection: Connection, bot_id: int, pass_seconds: float) -> dict[str, Any]:
    """Where the bot stands on the ladder now (``state``: connected, queued, playing, away
    or retired) and its versions side by side."""
    bot = connection.execute(sa.select(bot_t).where(bot_t.c.id == bot_id)).one()
    lineage = versions.lineage(connection, bot_id) if bot.kind == "external" else []
    entry = next((e for e in _fresh(connection, pass_seconds) if e.bot_id == bot_id), None)
    if bot.retired_at is not None:
        state = "retired"
    elif entry is None:
        state = "away"
    elif bot_id in _running(connection, [bot_id]):
        state = "playing"
    else:
        state = "queued" if entry.in_play else "connected"
    return {"state": state, "entry": entry._asdict() if entry is not None else None,
            "versions": version_table(connection, lineage) if len(lineage) > 1 else []}


def version_table(connection: Connection, lineage: list[versions.Version]) -> list[dict[str, Any]]:
    """Each version with its ratings by game and, for the opponents at least two versions met
    in a game, its score against each."""
    ids = [v.bot_id for v in lineage]
    rated: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
    for r in connection.execute(sa.select(rating_t).where(rating_t.c.bot_id.in_(ids))):
        rated[r.bot_id][r.game] = {"elo": r.elo, "matches": r.matches, "provisional": ratings.provisional(r.information)}
    met = {v.bot_id: {(o["game"], o["opponent"]): o for o in opponents(connection, v.bot_id)} for v in lineage}
    shared = [key for key in {k for m in met.values() for k in m}
              if sum(key in m for m in met.values()) >= 2]
    return [{"name": v.name, "version": v.version, "retired_at": v.retired_at, "created_at": v.created_at,
             "ratings": rated.get(v.bot_id, {}),
             "against": {f"{game} · {opponent}": met[v.bot_id].get((game, opponent)) for game, opponent in sorted(shared)}}
            for v in lineage]
