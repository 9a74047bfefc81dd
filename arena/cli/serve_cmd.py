"""``arena serve`` (optionally with the web face beside it), ``arena bot register|revoke`` and
``arena challenge``."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

from arena.clock import Clock
from arena.errors import ArenaError, BadInput
from arena.referee.loops import new_event_loop
from arena.server.settings import ServerSettings
from arena.store.statuses import MatchStatus

from .jsonout import add_json_flag, print_json
from .options import host_port, parse_options


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser("serve", help="run the gRPC server: bot gateway, Arena and Rules services")
    serve.add_argument("--address", help="host:port (default ARENA_GRPC_ADDRESS or 127.0.0.1:50051)")
    serve.add_argument("--metrics-port", type=int, help="gateway /metrics port (default 9809, 0 = off)")
    serve.add_argument("--web", metavar="HOST:PORT", nargs="?", const="127.0.0.1:8080", default=None,
                       help="also serve the web face (pages and JSON API) there, from a process "
                            "of its own that stops with the server (default when given alone: %(const)s)")
    serve.set_defaults(func=run_serve)

    bot = subparsers.add_parser("bot", help="register or revoke external bots")
    actions = bot.add_subparsers(dest="bot_command", metavar="ACTION", required=True)
    reg = actions.add_parser("register", help="register a bot and print its token (shown once)")
    reg.add_argument("name")
    reg.add_argument("--owner", default="", help="who to contact about this bot")
    add_json_flag(reg)
    reg.set_defaults(func=run_register)
    rev = actions.add_parser("revoke", help="revoke every token of a bot")
    rev.add_argument("name")
    add_json_flag(rev)
    rev.set_defaults(func=run_revoke)
    ver = actions.add_parser("new-version", help="register the next version of your bot, with its token, on "
                             "the running server (the old version keeps its history and leaves the ladder)")
    ver.add_argument("name", nargs="?", default="", help="the new version's name (default <first name>-v<N>)")
    ver.add_argument("--owner", default="", help="who to contact about this version")
    ver.add_argument("--token", default=None, help="the bot's token (default ARENA_BOT_TOKEN)")
    ver.add_argument("--address", help="the server (default ARENA_ADDRESS or 127.0.0.1:50051)")
    ver.add_argument("--ca", type=Path, metavar="FILE", help="connect with TLS, trusting this PEM certificate")
    ver.add_argument("--tls", action="store_true", default=None, help="connect with TLS, trusting the system's roots")
    add_json_flag(ver)
    ver.set_defaults(func=run_new_version)

    challenge = subparsers.add_parser("challenge", help="an unrated match against chosen opponents")
    challenge.add_argument("game")
    challenge.add_argument("players", nargs="+", help="by seat: bot names or house:<bot> (house:heuristic)")
    challenge.add_argument("--seed", type=int, default=0, help="a chosen deal (admin token only; default random)")
    challenge.add_argument("--token", default=None, help="a bot's token (default ARENA_BOT_TOKEN), or the admin "
                           "token (ARENA_ADMIN_TOKEN) to seat any bots")
    challenge.add_argument("--address", help="the server (default ARENA_ADDRESS or 127.0.0.1:50051)")
    challenge.add_argument("--option", action="append", metavar="NAME=VALUE")
    challenge.add_argument("--move-time", type=float, default=Clock().move,
                           help="seconds per decision (default %(default)g; a bot's challenge: at most "
                                "ARENA_CHALLENGE_MOVE_SECONDS on the server, 10 unless set)")
    challenge.add_argument("--time-bank", type=float, default=Clock().bank,
                           help="overage seconds per seat (default %(default)g; a bot's challenge: at most "
                                "ARENA_CHALLENGE_BANK_SECONDS on the server, 60 unless set)")
    challenge.add_argument("--ca", type=Path, metavar="FILE",
                           help="connect with TLS, trusting this PEM certificate (default ARENA_TLS_CA)")
    challenge.add_argument("--tls", action="store_true", default=None,
                           help="connect with TLS, trusting the system's roots (default ARENA_TLS=1)")
    add_json_flag(challenge)
    challenge.set_defaults(func=run_challenge)


def run_serve(args: argparse.Namespace) -> int:
    from arena.server import serve
    from arena.settings import load

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    model = load()
    settings = ServerSettings.from_settings(model)
    if args.address:
        settings = dataclasses.replace(settings, address=args.address)
    port = model.gateway_metrics_port if args.metrics_port is None else args.metrics_port
    web = None
    if args.web:
        serve.prepare_store()  # before the web face reads it (``serve.start`` finds it made)
        web = start_web_process(args.web)
        logging.getLogger("arena.serve").info("web face on http://%s/ (process %d)", args.web, web.pid)
    try:
        with asyncio.Runner(loop_factory=new_event_loop) as runner:
            runner.run(serve.serve_forever(settings, port, model.gateway_metrics_address))
    finally:
        if web is not None:
            stop_process(web)
    return 0


def start_web_process(address: str) -> subprocess.Popen[bytes]:
    """The web face (``python -m arena.web``) in a process of its own: its pages and replays
    never take the interpreter that times the bots' moves, and at a lower CPU priority
    (``WEB_NICENESS``) they wait when the machine is busy, not the moves. It inherits the
    settings from the environment, and the kernel ends it should this process die without
    stopping it."""
    host_port(address, "--web")
    return subprocess.Popen([sys.executable, "-m", "arena.web", "--address", address, "--log-level", "warning"],
                            preexec_fn=_web_child if sys.platform == "linux" else None)


WEB_NICENESS = 10  # added to the web face's niceness: readers get the CPU the live path leaves


def _web_child() -> None:
    """In the child, before it runs: a lower priority, and SIGTERM when the parent dies (Linux
    ``PR_SET_PDEATHSIG``)."""
    import ctypes
    import signal

    os.nice(WEB_NICENESS)
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


def stop_process(process: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    """SIGTERM, then SIGKILL if it has not ended within ``grace`` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_register(args: argparse.Namespace) -> int:
    from arena.store import bot_tokens, db

    with db.transaction() as connection:
        made = bot_tokens.register(connection, args.name, args.owner)
    if args.json:
        print_json({"id": made.bot_id, "name": made.name, "owner": args.owner, "token": made.token})
        return 0
    print(f"registered bot {made.name} (id {made.bot_id})")
    print(f"token: {made.token}")
    print("This token is shown once. Run your bot with ARENA_BOT_TOKEN set to it.")
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    from arena.store import bot_tokens, db

    with db.transaction() as connection:
        found = bot_tokens.revoke(connection, args.name)
    if args.json:
        print_json({"name": args.name, "revoked": bool(found)})
    else:
        print(f"revoked every token of {args.name}" if found else f"no external bot named {args.name}")
    return 0 if found else 1


