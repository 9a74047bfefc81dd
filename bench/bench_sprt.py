"""What pairing on duplicate deals saves ``arena test``: games to a decision for ``search``
against ``heuristic`` in every game, two players, at each game's house search budget, paired
against unpaired.

Per game, ``BENCH_SPRT_MAX_GROUPS`` groups are played (one deal, both seatings; default 10,
as the search takes seconds a match); ``BENCH_SPRT_QUICK=1`` plays 3. Too few groups for a
test to decide at the default bounds (H0 0, H1 5 normalized Elo), so the sequential tests are
run on sequences drawn from the groups played (with replacement, ``RESAMPLES`` of them, the
same sequence for both tests): paired, the GSPRT on the groups (the pentanomial); unpaired,
the GSPRT on the same matches taken one by one as independent games (the trinomial). The
ratio of their mean games to a decision is the saving; beside it the variance ratio
(``arena.stats.groups.pairing_gain``), which predicts it. Goal: pairing needs at least 2x
fewer games in at least 6 of the 9 games; where it does not, the line says why.

``python -m bench sprt`` (``ARENA_BENCH_PROCESSES`` processes, default 2)
"""

from __future__ import annotations

import multiprocessing
import os
import random
import time

from arena import games
from arena.games import house
from arena.stats import sprt
from arena.stats.groups import Group, outcomes, pairing_gain, rank_score

FIRST_SEED = 5_000
RESAMPLES = 12
GOAL_RATIO, GOAL_GAMES = 2.0, 6
# A score this far from even is lopsided: the stronger bot wins from either seat.
LOPSIDED = 0.15
# A sequence stops undecided at this many games (either test), to bound the bench's time.
CAP_GAMES = 40_000


def pair(job: tuple[str, int]) -> tuple[str, tuple[float, float], float]:
    """One deal played twice, the search in seat 0 then seat 1: its score in each."""
    game, seed = job
    started = time.perf_counter()
    scores = []
    for seat, seats in ((0, ["search", "heuristic"]), (1, ["heuristic", "search"])):
        state, _ = house.play(game, seats, seed)
        scores.append(rank_score(state.outcome().ranks[seat], 2))
    return game, (scores[0], scores[1]), time.perf_counter() - started


def games_to_decision(sequence: list[tuple[float, float]], paired: bool, h: sprt.Hypotheses) -> int:
    """Games the GSPRT plays on ``sequence`` (pairs of the search's scores) until it decides,
    checking as the outcomes grow by a twentieth (as ``arena test`` checks after each batch)."""
    seen: dict[float, int] = {}
    support = outcomes(2) if paired else [0.0, 0.5, 1.0]
    n, check = 0, 8
    games_played = 0
    for first, second in sequence:
        for outcome in ([(first + second) / 2] if paired else [first, second]):
            seen[outcome] = seen.get(outcome, 0) + 1
            n += 1
        games_played += 2
        if n >= check:
            if h.verdict(sprt.llr(seen, h, support, games=2 if paired else 1)) is not None:
                return games_played
            check = n + max(1, n // 20)
    return games_played


def measure(name: str, scores: list[tuple[float, float]], rng: random.Random) -> dict:
    h = sprt.Hypotheses()
    groups = [Group(candidate=s, base=(1 - s[0], 1 - s[1]), shared=True) for s in scores]
    paired_games, unpaired_games = [], []
    for _ in range(RESAMPLES):
        sequence = rng.choices(scores, k=CAP_GAMES // 2)
        paired_games.append(games_to_decision(sequence, True, h))
        unpaired_games.append(games_to_decision(sequence, False, h))
    paired_mean = sum(paired_games) / RESAMPLES
    unpaired_mean = sum(unpaired_games) / RESAMPLES
    return {"game": name, "groups": len(scores), "score": sum(a + b for a, b in scores) / (2 * len(scores)),
            "variance_ratio": pairing_gain(groups), "paired": paired_mean, "unpaired": unpaired_mean,
            "ratio": unpaired_mean / paired_mean}


def why_not(row: dict) -> str:
    """Why pairing did not save 2x in a game, from what was measured."""
    if row["variance_ratio"] is None:
        return "every group scored the same: nothing to compare"
    if row["variance_ratio"] < GOAL_RATIO and abs(row["score"] - 0.5) >= LOPSIDED:
        return (f"one bot wins from either seat (score {row['score']:.2f}): a deal's result hardly depends "
                "on the seat, so pairing has little of its luck to cancel")
    if row["variance_ratio"] < GOAL_RATIO:
        return ("the two seatings of a deal share little of its luck: the search's score on the deal "
                "hardly depends on which seat holds the cards")
    return f"the variance ratio says {row['variance_ratio']:.1f}x: few groups, the resampled tests disagree"


def main() -> None:
    quick = os.environ.get("BENCH_SPRT_QUICK") == "1"
    groups = 3 if quick else int(os.environ.get("BENCH_SPRT_MAX_GROUPS", "10"))
    processes = int(os.environ.get("ARENA_BENCH_PROCESSES", "2"))
    names = games.names()
    started = time.perf_counter()
    played: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    seconds: dict[str, float] = dict.fromkeys(names, 0.0)
    jobs = [(name, FIRST_SEED + i) for i in range(groups) for name in names]
    with multiprocessing.Pool(processes) as pool:
        for name, scores, took in pool.imap_unordered(pair, jobs):
            played[name].append(scores)
            seconds[name] += took
    rng = random.Random(1)
    print(f"search against heuristic, {groups} groups a game, GSPRT H0 0 H1 5 normalized Elo on "
          f"{RESAMPLES} resampled sequences; games to a decision, paired and unpaired")
    print(f"{'game':<20}{'groups':>7}{'score':>7}{'s/group':>8}{'var ratio':>10}{'paired':>9}{'unpaired':>10}"
          f"{'saved':>7}  ≥ {GOAL_RATIO:g}x")
    met = 0
    for name in names:
        row = measure(name, sorted(played[name]), rng)
        ok = row["ratio"] >= GOAL_RATIO
        met += ok
        ratio = row["variance_ratio"]
        print(f"{name:<20}{row['groups']:>7}{row['score']:>7.2f}{seconds[name] / groups:>8.1f}"
              f"{'-' if ratio is None else f'{ratio:.2f}':>10}{row['paired']:>9.0f}{row['unpaired']:>10.0f}"
              f"{row['ratio']:>6.2f}x  {'yes' if ok else 'no: ' + why_not(row)}")
    print(f"pairing saved ≥ {GOAL_RATIO:g}x in {met} of {len(names)} games (goal: {GOAL_GAMES}): "
          f"{'met' if met >= GOAL_GAMES else 'not met'}; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
