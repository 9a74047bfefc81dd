"""``search``: the house bot that searches, the arena's bar for "a good bot", in every game.

Determinized flat Monte Carlo search (perfect-information Monte Carlo over sampled worlds).
The bot is handed what the protocol hands an external bot that asks for a sample: a full
state its seat cannot tell apart from the true one (``resample_hidden`` of the truth, see
``arena.referee.players.Turn.sample``). It never sees the true state. From that sample it
deals further worlds (``resample_hidden`` of the sample), and in every world it plays each
candidate action followed by a playout: the game's own ``heuristic`` house bot in every seat
(or uniform random play where a game has none, or when asked), for a bounded number of
plies, then scores the final position by the game's standings (``outcome().scores``, which
every game keeps meaningful for an unfinished match). Every candidate meets the same worlds
and the same playout seeds (common random numbers), so their differences are the actions'
and not the luck's. The candidate with the best mean is played when it beats the heuristic's
own choice by more than the noise (a paired test over the worlds); otherwise the heuristic's
choice stands, so the search departs from a good default only for a measured gain.

Where a game asks for it (``Budget.halving``) the playouts are spent in rounds of sequential
halving: every candidate meets the first worlds, the worse half drops out, and so on, so the
two finalists (the heuristic's choice always among them) meet several times the worlds a
flat share would give them, and the paired test has the power to tell them apart. Where the
standings only say who is ahead (Yaniv, between two rounds), ``Budget.scale`` scores an
unfinished playout by a logistic of the score margin instead, which tells a round lost by
five points from one lost by forty.

Budget: ``iterations`` playouts per decision, deterministic for a seed. An optional wall
clock cap (the ``search_ms`` setting or ``Budget.ms``) stops the search earlier on a slow machine,
at the price of determinism: how many worlds fit then depends on the machine's load.

    >>> from arena.games import house
    >>> state, _ = house.play("durak", ["search", "random"], seed=3)
    >>> state.is_terminal()
    True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from math import fsum
from typing import Any

from arena.settings import ArenaSettings, load

from .base import HouseBot, State
from .registry import get


@dataclass(frozen=True)
class Budget:
    """How hard ``search`` thinks about one decision.

    ``iterations``: playouts per decision, shared among the candidates (every candidate gets
    the same worlds). ``depth``: plies of a playout before the position is scored (None: to
    the end of the match). ``candidates``: the most actions searched; beyond it the
    heuristic's choice and a seeded draw of the others. ``ms``: an optional wall-clock cap
    per decision; it makes play depend on the machine. ``rollout``: ``heuristic`` or
    ``random`` play in the playouts. ``min_worlds``: the fewest worlds whose verdict may
    overrule the heuristic (the noise of two or three worlds is a poor guide).
    ``until_scored``: a playout also ends at the first change of the standings (a round of
    Yaniv scored), so no playout is scored half-way between two scoring events, where the
    standings say nothing of the cards in hand. ``halving``: spend the playouts in rounds
    (sequential halving), each round dropping the worse half of the candidates but the
    heuristic's choice, so the contenders meet many more worlds than a flat share gives.
    ``scale``: an unfinished playout is scored by the score margin, a logistic of the margin
    over this many points, rather than by who is ahead: where a round is won by five points
    or by forty, being ahead says little of how far."""

    iterations: int = 48
    depth: int | None = 40
    candidates: int = 8
    ms: float | None = None
    rollout: str = "heuristic"
    min_worlds: int = 2
    until_scored: bool = False
    halving: bool = False
    scale: float | None = None

    def with_settings(self, settings: ArenaSettings) -> Budget:
        """This budget with the ``search_iterations``, ``search_ms`` and ``search_rollout``
        settings applied where set."""
        changes: dict[str, Any] = {}
        if settings.search_iterations is not None:
            changes["iterations"] = settings.search_iterations
        if settings.search_ms is not None:
            changes["ms"] = settings.search_ms or None
        if settings.search_rollout is not None:
            changes["rollout"] = settings.search_rollout
        return replace(self, **changes)


# The search departs from the heuristic's choice only for a gain this many standard errors
# above nothing, and at least MIN_GAIN of a standing: the best of several noisy means is
# flattered by the noise, and the heuristic is a good default.
CONFIDENCE = 2.0
MIN_GAIN = 0.02

# How much the standings' margin counts beside who is ahead (each in [0, 1] and (-1, 1)).
MARGIN_WEIGHT = 0.25


def default_budget(game: str, settings: ArenaSettings | None = None) -> Budget:
    """The budget ``search`` plays ``game`` with: its ``Game.search_budget``, then ``settings``
    (default the process's).

    Each game's budget is measured in duplicate pairs (``python -m bench search``, figures in
    its docs page) so that a match stays affordable on a shared two-core machine: the short
    card games play to the end; the long ones look a few dozen plies ahead."""
    return Budget(**get(game).search_budget).with_settings(settings or load())


def standing(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``: the share of opponents it is ahead of (ties half),
    plus a little for the margin, from the game's scores (final or, mid-match, the fair
    standing every game gives when the turn cap stops it)."""
    scores = state.outcome().scores
    mine = scores[seat]
    total = 0.0
    for other, theirs in enumerate(scores):
        if other == seat:
            continue
        ahead = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        total += ahead + MARGIN_WEIGHT * (mine - theirs) / (abs(mine) + abs(theirs) + 1.0)
    return total / (len(scores) - 1)


