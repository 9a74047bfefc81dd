"""``arena match show ID``: a recorded match, its seats and its transcript, readable.

A match whose deal is still being played (the match itself, or a duplicate-format rotation
of the same deal) is shown sealed: no seed, no results, no transcript (``arena.store.disclosure``)."""

from __future__ import annotations

import argparse
import json

from arena.server.ids import parse_id
from arena.store import db, disclosure, queries
from arena.store.statuses import MatchStatus


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("match", help="show recorded matches")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="a match and its transcript")
    show.add_argument("id", help="the match's id")  # parsed by the command: a bad id is one line
    show.add_argument("--json", action="store_true", help="the raw transcript")
    show.set_defaults(func=run_show)


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
