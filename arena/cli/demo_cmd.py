"""``arena demo``: a small round robin of house bots over every registered game, in one
process, with a table of results per game."""

from __future__ import annotations

import argparse

from arena import games
from arena.games import house


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("demo", help="a small round robin of house bots over every game")
    parser.add_argument("--matches", type=int, default=20, help="matches per game")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print(f"{'game':<22}{'matches':>8}{'heuristic wins':>16}{'random wins':>13}{'draws':>7}")
    for name in games.names():
        wins = {"heuristic": 0.0, "random": 0.0}
        draws = 0
        bots = house.bot_names(name)
        pair = ["heuristic", "random"] if "heuristic" in bots else ["random", "random"]
        for i in range(args.matches):
            seats = pair if i % 2 == 0 else pair[::-1]  # both bots sit in both seats
            state, _ = house.play(name, seats, seed=i // 2)
            ranks = state.outcome().ranks
            if ranks[0] == ranks[1]:
                draws += 1
            else:
                wins[seats[ranks.index(1)]] += 1
        print(f"{name:<22}{args.matches:>8}{wins['heuristic']:>16g}{wins['random']:>13g}{draws:>7}")
    return 0
