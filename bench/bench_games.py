"""Random playouts through the public game contract, per game, at 2 and 4 players, with
OpenSpiel's ``crazy_eights`` and RLCard's ``uno`` as baselines measured in the same run and
the same loop style (a Python loop asking for legal actions and applying a random one)."""

from __future__ import annotations

import random
import time
from typing import Any

from arena import games

SECONDS = 1.5  # per measurement; long enough to smooth out the timer, short enough for CI


def play_out(state: games.State, rng: random.Random) -> int:
    """Play the first seat to act a uniformly random legal action until the match ends (no
    checks on the way: what is timed is the engine); returns the decisions played."""
    decisions = 0
    while to_act := state.to_act():
        legal = state.legal_actions(to_act[0])
        state.apply(to_act[0], legal[rng.randrange(len(legal))])
        decisions += 1
    return decisions


def playouts(name: str, players: int, options: dict[str, Any] | None = None) -> dict[str, float]:
    """Play seeded random matches for ``SECONDS``: games/s, decisions/s, decisions per game,
    and the cost of one observation."""
    game = games.get(name)
    rng = random.Random(0)
    matches = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        decisions += play_out(game.new_state(players, matches, options), rng)
        matches += 1
    elapsed = time.perf_counter() - start
    # Observations on mid-match states, separately: bots ask for one per decision.
    state = game.new_state(players, 12345, options)
    samples = 0
    obs_time = 0.0
    while (to_act := state.to_act()) and samples < 2000:
        t = time.perf_counter()
        state.observation(to_act[0])
        obs_time += time.perf_counter() - t
        samples += 1
        legal = state.legal_actions(to_act[0])
        state.apply(to_act[0], legal[rng.randrange(len(legal))])
    return {
        "games_s": matches / elapsed,
        "decisions_s": decisions / elapsed,
        "per_game": decisions / max(matches, 1),
        "obs_us": 1e6 * obs_time / max(samples, 1),
    }


def openspiel_crazy_eights(players: int) -> dict[str, float] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("crazy_eights", {"players": players})
    rng = random.Random(0)
    matches = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
        matches += 1
    elapsed = time.perf_counter() - start
    return {"games_s": matches / elapsed, "decisions_s": decisions / elapsed,
            "per_game": decisions / max(matches, 1)}


def rlcard_uno(players: int) -> dict[str, float] | None:
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("uno", config={"seed": 0, "game_num_players": players})
    rng = random.Random(0)
    matches = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[rng.randrange(len(legal))])
            decisions += 1
        matches += 1
    elapsed = time.perf_counter() - start
    return {"games_s": matches / elapsed, "decisions_s": decisions / elapsed,
            "per_game": decisions / max(matches, 1)}


def row(label: str, figures: dict[str, float]) -> str:
    obs = f"{figures['obs_us']:>9.1f}" if "obs_us" in figures else f"{'':>9}"
    goal = ""
    if "obs_us" in figures:
        goal = "  ok" if figures["decisions_s"] >= 20_000 else "  BELOW 20k decisions/s"
    return (f"{label:<44}{figures['games_s']:>10.1f}{figures['decisions_s']:>13.0f}"
            f"{figures['per_game']:>10.1f}{obs}{goal}")


def main() -> None:
    print(f"{'playouts':<44}{'games/s':>10}{'decisions/s':>13}{'dec/game':>10}{'obs µs':>9}")
    ours: dict[tuple[str, int], dict[str, float]] = {}
    for name in games.names():
        game = games.get(name)
        option_sets = [{}, *game.bench_option_sets]
        for options in option_sets:
            counts = game.player_counts(game.resolve_options(options))
            for players in (2, 4):
                if players not in counts:
                    continue
                figures = playouts(name, players, options)
                if not options:
                    ours[(name, players)] = figures
                label = f"{name} {players}p" + (f" {options}" if options else "")
                print(row(label, figures), flush=True)
    print()
    for players in (2, 4):
        spiel = openspiel_crazy_eights(players)
        uno = rlcard_uno(players)
        mine = ours.get(("crazy_eights", players))
        if spiel:
            print(row(f"baseline OpenSpiel crazy_eights {players}p", spiel))
        if uno:
            print(row(f"baseline RLCard uno {players}p", uno))
        if mine and spiel:
            print(f"  crazy_eights {players}p vs OpenSpiel: {mine['games_s'] / spiel['games_s']:.2f}x games/s "
                  f"(goal >= 1.0x), {mine['decisions_s'] / spiel['decisions_s']:.2f}x decisions/s")
        if mine and uno:
            print(f"  crazy_eights {players}p vs RLCard uno: {mine['games_s'] / uno['games_s']:.2f}x games/s "
                  f"(goal >= 2.0x)")
        if not (spiel and uno):
            print("  (baselines missing: install the bench extra, `pip install -e .[bench]`)")
