"""``arena test A B --address HOST:PORT``: the test played by the running server, where
registered bots are connected (``Arena.StartTest`` with a bot's token, or the admin token),
and followed there to its verdict (``Arena.FollowTest``) with the same bar and report as a
test played here."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.errors import ArenaError
from arena.stats import sprt

from .tournament_remote import CALL_SECONDS, FOLLOW_SECONDS, calls


def run_on_server(args: argparse.Namespace, game_names: list[str], hypotheses: sprt.Hypotheses, cap: int,
                  players: int, field: list[str], bar: Any) -> dict[str, Any]:
    """Start the test on the server at ``args.address`` and follow it to its end, drawing
    ``bar(llr, groups)``; returns its report (the document of ``arena test --json``)."""
    from arena_bot.v1 import arena_pb2, arena_pb2_grpc

    from arena.server.challenge import client_channel

    from .serve_cmd import bot_or_admin_token, quiet_grpc_core

    quiet_grpc_core()
    wanted = arena_pb2.StartTestRequest(base=args.base, candidate=args.candidate, games=game_names,
                                        elo0=hypotheses.elo0, elo1=hypotheses.elo1, max_groups=cap,
                                        seed=args.seed or 0, players=players, field=field)
    metadata = (("authorization", f"Bearer {bot_or_admin_token(args, 'a test on a server')}"),)
    address = args.address
    last = None
    with client_channel(address, args.ca, args.tls) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        with calls(address, ""):
            ref = stub.StartTest(wanted, metadata=metadata, timeout=CALL_SECONDS)
        with calls(address, f"test {ref.test_id}: "):
            for last in stub.FollowTest(ref, metadata=metadata, timeout=FOLLOW_SECONDS):
                if last.groups:
                    bar(last.llr, last.groups)
    if last is not None and not last.report_json and last.state == "stopped":
        raise ArenaError(f"{address}: test {ref.test_id}: its server stopped playing it after {last.groups} groups")
    if last is None or not last.report_json:
        raise ArenaError(f"{address}: test {ref.test_id}: the server ended the stream before the test's end")
    return dict(json.loads(last.report_json), address=address)
