"""``arena serve`` (optionally with the web face beside it), ``arena bot register|revoke`` and
``arena challenge``."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import time

from arena.server.settings import ServerSettings


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser("serve", help="run the gRPC server: bot gateway, Arena and Rules services")
    serve.add_argument("--address", help="host:port (default ARENA_GRPC_ADDRESS or 127.0.0.1:50051)")
    serve.add_argument("--metrics-port", type=int, help="gateway /metrics port (default 9809, 0 = off)")
    serve.add_argument("--web", metavar="HOST:PORT", nargs="?", const="127.0.0.1:8080", default=None,
                       help="also serve the web face (read-only pages and JSON API) there "
                            "(default when given alone: %(const)s)")
    serve.set_defaults(func=run_serve)

    bot = subparsers.add_parser("bot", help="register or revoke external bots")
    actions = bot.add_subparsers(dest="bot_command", metavar="ACTION", required=True)
    reg = actions.add_parser("register", help="register a bot and print its token (shown once)")
    reg.add_argument("name")
    reg.add_argument("--owner", default="", help="who to contact about this bot")
    reg.set_defaults(func=run_register)
    rev = actions.add_parser("revoke", help="revoke every token of a bot")
    rev.add_argument("name")
    rev.set_defaults(func=run_revoke)

    challenge = subparsers.add_parser("challenge", help="an unrated match against chosen opponents")
    challenge.add_argument("game")
    challenge.add_argument("players", nargs="+", help="by seat: bot names or house:<bot> (house:heuristic)")
    challenge.add_argument("--seed", type=int, default=0, help="a chosen deal (admin token only; default random)")
    challenge.add_argument("--token", default=None, help="a bot's token (default ARENA_BOT_TOKEN), or the admin "
                           "token (ARENA_ADMIN_TOKEN) to seat any bots")
    challenge.add_argument("--address", help="the server (default ARENA_ADDRESS or 127.0.0.1:50051)")
    challenge.add_argument("--option", action="append", metavar="NAME=VALUE")
    challenge.set_defaults(func=run_challenge)


def run_serve(args: argparse.Namespace) -> int:
    from arena.server import serve

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    settings = ServerSettings.from_env()
    if args.address:
        settings = ServerSettings(**{**settings.__dict__, "address": args.address})
    port = serve.metrics_port_from_env() if args.metrics_port is None else args.metrics_port
    if args.web:
        from arena.store import db
        from arena.web import background
        from arena.web.app import create_app

        db.engine()  # the gRPC side writes: the schema is made before the web face reads it
        host, web_port = args.web.rsplit(":", 1)
        web = background.start(create_app(None), host, int(web_port))
        logging.getLogger("arena.serve").info("web face on %s", web.url)
    asyncio.run(serve.serve_forever(settings, port))
    return 0


def run_register(args: argparse.Namespace) -> int:
    from arena.store import bot_tokens, db

    with db.transaction() as connection:
        made = bot_tokens.register(connection, args.name, args.owner)
    print(f"registered bot {made.name} (id {made.bot_id})")
    print(f"token: {made.token}")
    print("This token is shown once. Run your bot with ARENA_BOT_TOKEN set to it.")
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    from arena.store import bot_tokens, db

    with db.transaction() as connection:
        found = bot_tokens.revoke(connection, args.name)
    print(f"revoked every token of {args.name}" if found else f"no external bot named {args.name}")
    return 0 if found else 1


def run_challenge(args: argparse.Namespace) -> int:
    """Ask the running server (``arena serve`` at ARENA_ADDRESS) for the challenge, so that it is
    played where the bots are connected, then wait for the result."""
    import os

    import grpc

    from arena import games
    from arena.v1 import arena_pb2, arena_pb2_grpc

    from .options import parse_options

    options = parse_options(games.get(args.game), args.option)
    address = args.address or os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051")
    token = args.token or os.environ.get("ARENA_BOT_TOKEN") or os.environ.get("ARENA_ADMIN_TOKEN")
    if not token:
        raise ValueError("a challenge needs a bot's token (--token or ARENA_BOT_TOKEN) or ARENA_ADMIN_TOKEN")
    with grpc.insecure_channel(address) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        try:
            ref = stub.Challenge(arena_pb2.ChallengeRequest(game=args.game, players=args.players,
                                                             options_json=json.dumps(options), seed=args.seed),
                                 metadata=(("authorization", f"Bearer {token}"),))
        except grpc.RpcError as error:
            raise ValueError(f"{address}: {error.details()}") from None
        print(f"challenge match {ref.match_id} on {address}: waiting for {', '.join(args.players)}")
        while (detail := stub.GetMatch(ref)).summary.status in ("scheduled", "running"):
            time.sleep(0.3)
    summary = detail.summary
    print(json.dumps({"match": summary.match_id, "status": summary.status,
                      "seats": [{"bot": b, "rank": r} for b, r in zip(summary.players, summary.ranks, strict=False)]},
                     indent=1))
    return 0 if summary.status == "done" else 1
