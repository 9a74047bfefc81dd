"""``arena tournament create|run|status|list|retry-failed|cancel``: round robins of bots over games.

Following a tournament (``--run``, ``run``, ``status``) rides through a database outage with a
one-line notice on stderr; failed matches are listed with their errors, and
``retry-failed`` schedules them again once the operator has fixed their cause.

With ``--json`` every command that acts on one tournament prints the document ``status
--json`` prints (plus what the command did: ``matches``, ``rescheduled``, ``cancelled``), so
that a script reads one shape whichever step it took."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import sqlalchemy as sa

from arena import games
from arena.clock import Clock
from arena.errors import BadInput
from arena.server.ids import parse_id
from arena.store import db, disclosure, queries
from arena.store.statuses import MatchStatus, TournamentStatus
from arena.tournaments import cancel_tournament, create_tournament, same_deals

from .jsonout import add_json_flag, human_stream, print_json
from .progress import ProgressBar
from .tournament_remote import create_on_server, refuse_unreachable

# Bounds of ``tournament list --limit``: the web API's listings stop at the same 1000 rows.
LIST_LIMIT = (1, 1000)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("tournament", help="create, run, follow and cancel tournaments")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    create = actions.add_parser("create", help="draw up a round robin (and run it with --run)")
    create.add_argument("--game", action="append", required=True,
                        help="a game (repeatable, or comma separated; 'all' for every game)")
    create.add_argument("--bots", default="heuristic,random,random-2",
                        help="bot names, comma separated, in any case: registered bots, or house bots "
                             "(house:heuristic, or plainly heuristic; random-2 is a second random) "
                             "(default %(default)s)")
    create.add_argument("--sizes", default="", help="table sizes, e.g. 2,3 (default: every legal size)")
    create.add_argument("--repetitions", type=int, default=1, help="fresh deals per group")
    create.add_argument("--seed", type=int, default=None,
                        help="master seed (default: drawn at random); deals are derived from it under "
                             "a secret key drawn for each tournament, so a seed alone reproduces no deal")
    create.add_argument("--same-deals-as", type=int, default=None, metavar="T",
                        help="deal exactly the cards of tournament T (its master seed and secret deal key; "
                             "the same games, table sizes, repetitions and number of bots give every group T's deal)")
    create.add_argument("--name", default="")
    create.add_argument("--unrated", action="store_true", help="practice: ratings are not changed")
    create.add_argument("--move-time", type=float, default=Clock().move, help="seconds per decision")
    create.add_argument("--time-bank", type=float, default=Clock().bank, help="overage seconds per match")
    create.add_argument("--option", action="append", default=[], metavar="GAME.NAME=VALUE",
                        help="a rule option for one game")
    create.add_argument("--run", action="store_true", help="dispatch the matches and wait for the end")
    create.add_argument("--address", metavar="HOST:PORT",
                        help="send the tournament to the running server there (Arena.CreateTournament, with "
                             "the admin token), where external bots are connected, instead of writing it here")
    create.add_argument("--token", default=None, help="with --address: the admin token (default ARENA_ADMIN_TOKEN)")
    create.add_argument("--ca", type=Path, metavar="FILE",
                        help="with --address: TLS, trusting this PEM certificate (default ARENA_TLS_CA)")
    create.add_argument("--tls", action="store_true", default=None,
                        help="with --address: TLS, trusting the system's roots (default ARENA_TLS=1)")
    add_json_flag(create)
    create.set_defaults(func=run_create)

    run = actions.add_parser("run", help="dispatch a tournament's pending matches")
    run.add_argument("id", help="the tournament's id")
    run.add_argument("--no-wait", action="store_true", help="return once the tasks are sent")
    add_json_flag(run)
    run.set_defaults(func=run_run)

    status = actions.add_parser("status", help="done/total per game")
    status.add_argument("id", help="the tournament's id")
    add_json_flag(status)
    status.set_defaults(func=run_status)

    listing = actions.add_parser("list", help="tournaments, newest first")
    listing.add_argument("--limit", default="20", metavar="N",
                         help=f"at most this many ({LIST_LIMIT[0]}-{LIST_LIMIT[1]}, default %(default)s)")
    listing.add_argument("--status", choices=[s.value for s in TournamentStatus], help="only tournaments in this state")
    add_json_flag(listing)
    listing.set_defaults(func=run_list)

    retry = actions.add_parser("retry-failed", help="schedule the failed matches again and dispatch them")
    retry.add_argument("id", help="the tournament's id")
    retry.add_argument("--no-wait", action="store_true", help="return once the tasks are sent")
    add_json_flag(retry)
    retry.set_defaults(func=run_retry_failed)

    cancel = actions.add_parser("cancel", help="cancel the matches not started yet")
    cancel.add_argument("id", help="the tournament's id")
    add_json_flag(cancel)
    cancel.set_defaults(func=run_cancel)


def bounded(text: str, option: str, low: int, high: int) -> int:
    """``text`` as a whole number from ``low`` to ``high``. Checked by the command rather than
    by argparse so that a bad value is one ``arena:`` line (exit code 2) like every other
    refused input, not a usage block."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise BadInput(f"{option} {text}: expected a whole number from {low} to {high}")
    return value


