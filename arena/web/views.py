"""What each page and API endpoint shows, read in one transaction of ``db.read``: the
pages render these dicts with templates, the API serves them as JSON. Synchronous on
purpose: FastAPI runs them in its thread pool, off the event loop."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from dataclasses import asdict
from typing import Any

from arena import games
from arena.errors import NotFound
from arena.games import house
from arena.stats import ml
from arena.store import db, ml_board, queries
from arena.store.statuses import MatchStatus, TournamentStatus

from . import caches, ladder, live, replay
from . import queries as web_queries

log = logging.getLogger(__name__)


def game_or_404(name: str) -> games.Game:
    try:
        return games.get(name)
    except KeyError:
        raise NotFound(f"no game {name!r}") from None


def game_list() -> list[dict[str, Any]]:
    """Every registered game: name, title, version, player counts, options, house bots."""
    return [games.get(n).describe() | {"house_bots": house.bot_names(n)} for n in games.names()]


def home(url: str | None) -> dict[str, Any]:
    return caches.snapshots.through((url, "home"), lambda: _home(url))


def _home(url: str | None) -> dict[str, Any]:
    with db.read(url) as c:
        return {
            "games": game_list(),
            "running": web_queries.tournaments(c, TournamentStatus.RUNNING, 10),
            "recent": web_queries.tournaments(c, None, 10, exclude=TournamentStatus.RUNNING),
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
    fitted = ml_leaderboard(url, found.name)
    return {"game": found.name, "title": found.title, "sort": sort, "order": order, "rows": rows,
            "ml": {"anchor": ml.ANCHOR, "replicas": ml.REPLICAS,
                   "state": "fitting" if fitted is None else "fitted",
                   "rows": [asdict(r) for r in (fitted or [])[:limit]]}}


def ml_leaderboard(url: str | None, game: str) -> list[ml_board.MLRow] | None:
    """The game's maximum-likelihood list, kept in ``caches.fits``; None while the first fit
    of a game that has none kept in the store runs. Every fit runs on a thread of its own (one
    at a time, ``caches.fitting``) and no reader waits for one: a fit takes seconds at a
    million results. A process that starts serves the list the store kept (``ml_board.kept``)
    from its first read. The store is asked for its rated results' version at most every
    ``ML_CHECK_SECONDS``; when it moved, the list is fitted again (and kept) while readers
    keep getting the list they had."""
    key = (url, game)
    kept = caches.fits.get(key)
    if kept is not None and time.monotonic() - kept[1] < caches.ML_CHECK_SECONDS:
        return kept[2]
    if kept is None:
        with db.read(url) as c:
            stored = ml_board.kept(c, game)
        if stored is None:
            _start_fit(url, game, None)
            return None
        kept = (stored[0], 0.0, stored[1])  # its version is compared with the results' below
    caches.fits.put(key, (kept[0], time.monotonic(), kept[2]))  # no other reader checks meanwhile
    with db.read(url) as c:
        version = ml_board.version(c, game)
    if version != kept[0]:
        _start_fit(url, game, kept)
    return kept[2]


def _start_fit(url: str | None, game: str, kept: tuple[Any, float, list[ml_board.MLRow]] | None) -> None:
    if caches.start_refit((url, game)):  # never a second one queued behind it
        threading.Thread(target=_refit, args=(url, game, kept), name=f"ml fit {game}", daemon=True).start()


def _fit(url: str | None, game: str, kept: tuple[Any, float, list[ml_board.MLRow]] | None) -> list[ml_board.MLRow]:
    checked = time.monotonic()
    with db.read(url) as c:
        version = ml_board.version(c, game)
        if kept is not None and kept[0] == version:
            rows, fresh = kept[2], False
        else:
            rows, fresh = ml_board.leaderboard(c, game), True
    caches.fits.put((url, game), (version, checked, rows))
    if fresh:
        try:
            with db.transaction(url) as c:
                ml_board.keep(c, game, version, rows)
        except Exception:  # noqa: BLE001 - not kept: this process still serves it, the next fits again
            log.warning("the ML list of %s could not be kept in the store", game, exc_info=True)
    return rows


def _refit(url: str | None, game: str, kept: tuple[Any, float, list[ml_board.MLRow]] | None) -> None:
    try:
        with caches.fitting:
            _fit(url, game, kept)
    finally:
        caches.refit_done((url, game))


def bot(url: str | None, name: str, before: int | None = None, ladder_seconds: float = 2.0) -> dict[str, Any]:
    """A bot's page; its recent matches a page at a time (those older than ``before``); where
    it stands on the ladder and its versions."""
    with db.read(url) as c:
        page = web_queries.bot_page(c, name, before=before)
        page["history"] = web_queries.rating_history(c, page["id"])
        page["ladder"] = ladder.bot_ladder(c, page["id"], ladder_seconds)
    return page


def ladder_page(url: str | None, ladder_seconds: float) -> dict[str, Any]:
    with db.read(url) as c:
        return ladder.ladder_page(c, ladder_seconds)


def tournaments(url: str | None, status: str | None, limit: int, before: int | None = None) -> list[dict[str, Any]]:
    with db.read(url) as c:
        return web_queries.tournaments(c, status, limit, before=before)


def tournament(url: str | None, tournament_id: int, page: int = 1) -> dict[str, Any]:
    """A tournament's page with its ``page``-th page of deal groups. Its standings sum every
    match of the tournament (about a second for 100,000): every viewer shares one read per
    ``ARENA_LIVE_SNAPSHOT_SECONDS``, and a finished tournament's page is read once."""
    def read() -> dict[str, Any]:
        with db.read(url) as c:
            return web_queries.tournament_page(c, tournament_id, page=page)

    return caches.page((url, "tournament", tournament_id, page), read, finished_tournament)


