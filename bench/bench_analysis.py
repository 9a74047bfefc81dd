"""Is the analysis honest? Its predicted losses against the drops measured afresh.

House-bot matches of Crazy Eights (``random`` in one seat, ``heuristic`` in the others; two
and three players) are played and the ``random`` seat analysed (``arena.referee.analysis``,
the default budget). For every decision it marks, the two actions it compares (the best found
and the one chosen) are played again from the same position on fresh deals the seat cannot tell
from the truth, drawn from a stream the analysis never used, ``FRESH`` deals each, with the same
playout policy: the mean difference is the outcome drop measured. A mark is honest when what it
predicts is found again: the selection that makes a mark (the best of several noisy means, a
loss past a band) must not inflate the loss. The figure is the ratio of the summed measured drops
to the summed predicted losses over every marked decision (goal: within 20 % of 1, over at least
1,000 marked decisions), beside it the same per band and per table size, and the baseline
measured in the same run: every decision whose first loss was flagged (what an analysis without
the confirmation would mark) measured afresh the same way, against that first loss.

The check is of the statistics, not of the playout model: both sides play out with the game's
heuristic, as the analysis does.

Before it, ``limits``: does every game's analysis end within ``ARENA_ANALYSIS_SECONDS``? For each
of the nine games, one seeded two-seat match of house bots (``heuristic`` against ``heuristic``,
and ``random`` against ``heuristic``) has its seat 0 analysed at the default budget, one analysis
at a time: its wall-clock and CPU seconds, against the bound; how many worlds its decisions got
(fewer than the budget's where ``ARENA_ANALYSIS_PLIES`` ran short) and the plies it spent, against
the plies the same analysis would take with every decision on the budget's worlds (estimated from
its own plies per world: the baseline, what an analysis without the plies bound costs).

``python -m bench analysis`` (``ARENA_BENCH_PROCESSES`` processes, default 2; about an hour on two
shared cores: a marked decision is rare, about one in ten matches; a running figure is printed
as it goes);
``BENCH_ANALYSIS_QUICK=1`` stops at 60 marked decisions (about two minutes);
``BENCH_ANALYSIS_LIMITS=1`` measures the games' times alone (about ten minutes).

Measured, limits (two cores shared with a load of 5 to 8, the default budget): all eighteen
analyses within the 600 s bound; the longest Backpacker's (two heuristics) 356 s, 59 % (98 s of
CPU; 1.5 million plies, 0.40 of the 3.8 million its unbounded analysis would take; 9.5 worlds a
decision on average), Itchy Feet's (random against heuristic, 305 decisions) 340 s, 57 %, Trekking
the World's 158 and 189 s, 26 and 32 % (0.24 and 0.25 of its unbounded plies; about 6 worlds a
decision), every other game's 30 % or less; Bastard Brag, Card Trip Europe, Crazy Eights and Durak
not reduced.

Measured, honesty (1,000 marked decisions, 7,392 matches, 27 minutes on two shared cores): measured /
predicted 0.955 (inaccuracies 0.954, mistakes 0.941, blunders 0.957; two seats 0.963, three
0.934); the baseline, the unconfirmed first losses of the 1,941 flagged decisions, 0.547.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import time
from math import fsum
from typing import Any

from arena import games
from arena.games.base import State
from arena.referee.analysis import AnalysisBudget, Analyst, analyse
from arena.referee.match import play_match
from arena.referee.players import HousePlayer
from arena.referee.transcript import replay
from arena.settings import load

GAME = "crazy_eights"
TABLES = (2, 3)
FRESH = 48  # fresh deals per marked decision
GOAL = 0.20
FIRST_SEED = 70_000
CHUNK = 16  # matches handed out at a time, between two looks at the count (and a running figure)


def positions(transcript: dict[str, Any], wanted: set[int]) -> dict[int, State]:
    """The true state before each decision of ``wanted`` (indexes in the transcript)."""
    found: dict[int, State] = {}
    count = [0]

    def step(state: State) -> None:
        if count[0] in wanted:
            found[count[0]] = state.clone()
        count[0] += 1

    replay(transcript, step)
    return found


def one_match(job: tuple[int, int]) -> list[dict[str, Any]]:
    """Play one match, analyse its ``random`` seat, measure afresh each decision whose first
    loss was flagged (``confirmed``: the ones an analysis without confirmation would mark)."""
    players, seed = job
    seat = seed % players
    bots = ["heuristic"] * players
    bots[seat] = "random"
    transcript = play_match(GAME, [HousePlayer(GAME, b, s, seed) for s, b in enumerate(bots)], seed).transcript()
    budget = AnalysisBudget()
    found = analyse(transcript, seat, seed, budget)
    flagged = [d for d in found["decisions"] if d["confirmed"]]
    states = positions(transcript, {d["index"] for d in flagged})
    rows = []
    for d in flagged:
        fresh = random.Random(f"honesty:{players}:{seed}:{d['index']}")
        analyst = Analyst(GAME, seat, budget)
        sample = states[d["index"]].resample_hidden(seat, fresh)
        values = analyst.values(sample, [d["best"], d["chosen"]], FRESH, fresh)
        drop = 100 * fsum(b - c for b, c in zip(values[d["best"]], values[d["chosen"]], strict=True)) / FRESH
        # The baseline: the loss the first deals gave (those that chose the best action and
        # flagged the loss), the one an analysis without confirmation would have marked.
        first = {r["action"]: r["value"] for r in d["actions"]}
        rows.append({"players": players, "mark": d["mark"], "predicted": d["loss"], "half": d["loss_half"],
                     "measured": drop, "first": 100 * (first[d["best"]] - first[d["chosen"]])})
    return rows


def ratio(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "-"
    predicted = fsum(r["predicted"] for r in rows)
    measured = fsum(r["measured"] for r in rows)
    return (f"{len(rows):>5} marked, predicted {predicted / len(rows):5.1f} points, measured "
            f"{measured / len(rows):5.1f}: ratio {measured / predicted:.3f}")


def baseline(flagged: list[dict[str, Any]]) -> str:
    """The same ratio for the first deals' losses of every flagged decision (what would be
    marked without the confirmation)."""
    if not flagged:
        return "-"
    first = fsum(r["first"] for r in flagged)
    measured = fsum(r["measured"] for r in flagged)
    return (f"{len(flagged):>5} flagged, first loss {first / len(flagged):5.1f} points, measured "
            f"{measured / len(flagged):5.1f}: ratio {measured / first:.3f}")


LIMIT_SEED = 11
LIMIT_TABLES = (("heuristic", "heuristic"), ("random", "heuristic"))


def limits() -> None:
    """Each game's analysis of seat 0 at the default budget against the time bound."""
    budget = AnalysisBudget.from_settings(load())
    bound = load().analysis_seconds
    print(f"every game's analysis at the default budget ({budget.key}) against ARENA_ANALYSIS_SECONDS = {bound:g}; "
          f"seed {LIMIT_SEED}, seat 0 analysed")
    worst = 0.0
    for game in games.names():
        for bots in LIMIT_TABLES:
            players = [HousePlayer(game, b, s, LIMIT_SEED) for s, b in enumerate(bots)]
            transcript = play_match(game, players, LIMIT_SEED).transcript()
            wall, cpu = time.perf_counter(), time.process_time()
            found = analyse(transcript, 0, LIMIT_SEED, budget)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            worst = max(worst, wall / bound)
            worlds = [d["worlds"] for d in found["decisions"]]
            # Without the bound every decision gets the budget's worlds: its plies at the
            # plies per world this analysis measured.
            full = round(found["plies"] * budget.worlds * len(worlds) / max(1, sum(worlds)))
            print(f"  {game:<19} {'-'.join(bots):<19} {len(transcript['decisions']):>4} decisions, "
                  f"{len(worlds):>3} judged on {min(worlds, default=0):>2}-{max(worlds, default=0):>2} worlds "
                  f"(mean {sum(worlds) / max(1, len(worlds)):4.1f}){' reduced' if found['reduced'] else '        '}; "
                  f"{found['plies']:>7} plies of {full:>8} unbounded ({found['plies'] / max(1, full):.2f}); "
                  f"{wall:6.1f} s ({cpu:6.1f} s CPU): {100 * wall / bound:5.1f} % of the bound", flush=True)
    print(f"the longest analysis took {100 * worst:.1f} % of ARENA_ANALYSIS_SECONDS: "
          f"{'within' if worst < 1 else 'past'} the bound")