def chances(state: State, seat: int, scale: float) -> float:
    """How good ``state`` is for ``seat`` by its score margins: a logistic of each margin
    over ``scale`` (a finished match: ``standing``)."""
    if state.is_terminal():
        return standing(state, seat)
    scores = state.outcome().scores
    mine = scores[seat]
    total = 0.0
    for other, theirs in enumerate(scores):
        if other != seat:
            total += 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, (theirs - mine) / scale))))
    return total / (len(scores) - 1)


def significant(better: list[float], base: list[float]) -> bool:
    """True when ``better`` beats ``base`` world by world by more than ``CONFIDENCE``
    standard errors of the mean difference (a paired test: both met the same worlds)."""
    diffs = [b - a for b, a in zip(better, base, strict=True)]
    if len(diffs) < 2:
        return False
    mean = fsum(diffs) / len(diffs)
    spread = fsum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    return mean > CONFIDENCE * math.sqrt(spread / len(diffs)) + MIN_GAIN


PolicyFactory = Callable[[int, int], HouseBot]


class SearchBot(HouseBot):
    """Determinized flat Monte Carlo search over the sample state it is handed."""

    wants_sample = True

    def __init__(self, game: str, seat: int, seed: int, budget: Budget | None = None) -> None:
        super().__init__(seat, seed)
        self.game = game
        self.budget = budget or default_budget(game)
        heuristic = get(game).heuristic
        self.guide = heuristic(seat, seed) if heuristic is not None else None
        # Random playouts need no observation: the cheapest look ahead there is.
        self.policy: PolicyFactory | None = heuristic if self.budget.rollout == "heuristic" else None
        self.playouts = 0  # over the whole match, for tests and benchmarks

    def act(self, observation: dict[str, Any], legal_actions: list[str], sample: State | None = None) -> str:
        """The searched choice for ``observation``; ``sample`` is a state this seat cannot
        tell from the true one. Without one there is nothing to search: the heuristic (or a
        random legal action) answers."""
        if len(legal_actions) == 1:
            return legal_actions[0]
        guess = self.guide.act(observation, legal_actions) if self.guide is not None else None
        if sample is None:
            return guess if guess is not None else self.random.choice(legal_actions)
        rng = random.Random(self.random.getrandbits(64))
        return self.search(sample, legal_actions, guess, rng)

    def candidates(self, legal: list[str], guess: str | None, rng: random.Random) -> list[str]:
        """The actions worth a search: all of them, or the heuristic's and a seeded draw."""
        limit = max(1, self.budget.candidates)
        if len(legal) <= limit:
            return list(legal)
        others = [a for a in legal if a != guess]
        chosen = rng.sample(others, limit - (guess is not None))
        return ([guess] if guess is not None else []) + chosen

    def search(self, sample: State, legal: list[str], guess: str | None, rng: random.Random) -> str:
        """The candidate with the best mean standing over the worlds searched, if it beats
        the heuristic's choice by more than the noise (``CONFIDENCE`` standard errors of the
        paired differences); else the heuristic's choice."""
        actions = self.candidates(legal, guess, rng)
        if self.budget.halving:
            return self.halving(sample, actions, guess, rng)
        worlds = max(1, self.budget.iterations // len(actions))
        stop = None if self.budget.ms is None else time.perf_counter() + self.budget.ms / 1000
        values = self.values(sample, actions, worlds, rng, stop)
        best = max(actions, key=lambda a: (fsum(values[a]), a == guess, a))
        if guess is None or best == guess:
            return best
        return best if self.departs(values[best], values[guess]) else guess

    def values(self, sample: State, actions: list[str], worlds: int, rng: random.Random,
               stop: float | None = None) -> dict[str, list[float]]:
        """Each of ``actions``' value world by world: ``sample`` first, then ``worlds - 1``
        more worlds this seat cannot tell from it, every action meeting the same worlds and
        the same playout seed in each (common random numbers, so differences are paired).
        ``stop``: a ``perf_counter`` time past which no further world is dealt."""
        values: dict[str, list[float]] = {a: [] for a in actions}
        world = sample
        for index in range(worlds):
            if index:
                if stop is not None and time.perf_counter() >= stop:
                    break
                world = self.world(sample, rng)
            playout_seed = rng.getrandbits(62)
            for action in actions:
                values[action].append(self.playout(world, action, playout_seed))
        return values

    def halving(self, sample: State, actions: list[str], guess: str | None, rng: random.Random) -> str:
        """``search`` by sequential halving: round after round every surviving candidate
        meets the same new worlds, then the worse half (never the heuristic's choice) drops
        out. The survivors have met every world so far, so the last comparison with the
        heuristic's choice is paired over all of them."""
        rounds = max(1, math.ceil(math.log2(len(actions))))
        share = max(1, self.budget.iterations // rounds)
        stop = None if self.budget.ms is None else time.perf_counter() + self.budget.ms / 1000
        values: dict[str, list[float]] = {a: [] for a in actions}
        last: dict[str, list[float]] = {}  # the latest round's values alone
        alive = list(actions)
        world: State | None = None
        for _ in range(rounds):
            last = {a: [] for a in alive}
            for _ in range(max(1, share // len(alive))):
                if world is None:
                    world = sample
                else:
                    if stop is not None and time.perf_counter() >= stop:
                        break
                    world = self.world(sample, rng)
                playout_seed = rng.getrandbits(62)
                for action in alive:
                    value = self.playout(world, action, playout_seed)
                    values[action].append(value)
                    last[action].append(value)
            if len(alive) <= 2:
                break
            alive.sort(key=lambda a: (-fsum(values[a]), a != guess, a))
            kept = alive[: (len(alive) + 1) // 2]
            if guess is not None and guess not in kept:
                kept[-1] = guess
            alive = kept
        best = max(alive, key=lambda a: (fsum(values[a]), a == guess, a))
        if guess is None or best == guess:
            return best
        return best if self.overrules(values[best], values[guess], last[best], last[guess]) else guess

    def overrules(self, best: list[float], guess: list[float], best_last: list[float],
                  guess_last: list[float]) -> bool:
        """Whether the finalist of a halving leaves the heuristic's choice, from their values
        over every world (``best``, ``guess``) and over the last round's (``*_last``)."""
        return self.departs(best, guess)

    def world(self, sample: State, rng: random.Random) -> State:
        """Another world this seat cannot tell from ``sample`` (a new determinization)."""
        return sample.resample_hidden(self.seat, rng)

    def departs(self, best: list[float], guess: list[float]) -> bool:
        """Whether the best candidate's values, world by world, justify leaving the
        heuristic's choice, whose values are ``guess``."""
        return len(best) >= self.budget.min_worlds and significant(best, guess)

    def playout(self, world: State, action: str, seed: int) -> float:
        """``action`` in a copy of ``world``, then the playout policy in every seat."""
        state = world.clone()
        state.apply(self.seat, action)
        self.playouts += 1
        policy = self.policy
        bots: dict[int, HouseBot] = {}
        dice = random.Random(seed) if policy is None else None
        depth = self.budget.depth
        before = world.outcome().scores if self.budget.until_scored else None
        plies = 0
        while (to_act := state.to_act()) and (depth is None or plies < depth):
            if before is not None and state.outcome().scores != before:
                break
            seat = to_act[0]
            legal = state.legal_actions(seat)
            if len(legal) == 1:
                choice = legal[0]
            elif dice is not None:
                choice = legal[dice.randrange(len(legal))]
            else:
                assert policy is not None
                bot = bots.get(seat)
                if bot is None:
                    bot = bots[seat] = policy(seat, seed)
                choice = bot.act(self.view(state, seat), legal)
            state.apply(seat, choice)
            plies += 1
        return self.score(state)

    def view(self, state: State, seat: int) -> dict[str, Any]:
        """What the playout policy of ``seat`` is shown (a game may hand it a leaner view)."""
        return state.observation(seat)

    def score(self, state: State) -> float:
        """How good the end of a playout is for this seat."""
        if self.budget.scale is not None:
            return chances(state, self.seat, self.budget.scale)
        return standing(state, self.seat)
