"""``arena test A B``: is the candidate B better than the base A? Paired duplicate groups are
played in batches until a sequential test decides (the GSPRT with normalized Elo bounds, as
fishtest tests engine changes), or the cap is reached.

With several games the test is one, over the groups of all of them (as many of each); the
estimate and the saving of pairing are shown per game too. docs/testing-a-version.md
explains how to read the output."""

from __future__ import annotations

import argparse
import math
import secrets
import sys
import time
from pathlib import Path

from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from arena import games
from arena.errors import BadInput
from arena.stats import sprt
from arena.store import db
from arena.tournaments import paired

from . import console
from .jsonout import add_json_flag, human_stream, print_json
from .tournament_cmd import bounded, outage_notice, parse_games

# Bounds of --max-groups, --players and of the field.
MAX_GROUPS = (1, 100_000)
PLAYERS = (2, 8)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "test", help="is bot B better than bot A? paired duplicate deals until a sequential test decides")
    parser.add_argument("base", metavar="A", help="the base: a house bot (search, heuristic, random, ...)")
    parser.add_argument("candidate", metavar="B", help="the candidate, tested against A")
    parser.add_argument("--game", action="append", required=True,
                        help="a game (repeatable, or comma separated; 'all' for every game)")
    parser.add_argument("--elo0", type=float, default=0.0, help="H0: B is this much better, in normalized Elo "
                        "(default %(default)s)")
    parser.add_argument("--elo1", type=float, default=5.0, help="H1: B is this much better, in normalized Elo "
                        "(default %(default)s)")
    parser.add_argument("--max-groups", default="2000", metavar="N",
                        help=f"stop undecided after this many groups ({MAX_GROUPS[0]}-{MAX_GROUPS[1]}, "
                             "default %(default)s)")
    parser.add_argument("--players", default="2", metavar="N", help="table size (default %(default)s)")
    parser.add_argument("--field", default=",".join(paired.DEFAULT_FIELD),
                        help="house bots in the other seats at a table of more than two (default %(default)s)")
    parser.add_argument("--seed", type=int, default=None, help="master seed (default: drawn at random; "
                        "on a server, the admin's alone)")
    parser.add_argument("--address", metavar="HOST:PORT",
                        help="play the test on the running server there, where registered bots are connected: "
                             "A and B are then versions of your bot (name, or name@N for its version N) or "
                             "house bots")
    parser.add_argument("--token", default=None, help="with --address: your bot's token (default ARENA_BOT_TOKEN), "
                        "or the admin token to test any bots")
    parser.add_argument("--ca", type=Path, metavar="FILE",
                        help="with --address: TLS, trusting this PEM certificate (default ARENA_TLS_CA)")
    parser.add_argument("--tls", action="store_true", default=None,
                        help="with --address: TLS, trusting the system's roots (default ARENA_TLS=1)")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    game_names = parse_games(args.game)
    try:
        hypotheses = sprt.Hypotheses(args.elo0, args.elo1)
    except ValueError as error:
        raise BadInput(f"--elo0/--elo1: {error}") from None
    cap = bounded(args.max_groups, "--max-groups", *MAX_GROUPS)
    players = bounded(args.players, "--players", *PLAYERS)
    field = [b.strip() for b in args.field.split(",") if b.strip()]
    if args.address:
        return finish(args, run_remote(args, game_names, hypotheses, cap, players, field))
    if args.token or args.tls or args.ca:
        raise BadInput("--token, --tls and --ca are for a server: give its --address HOST:PORT too")
    for name in game_names:
        game = games.get(name)
        if players not in game.player_counts(game.resolve_options(None)):
            raise BadInput(f"--players {players}: {name} is not played by {players}")
    lineup = paired.lineup(args.base, args.candidate, field, players, game_names)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**62)

    from workers import paired as playing
    from workers.send import check_broker

    check_broker()  # before writing: an unreachable broker must not leave a test behind
    spec = {"base": lineup.base, "candidate": lineup.candidate, "games": game_names, "players": players,
            "field": list(lineup.field), "elo0": hypotheses.elo0, "elo1": hypotheses.elo1, "max_groups": cap}
    with db.transaction() as connection:
        test = paired.open_test(connection, lineup, game_names, seed, spec)
    started = time.monotonic()
    plan = playing.Plan(test, lineup, game_names, hypotheses, cap)
    bar = LlrBar(hypotheses)
    try:
        played, llr, _ = playing.play_until_decided(plan, bar, notice=outage_notice())
    finally:
        bar.close()
    with db.transaction() as connection:
        paired.record_progress(connection, test.tournament_id, state=paired.DONE)
    return finish(args, playing.summary(plan, played, llr, time.monotonic() - started))


