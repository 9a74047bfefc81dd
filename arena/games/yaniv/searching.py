"""The ``search`` house bot in Yaniv: ``arena.games.search.SearchBot`` with cheaper playouts.

The search, its budget and its choices are the shared ones; only the playout is played
without the detours a playout does not need: the heuristic reads the state it already holds
(``YanivHeuristic.act_in``) instead of an observation built for it at every ply, and one
heuristic plays every seat (it keeps nothing between decisions). Every playout scores as
``SearchBot.playout`` scores it (checked in ``tests/games/test_yaniv_search.py``)."""

from __future__ import annotations

from arena.games.base import State
from arena.games.search import Budget, SearchBot, chances, standing

from .bots import YanivHeuristic
from .state import YanivState


class YanivSearch(SearchBot):
    """Determinized Monte Carlo search over Yaniv samples, its playouts read from the state."""

    def __init__(self, game: str, seat: int, seed: int, budget: Budget | None = None) -> None:
        super().__init__(game, seat, seed, budget)
        self._fast = self.policy is YanivHeuristic
        self._player = YanivHeuristic(seat, seed)

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
