"""The match runner: one match from the first deal to the outcome, whoever the players are.

It drives the game contract (``to_act``, ``legal_actions``, ``apply``), asks every seat in
``to_act()`` (all at once when the decision is simultaneous), keeps the clock, hands out
strikes and forfeits, and writes the transcript. It knows nothing of sockets, queues or the
store. The stepping itself (who is asked, applying, recording: ``Steps``) is the one match
loop, which in-process play steps through too (``step_in_process``: ``arena.games.house.play``
and the search bench).

Clock rules: each decision has ``Clock.move`` seconds; time beyond that comes out of the
seat's ``Clock.bank`` for the whole match. A seat that runs out, answers with an action
that is not legal, answers with something that is not an action id, or is disconnected
gets a strike and the referee plays a random legal action for it, drawn from a stream
seeded by the match seed and the turn id (so the match stays reproducible). After
``Clock.strikes`` strikes the seat forfeits: it is ranked last whatever the cards say, and
the match plays on with random actions in its place.

Forced decisions: a seat with a single legal action is not asked. The runner applies that
action itself (code ``FORCED``, no time, nothing charged) and hands the seat the list of its
forced decisions with its next turn (``Turn.forced``), so a remote bot is spared a round trip
for a decision it could not make otherwise. A player with a true ``every_decision`` is asked
anyway. What the other seats see does not change: the state is the same whoever applied it.

Whose clock: a house bot's time is what the runner measures around ``act``. An external bot's
time is measured by the gateway, where its stream is held: from the moment its turn was
written to the stream until its move arrived there (``players.Timed``). The gateway also
keeps that turn's deadline and, when it passes, answers for the bot with a time-out. So a
stall of this runner, of the mailbox or of the gateway before it wrote the turn out is never
charged to the bot: a move that reached the gateway in time is in time however late the
runner reads it. The runner's own deadline stays as a safety net, ``server_allowance``
seconds past the bot's time; when it passes with no word from the gateway while the bot's
stream still stands, the server was slow, not the bot: the turn gets a random legal action
with no strike and nothing taken from the bank. Only a bot whose stream is gone is struck
then, as before.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena import games
from arena.clock import Clock
from arena.games import house
from arena.games.steps import FORCED, Steps

from .players import Disconnected, Player, Timed, Turn
from .transcript import DISCONNECTED, FORFEITED, ILLEGAL, MALFORMED, OK, TIMEOUT, Decision, final_ranks


@dataclass
class MatchResult:
    """The outcome of one match and its transcript.

    ``ranks`` are the final standings (forfeited seats last); ``game_ranks`` and ``scores``
    are what the rules said."""

    match_id: str
    game: str
    version: str
    options: dict[str, Any]
    seed: int
    num_players: int
    scores: list[float]
    game_ranks: list[int]
    ranks: list[int]
    strikes: list[int]
    forfeited: list[bool]
    capped: bool
    duration: float
    decisions: list[Decision] = field(default_factory=list)

    def codes(self) -> dict[str, int]:
        """How many decisions ended with each outcome code."""
        counts: dict[str, int] = {}
        for decision in self.decisions:
            counts[decision.code] = counts.get(decision.code, 0) + 1
        return counts

    def transcript(self) -> dict[str, Any]:
        """JSON-ready transcript; ``arena.referee.replay`` reproduces the match from it."""
        return {
            "match_id": self.match_id,
            "game": self.game,
            "version": self.version,
            "options": self.options,
            "seed": self.seed,
            "num_players": self.num_players,
            "scores": self.scores,
            "game_ranks": self.game_ranks,
            "ranks": self.ranks,
            "strikes": self.strikes,
            "forfeited": self.forfeited,
            "capped": self.capped,
            "decisions": [d.to_json() for d in self.decisions],
        }


class _Table:
    """The runner's bookkeeping for one match in progress."""

    def __init__(self, match_id: str, seed: int, players: Sequence[Player], clock: Clock) -> None:
        self.match_id = match_id
        self.seed = seed
        self.players = players
        self.clock = clock
        n = len(players)
        self.bank = [clock.bank] * n
        self.strikes = [0] * n
        self.forfeited = [False] * n
        # Each seat's forced decisions not yet told to its player, as (turn id, action).
        self.forced: list[list[tuple[int, str]]] = [[] for _ in range(n)]

    def fallback(self, turn_id: int, legal: list[str]) -> str:
        return random.Random(f"referee:{self.seed}:{turn_id}").choice(legal)

    async def ask(self, state: games.State, turn_id: int, seat: int) -> tuple[str, float, str]:
        """Ask ``seat`` for decision ``turn_id``: (action to apply, seconds taken, code)."""
        legal = state.legal_actions(seat)
        if self.forfeited[seat]:
            return self.fallback(turn_id, legal), 0.0, FORFEITED
        player = self.players[seat]
        if len(legal) == 1 and not getattr(player, "every_decision", False):
            self.forced[seat].append((turn_id, legal[0]))
            return legal[0], 0.0, FORCED
        allowed = self.clock.move + self.bank[seat]
        # None: the runner times this player; else the player's bot is timed where its stream
        # is held and the runner's deadline only catches a server that never answers.
        allowance: float | None = getattr(player, "server_allowance", None)
        turn = Turn(
            match_id=self.match_id,
            turn_id=turn_id,
            seat=seat,
            observation=state.observation(seat),
            legal_actions=legal,
            deadline=time.time() + self.clock.move,
            time_bank=self.bank[seat],
            move_time=self.clock.move,
            sample=lambda: house.sampler(state, seat, self.seed, turn_id)().to_json(),
            forced=tuple(self.forced[seat]),
            strikes=self.strikes[seat],
        )
        self.forced[seat].clear()
        start = time.perf_counter()
        action: Any = None
        try:
            if player.in_process:
                action = await player.act(turn)
            else:
                # In this task (``wait_for`` would wrap act in a task of its own: two more
                # loop iterations on every move).
                async with asyncio.timeout(allowed + (allowance or 0.0)):
                    action = await player.act(turn)
            code = OK
        except TimeoutError:
            code = TIMEOUT
        except Disconnected as gone:
            code = DISCONNECTED
            if getattr(gone, "forfeit", False):  # gone past its grace period: out at once
                self.forfeited[seat] = True
        except Exception as error:
            if not_the_players(error):
                raise
            code = MALFORMED  # a player that crashes has not given an action id
        elapsed = time.perf_counter() - start
        excused = False
        if isinstance(action, Timed):  # the bot's own time, measured at its stream
            elapsed = action.seconds
            if action.timed_out:
                code = TIMEOUT
            action = action.action
        elif code == TIMEOUT and allowance is not None:
            excused = await server_was_slow(player)
        if code == OK:
            if elapsed > allowed:
                code = TIMEOUT
            elif not isinstance(action, str):
                code = MALFORMED
            elif action not in legal:
                code = ILLEGAL
        if not excused:
            self.bank[seat] = max(0.0, self.bank[seat] - max(0.0, elapsed - self.clock.move))
        if code != OK:
            if not excused:
                self.strikes[seat] += 1
            if self.strikes[seat] >= self.clock.strikes:
                self.forfeited[seat] = True
            action = self.fallback(turn_id, legal)
        decided = getattr(player, "decided", None)
        if decided is not None:  # external players tell their bot what became of the turn
            try:
                await decided(turn_id, action, code, self.strikes[seat])
            except Exception:  # a bot that is gone cannot change the decision
                pass
        return action, elapsed, code


