"""What the runner asks and who answers: ``Turn`` and the ``Player`` protocol.

A player is any object with one coroutine, ``act(turn) -> action id``. House bots answer
in-process; an external bot's player forwards the turn through a mailbox to the gateway and
awaits the move. The runner keeps the clock (move time, bank, strikes). It measures a house
bot's time itself; an external bot's time is measured where its stream is held (the gateway),
because only there is it free of the runner's, the mailbox's and the server's own stalls: such
a player answers with a ``Timed`` and says how long the runner should wait for the server side
(``server_allowance``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from arena import games
from arena.clock import Clock
from arena.games import house
from arena.games.search import SearchBot


class Disconnected(Exception):
    """Raised by a player whose bot is gone (stream closed, mailbox expired)."""


@dataclass(frozen=True)
class Turn:
    """One decision asked of one seat.

    ``deadline`` is wall-clock epoch seconds (``time.time()``) when the per-move time runs
    out; after it the seat spends its ``time_bank`` (seconds left, shared by the match).
    ``turn_id`` is unique within the match, so a late or repeated answer can be told apart.
    """

    match_id: str
    turn_id: int
    seat: int
    observation: dict[str, Any]
    legal_actions: list[str]
    deadline: float
    time_bank: float
    move_time: float = Clock().move
    # For search bots: a full state this seat cannot tell from the true one, built only when
    # asked (``resample_hidden`` costs more than a whole decision of most games).
    sample: Callable[[], dict[str, Any]] | None = field(default=None, compare=False, repr=False)
    # This seat's forced decisions since its previous turn, as ``(turn id, action)``: applied
    # by the runner without asking (a single legal action), told to the bot with this turn.
    forced: tuple[tuple[int, str], ...] = ()
    strikes: int = 0  # the seat's strikes in this match so far

    def to_json(self) -> dict[str, Any]:
        """The turn as JSON-ready data (what a mailbox carries)."""
        return {
            "match_id": self.match_id,
            "turn_id": self.turn_id,
            "seat": self.seat,
            "observation": self.observation,
            "legal_actions": list(self.legal_actions),
            "deadline": self.deadline,
            "time_bank": self.time_bank,
            "move_time": self.move_time,
            "forced": [list(decision) for decision in self.forced],
        }


@dataclass(frozen=True)
class Timed:
    """An answer with the time the bot took, measured where its stream is held: from the
    moment its turn was written to its stream until its move arrived there. The runner charges
    ``seconds`` to the move clock and bank instead of its own wall clock. ``timed_out``: the
    gateway's clock ran out before the bot answered (``action`` is then None)."""

    action: Any
    seconds: float
    timed_out: bool = False


@runtime_checkable
class Player(Protocol):
    """One seat's decision maker for one match.

    ``in_process`` players (house bots) are awaited without a timer task: they cannot be
    interrupted anyway, and their time is still measured and charged afterwards.

    A player is asked only for decisions with a choice: the runner applies a seat's single
    legal action itself (``FORCED``) and tells the player with its next ``Turn.forced``, unless
    the player has a true ``every_decision`` (a bot that asked for every decision in its Hello).

    A player whose bot is timed elsewhere answers with ``Timed`` and has a
    ``server_allowance``: seconds the runner's own deadline waits past the bot's time, for
    the turn's trips through the server (see ``arena.referee.match``)."""

    in_process: bool

    async def act(self, turn: Turn) -> str:
        """The chosen action id for ``turn``; raise ``Disconnected`` if the bot is gone."""
        ...

    async def match_ended(self, result: dict[str, Any]) -> None:
        """Told once the match is over (external players forward it to the bot)."""
        ...


@dataclass
class HousePlayer:
    """A house bot (``arena.games.house``) as a player.

    ``think`` seconds are slept before each answer: a paced house bot stands in for a slow
    external bot in load tests and fault drills."""

    game: str
    strategy: str
    seat: int
    seed: int
    think: float = 0.0
    in_process: bool = True
    _bot: Any = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._bot = house.house_bot(self.game, self.strategy, self.seat, self.seed)
        if self.think > 0:
            self.in_process = False  # it yields to the loop, so it can be timed out

    async def act(self, turn: Turn) -> str:
        if self.think > 0:
            await asyncio.sleep(self.think)
        if isinstance(self._bot, SearchBot):
            # A searching bot spends its whole budget per move: off the loop, so that the
            # other matches a live worker plays on that loop go on meanwhile.
            return await asyncio.to_thread(self._decide, turn)
        return self._decide(turn)

    def _decide(self, turn: Turn) -> str:
        sample = turn.sample
        if sample is None:
            return house.decide(self._bot, turn.observation, turn.legal_actions)
        rules = games.get(self.game)
        # A searching bot gets exactly what an external bot asking for a sample gets.
        return house.decide(self._bot, turn.observation, turn.legal_actions,
                            lambda: rules.state_from_json(sample()))

    async def match_ended(self, result: dict[str, Any]) -> None:
        return None
