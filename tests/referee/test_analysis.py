"""The analysis of a finished match (``arena.referee.analysis``): its values against a search
done by hand, forced decisions skipped, the decision cap, determinism, bad requests."""

from __future__ import annotations

import json
import statistics
from typing import Any

import pytest

from arena import games
from arena.referee import analysis
from arena.referee.match import play_match
from arena.referee.players import HousePlayer
from arena.referee.transcript import Decision, replay
from arena.stats.judgement import t95

GAME = "crazy_eights"
BUDGET = analysis.AnalysisBudget(worlds=12, actions=10)


def played(bots: list[str], seed: int, game: str = GAME) -> dict[str, Any]:
    """The transcript of a real match of house bots."""
    players = [HousePlayer(game, bot, seat, seed) for seat, bot in enumerate(bots)]
    return play_match(game, players, seed).transcript()


def positions(transcript: dict[str, Any]) -> list[games.State]:
    """The state before each decision of ``transcript``."""
    seen: list[games.State] = []
    replay(transcript, lambda state: seen.append(state.clone()))
    return seen


def playout(world: games.State, seat: int, action: str, seed: int) -> float:
    """``action`` in a copy of ``world``, then the heuristic in every seat to the end: a win
    1, a draw 0.5, a loss 0."""
    heuristic = games.get(GAME).heuristic
    assert heuristic is not None
    game = world.clone()
    game.apply(seat, action)
    bots: dict[int, Any] = {}
    while game.to_act():
        who = game.to_act()[0]
        options = game.legal_actions(who)
        if len(options) == 1:
            choice = options[0]
        else:
            bot = bots.setdefault(who, heuristic(who, seed))
            choice = bot.act(game.observation(who), options)
        game.apply(who, choice)
    mine, theirs = game.outcome().ranks[seat], game.outcome().ranks[1 - seat]
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def by_hand(state: games.State, seat: int, actions: list[str], rng: Any, worlds: int) -> dict[str, list[float]]:
    """Each of ``actions`` valued as the analysis describes it, written out: one sample of the
    seat's view, further worlds dealt from it, each action met with the same playout seed."""
    sample = state.resample_hidden(seat, rng)
    results: dict[str, list[float]] = {a: [] for a in actions}
    for k in range(worlds):
        world = sample if k == 0 else sample.resample_hidden(seat, rng)
        seed = rng.getrandbits(62)
        for action in actions:
            results[action].append(playout(world, seat, action, seed))
    return results