async def server_was_slow(player: Player) -> bool:
    """After the runner's own deadline passed with no word from the gateway: True when the
    bot's stream still stands (the gateway holds the turn and would have timed it: the delay
    is the server's), False when the bot is gone (its time-out is its own)."""
    try:
        return bool(await player.still_connected())  # type: ignore[attr-defined]
    except Exception as error:
        if not_the_players(error):
            raise
        return False


def not_the_players(error: BaseException) -> bool:
    """True for an error of the arena's surroundings raised while a player decided: the task's
    time limit, the broker or the mailbox out of reach. It stops the match instead of striking
    a bot for what was not its fault."""
    return type(error).__module__.split(".")[0] in ("billiard", "celery", "kombu", "redis")


async def prepare_players(players: Sequence[Player], forfeited: list[bool]) -> None:
    """Let players that need it get ready before the clock starts (an external bot waits for
    a free match slot and is told the match starts). Bots are taken in a fixed order, so two
    matches waiting for the same bots can never hold one each and wait for ever; a bot that
    never comes forfeits."""
    order = sorted(range(len(players)), key=lambda seat: str(getattr(players[seat], "bot_id", "")))
    for seat in order:
        prepare = getattr(players[seat], "prepare", None)
        if prepare is None:
            continue
        try:
            await prepare()
        except Disconnected:
            forfeited[seat] = True


async def run_match(
    game: str,
    players: Sequence[Player],
    seed: int,
    options: dict[str, Any] | None = None,
    clock: Clock | None = None,
    match_id: str = "",
) -> MatchResult:
    """Play one match of ``game`` with ``players[seat]`` in each seat.

    Returns the outcome and transcript. Rule errors propagate; player errors never do."""
    rules = games.get(game)
    state = rules.new_state(len(players), seed, options)
    table = _Table(match_id, seed, players, clock or Clock())
    await prepare_players(players, table.forfeited)
    steps = Steps(state)
    started = time.perf_counter()
    while asks := steps.asks():
        if len(asks) == 1:
            answers = [await table.ask(state, *asks[0])]
        else:  # simultaneous: every seat is asked at once, on the same state
            answers = await asyncio.gather(*(table.ask(state, *ask) for ask in asks))
        steps.settle(asks, answers)
    outcome = state.outcome()
    result = MatchResult(
        match_id=match_id,
        game=rules.name,
        version=rules.version,
        options=dict(state.options),
        seed=int(seed),
        num_players=len(players),
        scores=list(outcome.scores),
        game_ranks=list(outcome.ranks),
        ranks=final_ranks(outcome.ranks, table.forfeited),
        strikes=table.strikes,
        forfeited=table.forfeited,
        capped=state.capped(),
        duration=time.perf_counter() - started,
        decisions=steps.decisions,
    )
    summary = {"match_id": match_id, "scores": result.scores, "ranks": result.ranks,
               "forfeited": result.forfeited, "reason": "turn_cap" if result.capped else "finished"}
    for player in players:
        try:
            await player.match_ended(summary)
        except Exception:  # a bot that is gone cannot change a finished match
            pass
    return result


def play_match(
    game: str,
    players: Sequence[Player],
    seed: int,
    options: dict[str, Any] | None = None,
    clock: Clock | None = None,
    match_id: str = "",
) -> MatchResult:
    """``run_match`` from synchronous code.

    Each thread keeps one event loop for all its matches: creating a loop per match costs
    more than a whole house-bot match of most games."""
    loop = getattr(_thread_loop, "loop", None)
    if loop is None or loop.is_closed():
        loop = _thread_loop.loop = asyncio.new_event_loop()
    return loop.run_until_complete(run_match(game, players, seed, options, clock, match_id))


_thread_loop = threading.local()
