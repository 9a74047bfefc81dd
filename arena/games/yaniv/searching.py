"""The ``search`` house bot in Yaniv: ``arena.games.search.SearchBot`` with worlds that deal
the opponents low cards, and cheaper playouts.

Worlds: ``resample_hidden`` deals an opponent's unknown cards as random unseen cards, but a
Yaniv player keeps its low cards and lays its high ones. Over 460 positions of 20 heuristic
matches the unknown cards of the opponent's hand were worth 4.6 points on average, the
resampled ones 6.2: in such worlds the opponent is further from calling Yaniv, and from
Assaf, than it is, and the more worlds the search plays, the more it trusts that bias (at 48
playouts a decision it lost to the heuristic). A world here re-deals each opponent's unknown
cards from those and the deck, each card drawn with weight ``exp(-SKEW * value)``; ``SKEW``
brings the average to that of the true hands (4.6). Once the deck has been rebuilt it is a
pool of its own (yaniv 2.2) and the resample stands as it is.

Playouts: the heuristic reads the state it already holds (``YanivHeuristic.act_in``) instead
of an observation built for it at every ply, and one heuristic plays every seat (it keeps
nothing between decisions). Every playout scores as ``SearchBot.playout`` scores it (checked
in ``tests/games/test_yaniv_search.py``)."""

from __future__ import annotations

import math
import random

from arena.games.base import State
from arena.games.search import Budget, SearchBot, chances, standing

from .bots import YanivHeuristic
from .melds import VALUE
from .state import YanivState

# How strongly a world deals opponents low cards (see the module's docstring).
SKEW = 0.15
_WEIGHT = {c: math.exp(-SKEW * v) for c, v in VALUE.items()}


class YanivSearch(SearchBot):
    """Determinized Monte Carlo search over Yaniv samples, its playouts read from the state."""

    def __init__(self, game: str, seat: int, seed: int, budget: Budget | None = None) -> None:
        super().__init__(game, seat, seed, budget)
        self._fast = self.policy is YanivHeuristic
        self._player = YanivHeuristic(seat, seed)

    def search(self, sample: State, legal: list[str], guess: str | None, rng: random.Random) -> str:
        """``SearchBot.search`` from a world of the sample it is handed: that sample deals the
        opponents' unknown cards as random cards too."""
        return super().search(self.world(sample, rng), legal, guess, rng)

    def world(self, sample: State, rng: random.Random) -> State:
        """A world this seat cannot tell from ``sample``, the opponents' unknown cards dealt
        skewed low (``SKEW``) from those cards and the deck; the rest of the deck shuffled."""
        world = sample.resample_hidden(self.seat, rng)
        if not isinstance(world, YanivState) or world.rebuilds:
            return world  # a rebuilt deck holds other cards than the hands' unseen ones
        for s in range(world.num_players):
            if s == self.seat or world.out_round[s] is not None:
                continue
            seen = list(world.known[s])
            unknown = list(world.hands[s])
            for c in seen:
                unknown.remove(c)
            pool = unknown + world.deck
            dealt = []
            for _ in range(len(unknown)):
                weights = [_WEIGHT[c] for c in pool]
                dealt.append(pool.pop(rng.choices(range(len(pool)), weights)[0]))
            rng.shuffle(pool)
            world.hands[s] = seen + dealt
            world.deck = pool
        world._legal = {}
        return world

    def playout(self, world: State, action: str, seed: int) -> float:
        """``SearchBot.playout``: ``action`` in a copy of ``world``, then the heuristic in
        every seat until the depth or, with ``until_scored``, a round scored."""
        if not self._fast or not isinstance(world, YanivState):
            return super().playout(world, action, seed)
        state = world.clone()
        assert isinstance(state, YanivState)
        state.apply(self.seat, action)
        self.playouts += 1
        player = self._player
        depth = self.budget.depth
        before = world._scores() if self.budget.until_scored else None
        plies = 0
        while (to_act := state.to_act()) and (depth is None or plies < depth):
            if before is not None and state._scores() != before:
                break
            seat = to_act[0]
            choice = player.act_in(state, seat, state.legal_actions(seat))
            state.apply(seat, choice)
            plies += 1
        if self.budget.scale is not None:
            return chances(state, self.seat, self.budget.scale)
        return standing(state, self.seat)