def parse_games(values: list[str]) -> list[str]:
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    if "all" in names:
        return games.names()
    return [games.get(n).name for n in names]


def parse_sizes(text: str) -> list[int] | None:
    """``--sizes 2,3`` as table sizes (None when empty: every legal size)."""
    try:
        return [int(s) for s in text.split(",") if s.strip()] or None
    except ValueError:
        raise BadInput(f"--sizes {text}: expected table sizes such as 2,3") from None


def parse_game_options(pairs: list[str]) -> dict[str, dict]:
    options: dict[str, dict] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        game, dot, name = key.partition(".")
        if not (sep and dot):
            raise BadInput(f"option {pair!r}: expected GAME.NAME=VALUE")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        options.setdefault(game, {})[name] = value
    return options


def run_create(args: argparse.Namespace) -> int:
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    sizes = parse_sizes(args.sizes)
    if args.same_deals_as is not None and args.seed is not None:
        raise BadInput("--seed and --same-deals-as: give one or the other (--same-deals-as copies the seed)")
    if args.address:
        return run_on_server(args, bots, sizes)
    if args.token or args.tls or args.ca:
        raise BadInput("--token, --tls and --ca are for a server: give its --address HOST:PORT too")
    if args.run:
        refuse_unreachable(bots)  # played here, embedded: no external bot can be connected
        from workers.send import check_broker

        check_broker()  # before writing: an unreachable broker must not leave a tournament behind
    with db.transaction() as connection:
        seed, key = args.seed, None
        if args.same_deals_as is not None:
            seed, key = same_deals(connection, args.same_deals_as)
        tournament_id = create_tournament(
            connection, parse_games(args.game), bots, sizes, args.repetitions, seed,
            rated=not args.unrated, name=args.name, move_time=args.move_time,
            time_bank=args.time_bank, options=parse_game_options(args.option), deal_key=key,
        )
        status = queries.tournament_status(connection, tournament_id)
    total = sum(g["total"] for g in status["games"].values())
    print(f"tournament {tournament_id}: {total} matches over {', '.join(status['games'])}", file=human_stream(args))
    if args.run:
        return follow(tournament_id, wait=True, as_json=args.json, extra={"matches": total})
    if args.json:
        print_json(status | {"failures": [], "matches": total})
    return 0


def run_on_server(args: argparse.Namespace, bots: list[str], sizes: list[int] | None) -> int:
    """``create --address``: the tournament made (and with ``--run`` played) by the server.
    Exit code 0 only when it is created, or with ``--run`` done with no failed match."""
    followed = create_on_server(args, parse_games(args.game), bots, sizes, parse_game_options(args.option))
    if followed is None:
        return 0
    status, failed = followed
    if args.json:
        print_json(status | {"failures": failed})
    else:
        print_status(status, failed)
    return 0 if status["status"] == TournamentStatus.DONE and not failed else 1


def follow(tournament_id: int, wait: bool, as_json: bool = False, extra: dict | None = None) -> int:
    """Dispatch the tournament's pending matches, show progress, print the status (or, with
    ``as_json``, the status document with ``extra`` beside it). Exit code 1 when the
    tournament was waited for and ended with failed matches, so that a script can tell."""
    from workers.follow import run_tournament

    bar = ProgressBar(f"tournament {tournament_id}")
    notice = outage_notice(bar)
    try:
        status = run_tournament(tournament_id, wait=wait, progress=bar, notice=notice)
    finally:
        bar.close()
    failed = failures(tournament_id, notice)
    if as_json:
        print_json(status | {"failures": failed} | (extra or {}))
    else:
        print_status(status, failed)
    return 1 if wait and failed and status["status"] == TournamentStatus.DONE else 0


def outage_notice(bar: ProgressBar | None = None):
    """One line on stderr when the database becomes unreachable (off the progress bar's line)."""
    from workers.outage import stderr_notice

    def notice(error: BaseException) -> None:
        if bar is not None and bar.drawn:
            sys.stderr.write("\n")
        stderr_notice(error)

    return notice


