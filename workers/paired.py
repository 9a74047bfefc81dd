"""Playing a paired test (``arena test``) to its verdict: batches of duplicate groups written
into the test's tournament (``arena.tournaments.paired``), sent and followed as any
tournament's matches are (``workers.follow``: the same queues, claims, leases and exactly-once
recording), until the sequential test leaves its bounds or the cap is reached. The command
line runs it in its own process for house bots; the server runs it on a thread of its own for
tests with connected bots (``arena.server.version_tests``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

from arena.stats import sprt
from arena.stats.groups import Group, counts, outcomes, pairing_gain
from arena.store import db
from arena.tournaments import paired

from .follow import Notice, run_tournament, stderr_notice

# Groups of the first batch; later batches grow by half the groups played so far (a test
# that runs long checks less often, and each batch keeps every core busy), up to the last.
FIRST_BATCH = 8
LAST_BATCH = 200


@dataclass(frozen=True)
class Plan:
    """What a test plays: its tournament and bots, games, hypotheses and cap of groups."""

    run: paired.TestRun
    lineup: paired.Lineup
    games: list[str]
    hypotheses: sprt.Hypotheses
    cap: int
    first_batch: int = FIRST_BATCH


def play_until_decided(plan: Plan, on_batch: Callable[[float, int], None] | None = None,
                       stop: Callable[[], str | None] | None = None,
                       notice: Notice | None = stderr_notice) -> tuple[paired.Played, float, str | None]:
    """Batches of groups until the LLR leaves its bounds or ``plan.cap`` groups are played;
    ``on_batch(llr, groups)`` after each. ``stop()``, asked before each batch, gives a reason
    to end the test early (a bot went away), which is returned with the groups and the LLR.

    A test taken over from a server that stopped carries on from the groups its tournament
    holds: the batch in flight is played out first."""
    played, llr = paired.Played({}, 0), 0.0
    n_games = len(plan.games)

    def follow_batch() -> tuple[paired.Played, float]:
        run_tournament(plan.run.tournament_id, notice=notice)
        with db.read() as connection:
            played = paired.read_groups(connection, plan.run, plan.lineup)
        everything = [g for groups in played.groups.values() for g in groups]
        llr = sprt.llr(counts(everything, plan.lineup.players), plan.hypotheses, outcomes(plan.lineup.players))
        if on_batch is not None:
            on_batch(llr, len(everything))
        return played, llr

    with db.read() as connection:
        written = paired.groups_written(connection, plan.run.tournament_id, plan.games[0])  # of each game
    if written:
        played, llr = follow_batch()
    while plan.hypotheses.verdict(llr) is None:
        done = sum(len(g) for g in played.groups.values()) + played.dropped
        left = plan.cap - written * n_games
        if left < n_games:
            break
        reason = stop() if stop is not None else None
        if reason is not None:
            return played, llr, reason
        batch = min(left // n_games, max(plan.first_batch, min(LAST_BATCH, done // 2)))
        with db.transaction() as connection:
            paired.write_batch(connection, plan.run, plan.lineup, plan.games, written, batch)
        written += batch
        played, llr = follow_batch()
    return played, llr, None


def interval(estimate: sprt.Estimate) -> dict:
    return {"elo": estimate.elo, "elo_low": estimate.elo_low, "elo_high": estimate.elo_high,
            "nelo": estimate.nelo, "nelo_low": estimate.nelo_low, "nelo_high": estimate.nelo_high,
            "score": estimate.score, "score_low": estimate.score_low, "score_high": estimate.score_high}


def summary(plan: Plan, played: paired.Played, llr: float, seconds: float, stopped: str | None = None) -> dict:
    """The test's one document (``arena test --json``), which the lines for people are printed
    from. A test ``stopped`` early (its reason) has the verdict ``stopped``, whatever its LLR."""
    lineup, hypotheses = plan.lineup, plan.hypotheses
    everything: list[Group] = [g for groups in played.groups.values() for g in groups]
    per_game = {}
    for name in plan.games:
        groups = played.groups.get(name, [])
        gain = pairing_gain(groups)
        per_game[name] = {"groups": len(groups), "pairing_gain": gain,
                          **(interval(sprt.estimate([g.outcome for g in groups])) if groups else {})}
    matches_per_group = 2 * lineup.players if lineup.players > 2 else 2
    verdict = "stopped" if stopped is not None else hypotheses.verdict(llr) or "undecided"
    return {
        "base": lineup.base, "candidate": lineup.candidate, "games": plan.games, "players": lineup.players,
        "field": list(lineup.field), **asdict(hypotheses), "lower": hypotheses.lower, "upper": hypotheses.upper,
        "llr": llr, "verdict": verdict, **({"stopped": stopped} if stopped is not None else {}),
        "groups": len(everything), "matches": len(everything) * matches_per_group, "dropped": played.dropped,
        **(interval(sprt.estimate([g.outcome for g in everything])) if everything else {}),
        "per_game": per_game, "tournament": plan.run.tournament_id, "seconds": round(seconds, 1),
    }