def check_by_hand(transcript: dict[str, Any], at: int, match_id: int) -> dict[str, Any]:
    """The analysis of decision ``at`` (seat 0's) against the same search done by hand: its
    values and intervals, best action, expected scores and loss (measured again on fresh
    deals when the first loss was flagged). Returns the decision's analysis."""
    states = positions(transcript)
    state, decision = states[at], Decision.from_json(transcript["decisions"][at])
    assert len(state.legal_actions(0)) <= BUDGET.actions
    found = analysis.analyse(transcript, 0, match_id=match_id, budget=BUDGET)
    judged = next(d for d in found["decisions"] if d["index"] == at)

    rng = analysis.world_rng(match_id, 0, decision.turn, BUDGET)
    hand = by_hand(state, 0, state.legal_actions(0), rng, BUDGET.worlds)
    means = {a: statistics.fmean(v) for a, v in hand.items()}
    assert [r["action"] for r in judged["actions"]] == sorted(hand)
    for row in judged["actions"]:
        values = hand[row["action"]]
        half = t95(len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5
        assert row["value"] == pytest.approx(means[row["action"]], abs=1e-4)
        assert row["low"] == pytest.approx(means[row["action"]] - half, abs=1e-4)
        assert row["high"] == pytest.approx(means[row["action"]] + half, abs=1e-4)
    assert means[judged["best"]] == max(means.values())
    assert judged["chosen"] == decision.action
    # Two players: the seat's expected score and the other's add up to one.
    assert judged["expected"][0] == pytest.approx(means[decision.action], abs=1e-4)
    assert sum(judged["expected"]) == pytest.approx(1.0, abs=2e-4)
    first = loss_of(hand, judged["best"], decision.action)
    # Flagged when the first deals' loss less its half-width reaches the least band (5 points).
    assert judged["confirmed"] == (first[0] - first[1] >= 5)
    if judged["confirmed"]:  # measured again on fresh deals of the same stream
        hand = by_hand(state, 0, [judged["best"], decision.action], rng, BUDGET.confirm)
    assert (judged["loss"], judged["loss_half"]) == pytest.approx(loss_of(hand, judged["best"], decision.action),
                                                                  abs=0.01)
    return judged


def loss_of(hand: dict[str, list[float]], best: str, chosen: str) -> tuple[float, float]:
    """The loss in points and its half-width, by hand."""
    diffs = [b - c for b, c in zip(hand[best], hand[chosen], strict=True)]
    return 100 * statistics.fmean(diffs), 100 * t95(len(diffs) - 1) * statistics.stdev(diffs) / len(diffs) ** 0.5


@pytest.mark.parametrize("seed", [11, 12])
def test_values_agree_with_a_search_done_by_hand_on_a_small_position(seed: int) -> None:
    transcript = played(["random", "heuristic"], seed=seed)
    states = positions(transcript)
    rows = [Decision.from_json(r) for r in transcript["decisions"]]
    # The seat's last decision with a choice: a small position near the end of the match.
    at = max(i for i, d in enumerate(rows) if d.seat == 0 and len(states[i].legal_actions(0)) > 1)
    check_by_hand(transcript, at, match_id=5)


def test_a_loss_that_would_be_marked_is_measured_again_on_fresh_deals() -> None:
    for seed in range(40):
        transcript = played(["random", "heuristic"], seed=seed)
        found = analysis.analyse(transcript, 0, 7, BUDGET)
        states = positions(transcript)
        confirmed = [d for d in found["decisions"]
                     if d["confirmed"] and len(states[d["index"]].legal_actions(0)) <= BUDGET.actions]
        if confirmed:
            break
    else:
        pytest.fail("no loss of a random bot flagged in 40 matches")
    judged = check_by_hand(transcript, confirmed[0]["index"], match_id=7)
    assert judged["confirmed"]


def test_every_decision_with_a_choice_is_judged_and_forced_ones_are_skipped() -> None:
    transcript = played(["random", "heuristic"], seed=4)
    states = positions(transcript)
    rows = [Decision.from_json(r) for r in transcript["decisions"]]
    choices = [i for i, d in enumerate(rows) if d.seat == 1 and len(states[i].legal_actions(1)) > 1]
    forced = [i for i, d in enumerate(rows) if d.seat == 1 and len(states[i].legal_actions(1)) == 1]
    assert choices and forced

    found = analysis.analyse(transcript, 1, match_id=1, budget=BUDGET)
    assert [d["index"] for d in found["decisions"]] == choices
    assert not found["truncated"]
    for judged in found["decisions"]:
        assert len(judged["actions"]) >= 2
        assert judged["loss"] >= 0  # the best action is the one with the best mean
        assert judged["mark"] in (None, "inaccuracy", "mistake", "blunder")
    summary = found["summary"]
    assert summary["decisions"] == len(choices)
    assert sum(summary["marks"].values()) == sum(1 for d in found["decisions"] if d["mark"])
    assert 0 <= summary["accuracy"] <= 100
    assert found["final"] == [{1: 1.0, 2: 0.0}[r] for r in transcript["game_ranks"]] or found["final"] == [0.5, 0.5]


def test_the_same_match_seat_and_budget_give_the_same_json() -> None:
    transcript = played(["random", "random"], seed=8)
    first = json.dumps(analysis.analyse(transcript, 0, 3, BUDGET), sort_keys=True)
    assert json.dumps(analysis.analyse(transcript, 0, 3, BUDGET), sort_keys=True) == first
    other = analysis.AnalysisBudget(worlds=13, actions=10)
    assert json.dumps(analysis.analyse(transcript, 0, 3, other), sort_keys=True) != first


def test_a_random_bot_is_marked_and_the_marks_hold_the_rule() -> None:
    transcript = played(["random", "heuristic"], seed=21, game="durak")
    found = analysis.analyse(transcript, 0, 2, analysis.AnalysisBudget(worlds=24))
    marked = [d for d in found["decisions"] if d["mark"]]
    assert marked, "a random bot makes mistakes the search can see"
    bands = {"inaccuracy": (5, 10), "mistake": (10, 15), "blunder": (15, 101)}
    for d in found["decisions"]:
        sure = d["loss"] - d["loss_half"]
        if d["mark"] is None:
            assert sure < 5
        else:
            low, high = bands[d["mark"]]
            assert low <= sure < high


def test_the_decision_cap_stops_the_analysis() -> None:
    transcript = played(["random", "heuristic"], seed=4)
    found = analysis.analyse(transcript, 1, 1, analysis.AnalysisBudget(worlds=4, decisions=2))
    assert len(found["decisions"]) == 2
    assert found["truncated"]


@pytest.mark.parametrize("seat", [-1, 2])
def test_a_seat_the_match_does_not_have_is_refused(seat: int) -> None:
    with pytest.raises(analysis.BadAnalysis, match="seat must be between 0 and 1"):
        analysis.analyse(played(["random", "random"], seed=2), seat, 1, BUDGET)


@pytest.mark.parametrize("changes", [{"worlds": 1}, {"actions": 1}, {"decisions": 0}, {"depth": 0}])
def test_a_budget_out_of_bounds_is_refused(changes: dict[str, int]) -> None:
    with pytest.raises(analysis.BadAnalysis):
        analysis.AnalysisBudget(**changes)


@pytest.mark.parametrize("game", games.names())
def test_every_game_is_analysed_end_to_end(game: str) -> None:
    transcript = played(["heuristic", "heuristic"], seed=3, game=game)
    # Two decisions on few worlds: every game's analysis, whatever its match's length, goes
    # through (``bench analysis`` times each game's at the default budget).
    budget = analysis.AnalysisBudget(worlds=4, confirm=4, decisions=2, plies=100)
    found = analysis.analyse(transcript, 0, 1, budget)
    json.dumps(found)
    assert found["game"] == game and len(found["decisions"]) == 2 and found["plies"] > 0
    assert all(2 <= d["worlds"] <= 4 for d in found["decisions"])
    for judged in found["decisions"]:
        assert judged["best"] in [row["action"] for row in judged["actions"]]
        assert len(judged["actions"]) >= 2


def test_the_plies_are_shared_among_the_decisions_and_counted_not_timed() -> None:
    transcript = played(["random", "heuristic"], seed=4, game="durak")
    budget = analysis.AnalysisBudget(worlds=8, confirm=8)
    full = analysis.analyse(transcript, 0, 1, budget)
    assert len(full["decisions"]) >= 10 and not full["reduced"]
    assert {d["worlds"] for d in full["decisions"]} == {8} and full["plies"] < budget.plies
    # The budget counts in Backpacker's plies, the analysis in Durak's.
    half = analysis.AnalysisBudget(worlds=8, confirm=8, plies=round(full["plies"] * analysis.ply_cost("durak") / 2))
    found = analysis.analyse(transcript, 0, 1, half)
    worlds = [d["worlds"] for d in found["decisions"]]
    assert found["reduced"] and min(worlds) >= 2 and max(worlds) <= 8
    assert [d["index"] for d in found["decisions"]] == [d["index"] for d in full["decisions"]]
    # Shared, not spent first come first served: the first and the last half of the decisions
    # get about as many worlds, and the plies spent are about the budget's.
    middle = len(worlds) // 2
    assert abs(sum(worlds[:middle]) / middle - sum(worlds[middle:]) / (len(worlds) - middle)) <= 2, worlds
    assert full["plies"] / 2 * 0.8 <= found["plies"] <= full["plies"] / 2 * 1.2
    assert json.dumps(analysis.analyse(transcript, 0, 1, half), sort_keys=True) == json.dumps(found, sort_keys=True)
