"""``arena.v1.Arena``: bots, games, tournaments, leaderboards and matches over gRPC.

Database work is blocking (SQLAlchemy), so each call runs it in a thread; tournaments are
dispatched exactly as the CLI does (Celery on Redis, or in-process in a background thread
when embedded, so the server keeps answering while they play).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import threading
from collections.abc import Callable
from typing import Any

import grpc

from arena import games
from arena.games import BadOptions
from arena.referee.transcript import Decision
from arena.store import bot_tokens, db, queries
from arena.tournaments import service as tournaments
from arena.v1 import arena_pb2, arena_pb2_grpc

from . import challenge
from .sessions import Kicker
from .settings import ServerSettings

FOLLOW_POLL = 0.5  # seconds between looks at a followed tournament


class ArenaService(arena_pb2_grpc.ArenaServicer):
    """The servicer; ``kick`` closes a revoked bot's live streams."""

    def __init__(self, settings: ServerSettings, kick: Kicker | None = None) -> None:
        self.settings = settings
        self.kick = kick

    # ----- helpers -----------------------------------------------------------------------
    async def _admin(self, context: Any) -> None:
        expected = self.settings.admin_token
        if not expected:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED,
                                "admin calls are disabled: the server has no ARENA_ADMIN_TOKEN")
        given = ""
        for key, value in context.invocation_metadata() or ():
            if key.lower() == "authorization" and value.startswith("Bearer "):
                given = value[len("Bearer "):].strip()
        if not hmac.compare_digest(given.encode(), expected.encode()):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "admin token required")

    @staticmethod
    async def _db(work: Callable[[Any], Any]) -> Any:
        def run() -> Any:
            with db.transaction() as connection:
                return work(connection)

        return await asyncio.to_thread(run)

    # ----- bots ----------------------------------------------------------------------------
    async def RegisterBot(self, request: arena_pb2.RegisterBotRequest, context: Any) -> arena_pb2.RegisterBotResponse:
        try:
            made = await self._db(lambda c: bot_tokens.register(c, request.name, request.owner))
        except bot_tokens.NameTaken as error:
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, str(error))
        except ValueError as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        return arena_pb2.RegisterBotResponse(bot_id=str(made.bot_id), name=made.name, token=made.token)

    async def RevokeBot(self, request: arena_pb2.RevokeBotRequest, context: Any) -> arena_pb2.RevokeBotResponse:
        await self._admin(context)
        bot_id = await self._db(lambda c: bot_tokens.revoke(c, request.name))
        if bot_id is not None and self.kick is not None:
            await self.kick(str(bot_id), "the bot's token was revoked")
        return arena_pb2.RevokeBotResponse(revoked=bot_id is not None)

    # ----- games ---------------------------------------------------------------------------
    async def ListGames(self, request: arena_pb2.ListGamesRequest, context: Any) -> arena_pb2.ListGamesResponse:
        listing = []
        for info in games.describe_all():
            listing.append(arena_pb2.GameInfo(
                name=info["name"], title=info["title"], version=info["version"],
                min_players=info["min_players"], max_players=info["max_players"],
                house_bots=info["bots"],
                options=[arena_pb2.GameOption(name=n, default_json=json.dumps(o["default"]),
                                              choices_json=[json.dumps(c) for c in o["choices"]], help=o["help"])
                         for n, o in info["options"].items()]))
        return arena_pb2.ListGamesResponse(games=listing)

    # ----- tournaments ---------------------------------------------------------------------
    async def CreateTournament(self, request: arena_pb2.CreateTournamentRequest, context: Any) -> arena_pb2.TournamentRef:
        await self._admin(context)
        try:
            options = {g.game: json.loads(g.options_json) for g in request.games if g.options_json}
            sizes = sorted({n for g in request.games for n in g.table_sizes}) or [2]
            tournament_id = await self._db(lambda c: tournaments.create_tournament(
                c, [g.game for g in request.games], list(request.bots), sizes=sizes,
                repetitions=request.repetitions or 1, seed=request.seed, rated=request.rated,
                name=request.name, move_time=(request.move_deadline_ms or 2000) / 1000,
                time_bank=(request.time_bank_ms or 30000) / 1000, options=options))
        except (KeyError, ValueError, BadOptions) as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error).strip("'\""))
        start_in_background(tournament_id)
        return arena_pb2.TournamentRef(tournament_id=str(tournament_id))

    async def _status(self, ref: arena_pb2.TournamentRef, context: Any) -> arena_pb2.TournamentStatus:
        try:
            status = await self._db(lambda c: queries.tournament_status(c, int(ref.tournament_id)))
        except (KeyError, ValueError):
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no tournament {ref.tournament_id!r}")
        return arena_pb2.TournamentStatus(
            tournament_id=str(status["id"]), name=status["name"], status=status["status"],
            progress=[arena_pb2.GameProgress(game=g, done=c["done"] + c["failed"] + c["cancelled"], total=c["total"])
                      for g, c in status["games"].items()])

    async def FollowTournament(self, request: arena_pb2.TournamentRef, context: Any) -> Any:
        last = None
        while True:
            status = await self._status(request, context)
            if status != last:
                yield status
                last = status
            if status.status != "running":
                return
            await asyncio.sleep(FOLLOW_POLL)

    async def CancelTournament(self, request: arena_pb2.TournamentRef, context: Any) -> arena_pb2.TournamentStatus:
        await self._admin(context)
        try:
            await self._db(lambda c: tournaments.cancel_tournament(c, int(request.tournament_id)))
        except (KeyError, ValueError):
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no tournament {request.tournament_id!r}")
        return await self._status(request, context)

    # ----- results -------------------------------------------------------------------------
    async def GetLeaderboard(self, request: arena_pb2.LeaderboardRequest, context: Any) -> arena_pb2.LeaderboardResponse:
        try:
            games.get(request.game)
        except KeyError as error:
            await context.abort(grpc.StatusCode.NOT_FOUND, str(error).strip("'\""))
        rows = await self._db(lambda c: queries.leaderboard(c, request.game, request.limit or 1000))
        return arena_pb2.LeaderboardResponse(game=request.game, rows=[
            arena_pb2.LeaderboardRow(rank=r.rank, bot=r.bot, elo=r.elo, elo_low=r.low, elo_high=r.high,
                                     matches=r.matches, win_rate=r.win_rate, mean_rank=r.mean_rank,
                                     last_played=r.last_played.isoformat() if r.last_played else "")
            for r in rows])

    async def ListMatches(self, request: arena_pb2.ListMatchesRequest, context: Any) -> arena_pb2.ListMatchesResponse:
        tournament = int(request.tournament_id) if request.tournament_id.isdigit() else None
        found = await self._db(lambda c: queries.recent_matches(
            c, tournament_id=tournament, bot=request.bot or None, limit=request.limit or 50))
        return arena_pb2.ListMatchesResponse(matches=[summary(m) for m in found])

    async def GetMatch(self, request: arena_pb2.MatchRef, context: Any) -> arena_pb2.MatchDetail:
        try:
            detail = await self._db(lambda c: queries.match_detail(c, int(request.match_id)))
        except (KeyError, ValueError):
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
        transcript = detail.get("transcript") or {}
        return arena_pb2.MatchDetail(
            summary=summary(detail), options_json=games.dumps(detail["options"]), seed=detail["seed"],
            scores=[s["score"] for s in detail["seats"]],
            decisions=[arena_pb2.Decision(seat=d.seat, action=d.action, ms=int(d.ms), code=d.code)
                       for d in map(Decision.from_json, transcript.get("decisions", []))])

    async def Challenge(self, request: arena_pb2.ChallengeRequest, context: Any) -> arena_pb2.MatchRef:
        try:
            options = json.loads(request.options_json) if request.options_json else {}
            match_id = await self._db(lambda c: challenge.create(
                c, request.game, list(request.players), options, request.seed,
                (request.move_deadline_ms or 2000) / 1000, (request.time_bank_ms or 30000) / 1000))
        except (KeyError, ValueError, BadOptions) as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error).strip("'\""))
        threading.Thread(target=challenge.play, args=(match_id,), daemon=True).start()
        return arena_pb2.MatchRef(match_id=str(match_id))


def summary(match: dict[str, Any]) -> arena_pb2.MatchSummary:
    seats = match.get("seats") or []
    finished = match.get("finished_at")
    return arena_pb2.MatchSummary(
        match_id=str(match["id"]), game=match["game"], status=match["status"],
        players=list(match["seating"]), ranks=[s["rank"] for s in seats],
        finished_at=finished.isoformat() if finished else "")


def start_in_background(tournament_id: int) -> None:
    """Dispatch the tournament's matches without blocking the caller: with Celery the
    dispatch returns at once; embedded, the matches play in this thread."""
    from workers.dispatch import run_tournament

    threading.Thread(target=run_tournament, args=(tournament_id,), kwargs={"wait": False},
                     name=f"tournament-{tournament_id}", daemon=True).start()
