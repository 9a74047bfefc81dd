"""How Itchy Feet matches of house bots end: by the rulebook (a winner, or the Bucket List
pile emptied) or by the arena's stall bound (option ``stall_rounds``) / the turn cap.

``python -m bench.itchy_feet_endings [--seeds N] [--bot B] [--players 2 6] [--option k=v]``
plays N seeded matches (default 100) of house bot B (default ``heuristic``) in every seat at
each player count (default every legal count), with the default options unless ``--option``
sets some (``--option events=true``), and prints the share that ended by the rulebook.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from arena import games
from arena.games.house import play


def ended_by_the_rules(state: Any) -> bool:
    """A winner (the centre country, or 4 postcards), or the Bucket List pile emptied."""
    return state.winner is not None or (state.bucket and not state.pile)


def endings(bot: str, players: int, seeds: range,
            options: dict[str, Any] | None = None) -> dict[str, float]:
    """Play one match per seed; the share ended by the rulebook and the mean turns."""
    by_rules = turns = stalled = 0
    for seed in seeds:
        state, _ = play("itchy_feet", [bot] * players, seed, options)
        turns += state.turns
        if ended_by_the_rules(state):
            by_rules += 1
        else:
            stalled += 1
    return {"by_rules": by_rules / len(seeds), "turns": turns / len(seeds),
            "stalled": float(stalled)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--bot", default="heuristic")
    parser.add_argument("--players", type=int, nargs="*")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    options = {}
    for item in args.option:
        name, _, value = item.partition("=")
        options[name] = json.loads(value) if value in ("true", "false") or value.isdigit() else value
    game = games.get("itchy_feet")
    counts = args.players or list(game.player_counts())
    print(f"itchy_feet, {args.bot} in every seat, {args.seeds} seeds per player count, "
          f"options {options or 'default'}")
    for n in counts:
        start = time.perf_counter()
        r = endings(args.bot, n, range(args.seeds), options)
        print(f"{n} players: {100 * r['by_rules']:5.1f} % by the rulebook "
              f"({int(r['stalled'])} stalled), {r['turns']:6.1f} turns/match, "
              f"{time.perf_counter() - start:5.1f} s", flush=True)


if __name__ == "__main__":
    main()
