"""What each page and API endpoint shows, read in one transaction of ``db.read``: the
pages render these dicts with templates, the API serves them as JSON. Synchronous on
purpose: FastAPI runs them in its thread pool, off the event loop."""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock
from typing import Any

from arena import games
from arena.games import house
from arena.store import db, queries

from . import live, replay
from . import queries as web_queries
from .queries import NotFound


def game_or_404(name: str) -> games.Game:
    try:
        return games.get(name)
    except KeyError:
        raise NotFound(f"no game {name!r}") from None


def game_list() -> list[dict[str, Any]]:
    """Every registered game: name, title, version, player counts, options, house bots."""
    return [games.get(n).describe() | {"house_bots": house.bot_names(n)} for n in games.names()]


def home(url: str | None) -> dict[str, Any]:
    with db.read(url) as c:
        return {
            "games": game_list(),
            "running": web_queries.tournaments(c, "running", 10),
            "recent": web_queries.tournaments(c, None, 10, exclude="running"),
            "live": web_queries.live_matches(c, 20),
            "top": {n: [_plain(r) for r in queries.leaderboard(c, n, 3)] for n in games.names()},
        }


def _plain(row: queries.LeaderboardRow) -> dict[str, Any]:
    return dict(row.__dict__)


def game(url: str | None, name: str) -> dict[str, Any]:
    found = game_or_404(name)
    with db.read(url) as c:
        top = [_plain(r) for r in queries.leaderboard(c, found.name, 10)]
    return found.describe() | {"house_bots": house.bot_names(found.name), "top": top}


def leaderboard(url: str | None, name: str, sort: str = "rank", order: str | None = None,
                limit: int = 1000) -> dict[str, Any]:
    found = game_or_404(name)
    if order not in (None, "asc", "desc"):
        raise ValueError("order must be asc or desc")
    order = order or ("desc" if sort in web_queries.NATURAL_DESC else "asc")
    with db.read(url) as c:
        rows = web_queries.sorted_leaderboard(c, found.name, sort, order == "desc", limit)
    return {"game": found.name, "title": found.title, "sort": sort, "order": order, "rows": rows}


def bot(url: str | None, name: str) -> dict[str, Any]:
    with db.read(url) as c:
        page = web_queries.bot_page(c, name)
        page["history"] = web_queries.rating_history(c, page["id"])
    return page


def tournaments(url: str | None, status: str | None, limit: int) -> list[dict[str, Any]]:
    with db.read(url) as c:
        return web_queries.tournaments(c, status, limit)


def tournament(url: str | None, tournament_id: int) -> dict[str, Any]:
    with db.read(url) as c:
        return web_queries.tournament_page(c, tournament_id)


def matches(url: str | None, status: str | None, limit: int) -> list[dict[str, Any]]:
    with db.read(url) as c:
        return web_queries.match_summaries(c, web_queries.match_ids(c, status, limit))


def match(url: str | None, match_id: int) -> dict[str, Any]:
    with db.read(url) as c:
        return web_queries.match_page(c, match_id)


# Finished matches never change: their replay data is cached, newest use last out.
_replays: OrderedDict[tuple[str | None, int, str | int], str] = OrderedDict()
_replays_lock = Lock()
REPLAY_CACHE = 16


def match_replay(url: str | None, match_id: int, view: str) -> str:
    """The viewer's data for ``view`` (``all`` or a seat) as JSON text; ``NotFound`` unless
    the match may be replayed (see ``arena.store.disclosure``)."""
    with db.read(url) as c:
        transcript = web_queries.transcript_if_allowed(c, match_id)
        seats = [s["bot"] for s in web_queries.match_summaries(c, [match_id])[0]["seats"]]
    chosen = replay.parse_view(view, transcript["num_players"])
    key = (url, match_id, chosen)
    with _replays_lock:
        if key in _replays:
            _replays.move_to_end(key)
            return _replays[key]
    text = replay.replay_json(transcript, chosen, seats)
    with _replays_lock:
        _replays[key] = text
        while len(_replays) > REPLAY_CACHE:
            _replays.popitem(last=False)
    return text


def status(url: str | None) -> dict[str, Any]:
    with db.read(url) as c:
        figures = web_queries.status_figures(c)
        redis = live.redis_figures()
        ids = [int(b) for b in redis.get("connected_bots", []) if b.isdigit()]
        if ids:
            names = {b.id: b.name for b in queries.bots_by_id(c, ids).values()}
            redis["connected_bots"] = [names.get(int(b), b) if b.isdigit() else b for b in redis["connected_bots"]]
    return figures | {"redis": redis}
