"""``arena.v1.Arena``: bots, games, tournaments, leaderboards and matches over gRPC.

Database work is blocking (SQLAlchemy), so each call runs it in a thread; tournaments are
dispatched exactly as the CLI does (Celery on Redis, or in-process in a background thread
when embedded, so the server keeps answering while they play).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
from collections.abc import Callable
from typing import Any

import grpc
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena import games
from arena.clock import Clock
from arena.errors import BadInput, NotFound
from arena.games import BadOptions
from arena.ratelimit import RateLimiter, Unavailable, per_minute
from arena.referee import consent, external
from arena.referee.analysis import AnalysisBudget
from arena.referee.gateway import bearer_token, peer_address
from arena.referee.transcript import Decision
from arena.settings import load as load_settings
from arena.stats import sprt
from arena.store import analyses, bot_tokens, db, disclosure, queries, versions
from arena.store.statuses import MatchStatus, TournamentStatus
from arena.tournaments import paired
from arena.tournaments import service as tournaments
from arena.tournaments.limits import check_challenge_clock
from workers.analysis import Analyses, Busy

from . import challenge, sessions, version_tests
from .access import Access
from .ids import BadId, parse_id
from .rules_service import brief, json_object
from .sessions import Kicker
from .settings import ServerSettings

FOLLOW_POLL = 0.5  # seconds between looks at a followed tournament


class ArenaService(arena_pb2_grpc.ArenaServicer):
    """The servicer; ``kick`` closes a revoked bot's live streams on this gateway (the others
    notice the revocation in the store, see ``revocations``).

    Who may call what is the table in docs/operations.md; ``access`` tells who is calling."""

    def __init__(self, settings: ServerSettings, kick: Kicker | None = None, access: Access | None = None) -> None:
        self.settings = settings
        self.kick = kick
        self.access = access or Access(settings.admin_token, sessions.authenticate,
                                       RateLimiter(per_minute(settings.auth_failures_per_minute)))
        self.reads = RateLimiter(settings.read_rate)
        self.following: dict[str, int] = {}  # open FollowTournament streams per peer address
        config = load_settings()
        # Challenges per bot and minute, counted in the mailbox's Redis when distributed.
        self.challenge_rate = RateLimiter(per_minute(settings.challenges_per_minute), redis_url=config.redis_url,
                                          prefix=config.mailbox_prefix)
        # Analyses asked to be computed, per bot or anonymous peer address; where they run.
        self.analysis_rate = RateLimiter(per_minute(settings.analysis_per_minute))
        self.analyses = Analyses(AnalysisBudget.from_settings(settings), settings.analysis_seconds,
                                 settings.analysis_queue)

    def close(self) -> None:
        """Stop what the service started (the embedded analyses' process)."""
        self.analyses.close()

    async def _count_read(self, context: Any) -> None:
        """Count one read against the caller's address (``ARENA_READ_RATE``); past the rate the
        call ends with RESOURCE_EXHAUSTED and ``retry-after`` (seconds) in its trailing
        metadata. The admin is not counted: the check is a comparison, no store lookup."""
        if not self.reads.enabled:
            return
        token = bearer_token(context.invocation_metadata())
        if token is not None and self.access.is_admin_token(token):
            return
        wait = self.reads.hit(peer_address(context))
        if wait is not None:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"too many reads from this address: try again in {wait} s",
                                trailing_metadata=(("retry-after", str(wait)),))

    # ----- helpers -----------------------------------------------------------------------
    @staticmethod
    async def _db(work: Callable[[Any], Any], read: bool = False) -> Any:
        def run() -> Any:
            with (db.read() if read else db.transaction()) as connection:
                return work(connection)

        return await asyncio.to_thread(run)

    @staticmethod
    async def _id(text: str, what: str, context: Any) -> int:
        """The id a request names, or INVALID_ARGUMENT (``arena.server.ids``)."""
        try:
            return parse_id(text, what)
        except BadId as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
            raise  # not reached: abort raises

    # ----- bots ----------------------------------------------------------------------------
    async def RegisterBot(self, request: arena_pb2.RegisterBotRequest, context: Any) -> arena_pb2.RegisterBotResponse:
        if not self.settings.registration_open:
            await self.access.require_admin(context)
        if len(request.owner) > 200:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "owner has at most 200 characters")
        try:
            made = await self._db(lambda c: bot_tokens.register(c, request.name, request.owner))
        except bot_tokens.NameTaken as error:
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, brief(str(error)))
        except ValueError as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, brief(str(error)))
        return arena_pb2.RegisterBotResponse(bot_id=str(made.bot_id), name=made.name, token=made.token)

    async def RegisterVersion(self, request: arena_pb2.RegisterVersionRequest,
                              context: Any) -> arena_pb2.RegisterBotResponse:
        """A bot's own token registers its next version (the admin has no bot of its own)."""
        who = await self.access.require_bot(context)
        if who.bot is None:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "a new version is registered with the bot's own token")
            raise AssertionError  # not reached: abort raises
        if len(request.owner) > 200:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "owner has at most 200 characters")
        bot_id = int(who.bot.bot_id)
        try:
            made = await self._db(lambda c: versions.new_version(c, bot_id, request.name, request.owner))
        except bot_tokens.NameTaken as error:
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, brief(str(error)))
        except versions.Retired as error:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, brief(str(error)))
        except BadInput as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, brief(str(error)))
        return arena_pb2.RegisterBotResponse(bot_id=str(made.bot_id), name=made.name, token=made.token)

    async def RevokeBot(self, request: arena_pb2.RevokeBotRequest, context: Any) -> arena_pb2.RevokeBotResponse:
        await self.access.require_admin(context)
        bot_id = await self._db(lambda c: bot_tokens.revoke(c, request.name))
        if bot_id is not None and self.kick is not None:
            await self.kick(str(bot_id), "the bot's token was revoked")
        return arena_pb2.RevokeBotResponse(revoked=bot_id is not None)

    # ----- games ---------------------------------------------------------------------------
    async def ListGames(self, request: arena_pb2.ListGamesRequest, context: Any) -> arena_pb2.ListGamesResponse:
        await self._count_read(context)
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
        await self.access.require_admin(context)
        try:
            options = {g.game: json_object(g.options_json) for g in request.games if g.options_json}
            sizes = sorted({n for g in request.games for n in g.table_sizes}) or [2]
            clock = Clock.from_ms(request.move_deadline_ms, request.time_bank_ms)
            tournament_id = await self._db(lambda c: tournaments.create_tournament(
                c, [g.game for g in request.games], list(request.bots), sizes=sizes,
                repetitions=request.repetitions or 1, seed=request.seed or None, rated=request.rated,
                name=request.name, move_time=clock.move, time_bank=clock.bank, options=options))
        except (KeyError, ValueError, BadOptions) as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, brief(str(error).strip("'\"")))
        start_in_background(tournament_id)
        return arena_pb2.TournamentRef(tournament_id=str(tournament_id))

    async def _status(self, ref: arena_pb2.TournamentRef, context: Any) -> arena_pb2.TournamentStatus:
        tournament_id = await self._id(ref.tournament_id, "tournament", context)
        try:
            status = await self._db(lambda c: queries.tournament_status(c, tournament_id), read=True)
        except (KeyError, ValueError):
            await context.abort(grpc.StatusCode.NOT_FOUND, brief(f"no tournament {ref.tournament_id!r}"))
        return arena_pb2.TournamentStatus(
            tournament_id=str(status["id"]), name=status["name"], status=status["status"],
            progress=[arena_pb2.GameProgress(game=g, done=sum(c[s] for s in MatchStatus.OVER), total=c["total"])
                      for g, c in status["games"].items()])

    async def _open_stream(self, context: Any) -> str:
        """Count one more open Follow stream of the caller's peer, or refuse it: each reads the
        store twice a second, so their number is bounded per peer and in all
        (ARENA_FOLLOW_STREAMS_PER_PEER, ARENA_FOLLOW_STREAMS). ``_close_stream`` uncounts it."""
        await self._count_read(context)
        peer = peer_address(context)
        if sum(self.following.values()) >= self.settings.follow_streams:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"the server follows {self.settings.follow_streams} tournaments at once: "
                                "try again when a stream has ended")
        if self.following.get(peer, 0) >= self.settings.follow_streams_per_peer:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"this address already follows {self.settings.follow_streams_per_peer} "
                                "tournaments: close one first")
        self.following[peer] = self.following.get(peer, 0) + 1
        return peer

    def _close_stream(self, peer: str) -> None:
        self.following[peer] -= 1
        if not self.following[peer]:
            del self.following[peer]

    async def FollowTournament(self, request: arena_pb2.TournamentRef, context: Any) -> Any:
        peer = await self._open_stream(context)
        try:
            last = None
            while True:
                status = await self._status(request, context)
                if status != last:
                    yield status
                    last = status
                if status.status != TournamentStatus.RUNNING:
                    return
                await asyncio.sleep(FOLLOW_POLL)
        finally:
            self._close_stream(peer)

    async def CancelTournament(self, request: arena_pb2.TournamentRef, context: Any) -> arena_pb2.TournamentStatus:
        await self.access.require_admin(context)
        tournament_id = await self._id(request.tournament_id, "tournament", context)
        try:
            await self._db(lambda c: tournaments.cancel_tournament(c, tournament_id))
        except (KeyError, ValueError):
            await context.abort(grpc.StatusCode.NOT_FOUND, brief(f"no tournament {request.tournament_id!r}"))
        return await self._status(request, context)

    # ----- results -------------------------------------------------------------------------
    async def GetLeaderboard(self, request: arena_pb2.LeaderboardRequest, context: Any) -> arena_pb2.LeaderboardResponse:
        await self._count_read(context)
        try:
            games.get(request.game)
        except KeyError as error:
            await context.abort(grpc.StatusCode.NOT_FOUND, brief(str(error).strip("'\"")))
        rows = await self._db(lambda c: queries.leaderboard(c, request.game, min(request.limit or 1000, 1000)),
                              read=True)
        return arena_pb2.LeaderboardResponse(game=request.game, rows=[
            arena_pb2.LeaderboardRow(rank=r.rank, bot=r.bot, elo=r.elo, elo_low=r.low, elo_high=r.high,
                                     matches=r.matches, win_rate=r.win_rate, mean_rank=r.mean_rank,
                                     last_played=r.last_played.isoformat() if r.last_played else "",
                                     provisional=r.provisional)
            for r in rows])

    async def ListMatches(self, request: arena_pb2.ListMatchesRequest, context: Any) -> arena_pb2.ListMatchesResponse:
        await self._count_read(context)
        tournament = await self._id(request.tournament_id, "tournament", context) if request.tournament_id else None
        limit = min(request.limit or 50, 1000)

        def listing(connection: Any) -> list[dict[str, Any]]:
            found = queries.recent_matches(connection, tournament_id=tournament, bot=request.bot or None, limit=limit)
            return disclosure.seal_listing(connection, found)

        found = await self._db(listing, read=True)
        return arena_pb2.ListMatchesResponse(matches=[summary(m) for m in found])

    async def GetMatch(self, request: arena_pb2.MatchRef, context: Any) -> arena_pb2.MatchDetail:
        await self._count_read(context)
        match_id = await self._id(request.match_id, "match", context)
        try:
            detail = await self._db(lambda c: disclosure.public_detail(c, queries.match_detail(c, match_id)), read=True)
        except (KeyError, ValueError):
            await context.abort(grpc.StatusCode.NOT_FOUND, brief(f"no match {request.match_id!r}"))
        transcript = detail.get("transcript") or {}
        return arena_pb2.MatchDetail(
            summary=summary(detail), options_json=games.dumps(detail["options"]), seed=detail["seed"] or 0,
            scores=[s["score"] for s in detail["seats"]], sealed=detail["sealed"],
            seats=[arena_pb2.SeatResult(seat=s["seat"], bot=s["bot"] or "", score=s["score"], rank=s["rank"],
                                        strikes=s["strikes"], forfeited=s["forfeited"]) for s in detail["seats"]],
            decisions=[arena_pb2.Decision(seat=d.seat, action=d.action, ms=int(d.ms), code=d.code)
                       for d in map(Decision.from_json, transcript.get("decisions", []))])

    async def Challenge(self, request: arena_pb2.ChallengeRequest, context: Any) -> arena_pb2.MatchRef:
        """Refused at once unless every external bot it seats is connected. A bot's challenge
        seats itself, and other external bots only with their consent;
        its clock, rate and number at once are bounded by the server's settings. The admin
        seats any bot with the tournament limits' clock, unbounded in number."""
        who = await self.access.require_bot(context)
        bot = who.bot if not who.admin else None
        if bot is not None:
            await self._deals_left_to_chance(request.seed, context)
            if bot.name.lower() not in {p.lower() for p in request.players}:  # names match in any case
                await context.abort(grpc.StatusCode.PERMISSION_DENIED,
                                    f"a challenge must seat the calling bot ({bot.name})")
            await self._count_challenge(str(bot.bot_id), context)
        if len(request.players) > 16:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "at most 16 players")
        clock = Clock.from_ms(request.move_deadline_ms, request.time_bank_ms)
        move_time, time_bank = clock.move, clock.bank
        try:
            if bot is not None:
                check_challenge_clock(move_time, time_bank, self.settings.challenge_move_seconds,
                                      self.settings.challenge_bank_seconds)
            options = json_object(request.options_json) if request.options_json else {}
            plan = await self._db(lambda c: challenge.prepare(c, request.game, list(request.players), options,
                                                              move_time, time_bank))
        except (KeyError, ValueError, BadOptions) as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, brief(str(error).strip("'\"")))
        at_once = None
        mailbox = external.mailbox()
        reason = await challenge.refusal(mailbox, plan, bot.name if bot is not None else None)
        if reason is not None:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, reason)
        if bot is not None:
            at_once = await challenge.limits_at_once(mailbox, plan, bot.name, self.settings.challenges_at_once)
        try:
            match_id = await asyncio.to_thread(challenge.record, plan, request.seed or None, at_once)
        except challenge.TooMany as error:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(error))
        threading.Thread(target=challenge.play, args=(match_id,), name=f"challenge-{match_id}", daemon=True).start()
        return arena_pb2.MatchRef(match_id=str(match_id))

    @staticmethod
    async def _deals_left_to_chance(seed: int, context: Any) -> None:
        """A bot's request (a challenge, a test) takes random deals: a chosen seed is the
        admin's, since it could replay a deal the bot has seen."""
        if seed:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED,
                                "a chosen seed is the admin's choice: leave seed 0 for random deals")

    # ----- tests ---------------------------------------------------------------------------
    async def StartTest(self, request: arena_pb2.StartTestRequest, context: Any) -> arena_pb2.TestRef:
        """A bot's token tests its own versions and house bots; the admin any bots. Refused at
        once when an external bot is not connected or does not play a game named, or one of
        the two is in a running test; a test counts as a challenge against the rate."""
        who = await self.access.require_bot(context)
        bot = who.bot if not who.admin else None
        if bot is not None:
            await self._deals_left_to_chance(request.seed, context)
            await self._count_challenge(str(bot.bot_id), context)
        names = [request.base, request.candidate, *request.field]
        if len(request.games) > len(games.names()) or max(map(len, names)) > 100:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "at most one of each game, and bot names "
                                "of at most 100 characters")
        try:
            hypotheses = sprt.Hypotheses(request.elo0 if request.HasField("elo0") else 0.0,
                                         request.elo1 if request.HasField("elo1") else 5.0)
            caller = int(bot.bot_id) if bot is not None else None
            prepared = await self._db(lambda c: version_tests.prepare(
                c, request.base, request.candidate, list(request.games), hypotheses,
                request.max_groups or version_tests.MAX_GROUPS, caller, request.players or 2, list(request.field)))
        except version_tests.NotYours as error:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, str(error))
        except (KeyError, ValueError) as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, brief(str(error).strip("'\"")))
        mailbox = external.mailbox()
        for entrant in prepared.external:
            if await mailbox.holder(str(entrant.bot_id)) is None:
                await context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                                    f"bot {entrant.name} is not connected: a test plays connected bots")
            prefs = await mailbox.prefs(str(entrant.bot_id))
            for game in prepared.games:
                if not consent.plays(prefs, game):
                    await context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                                        f"bot {entrant.name} does not play {game} (the games of its Hello)")
        try:
            run = await asyncio.to_thread(version_tests.open_test, prepared, request.seed or secrets.randbelow(2**62))
        except version_tests.Busy as error:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(error))
        version_tests.start(prepared, run, load_settings().grace_seconds)
        return arena_pb2.TestRef(test_id=str(run.tournament_id))

    async def FollowTest(self, request: arena_pb2.TestRef, context: Any) -> Any:
        test_id = await self._id(request.test_id, "test", context)
        peer = await self._open_stream(context)
        try:
            last = None
            while True:
                state = await self._db(lambda c: paired.test_state(c, test_id), read=True)
                if state is None:
                    await context.abort(grpc.StatusCode.NOT_FOUND, f"no test {request.test_id!r}")
                progress = state.get("progress") or {}
                hypotheses = sprt.Hypotheses(state["elo0"], state["elo1"])
                # A server's test whose server stopped is taken over by another (still running).
                shown = paired.STOPPED if paired.stale(state) and not state.get("server") else state["state"]
                message = arena_pb2.TestProgress(
                    test_id=str(test_id), state=shown, groups=progress.get("groups", 0),
                    llr=progress.get("llr", 0.0), lower=hypotheses.lower, upper=hypotheses.upper,
                    report_json=json.dumps(state["report"]) if "report" in state else "")
                if message != last:
                    yield message
                    last = message
                if shown != paired.RUNNING:
                    return
                await asyncio.sleep(FOLLOW_POLL)
        finally:
            self._close_stream(peer)

    async def _count_challenge(self, bot_id: str, context: Any) -> None:
        """One challenge (or test) of the calling bot against ``ARENA_CHALLENGES_PER_MINUTE``."""
        try:
            wait = await asyncio.to_thread(self.challenge_rate.hit, bot_id)
        except Unavailable as error:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"{error}: try again shortly")
        if wait is not None:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"at most {self.settings.challenges_per_minute} challenges a minute: "
                                f"try again in {wait} s")

    async def AnalyseMatch(self, request: arena_pb2.AnalyseMatchRequest, context: Any) -> arena_pb2.AnalysisReply:
        """The kept analysis, or one queued for a worker (counted against the caller's rate:
        its bot, or its address when anonymous), or why its last computation failed (told
        once: asked again, it is queued again). Never computed here: it runs game code for
        minutes."""
        await self._count_read(context)
        match_id = await self._id(request.match_id, "match", context)
        seat = int(request.seat)
        budget = self.analyses.budget
        try:
            found = await self._db(lambda c: analyses.lookup(c, match_id, seat, budget), read=True)
        except NotFound:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
        except analyses.Sealed as error:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, brief(str(error)))
        except BadInput as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, brief(str(error)))
        if found is not None:
            return arena_pb2.AnalysisReply(status="done", analysis_json=json.dumps(found, sort_keys=True))
        reason = await asyncio.to_thread(self.analyses.failure, match_id, seat)
        if reason is not None:  # told once; asked again, it is queued again
            return arena_pb2.AnalysisReply(status="failed", reason=reason)
        if (match_id, seat) in self.analyses:
            return arena_pb2.AnalysisReply(status="queued")
        who = await self.access.caller(context)
        if not who.admin:
            asker = f"bot:{who.bot.bot_id}" if who.bot is not None else f"peer:{peer_address(context)}"
            wait = self.analysis_rate.hit(asker)
            if wait is not None:
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                    f"at most {self.settings.analysis_per_minute} analyses a minute: "
                                    f"try again in {wait} s", trailing_metadata=(("retry-after", str(wait)),))
        try:
            await asyncio.to_thread(self.analyses.ask, match_id, seat)
        except Busy as error:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(error))
        return arena_pb2.AnalysisReply(status="queued")


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
    from workers.follow import run_tournament

    threading.Thread(target=run_tournament, args=(tournament_id,), kwargs={"wait": False},
                     name=f"tournament-{tournament_id}", daemon=True).start()
