"""The house-bot ladder in duplicate pairs: ``heuristic`` against ``random`` and ``search``
against ``heuristic`` in every game, two players, at each game's ``search`` budget
(``Game.search_budget``).

A pair is one seed played twice with the seats swapped. It is decided when one bot wins both
matches, or, when each wins one, when the two matches' combined score margin favours one;
otherwise it is a draw. The goals: ``search`` beats ``heuristic`` in at least 60 % of decided
pairs, ``heuristic`` beats ``random`` in at least 70 %. ``oracle`` is the search handed the
true state (it sees every card and the order of the deck), ``cardsharp`` the search that sees
every hand but not the order of the stock (games listed in ``STOCK``): the ceilings of what
seeing more could win in a game of luck.

``python -m bench search`` (every game, ``ARENA_BENCH_PAIRS`` pairs, default 200, on
``ARENA_BENCH_PROCESSES`` processes, default 2); ``python -m bench.bench_search GAME
[--pairs N] [--matchups search-heuristic,...] [--out results.jsonl] [--budget iterations=48,halving=1]``
for one game, appending one JSON line per pair so a long run can be read while it goes;
``--budget`` tries other ``Budget`` fields than the game's default without editing it.

The ``matches`` column is the first bot's share of the single matches (a draw counts half):
what Elo and the leaderboards count. It can sit much nearer 50 % than the share of decided
pairs: where most pairs split one match each, the pair goes to the bigger combined margin, and
a bot can win its matches by more without winning more of them (Bastard Brag, Card Trip Europe).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from arena import games
from arena.games import house
from arena.games.base import State
from arena.games.search import Budget, SearchBot, default_budget

MATCHUPS = ("heuristic-random", "search-heuristic")
CEILINGS = ("oracle-random", "oracle-heuristic", "cardsharp-random", "cardsharp-heuristic")
GOALS = {"heuristic-random": 0.70, "search-heuristic": 0.60}
FIRST_SEED = 1_000


class Oracle(SearchBot):
    """The search bot handed the true state: one world, the real one."""

    def __init__(self, game: str, seat: int, seed: int) -> None:
        super().__init__(game, seat, seed)
        # One world, the real one: there is nothing to guess (and no rounds of worlds).
        self.budget = replace(self.budget, iterations=1, halving=False)

    def departs(self, best: list[float], guess: list[float]) -> bool:
        return best[0] > guess[0]  # the one world is the real one: any gain is a real gain


# Where a game keeps the cards nobody has seen (the stock): ``cardsharp`` sees every hand but
# not these, which it re-shuffles for every world.
STOCK = {"crazy_eights": "draw_pile", "bastard_brag": "pack"}


class Cardsharp(SearchBot):
    """The search bot that sees every hand but not the order of the stock: the ceiling of
    reading the other hands, where the oracle also foresees the draws."""

    def world(self, sample: State, rng: random.Random) -> State:
        twin = sample.clone()
        stock = getattr(twin, STOCK[self.game])
        rng.shuffle(stock)
        twin.seed = rng.randrange(2**62)  # later shuffles unknown too
        return twin


def build(game: str, name: str, seat: int, seed: int) -> house.HouseBot:
    if name in ("oracle", "cardsharp"):
        return {"oracle": Oracle, "cardsharp": Cardsharp}[name](game, seat, seed)
    return house.house_bot(game, name, seat, seed)


def play(game: str, names: list[str], seed: int) -> State:
    """One two-player match; the oracle is handed the true state where others get a sample."""
    state = games.get(game).new_state(len(names), seed)
    bots = [build(game, name, seat, seed) for seat, name in enumerate(names)]

    def sample(state: State, seat: int, seed: int, turn: int) -> Callable[[], State]:
        bot = bots[seat]
        if isinstance(bot, Cardsharp):
            return functools.partial(bot.world, state, house.sample_rng(seed, turn))
        if isinstance(bot, Oracle):
            return state.clone
        return house.sampler(state, seat, seed, turn)

    house.play_bots(state, bots, seed, sample)
    return state


def pair(game: str, matchup: str, seed: int) -> dict[str, Any]:
    """Both seatings of one seed: the first bot's wins, losses and score margin."""
    first, second = matchup.split("-")
    started = time.perf_counter()
    wins = losses = 0
    margin = 0.0
    for seat, names in ((0, [first, second]), (1, [second, first])):
        outcome = play(game, names, seed).outcome()
        ranks, scores = outcome.ranks, outcome.scores
        wins += ranks[seat] < ranks[1 - seat]
        losses += ranks[seat] > ranks[1 - seat]
        margin += scores[seat] - scores[1 - seat]
    if wins > losses:
        result = 1
    elif losses > wins:
        result = -1
    else:
        result = (margin > 0) - (margin < 0)
    return {"game": game, "matchup": matchup, "seed": seed, "wins": wins, "losses": losses,
            "margin": margin, "result": result, "seconds": time.perf_counter() - started}


def _pair(args: tuple[str, str, int]) -> dict[str, Any]:
    return pair(*args)