def finished_tournament(page: dict[str, Any]) -> bool:
    """Whether a tournament's page can no longer change: it is done and every match with it."""
    return page["status"] == TournamentStatus.DONE and page["done"] == page["total"]


def matches(url: str | None, status: str | None, limit: int, before: int | None = None) -> list[dict[str, Any]]:
    with db.read(url) as c:
        return web_queries.match_summaries(c, web_queries.match_ids(c, status, limit, before=before))


def live_matches(url: str | None, limit: int = 20) -> list[dict[str, Any]]:
    """The matches being played now, as every viewer of the home page refreshes them."""
    return caches.snapshots.through((url, "live", limit), lambda: matches(url, MatchStatus.RUNNING, limit))


def match(url: str | None, match_id: int) -> dict[str, Any]:
    """A match's page. Unfinished ones (refreshed live) are shared snapshots; a finished one
    is read each time, as its seed may be shown only while the disclosure rule allows."""
    key = (url, "match", match_id)
    found = caches.snapshots.get(key)
    if found is not None:
        return found
    with db.read(url) as c:
        page = web_queries.match_page(c, match_id)
    if page["status"] in MatchStatus.PENDING:
        caches.snapshots.put(key, page)
    return page


def match_replay(url: str | None, match_id: int, view: str) -> tuple[str, str | None]:
    """``(etag, JSON text)`` of the viewer's data for ``view`` (``all`` or a seat), computed
    once per match and view while the cache keeps it. ``NotFound`` unless the match may be
    replayed (``arena.store.disclosure``, through ``queries.transcript_if_allowed``), which is asked of the store every time."""
    with db.read(url) as c:
        transcript = web_queries.transcript_if_allowed(c, match_id)
    chosen = replay.parse_view(view, transcript["num_players"])
    key = (url, match_id, chosen)
    kept = caches.replays.get(key)
    if kept is not None:
        return kept
    with db.read(url) as c:
        seats = [s["bot"] for s in web_queries.match_summaries(c, [match_id])[0]["seats"]]
    text = replay.replay_json(transcript, chosen, seats)
    entry = (etag(text), text)
    caches.replays.put(key, entry)
    return entry


def etag(text: str) -> str:
    """A strong validator of a response body."""
    return '"' + hashlib.blake2b(text.encode(), digest_size=16).hexdigest() + '"'


def status(url: str | None) -> dict[str, Any]:
    """The status figures for anyone to read: processes are numbered, not named (their names
    are host:pid), and a Redis failure is named by its kind (its text holds host:port)."""
    with db.read(url) as c:
        figures = web_queries.status_figures(c)
        redis = live.redis_figures()
        ids = [int(b) for b in redis.get("connected_bots", []) if b.isdigit()]
        if ids:
            names = {b.id: b.name for b in queries.bots_by_id(c, ids).values()}
            redis["connected_bots"] = [names.get(int(b), b) if b.isdigit() else b for b in redis["connected_bots"]]
    figures["processes"] = [p | {"process": f"process {n}"} for n, p in enumerate(figures["processes"], start=1)]
    if "error" in redis:
        redis["error"] = redis["error"].split(":", 1)[0]
    return figures | {"redis": redis}
