"""``arena demo``: a multi-game round robin of house bots through the whole pipeline
(store, tournament, tasks, ratings) on the embedded default, then the leaderboards.

With nothing configured it runs in this process on a SQLite file; with ``ARENA_REDIS_URL``
set the same tournament goes to the Celery workers."""

from __future__ import annotations

import argparse
import time

from arena import games
from arena.games import house
from arena.settings import load, using
from arena.store import db
from arena.tournaments import create_tournament

from . import ladder
from .progress import ProgressBar
from .tournament_cmd import print_status


def lineup(game: str) -> list[str]:
    """Three house bots for ``game``, the ladder the leaderboards should show: the search,
    its heuristic and a random bot (search and two random bots where a game has no heuristic;
    first in the list is the one timed by ``plan_repetitions``)."""
    names = house.bot_names(game)
    if "heuristic" in names:
        return ["search", "heuristic", "random"]
    if "search" in names:
        return ["search", "random", "random-2"]
    return ["random", "random-2", "random-3"]


# The search thinks for at most this long a decision in the demo: its full budget would make
# the long games take minutes. Capped by time, its play depends on the machine's load.
DEMO_SEARCH_MS = 10.0


def house_ladder(game: str) -> list[str]:
    """The bots of ``lineup`` whose order is known beforehand, best first (two random bots
    are equals)."""
    return [bot for bot in lineup(game) if "-" not in bot]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("demo", help="a rated round robin of house bots over every game")
    parser.add_argument("--games", default="", help="comma separated games (default: every game)")
    parser.add_argument("--budget", type=float, default=25.0,
                        help="seconds of play to aim for; repetitions per game are fitted to it")
    parser.add_argument("--max-repetitions", type=int, default=8)
    parser.add_argument("--seed", type=int, default=None,
                        help="master seed of the demo's tournaments (default: drawn at random). Each "
                             "tournament draws its own secret deal key, so the seed alone reproduces no "
                             "deal: `arena tournament create --same-deals-as T` deals a tournament's cards again")
    parser.add_argument("--search-ms", type=float, default=DEMO_SEARCH_MS,
                        help="wall-clock cap per decision of the search bot in milliseconds (0: none, "
                        "its iteration budget alone); ARENA_SEARCH_MS, where set, wins")
    parser.add_argument("--no-grpc", action="store_true",
                        help="skip the part where two bot processes play over the gRPC gateway")
    parser.set_defaults(func=run)


def time_one(game: str, seats: list[str]) -> float:
    started = time.perf_counter()
    house.play(game, seats, seed=0)
    return time.perf_counter() - started


def plan_repetitions(names: list[str], budget: float, cap: int) -> dict[str, int]:
    """Repetitions per game so that every game gets a fair share of the budget: one timed
    match per game tells how long its rounds take (embedded, on as many processes as the
    tournament will use)."""
    config = load()
    share = budget / max(1, len(names)) * (config.embedded_processes if config.embedded else 1)
    plan = {}
    for name in names:
        per_match = time_one(name, [b.split("-")[0] for b in lineup(name)[:2]])
        matches_per_rep = 6 + (3 if 3 in games.get(name).player_counts() else 0)
        plan[name] = max(1, min(cap, int(share / max(1e-4, per_match * matches_per_rep))))
    return plan


def print_ladder_summary(rungs: dict[str, list[ladder.Step]]) -> None:
    """How many games' boards show the house ladder, and in how many the sequential test
    settles each of its steps; where it does not, where the evidence is."""
    laddered = {game: r for game, r in rungs.items() if r}
    if not laddered:
        return
    shown = sum(all(step.shown for step in r) for r in laddered.values())
    settled: dict[str, int] = {}
    for r in laddered.values():
        for step in r:
            settled.setdefault(f"{step.upper} over {step.lower}", 0)
            settled[f"{step.upper} over {step.lower}"] += step.settled
    steps = ", ".join(f"{name} in {count}" for name, count in settled.items())
    print(f"the house ladder is shown in {shown} of {len(laddered)} games; the sequential test settles {steps}.\n"
          "In most games the search wins only a little more than half its matches against the heuristic, "
          "and so small an edge\nneeds more duplicate pairs than a minute gives: `arena test heuristic search "
          "--game G --elo1 50` plays them until the test decides\n(docs/games/README.md, \"The house ladder\").\n")


def run(args: argparse.Namespace) -> int:
    # The cap reaches every search of the demo, here and in the processes it plays in
    # (``workers.dispatch`` hands them this process's settings).
    settings = load()
    if args.search_ms and settings.search_ms is None:
        settings = settings.but(search_ms=args.search_ms)
    with using(settings):
        return play_demo(args)


def play_demo(args: argparse.Namespace) -> int:
    names = [games.get(n.strip()).name for n in args.games.split(",") if n.strip()] or games.names()
    if not names:
        print("no games registered")
        return 1
    plan = plan_repetitions(names, args.budget, args.max_repetitions)
    started = time.perf_counter()
    ids = []
    with db.transaction() as connection:
        for name, reps in plan.items():
            ids.append(create_tournament(connection, [name], lineup(name), [2, 3], reps, args.seed,
                                         name=f"demo {name}"))
    from workers.follow import run_tournaments

    # All games at once: embedded, one pool of processes plays every game's matches.
    bar = ProgressBar(f"demo: {len(names)} games, tournaments {ids[0]}-{ids[-1]}", force=True)
    statuses = run_tournaments(ids, wait=True, progress=bar)
    bar.close()
    for status in statuses:
        print_status(status)
    print(f"\nplayed in {time.perf_counter() - started:.1f} s; store: {db.engine().url}\n")
    rungs = {}
    with db.read() as connection:
        for name in names:
            rungs[name] = ladder.print_board(connection, name, house_ladder(name))
            print()
    print_ladder_summary(rungs)
    if not args.no_grpc:
        from . import demo_wire

        demo_wire.run(args.seed, names)
    return 0