def failures(tournament_id: int, notice=None) -> list[dict]:
    """The tournament's failed matches with their errors, in id order."""
    from arena.store.models import Match
    from workers.outage import ride_out

    match_t = Match.__table__

    def read() -> list[dict]:
        with db.read() as connection:
            rows = connection.execute(
                sa.select(match_t.c.id, match_t.c.tournament_id, match_t.c.game, match_t.c.seed, match_t.c.error)
                .where(match_t.c.tournament_id == tournament_id, match_t.c.status == MatchStatus.FAILED)
                .order_by(match_t.c.id)
            ).all()
            withheld = disclosure.withheld_errors(connection, rows)
        return [{"match": row.id, "game": row.game,
                 "error": WITHHELD if row.id in withheld else row.error or ""} for row in rows]

    return ride_out(read, "command", notice=notice)


def run_run(args: argparse.Namespace) -> int:
    args.id = parse_id(args.id, "tournament")  # a bad id is one line, exit code 2
    return follow(args.id, wait=not args.no_wait, as_json=args.json)


SHOWN_FAILURES = 20
WITHHELD = "(error withheld while its deal is being played)"


def print_status(status: dict, failed: list[dict] | None = None) -> None:
    rated = "rated" if status["rated"] else "unrated"
    closed = status["status"]
    if closed == TournamentStatus.DONE and failed:
        closed = f"{closed} with {len(failed)} failed"
    print(f"tournament {status['id']} ({status['name']}, {rated}): {closed}")
    for game, counts in status["games"].items():
        extra = "".join(f", {counts[k]} {k}" for k in (MatchStatus.FAILED, MatchStatus.CANCELLED) if counts[k])
        print(f"  {game:<22} {counts[MatchStatus.DONE]:>6}/{counts['total']:<6} done{extra}")
    if failed:
        print("failed matches (`arena tournament retry-failed ID` plays them again):")
        for row in failed[:SHOWN_FAILURES]:
            print(f"  match {row['match']} ({row['game']}): {row['error']}")
        if len(failed) > SHOWN_FAILURES:
            print(f"  ... and {len(failed) - SHOWN_FAILURES} more (--json lists them all)")


def run_status(args: argparse.Namespace) -> int:
    args.id = parse_id(args.id, "tournament")  # a bad id is one line, exit code 2
    from workers.follow import read_status

    notice = outage_notice()
    status = read_status(args.id, notice)
    failed = failures(args.id, notice)
    if args.json:
        print_json(status | {"failures": failed})
    else:
        print_status(status, failed)
    return 0


def run_list(args: argparse.Namespace) -> int:
    from arena.web import queries as web_queries

    limit = bounded(args.limit, "--limit", *LIST_LIMIT)
    with db.read() as connection:
        # The web face's listing (the same rows and figures as /api/v1/tournaments, where
        # ``done`` counts every finished match), with the failures the operator acts on.
        rows = web_queries.tournaments(connection, args.status, limit)
        failed = queries.failed_match_counts(connection, [row["id"] for row in rows])
    rows = [row | {"failed": failed.get(row["id"], 0)} for row in rows]
    if args.json:
        print_json(rows)
    else:
        print_tournaments(rows)
    return 0


def print_tournaments(rows: list[dict]) -> None:
    from rich import box
    from rich.table import Table

    from . import console, print_table

    out = console()
    if not rows:
        out.print("no tournaments")
        return
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    for header in ("id", "name", "games", "status", "matches", "failed", "created"):
        table.add_column(header, justify="right" if header in ("id", "matches", "failed") else "left",
                         no_wrap=header != "games")
    for row in rows:
        status = row["status"] + ("" if row["rated"] else ", unrated")
        table.add_row(str(row["id"]), row["name"] or "-", ", ".join(row["games"]), status,
                      f"{row['done']}/{row['total']}", str(row["failed"]),
                      row["created_at"].strftime("%Y-%m-%d %H:%M"))
    print_table(table, out)


def run_retry_failed(args: argparse.Namespace) -> int:
    args.id = parse_id(args.id, "tournament")  # a bad id is one line, exit code 2
    from arena.tournaments.play import reschedule_failed
    from workers.send import check_broker

    check_broker()  # before changing anything: the matches must be sent once scheduled
    with db.transaction() as connection:
        ids = reschedule_failed(connection, args.id)
    print(f"tournament {args.id}: {len(ids)} failed matches scheduled again", file=human_stream(args))
    return follow(args.id, wait=not args.no_wait, as_json=args.json, extra={"rescheduled": sorted(ids)})


def run_cancel(args: argparse.Namespace) -> int:
    args.id = parse_id(args.id, "tournament")  # a bad id is one line, exit code 2
    with db.transaction() as connection:
        cancelled = cancel_tournament(connection, args.id)
        status = queries.tournament_status(connection, args.id) if args.json else None
    if status is not None:
        print_json(status | {"failures": failures(args.id, outage_notice()), "cancelled": cancelled})
    else:
        print(f"tournament {args.id}: {cancelled} matches cancelled")
    return 0