def bot_or_admin_token(args: argparse.Namespace, what: str) -> str:
    """A client's token: ``--token``, else ``ARENA_BOT_TOKEN`` (the bot SDK's own client-side
    variable, ``arena_bot``, not a server setting), else the admin token of the settings."""
    from arena.settings import load

    token = args.token or os.environ.get("ARENA_BOT_TOKEN") or load().admin_token
    if not token:
        raise BadInput(f"{what} needs a bot's token (--token or ARENA_BOT_TOKEN) or ARENA_ADMIN_TOKEN")
    return str(token)


def run_challenge(args: argparse.Namespace) -> int:
    """Ask the running server (``arena serve`` at ARENA_ADDRESS) for the challenge, so that it is
    played where the bots are connected, then wait for the result."""
    quiet_grpc_core()
    import grpc
    from arena_bot.v1 import arena_pb2, arena_pb2_grpc

    from arena import games
    from arena.server.challenge import client_channel

    options = parse_options(games.get(args.game), args.option)
    # A client of the server: ARENA_ADDRESS is the bot SDK's own client-side variable.
    address = args.address or os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051")
    token = bot_or_admin_token(args, "a challenge")
    with client_channel(address, args.ca, args.tls) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        try:
            ref = stub.Challenge(arena_pb2.ChallengeRequest(game=args.game, players=args.players,
                                                             options_json=json.dumps(options), seed=args.seed,
                                                             move_deadline_ms=milliseconds(args.move_time),
                                                             time_bank_ms=milliseconds(args.time_bank)),
                                 metadata=(("authorization", f"Bearer {token}"),), timeout=60)
        except grpc.RpcError as error:
            raise ArenaError(f"{address}: {error.details()}") from None
        # A notice, not the result: on stderr, so that stdout holds the result alone.
        print(f"challenge match {ref.match_id} on {address}: waiting for {', '.join(args.players)}",
              file=sys.stderr, flush=True)
        try:
            while (detail := stub.GetMatch(ref, timeout=30)).summary.status in MatchStatus.PENDING:
                time.sleep(0.3)
        except grpc.RpcError as error:
            raise ArenaError(f"{address}: match {ref.match_id}: {error.details()}") from None
    result = challenge_result(detail)
    if args.json:
        print_json(result)
    else:
        print_challenge(result)
    return 0 if result["status"] == MatchStatus.DONE else 1


