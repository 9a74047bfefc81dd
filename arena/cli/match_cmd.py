"""``arena match show ID``: a recorded match, its seats and its transcript, readable.
``arena match analyse ID --seat N``: one seat's decisions valued by the search bot.

A match whose deal is still being played (the match itself, or a duplicate-format rotation
of the same deal) is shown sealed: no seed, no results, no transcript (``arena.store.disclosure``)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.server.ids import parse_id
from arena.store import db, disclosure, queries
from arena.store.statuses import MatchStatus

from .jsonout import add_json_flag, print_json

# How often and how long ``analyse --address`` asks the server again while its workers compute.
POLL_SECONDS = 1.0
WAIT_SECONDS = 3600.0
PLURALS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("match", help="show recorded matches")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="a match and its transcript")
    show.add_argument("id", help="the match's id")  # parsed by the command: a bad id is one line
    show.add_argument("--json", action="store_true", help="the raw transcript")
    show.set_defaults(func=run_show)
    analyse = actions.add_parser("analyse", help="one seat's decisions valued by the search bot")
    analyse.add_argument("id", help="the match's id")
    analyse.add_argument("--seat", type=int, required=True, help="the seat whose decisions are judged (from 0)")
    analyse.add_argument("--address", metavar="HOST:PORT",
                         help="ask the running server there (Arena.AnalyseMatch) and wait for its workers, "
                              "instead of computing it in this process on the store")
    analyse.add_argument("--token", default=None, help="with --address: a bot's or the admin token (optional)")
    analyse.add_argument("--ca", type=Path, metavar="FILE", help="with --address: TLS, trusting this PEM certificate")
    analyse.add_argument("--tls", action="store_true", default=None, help="with --address: TLS, the system's roots")
    add_json_flag(analyse)
    analyse.set_defaults(func=run_analyse)


def failure(match_id: int) -> str:
    """Why a failed match failed (``match.error``), withheld like the deal while a match
    replaying the same deal is unfinished (an error may quote a card)."""
    import sqlalchemy as sa

    from arena.store.models import Match

    match_t = Match.__table__
    with db.read() as connection:
        row = connection.execute(
            sa.select(match_t.c.id, match_t.c.game, match_t.c.seed, match_t.c.error)
            .where(match_t.c.id == match_id)
        ).one()
        if disclosure.withheld_errors(connection, [row]):
            return "withheld while its deal is being played"
    return row.error or "(not recorded)"


def run_show(args: argparse.Namespace) -> int:
    args.id = parse_id(args.id, "match")
    with db.read() as connection:
        match = disclosure.public_detail(connection, queries.match_detail(connection, args.id))
    transcript = match["transcript"]
    if args.json:
        print(json.dumps(transcript, indent=1, default=str))
        return 0
    rated = "rated" if match["rated"] else "unrated"
    seed = "sealed until its deal is over" if match["sealed"] else f"seed {match['seed']}"
    print(f"match {match['id']}: {match['game']}, {seed}, {rated}, {match['status']}"
          + (f", tournament {match['tournament_id']}" if match["tournament_id"] else ""))
    if match["status"] == MatchStatus.FAILED:
        print(f"  error: {failure(args.id)}")
    if match["options"]:
        print(f"  options {json.dumps(match['options'])}")
    by_seat = {s["seat"]: s for s in match["seats"]}
    for seat, bot in enumerate(match["seating"]):
        s = by_seat.get(seat)
        finish = (f"rank {s['rank']}, score {s['score']:g}, strikes {s['strikes']}"
                  + (", forfeited" if s["forfeited"] else "")) if s else "not finished"
        print(f"  seat {seat}: {bot:<16} {finish}")
    if transcript:
        print(f"  {len(transcript['decisions'])} decisions in {match['duration_ms']:.1f} ms"
              + (" (turn cap reached)" if transcript["capped"] else ""))
        # Numbered from 1 as on the web page (decision N, #dN) and in `arena play`; the turn
        # id beside it is the protocol's, from 0 (docs/protocol.md).
        for number, (turn, seat, action, ms, code) in enumerate(transcript["decisions"], 1):
            flag = "" if code == "ok" else f"  [{code}]"
            print(f"  {number:>5}  turn {turn:<5}  seat {seat}  {action:<30} {ms:>8.2f} ms{flag}")
    return 0


def run_analyse(args: argparse.Namespace) -> int:
    match_id = parse_id(args.id, "match")
    found = ask_server(args, match_id) if args.address else here(match_id, args.seat)
    if args.json:
        print_json(found)
        return 0
    for line in described(match_id, found):
        print(line)
    return 0


def here(match_id: int, seat: int) -> dict[str, Any]:
    """The kept analysis, or computed now in this process (and kept) with the settings' budget."""
    from arena.referee.analysis import AnalysisBudget
    from arena.settings import load
    from arena.store import analyses

    return analyses.analyse_match(match_id, seat, AnalysisBudget.from_settings(load()))


def ask_server(args: argparse.Namespace, match_id: int) -> dict[str, Any]:
    """``Arena.AnalyseMatch`` at ``args.address``, asked again until the workers have kept it."""
    import grpc
    from arena_bot.v1 import arena_pb2, arena_pb2_grpc

    from arena.server.challenge import client_channel

    metadata = (("authorization", f"Bearer {args.token}"),) if args.token else ()
    wanted = arena_pb2.AnalyseMatchRequest(match_id=str(match_id), seat=args.seat)
    deadline = time.monotonic() + WAIT_SECONDS
    with client_channel(args.address, args.ca, args.tls) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        while True:
            try:
                reply = stub.AnalyseMatch(wanted, metadata=metadata, timeout=60)
            except grpc.RpcError as error:
                raise ArenaError(f"{args.address}: {error.details() or error.code().name}") from None
            if reply.status == "done":
                return dict(json.loads(reply.analysis_json))
            if reply.status == "failed":  # told once: asking again would queue it again
                raise ArenaError(f"{args.address}: the analysis of match {match_id} seat {args.seat} failed: "
                                 f"{reply.reason}; ask again to compute it again")
            if time.monotonic() > deadline:
                raise ArenaError(f"{args.address}: the analysis of match {match_id} is still being computed")
            time.sleep(POLL_SECONDS)


def described(match_id: int, found: dict[str, Any]) -> list[str]:
    """The analysis for people: the summary, then one line per judged decision."""
    summary = found["summary"]
    marks = ", ".join(f"{count} {name if count == 1 else PLURALS[name]}" for name, count in summary["marks"].items())
    lines = [f"match {match_id}, seat {found['seat']} ({found['game']}, {found['scale']}, budget {found['key']}): "
             f"{summary['decisions']} decisions judged, average loss {summary['average_loss']:.1f} points, "
             f"accuracy {summary['accuracy']:.1f}; {marks}" + (" (cut short)" if found["truncated"] else "")]
    for d in found["decisions"]:
        mark = f"  {d['mark']}" if d["mark"] else ""
        better = "" if d["best"] == d["chosen"] else f"  best {d['best']}"
        lines.append(f"  {d['index'] + 1:>5}  turn {d['turn']:<5} {d['chosen']:<24} loss {d['loss']:5.1f} "
                     f"± {d['loss_half']:4.1f}{better}{mark}")
    for swing in summary["swings"]:
        lines.append(f"  swing {swing['swing']:+.1f} points at decision {swing['index'] + 1}")
    return lines