def main() -> None:
    limits()
    if os.environ.get("BENCH_ANALYSIS_LIMITS") == "1":
        return
    quick = os.environ.get("BENCH_ANALYSIS_QUICK") == "1"
    target = 60 if quick else 1000
    processes = int(os.environ.get("ARENA_BENCH_PROCESSES", "2"))
    started = time.perf_counter()
    flagged: list[dict[str, Any]] = []
    seeds = iter(range(FIRST_SEED, FIRST_SEED + 1_000_000))
    matches = 0
    with multiprocessing.Pool(processes) as pool:
        while len([r for r in flagged if r["mark"]]) < target:
            jobs = [(TABLES[i % len(TABLES)], next(seeds)) for i in range(CHUNK)]
            for found in pool.imap_unordered(one_match, jobs):
                flagged.extend(found)
            matches += len(jobs)
            if any(r["mark"] for r in flagged):  # a running figure, for a long run on a busy machine
                print(f"  after {matches} matches: {ratio([r for r in flagged if r['mark']])}; baseline "
                      f"{baseline(flagged)}", flush=True)
    rows = [r for r in flagged if r["mark"]]
    predicted = fsum(r["predicted"] for r in rows)
    measured = fsum(r["measured"] for r in rows)
    overall = measured / predicted
    print(f"{GAME}, random against heuristic, its seat analysed at the default budget "
          f"({AnalysisBudget().key}); {matches} matches; each marked decision measured again on {FRESH} fresh deals")
    print(f"  all      {ratio(rows)}")
    for band in ("inaccuracy", "mistake", "blunder"):
        print(f"  {band:<9}{ratio([r for r in rows if r['mark'] == band])}")
    for players in TABLES:
        print(f"  {players} seats  {ratio([r for r in rows if r['players'] == players])}")
    print(f"  baseline {baseline(flagged)} (the first deals' loss, unconfirmed)")
    below = sum(1 for r in rows if r["measured"] < r["predicted"] - r["half"])
    print(f"  measured below the low end of the predicted loss's interval in {below} of {len(rows)} "
          f"({100 * below / len(rows):.1f} %; both sides are estimates, so more than 2.5 %)")
    ok = abs(overall - 1) <= GOAL and len(rows) >= target
    print(f"measured / predicted = {overall:.3f} over {len(rows)} marked decisions (goal: within "
          f"{100 * GOAL:.0f} % of 1 over at least {target}): {'met' if ok else 'not met'}; "
          f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