def summary(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, str], dict[str, float]]:
    """Per (game, matchup): pairs, decided pairs, the first bot's share of them, its share of
    the single matches (the currency of Elo), seconds."""
    table: dict[tuple[str, str], dict[str, float]] = {}
    for row in rows:
        cell = table.setdefault((row["game"], row["matchup"]),
                                {"pairs": 0, "decided": 0, "won": 0, "seconds": 0.0,
                                 "match_wins": 0, "match_losses": 0})
        cell["pairs"] += 1
        cell["match_wins"] += row["wins"]
        cell["match_losses"] += row["losses"]
        cell["decided"] += row["result"] != 0
        cell["won"] += row["result"] > 0
        cell["seconds"] += row["seconds"]
    for cell in table.values():
        cell["rate"] = cell["won"] / cell["decided"] if cell["decided"] else 0.0
        # What a leaderboard sees: single matches, by who finished ahead (a draw counts half).
        drawn = 2 * cell["pairs"] - cell["match_wins"] - cell["match_losses"]
        cell["match_rate"] = (cell["match_wins"] + drawn / 2) / (2 * cell["pairs"]) if cell["pairs"] else 0.0
    return table


def budget_text(game: str) -> str:
    budget = default_budget(game)
    depth = "end" if budget.depth is None else f"{budget.depth} plies"
    text = (f"{budget.iterations} playouts a decision, {budget.rollout} playouts to {depth}"
            f"{' or the next scoring' if budget.until_scored else ''}, at most {budget.candidates} "
            f"candidates{' in rounds of halving' if budget.halving else ''}, the heuristic overruled "
            f"on {budget.min_worlds} worlds or more")
    if budget.scale is not None:
        text += f", unfinished playouts scored by the margin (scale {budget.scale:g} points)"
    return text


def print_table(table: dict[tuple[str, str], dict[str, float]]) -> None:
    print(f"{'game':<20}{'matchup':<18}{'pairs':>6}{'decided':>8}{'won':>6}{'rate':>7}{'matches':>9}"
          f"{'s/pair':>8}  goal")
    for (game, matchup), cell in sorted(table.items()):
        goal = GOALS.get(matchup)
        verdict = "" if goal is None else ("ok" if cell["rate"] >= goal else f"below {goal:.0%}")
        print(f"{game:<20}{matchup:<18}{cell['pairs']:>6.0f}{cell['decided']:>8.0f}{cell['won']:>6.0f}"
              f"{cell['rate']:>7.1%}{cell['match_rate']:>9.1%}{cell['seconds'] / max(1, cell['pairs']):>8.2f}"
              f"  {verdict}")


def parse_budget(text: str) -> dict[str, Any]:
    """``iterations=48,halving=1,depth=none`` as ``Budget`` fields of the right types."""
    fields = {f.name: f.type for f in dataclasses.fields(Budget)}
    changes: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, _, value = item.partition("=")
        if key not in fields:
            raise SystemExit(f"--budget: no Budget field {key!r} (fields: {', '.join(fields)})")
        kind = str(fields[key])
        if value.lower() in ("none", ""):
            changes[key] = None
        elif kind.startswith("bool"):
            changes[key] = value.lower() in ("1", "true", "yes")
        elif kind.startswith("int"):
            changes[key] = int(value)
        elif kind.startswith("float"):
            changes[key] = float(value)
        else:
            changes[key] = value
    return changes


def override_budgets(game_names: list[str], changes: dict[str, Any]) -> None:
    """Play ``search`` at its default budget with ``changes`` applied, in every game named
    (set before the pool forks, so every process plays the same budget)."""
    for game in game_names:
        declared = type(games.get(game))
        declared.search_budget = {**declared.search_budget, **changes}


def run(game_names: list[str], matchups: list[str], pairs: int, processes: int, out: str | None,
        first_seed: int = FIRST_SEED) -> None:
    jobs = [(g, m, first_seed + i) for g in game_names for m in matchups for i in range(pairs)]
    rows = []
    sink = open(out, "a") if out else None  # noqa: SIM115 (kept open for the whole run)
    try:
        with multiprocessing.Pool(processes) as pool:
            for row in pool.imap_unordered(_pair, jobs):
                rows.append(row)
                if sink:
                    sink.write(json.dumps(row) + "\n")
                    sink.flush()
    finally:
        if sink:
            sink.close()
    for game in game_names:
        print(f"{game}: search budget {budget_text(game)}")
    print_table(summary(rows))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", default=[])
    parser.add_argument("--pairs", type=int, default=int(os.environ.get("ARENA_BENCH_PAIRS", "200")))
    parser.add_argument("--processes", type=int, default=int(os.environ.get("ARENA_BENCH_PROCESSES", "2")))
    parser.add_argument("--matchups", default=",".join(MATCHUPS),
                        help=f"comma separated, first bot first (also {', '.join(CEILINGS)})")
    parser.add_argument("--first-seed", type=int, default=FIRST_SEED, help="pairs play seeds from here on")
    parser.add_argument("--out", help="append one JSON line per pair to this file")
    parser.add_argument("--budget", default="", help="Budget fields to play search with, e.g. iterations=48,halving=1")
    parser.add_argument("--summarize", action="store_true", help="only print the table of --out")
    args = parser.parse_args(argv if argv is not None else [])
    if args.summarize and args.out:
        with open(args.out) as lines:
            print_table(summary(json.loads(line) for line in lines if line.strip()))
        return
    if args.budget:
        override_budgets(args.games or games.names(), parse_budget(args.budget))
    run(args.games or games.names(), args.matchups.split(","), args.pairs, args.processes, args.out,
        args.first_seed)


if __name__ == "__main__":
    main(sys.argv[1:])
