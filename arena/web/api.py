"""The JSON API under ``/api/v1/``: the same data the pages show, for people who
build their own views. Its OpenAPI schema is at ``/api/v1/openapi.json``, rendered as a
reference page at ``/api``.

Nothing here reveals a match's seed, transcript, private views or results (ranks, scores,
strikes, decisions, duration) before the match is done and its deal no longer in play
anywhere (``arena.store.disclosure``); tournament seeds and deal keys are never served."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response

from arena.store.statuses import MatchStatus, TournamentStatus

from . import analysis, views
from .params import Before, Limit, MatchId, PageNumber, Seat, TournamentId

router = APIRouter(prefix="/api/v1", tags=["arena"])
BoardLimit = Annotated[int, Query(ge=1, le=1000)]
# A replay may be stored by any cache but must be revalidated on every use (a 304 costs a
# lookup): a deal that was over can come back into play when a tournament replays its seed,
# and then the store, not a cache, says that the replay is sealed again.
REPLAY_CACHE_CONTROL = "public, no-cache"
if TYPE_CHECKING:
    TournamentStatusName = str
    MatchStatusName = str
else:  # the statuses a listing is filtered by, as plain strings: the schema and a refusal name them as text
    TournamentStatusName = Literal[tuple(s.value for s in TournamentStatus)]
    MatchStatusName = Literal[tuple(s.value for s in MatchStatus)]


def _url(request: Request) -> str | None:
    return request.app.state.database_url


@router.get("/games", summary="Every game: players, options, house bots")
def games_list() -> list[dict[str, Any]]:
    return views.game_list()


@router.get("/games/{game}", summary="One game and its ten best bots")
def game(request: Request, game: str) -> dict[str, Any]:
    return views.game(_url(request), game)


@router.get("/games/{game}/leaderboard",
            summary="A game's bots by Elo, with the 95 % interval, and its maximum-likelihood list")
def leaderboard(request: Request, game: str,
                sort: Literal["rank", "bot", "elo", "interval", "matches", "win_rate", "mean_rank",
                              "last_played"] = "rank",
                order: Literal["asc", "desc"] | None = None, limit: BoardLimit = 1000) -> dict[str, Any]:
    """Rows: rank (by Elo), bot, house (a house bot), elo, low and high (the 95 % interval),
    matches, win_rate, mean_rank, last_played. ``order`` defaults to each column's natural
    direction (best first). ``ml``: one maximum-likelihood fit of every rated result of the
    game (the same in whatever order they were played): its ``anchor`` (the mean rating),
    the bootstrap's ``replicas``, its ``state`` (``fitting`` while the first fit runs: no
    reader waits for one; then ``fitted``) and its ``rows``, best first: rank, bot, rating, low
    and high (95 % interval over whole duplicate groups), los_next (likelihood that the bot is
    stronger than the next on this list; null on the last). Refitted when rated results
    arrive, at most every 30 seconds."""
    return views.leaderboard(_url(request), game, sort, order, limit)


@router.get("/bots/{name}", summary="A bot: ratings, rating history, opponents, matches, strikes")
def bot(request: Request, name: str, before: Before = None) -> dict[str, Any]:
    """``recent`` holds 20 matches, older than ``before`` when given; ``older`` is the
    ``before`` of the next page (null on the last). ``ladder``: its ``state`` (connected,
    queued, playing, away or retired) and, for a bot with several versions, each version's
    ratings and results against the opponents two versions met."""
    return views.bot(_url(request), name, before, request.app.state.settings.ladder_seconds)


@router.get("/ladder", summary="The ladder: bots online per game, its boards, the latest groups")
def ladder_view(request: Request) -> dict[str, Any]:
    """``online``: per game, the connected bots that play it (``playing``: in a match now);
    ``boards``: per game and table size, its ladder tournament, matches in play and played;
    ``groups``: the latest duplicate groups played out, with each bot's points."""
    return views.ladder_page(_url(request), request.app.state.settings.ladder_seconds)


@router.get("/tournaments", summary="Tournaments, newest first")
def tournaments(request: Request, status: TournamentStatusName | None = None,
                limit: Limit = 50, before: Before = None) -> list[dict[str, Any]]:
    return views.tournaments(_url(request), status, limit, before)


