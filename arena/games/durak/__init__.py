"""Durak (rulebook section 3): the Russian game of attack and defence.

    >>> from arena import games
    >>> state = games.get("durak").new_state(2, seed=1)
    >>> state.legal_actions(state.to_act()[0])
    ['keep']
"""

from __future__ import annotations

from .bots import DurakHeuristic
from .game import Durak
from .state import DurakState

__all__ = ["Durak", "DurakHeuristic", "DurakState"]
