"""The HTML pages, rendered on the server from ``arena.web.views`` with the templates in
``templates/``. Leaderboards, standings and crosstables are plain HTML (sorting is a link),
so they work without JavaScript; the match viewer and live progress use small scripts from
``static/``. The ``.../live`` routes return the fragment a page refreshes while running."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from arena import games
from arena.store.statuses import MatchStatus, TournamentStatus

from . import caches, charts, gamedocs, views
from .params import Before, MatchId, PageNumber, TournamentId

templates = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
templates.env.globals.update(charts=charts, MatchStatus=MatchStatus, TournamentStatus=TournamentStatus,
                             game_title=lambda n: games.get(n).title if n in games.names() else n)
templates.env.filters["when"] = lambda d: d.strftime("%Y-%m-%d %H:%M") if d else "–"
templates.env.filters["pct"] = lambda x: f"{x:.0%}" if x is not None else "–"
router = APIRouter(default_response_class=HTMLResponse)
TOURNAMENTS_PAGE = 200  # tournaments listed on one page


def render(request: Request, name: str, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context)


def shared(key: tuple[Any, ...], final: bool, name: str, **context: Any) -> HTMLResponse:
    """``name`` rendered once for every viewer: for good when ``final``, else once per
    ``ARENA_LIVE_SNAPSHOT_SECONDS``. A large tournament's page is most of a megabyte of
    HTML, whose rendering costs more than its read."""
    body = caches.page(("html", name, *key), lambda: templates.get_template(name).render(context),
                       lambda _: final)
    return HTMLResponse(body)


def _url(request: Request) -> str | None:
    return request.app.state.database_url


@router.get("/")
def home(request: Request) -> HTMLResponse:
    return render(request, "home.html", **views.home(_url(request)))


@router.get("/live/matches")
def live_matches(request: Request) -> HTMLResponse:
    return render(request, "_live_matches.html", live=views.live_matches(_url(request), 20))


@router.get("/games/{game}")
def game(request: Request, game: str) -> HTMLResponse:
    data = views.game(_url(request), game)
    docs_dir = request.app.state.settings.docs_dir
    doc = gamedocs.game_doc(data["name"], docs_dir)
    return render(request, "game.html", game=data, doc=doc, docs_dir=docs_dir)


@router.get("/games/{game}/leaderboard")
def leaderboard(request: Request, game: str, sort: str = "rank", order: str | None = None) -> HTMLResponse:
    board = views.leaderboard(_url(request), game, sort, order)
    fitted = {r["bot"]: r for r in board["ml"]["rows"]}
    return render(request, "leaderboard.html", board=board, axis=charts.scale(board["rows"]), ml=fitted)


@router.get("/bots/{name}")
def bot(request: Request, name: str, before: Before = None) -> HTMLResponse:
    return render(request, "bot.html", bot=views.bot(_url(request), name, before,
                                                     request.app.state.settings.ladder_seconds))


@router.get("/ladder")
def ladder(request: Request) -> HTMLResponse:
    return render(request, "ladder.html", ladder=views.ladder_page(_url(request), request.app.state.settings.ladder_seconds))


@router.get("/tournaments")
def tournaments(request: Request, status: str | None = None, before: Before = None) -> HTMLResponse:
    listed = views.tournaments(_url(request), status, TOURNAMENTS_PAGE + 1, before)
    older = listed[TOURNAMENTS_PAGE - 1]["id"] if len(listed) > TOURNAMENTS_PAGE else None
    return render(request, "tournaments.html", tournaments=listed[:TOURNAMENTS_PAGE], status=status, older=older)


@router.get("/tournaments/{tournament_id}")
def tournament(request: Request, tournament_id: TournamentId, page: PageNumber = 1) -> HTMLResponse:
    url = _url(request)
    t = views.tournament(url, tournament_id, page)
    return shared((url, tournament_id, page), views.finished_tournament(t), "tournament.html", t=t)


@router.get("/tournaments/{tournament_id}/live")
def tournament_live(request: Request, tournament_id: TournamentId, page: PageNumber = 1) -> HTMLResponse:
    url = _url(request)
    t = views.tournament(url, tournament_id, page)
    return shared((url, tournament_id, page), views.finished_tournament(t), "_tournament_live.html", t=t)


@router.get("/matches/{match_id}")
def match(request: Request, match_id: MatchId) -> HTMLResponse:
    return render(request, "match.html", m=views.match(_url(request), match_id))


@router.get("/matches/{match_id}/live")
def match_live(request: Request, match_id: MatchId) -> HTMLResponse:
    return render(request, "_match_live.html", m=views.match(_url(request), match_id))


@router.get("/api")
def api_reference(request: Request) -> HTMLResponse:
    schema = request.app.openapi()
    endpoints = [(path, op) for path, item in schema["paths"].items() for method, op in item.items() if method == "get"]
    return render(request, "api.html", endpoints=endpoints, info=schema["info"])


@router.get("/status")
def status(request: Request) -> HTMLResponse:
    return render(request, "status.html", s=views.status(_url(request)), grafana=request.app.state.settings.grafana_url)