def quiet_grpc_core() -> None:
    """For a command that is a client of the server. gRPC's core logs a refused TLS handshake
    on stderr at INFO, beside the one line the user gets for it; set before gRPC is first
    imported, where it is read. An explicit setting wins."""
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")


def milliseconds(seconds: float) -> int:
    """A clock for the request, in range for its ``uint32`` (the server checks the rest)."""
    if not 0 <= seconds <= 4_000_000:
        raise BadInput(f"a clock of {seconds:g} s is out of range")
    return round(seconds * 1000)


def challenge_result(detail) -> dict:
    """A finished (or aborted) challenge from the server's ``MatchDetail``: rank, score,
    strikes and forfeit by seat (None when aborted), the seed (None while the deal is sealed)
    and the moves made."""
    summary = detail.summary
    results = {s.seat: s for s in detail.seats}
    seats = []
    for seat, bot in enumerate(summary.players):
        found = results.get(seat)
        seats.append({"seat": seat, "bot": bot, "rank": found.rank if found else None,
                      "score": found.score if found else None, "strikes": found.strikes if found else None,
                      "forfeited": found.forfeited if found else None})
    return {"match": int(summary.match_id), "game": summary.game, "status": summary.status,
            "seed": None if detail.sealed else detail.seed, "moves": len(detail.decisions),
            "winners": [s["seat"] for s in seats if s["rank"] == 1], "seats": seats}


def print_challenge(result: dict) -> None:
    print(f"match {result['match']} ({result['game']}): {result['status']}"
          + (f", seed {result['seed']}, {result['moves']} moves" if result["status"] == MatchStatus.DONE else ""))
    for seat in result["seats"]:
        finish = f"rank {seat['rank']}, score {seat['score']:g}" if seat["rank"] is not None else "no result"
        if seat["forfeited"]:
            finish += ", forfeited"
        elif seat["strikes"]:
            finish += f", {seat['strikes']} strike{'s' if seat['strikes'] > 1 else ''}"
        print(f"  seat {seat['seat']}: {seat['bot']:<16} {finish}")


def run_new_version(args: argparse.Namespace) -> int:
    """Ask the running server for the calling bot's next version (Arena.RegisterVersion)."""
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")  # one line for a refused handshake, as ``challenge``
    import grpc
    from arena_bot.v1 import arena_pb2, arena_pb2_grpc

    from arena.server.challenge import client_channel

    # Client-side variables of the bot SDK (``arena_bot``), not the server's settings.
    address = args.address or os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051")
    token = args.token or os.environ.get("ARENA_BOT_TOKEN")
    if not token:
        raise BadInput("a new version is registered with the bot's own token (--token or ARENA_BOT_TOKEN)")
    with client_channel(address, args.ca, args.tls) as channel:
        try:
            made = arena_pb2_grpc.ArenaStub(channel).RegisterVersion(
                arena_pb2.RegisterVersionRequest(name=args.name, owner=args.owner),
                metadata=(("authorization", f"Bearer {token}"),), timeout=30)
        except grpc.RpcError as error:
            raise ArenaError(f"{address}: {error.details()}") from None
    if args.json:
        print_json({"id": int(made.bot_id), "name": made.name, "token": made.token})
        return 0
    print(f"registered {made.name} (id {made.bot_id}), the new version; the old one leaves the ladder")
    print(f"token: {made.token}")
    print("This token is shown once. Run the new version with ARENA_BOT_TOKEN set to it.")
    return 0