def run_remote(args: argparse.Namespace, game_names: list[str], hypotheses: sprt.Hypotheses, cap: int,
               players: int, field: list[str]) -> dict:
    from .test_remote import run_on_server

    bar = LlrBar(hypotheses)
    try:
        return run_on_server(args, game_names, hypotheses, cap, players, field if players > 2 else [], bar)
    finally:
        bar.close()


def finish(args: argparse.Namespace, report: dict) -> int:
    """Print the report; exit code 1 for a test stopped before its end."""
    if args.json:
        print_json(report)
    else:
        print_report(report, human_stream(args))
    return 1 if report["verdict"] == "stopped" else 0


class LlrBar:
    """The LLR between its bounds as a bar on stderr (a terminal only), with the groups played."""

    def __init__(self, hypotheses: sprt.Hypotheses) -> None:
        self.hypotheses = hypotheses
        self.bar: tuple[Progress, TaskID] | None = None  # once drawn: rich's progress and its one task

    def __call__(self, llr: float, groups: int) -> None:
        if not sys.stderr.isatty():
            return
        h = self.hypotheses
        if self.bar is None:
            progress = Progress(TextColumn(f"LLR {h.lower:+.2f}"), BarColumn(),
                                TextColumn(f"{h.upper:+.2f}  " + "{task.description}"),
                                TimeElapsedColumn(), console=console(stderr=True), redirect_stdout=False)
            self.bar = progress, progress.add_task("", total=h.upper - h.lower)
            progress.start()
        progress, task = self.bar
        within = min(h.upper, max(h.lower, llr)) - h.lower
        progress.update(task, completed=within, description=f"LLR {llr:+.2f} after {groups} groups")

    def close(self) -> None:
        if self.bar is not None:
            self.bar[0].stop()
            self.bar = None


def signed(value: float) -> str:
    return f"{value:+.1f}"


def print_report(report: dict, out) -> None:
    base, candidate = report["base"], report["candidate"]
    field = f" against {', '.join(report['field'])}" if report["field"] else ""
    print(f"test: {candidate} (B) against {base} (A) in {', '.join(report['games'])}, "
          f"{report['players']} players{field}; H0 {report['elo0']:g}, H1 {report['elo1']:g} normalized Elo",
          file=out)
    llr = f"LLR {report['llr']:+.2f}, bounds {report['lower']:+.2f} and {report['upper']:+.2f}"
    verdict = {"H1": f"H1 accepted: {candidate} is better than {base}",
               "H0": f"H0 accepted: {candidate} is not better than {base} by {report['elo1']:g} normalized Elo",
               "undecided": f"undecided at the cap of {report['groups']} groups",
               "stopped": f"stopped before its end: {report.get('stopped')}"}[report["verdict"]]
    print(f"verdict: {verdict} ({llr})", file=out)
    if report["groups"]:
        print(f"Elo difference: {signed(report['elo'])} [{signed(report['elo_low'])}, {signed(report['elo_high'])}] "
              f"(95 %); normalized Elo {signed(report['nelo'])} "
              f"[{signed(report['nelo_low'])}, {signed(report['nelo_high'])}]", file=out)
    where = f" on {report['address']}" if "address" in report else ""
    print(f"groups: {report['groups']} ({report['matches']} matches, {report['dropped']} dropped) in "
          f"{report['seconds']:g} s; tournament {report['tournament']}{where}", file=out)
    for name, game in report["per_game"].items():
        gain = game["pairing_gain"]
        saving = "not measured yet" if gain is None or not math.isfinite(gain) else f"{gain:.2f}x"
        elo = (f", Elo {signed(game['elo'])} [{signed(game['elo_low'])}, {signed(game['elo_high'])}]"
               if game["groups"] else "")
        print(f"  {name}: {game['groups']} groups{elo}; pairing saves {saving} "
              "(variance of the same matches unpaired / paired)", file=out)
