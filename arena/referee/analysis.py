"""Every decision of one seat in a finished match, valued by the search bot's evaluation.

For each decision of the seat with more than one legal action, the transcript is replayed to
the position before it (``arena.referee.transcript.replay``, the one replay) and every legal
action is valued on the same sampled deals by the ``search`` house bot's own machinery
(``SearchBot.values``): K deals the seat cannot tell from the truth (``resample_hidden`` from
its view at that decision, seeded by the match, the seat, the decision and the budget), each
action applied in each deal and then played out to the end by the game's heuristic in every
seat, with the same playout seed for every action on a deal (common random numbers). Results
are on the one scale of ``arena.stats.judgement`` (win probability for two players, rank
score for more); so are the marks, the intervals and the accuracy.

- Forced decisions (one legal action) are skipped: there is nothing to lose.
- Simultaneous decisions are replayed as the transcript applied them, in seat order: the seat
  is judged on the position its earlier neighbours' recorded actions left, and the seats after
  it play by the playout policy.
- Past ``AnalysisBudget.actions`` legal actions, the chosen one, the heuristic's choice and a
  seeded draw of the others are valued.
- Past ``AnalysisBudget.decisions`` judged decisions the analysis stops (``truncated``).
- The playouts of one analysis share ``AnalysisBudget.plies`` moves of the playout policy,
  counted in Backpacker's plies (``PLY_COST``; see ``Plan``): a long match (Trekking the
  World, a long Backpacker) gets fewer worlds per decision, at least two, rather than running
  past the time bound. Each decision says how many worlds it was valued on (``worlds``);
  ``reduced`` says whether any got fewer than the budget's, ``plies`` how many the playouts
  took. The plies are counted, never timed, so the analysis stays deterministic.
- A loss that would be marked is measured again on ``AnalysisBudget.confirm`` fresh deals
  before it is given (``judge``): the selection of the best action and of the marked losses
  would otherwise inflate it.

The same transcript, seat, match id and budget give the same JSON, byte for byte.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import asdict, dataclass
from math import fsum
from typing import Any

from arena import games
from arena.games.base import State
from arena.games.search import Budget, SearchBot
from arena.stats import judgement

from .transcript import Decision, replay

# Places kept when rounding values into the stored JSON (on the 0..1 scale).
PLACES = 4
# The positions where the seat's expected score moved most, listed in the summary.
SWINGS = 3


# What one playout ply costs in each game (its heuristic's choice and the rules' step), in
# Backpacker's plies, from the plies per CPU second ``bench analysis`` measures in each game's
# analysis (18,000 a CPU second in Backpacker, 2,200 in Card Trip Europe, measured on two shared
# cores). ``AnalysisBudget.plies`` counts in Backpacker's plies, so that it stands for about
# the same time in every game; a game not listed counts as the costliest (measure a new one).
PLY_COST: dict[str, float] = {
    "backpacker": 1.0,
    "bastard_brag": 4.6,
    "card_trip_europe": 8.1,
    "crazy_eights": 1.2,
    "durak": 1.3,
    "itchy_feet": 3.3,
    "shithead": 1.6,
    "trekking_the_world": 5.9,
    "yaniv": 1.2,
}


def ply_cost(game: str) -> float:
    """``game``'s cost of a playout ply in Backpacker's plies (``PLY_COST``)."""
    return PLY_COST.get(game, max(PLY_COST.values()))


class BadAnalysis(ValueError):
    """An analysis that cannot be made: a seat the match does not have, a bad budget."""


@dataclass(frozen=True)
class AnalysisBudget:
    """How much one analysis may cost: ``worlds`` sampled deals per decision (at least 2, for
    an interval), at most ``actions`` legal actions valued per decision, at most ``decisions``
    decisions judged, playouts of at most ``depth`` plies (None: to the end of the match;
    a playout cut short is scored by the game's standings at that point), ``confirm`` fresh
    deals on which a loss that would be marked is measured again (see ``judge``), at most
    ``plies`` moves chosen by the playout policy over the whole analysis, in Backpacker's
    plies (``PLY_COST``, ``Plan``; a decision is still valued on two worlds when the share is
    spent)."""

    worlds: int = 24
    actions: int = 10
    decisions: int = 120
    depth: int | None = None
    confirm: int = 96
    plies: int = 1_500_000

    def __post_init__(self) -> None:
        if not 2 <= self.worlds <= 1000:
            raise BadAnalysis("worlds must be between 2 and 1000")
        if not 2 <= self.confirm <= 10_000:
            raise BadAnalysis("confirm must be between 2 and 10000")
        if not 2 <= self.actions <= 100:
            raise BadAnalysis("actions must be between 2 and 100")
        if not 1 <= self.decisions <= 10_000:
            raise BadAnalysis("decisions must be between 1 and 10000")
        if self.depth is not None and self.depth < 1:
            raise BadAnalysis("depth must be at least 1")
        if not 100 <= self.plies <= 1_000_000_000:
            raise BadAnalysis("plies must be between 100 and 1000000000")

    @property
    def key(self) -> str:
        """The budget in a few characters: an analysis is stored under it."""
        return (f"w{self.worlds}-a{self.actions}-d{self.decisions}-p{self.depth or 'end'}-c{self.confirm}"
                f"-m{self.plies}")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_settings(settings: Any) -> AnalysisBudget:
        """The budget the settings ask for (``analysis_worlds``, ``analysis_decisions``,
        ``analysis_plies``: the arena's settings or the server's view of them)."""
        return AnalysisBudget(worlds=settings.analysis_worlds, decisions=settings.analysis_decisions,
                              confirm=4 * settings.analysis_worlds, plies=settings.analysis_plies)


class Analyst(SearchBot):
    """The ``search`` bot's evaluation scored on the one scale, remembering every seat's
    result of each playout (the curve of expected scores)."""

    def __init__(self, game: str, seat: int, budget: AnalysisBudget) -> None:
        super().__init__(game, seat, 0, Budget(iterations=budget.worlds, depth=budget.depth,
                                               candidates=budget.actions, rollout="heuristic"))
        self.every_seat: dict[str, list[list[float]]] = {}
        self.last: list[float] = []  # every seat's result of the latest playout
        self.plies = 0  # moves the playout policy chose, over the whole analysis (``Plan``)

    def values(self, sample: State, actions: list[str], worlds: int, rng: random.Random,
               stop: float | None = None) -> dict[str, list[float]]:
        self.every_seat = {a: [] for a in actions}
        return super().values(sample, actions, worlds, rng, stop)

    def playout(self, world: State, action: str, seed: int) -> float:
        value = super().playout(world, action, seed)
        self.every_seat[action].append(self.last)
        return value

    def view(self, state: State, seat: int) -> dict[str, Any]:
        # Called once for each move the playout policy chooses: the cost of a playout.
        self.plies += 1
        return super().view(state, seat)

    def score(self, state: State) -> float:
        ranks = state.outcome().ranks
        self.last = [judgement.rank_score(ranks, s) for s in range(len(ranks))]
        return self.last[self.seat]


def world_rng(match_id: int, seat: int, turn: int, budget: AnalysisBudget) -> random.Random:
    """The stream that deals the worlds of one decision's analysis."""
    return random.Random(f"analysis:{match_id}:{seat}:{turn}:{budget.key}")


def valued_actions(state: State, seat: int, chosen: str, analyst: Analyst, rng: random.Random) -> list[str]:
    """The legal actions to value at ``state``: all, or past the budget the chosen one, the
    heuristic's choice and a seeded draw of the rest."""
    legal = state.legal_actions(seat)
    limit = analyst.budget.candidates
    if len(legal) <= limit:
        return legal
    keep = [chosen]
    if analyst.guide is not None:
        guess = analyst.guide.act(state.observation(seat), legal)
        if guess not in keep:
            keep.append(guess)
    rest = [a for a in legal if a not in keep]
    return sorted(keep + rng.sample(rest, limit - len(keep)))


def judge(state: State, seat: int, chosen: str, analyst: Analyst, rng: random.Random,
          budget: AnalysisBudget, worlds: int | None = None) -> dict[str, Any]:
    """One decision of ``seat`` at the true ``state``: each action's value and interval, the
    best action, the chosen action's loss (percentage points, with its half-width) and mark,
    and every seat's expected score after the chosen action.

    Select, then confirm: the best action is the best of several noisy means, and a loss that
    passes a band partly passes it by luck, so a loss measured on the deals that chose the best
    action and flagged the loss is inflated (by half on average, ``bench analysis`` found).
    A decision whose first loss would be marked is measured again on ``budget.confirm`` fresh
    deals, the best action against the chosen one alone; that loss, its interval and its mark
    are the ones given (``confirmed``).

    ``worlds`` (default the budget's) is the deals this decision is valued on (``Plan``); the
    confirmation takes the budget's ``confirm`` in the same proportion."""
    worlds = budget.worlds if worlds is None else worlds
    actions = valued_actions(state, seat, chosen, analyst, rng)
    sample = state.resample_hidden(seat, rng)
    values = analyst.values(sample, actions, worlds, rng)
    rows = []
    for action in actions:
        mean, half = judgement.mean_interval(values[action])
        rows.append({"action": action, "value": round(mean, PLACES), "low": round(mean - half, PLACES),
                     "high": round(mean + half, PLACES)})
    best = max(actions, key=lambda a: (fsum(values[a]), a == chosen, a))
    after = analyst.every_seat[chosen]
    expected = [round(fsum(run[s] for run in after) / len(after), PLACES) for s in range(len(after[0]))]
    loss, half = paired_loss(values[best], values[chosen])
    confirmed = best != chosen and judgement.mark(loss, half) is not None
    if confirmed:
        again = analyst.values(state.resample_hidden(seat, rng), [best, chosen], confirming(budget, worlds), rng)
        loss, half = paired_loss(again[best], again[chosen])
    return {"chosen": chosen, "best": best, "actions": rows, "loss": loss, "loss_half": half,
            "mark": judgement.mark(loss, half), "confirmed": confirmed, "expected": expected, "worlds": worlds}


def confirming(budget: AnalysisBudget, worlds: int) -> int:
    """The fresh deals that confirm a loss found on ``worlds`` deals: the budget's ``confirm``
    in proportion, at least two."""
    return max(2, budget.confirm * worlds // budget.worlds)


@dataclass
class Plan:
    """How one analysis shares its ``budget.plies`` among its decisions, in order.

    A decision's cost per world is estimated from the transcript: the actions it values times
    the decisions left in the match (a playout runs to the end) and a tenth of the match's
    length (``planned``). Before each decision, the
    plies left are shared among it and the decisions after it by those estimates, corrected by
    how the plies the latest decision took compare with its estimate (playouts are shorter
    than the match's rest where moves are forced, longer where the match's bots ended it
    quickly, and the proportion drifts as the match goes on). The decision gets that share's
    worlds, at most the budget's, at least two. Every count is of moves, none of seconds: the
    same transcript gives the same plan."""

    budget: AnalysisBudget
    allowance: float  # the game's own plies the budget's stand for (``ply_cost``)
    indexes: list[int]  # the decisions to judge, as indexes in the transcript
    actions: list[int]  # each decision to judge: the actions it values
    left: list[int]  # each decision to judge: the plies a playout from it is estimated to take
    done: int = 0  # decisions judged so far
    ratio: float = 0.5  # plies counted over plies estimated, at the latest decision (a guess at first)

    def worlds(self, spent: int) -> int:
        """The worlds of the next decision, ``spent`` plies counted so far."""
        ahead = sum(a * n for a, n in zip(self.actions[self.done:], self.left[self.done:], strict=True))
        if ahead * self.ratio <= 0:
            return self.budget.worlds
        share = (self.allowance - spent) / (ahead * self.ratio)
        return max(2, min(self.budget.worlds, int(share)))

    def judged(self, worlds: int, confirmed: bool, plies: int) -> None:
        """Count the decision just judged on ``worlds`` worlds (two actions on the
        confirmation's deals besides, when ``confirmed``), which took ``plies``."""
        left = self.left[self.done]
        estimated = left * self.actions[self.done] * worlds
        if confirmed:
            estimated += left * 2 * confirming(self.budget, worlds)
        if plies > 0:
            self.ratio = plies / estimated
        self.done += 1


def paired_loss(best: list[float], chosen: list[float]) -> tuple[float, float]:
    """The loss of ``chosen`` against ``best`` in percentage points, with the half-width of its
    95 % interval, from their results on the same deals."""
    loss, half = judgement.mean_interval([b - c for b, c in zip(best, chosen, strict=True)])
    return round(100 * loss, 2), round(100 * half, 2)


def analyse(transcript: dict[str, Any], seat: int, match_id: int, budget: AnalysisBudget,
            progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """The analysis of ``seat``'s decisions in the finished match ``transcript``: the JSON
    the store keeps (see ``docs/bot-authors.md``, "Reading your bot's analysis").
    ``progress`` is called with the number of decisions judged so far."""
    players = int(transcript["num_players"])
    if not 0 <= seat < players:
        raise BadAnalysis(f"seat must be between 0 and {players - 1}")
    game = games.get(transcript["game"]).name
    analyst = Analyst(game, seat, budget)
    rows = [Decision.from_json(row) for row in transcript["decisions"]]
    plan, truncated = planned(transcript, rows, seat, budget)
    judged: list[dict[str, Any]] = []
    index = [0]

    def step(state: State) -> None:
        at = index[0]
        index[0] += 1
        if plan.done >= len(plan.indexes) or at != plan.indexes[plan.done]:
            return
        decision = rows[at]
        before = analyst.plies
        worlds = plan.worlds(before)
        found = judge(state, seat, decision.action, analyst, world_rng(match_id, seat, decision.turn, budget), budget,
                      worlds)
        plan.judged(worlds, found["confirmed"], analyst.plies - before)
        judged.append({"index": at, "turn": decision.turn} | found)
        if progress is not None:
            progress(len(judged))

    final = replay(transcript, step)
    return {"game": game, "seat": seat, "num_players": players, "budget": budget.to_json(), "key": budget.key,
            "scale": "win probability" if players == 2 else "rank score",
            "decisions": judged, "truncated": truncated,
            "reduced": any(d["worlds"] < budget.worlds for d in judged), "plies": analyst.plies,
            "final": [judgement.rank_score(final.outcome().ranks, s) for s in range(players)],
            "summary": summarise(judged, seat)}


def planned(transcript: dict[str, Any], rows: list[Decision], seat: int,
            budget: AnalysisBudget) -> tuple[Plan, bool]:
    """The decisions of ``seat`` to judge (those with a choice, the first ``budget.decisions``)
    and whether more were left out, from a first replay of the transcript (cheap beside the
    playouts)."""
    plan = Plan(budget, budget.plies / ply_cost(games.get(transcript["game"]).name), [], [], [])
    index = [0]
    truncated = [False]

    def step(state: State) -> None:
        at = index[0]
        index[0] += 1
        if at >= len(rows) or rows[at].seat != seat:
            return
        legal = len(state.legal_actions(seat))
        if legal < 2:
            return
        if len(plan.indexes) >= budget.decisions:
            truncated[0] = True
            return
        plan.indexes.append(at)
        plan.actions.append(min(legal, budget.actions))
        # A playout from near the end runs on for a while (its moves differ from the match's):
        # a tenth of the match's length is counted besides the decisions left.
        plan.left.append(len(rows) - at + len(rows) // 10)

    replay(transcript, step)
    return plan, truncated[0]


def summarise(judged: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    """The seat's summary: average loss, marks counted, accuracy, and the positions where its
    expected score moved most from one judged decision to the next (``swings``: the decision's
    ``index`` in the transcript, the move in points)."""
    losses = [max(0.0, d["loss"]) for d in judged]
    marks = {name: sum(1 for d in judged if d["mark"] == name) for name, _ in judgement.MARKS}
    moves = [{"index": after["index"], "turn": after["turn"],
              "swing": round(100 * (after["expected"][seat] - before["expected"][seat]), 2)}
             for before, after in zip(judged, judged[1:], strict=False)]
    moves.sort(key=lambda m: (-abs(m["swing"]), m["index"]))
    return {"decisions": len(judged), "average_loss": round(fsum(losses) / len(losses), 2) if losses else 0.0,
            "marks": marks, "accuracy": round(judgement.accuracy(losses), 1), "swings": moves[:SWINGS]}