@router.get("/tournaments/{tournament_id}", summary="A tournament: progress, standings, crosstables, deals")
def tournament(request: Request, tournament_id: TournamentId, page: PageNumber = 1) -> dict[str, Any]:
    """Per game: ``progress`` (matches by status), ``standings`` (ordered by the share of
    pairwise games won, then mean rank), ``crosstable`` (wins, draws, losses of each bot
    against each other bot, pair by pair within matches) and ``deal_groups`` (the matches
    that replayed one deal, in the duplicate format), 40 deals a page: ``page`` of ``pages``."""
    return views.tournament(_url(request), tournament_id, page)


@router.get("/matches", summary="Matches, newest first")
def matches(request: Request,
            status: MatchStatusName | None = None,
            limit: Limit = 50, before: Before = None) -> list[dict[str, Any]]:
    """A page of ``limit`` matches; the next page is ``before`` the last id shown."""
    return views.matches(_url(request), status, limit, before)


@router.get("/matches/{match_id}", summary="A match: seats and results; seed only once it may be replayed")
def match(request: Request, match_id: MatchId) -> dict[str, Any]:
    return views.match(_url(request), match_id)


@router.get("/matches/{match_id}/replay", summary="Replay data of a finished match for one view")
def replay(request: Request, match_id: MatchId, view: str = "all") -> Response:
    """``view``: ``all`` (the full state) or a seat number (that seat's observation).
    ``decisions`` are ``[turn, seat, action, ms, code]``; ``frames[0]`` is the view before
    the first decision as ``[fields]``, ``frames[k]`` after decision ``k`` as
    ``[changed fields]`` or ``[changed fields, removed field names]``. 404 unless the match
    is done and its deal no longer in play. Served with an ``ETag``: a request with
    ``If-None-Match`` naming it gets 304 and no body."""
    tag, text = views.match_replay(_url(request), match_id, view)
    headers = {"ETag": tag, "Cache-Control": REPLAY_CACHE_CONTROL}
    if revalidated(request.headers.get("if-none-match", ""), tag):
        return Response(status_code=304, headers=headers)
    return Response(text, media_type="application/json", headers=headers)


@router.get("/matches/{match_id}/analysis", summary="The kept analysis of one seat of a finished match")
def match_analysis(request: Request, match_id: MatchId, seat: Seat = 0) -> dict[str, Any]:
    """``analysis``: every decision of ``seat`` with a choice, valued by the search bot on
    sampled deals (see docs/bot-authors.md, "Reading your bot's analysis"), or null when none
    is kept yet (``POST`` the same path asks for one). 404 unless the match is done and its
    deal no longer in play; 400 for a seat the match does not have."""
    return analysis.kept(_url(request), match_id, seat, request.app.state.settings)


@router.post("/matches/{match_id}/analysis", summary="Ask the arena to analyse one seat of a finished match",
             status_code=202)
def ask_analysis(request: Request, match_id: MatchId, seat: Seat = 0) -> Response:
    """Forwarded to the Arena service (``Arena.AnalyseMatch``): 202 ``{"status": "queued"}``
    while its workers compute it (read it with ``GET`` once kept), 200 with the analysis when
    it is kept, 200 ``{"status": "failed", "reason"}`` when its last computation failed (past
    its time or memory; nothing kept: asking again queues it again). 409 while the match's deal is sealed, 404 for no such match, 400 for no such
    seat, 429 with ``Retry-After`` past ``ARENA_ANALYSIS_PER_MINUTE`` requests a minute from
    one address (here, and on the service, where the web face counts as one caller), 503 when
    the service cannot be reached."""
    wait = request.app.state.analysis_rate.hit(request.client.host if request.client else "")
    if wait is not None:
        return JSONResponse({"detail": f"too many analyses asked for: try again in {wait} s"}, status_code=429,
                            headers={"Retry-After": str(wait)})
    try:
        answer = analysis.ask(request.app.state.settings, match_id, seat)
    except analysis.Refused as refused:
        headers = {"Retry-After": refused.retry_after} if refused.retry_after else None
        return JSONResponse({"detail": str(refused)}, status_code=refused.status, headers=headers)
    return JSONResponse(answer, status_code=202 if answer["status"] == "queued" else 200)


def revalidated(if_none_match: str, tag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``tag`` (compared weakly, as RFC 9110 asks:
    a proxy that compresses may have marked it ``W/``) or is ``*``."""
    named = {t.strip().removeprefix("W/") for t in if_none_match.split(",")}
    return tag in named or "*" in named


@router.get("/status", summary="Queue, matches in flight, processes, connected bots, failures")
def status(request: Request) -> dict[str, Any]:
    return views.status(_url(request))
