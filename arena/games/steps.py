"""The match loop: one match stepped from its first deal to its end, whoever decides.

The referee's runner (``arena.referee.match``) asks its players through the clock; in-process
play (``arena.games.house.play``, the search bench) asks bots directly with ``step_in_process``.
Both step through ``Steps``, so who is asked, in which order, with which turn id, and what is
recorded is decided in one place. Here, below the referee, because the rules' own house play
needs it too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .base import State

# The outcome code of a decision its seat made itself, in time and legal. The referee's other
# codes (a time-out, an illegal action, ...) are in ``arena.referee.transcript``.
OK = "ok"
# The code of a decision with a single legal action: applied without asking the seat, by the
# referee and in in-process play alike, so a bot is never asked for a decision it cannot make
# and plays the same wherever it plays (``arena.referee.match``, "Forced decisions").
FORCED = "forced"


@dataclass(frozen=True)
class Decision:
    """One applied action: the turn it answered, the seat, the action, the time the seat
    took in milliseconds (``ms``) and the outcome code.

    ``ms`` is the time the seat's clock counted. For an external bot the gateway measures it
    where the bot's stream is held: from the moment the turn was written to the stream until
    the bot's move arrived there, less any stall of the gateway's own loop meanwhile
    (``arena.referee.gateway``). A turn sent again on a new stream after a reconnect, or one
    that ran out while the bot had no stream, is timed by the runner from when it first sent
    it (``arena.referee.remote``). Otherwise (a house bot, a bot that disconnected) it is the
    runner's time around the seat's ``act``. A turn the server could not time (the server's
    TIMEOUT, ``arena.referee.transcript``) holds the runner's wait and was charged nothing; a
    forfeited seat's turn holds 0."""

    turn: int
    seat: int
    action: str
    ms: float
    code: str = OK

    def to_json(self) -> list[Any]:
        return [self.turn, self.seat, self.action, round(self.ms, 3), self.code]

    @staticmethod
    def from_json(row: list[Any]) -> Decision:
        return Decision(int(row[0]), int(row[1]), str(row[2]), float(row[3]), str(row[4]))


class Steps:
    """The match loop: one match stepped from its first deal to its end, whoever answers.

    ``asks()`` names the decisions to ask for now, as ``(turn id, seat)``; ``settle`` applies
    the answers in seat order and records them as ``decisions``. Turn ids count the decisions
    asked for (they seed the referee's random actions and the seats' samples, see
    ``arena.games.house.sampler``). ``run_match`` asks its players through the clock;
    ``step_in_process`` asks bots in-process (``arena.games.house.play``, the bench).

    ``together``: a simultaneous decision asks every seat in ``to_act()`` on the same state,
    none seeing another's choice (the runner); otherwise the seats are asked one at a time in
    seat order, each on the state the previous seat's action left."""

    def __init__(self, state: State, together: bool = True) -> None:
        self.state = state
        self.together = together
        self.turns = 0
        self.decisions: list[Decision] = []

    def asks(self) -> list[tuple[int, int]]:
        """``(turn id, seat)`` of each decision to ask for now; empty once the match is over."""
        seats = self.state.to_act()
        if not self.together:
            seats = seats[:1]
        asks = [(self.turns + index, seat) for index, seat in enumerate(seats)]
        self.turns += len(asks)
        return asks

    def settle(self, asks: Sequence[tuple[int, int]], answers: Sequence[tuple[str, float, str]]) -> None:
        """Apply each answer ``(action, seconds taken, code)`` to ``asks`` in seat order and
        record it. Of a simultaneous decision, an answer that an earlier seat's action made
        stale is dropped (that seat is asked again). An illegal action raises
        ````arena.games.IllegalAction````."""
        for (turn_id, seat), (action, elapsed, code) in zip(asks, answers, strict=True):
            if len(asks) > 1 and (seat not in self.state.to_act() or action not in self.state.legal_actions(seat)):
                continue  # an earlier seat's action changed this seat's decision: ask again
            self.state.apply(seat, action)
            self.decisions.append(Decision(turn_id, seat, action, elapsed * 1000.0, code))


def step_in_process(state: State, decide: Callable[[int, int], str]) -> list[Decision]:
    """Step ``state`` to its end with ``decide(turn id, seat)`` giving each seat's action, one
    seat at a time: bots in-process, untimed, an illegal action raising
    ````arena.games.IllegalAction````. A decision with a single legal action is applied without
    asking (``FORCED``), as the referee does. Returns the decisions."""
    steps = Steps(state, together=False)
    while asks := steps.asks():
        steps.settle(asks, [forced_or(state, turn_id, seat, decide) for turn_id, seat in asks])
    return steps.decisions


def forced_or(state: State, turn_id: int, seat: int, decide: Callable[[int, int], str]) -> tuple[str, float, str]:
    """The seat's single legal action, forced; else what ``decide`` chooses."""
    legal = state.legal_actions(seat)
    if len(legal) == 1:
        return legal[0], 0.0, FORCED
    return decide(turn_id, seat), 0.0, OK
