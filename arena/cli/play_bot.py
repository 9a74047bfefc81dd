"""``arena play GAME --bot path/to/my_bot.py:MyBot``: a bot written with the SDK (a subclass of
``arena_bot.sdk.Bot`` or ``arena_bot.aio.AsyncBot``) plays one match in this process against
house bots, with no server.

It is handed what it would get over the wire: each turn becomes the mailbox message the
referee sends (``arena.referee.remote.turn_message``), then the protobuf ``Turn`` the gateway
writes to the stream (``arena.referee.wire``), then the SDK's own ``Turn`` (its session's
``turn``), so ``act`` sees the same observation, legal actions, forced decisions and sample
state. As on the server, a decision with a single legal action is applied without asking the
bot (listed in its next ``Turn.forced``) unless it sets ``every_decision``. There is no clock:
the turn carries the default one, and the bot may take its time."""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.clock import Clock
from arena.errors import ArenaError, BadInput
from arena.games import base, house
from arena.games.steps import FORCED, OK, Steps, forced_or
from arena.referee import wire
from arena.referee.players import Turn
from arena.referee.remote import MatchInfo, turn_message

MATCH_ID = "offline"


def load_bot(spec: str) -> Any:
    """A new instance of the bot class ``spec`` names (``path/to/file.py:ClassName``)."""
    from arena_bot import aio, sdk

    path_text, colon, name = spec.rpartition(":")
    if not colon or not path_text or not name.isidentifier():
        raise BadInput(f"--bot {spec}: expected path/to/file.py:ClassName")
    path = Path(path_text)
    if not path.is_file():
        raise BadInput(f"--bot {spec}: no file {path}")
    module_name = f"arena_offline_bot_{path.stem}"
    loader = importlib.util.spec_from_file_location(module_name, path)
    if loader is None or loader.loader is None:
        raise BadInput(f"--bot {spec}: {path} is not a Python file")
    module = importlib.util.module_from_spec(loader)
    sys.modules[module_name] = module  # dataclasses and pickling look a class's module up
    sys.path.insert(0, str(path.resolve().parent))  # the bot may import its neighbours
    try:
        loader.loader.exec_module(module)
    except Exception as error:
        raise ArenaError(f"--bot {spec}: loading {path} raised {describe(error)}") from None
    found = getattr(module, name, None)
    if not (inspect.isclass(found) and issubclass(found, (sdk.Bot, aio.AsyncBot))):
        raise BadInput(f"--bot {spec}: {path} has no class {name} subclassing arena_bot.sdk.Bot or "
                       "arena_bot.aio.AsyncBot")
    return found()


def describe(error: BaseException) -> str:
    """``KeyError: 'x' (my_bot.py:12)``: the error and the innermost line of it that ran."""
    frames = traceback.extract_tb(error.__traceback__)
    where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    message = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}{': ' + message if message else ''}{where}"


@dataclass
class OfflineSeat:
    """The SDK bot in its seat: an SDK session fed the protobuf messages the gateway sends."""

    bot: Any
    info: MatchInfo
    seed: int
    session: Any = None
    forced: list[tuple[int, str]] = field(default_factory=list)  # since its previous turn
    label: str = ""

    async def start(self) -> None:
        from arena_bot import aio, sdk

        self.label = type(self.bot).__name__
        self.session = aio.AsyncSession(self.bot) if isinstance(self.bot, aio.AsyncBot) else sdk.Session(self.bot)
        await self.session.handle(wire.to_referee_message(self.info.to_json()))

    async def decide(self, state: base.State, turn_id: int, decision: int) -> tuple[str, str]:
        """(action, code) for the bot's seat on ``turn_id``: forced when single and the bot did
        not ask for every decision, else what its ``act`` chose."""
        seat = self.info.seat
        legal = state.legal_actions(seat)
        if len(legal) == 1 and not getattr(self.bot, "every_decision", False):
            self.forced.append((turn_id, legal[0]))
            return legal[0], FORCED
        clock = Clock()
        turn = Turn(match_id=MATCH_ID, turn_id=turn_id, seat=seat, observation=state.observation(seat),
                    legal_actions=legal, deadline=0.0, time_bank=clock.bank, move_time=clock.move,
                    sample=lambda: house.sampler(state, seat, self.seed, turn_id)().to_json(),
                    forced=tuple(self.forced))
        self.forced = []
        message = turn_message(turn, 0, bool(getattr(self.bot, "want_sample_state", False)))
        on_the_wire = wire.to_referee_message(message, want_sample_state=True).turn
        where = f"turn {turn_id} (decision {decision})"
        try:
            choice = await self.session.call(self.bot.act, self.session.turn(on_the_wire))
        except Exception as error:
            raise ArenaError(f"{where}: {self.label}.act raised {describe(error)}") from None
        from arena_bot import sdk

        try:
            action = wire.chosen(sdk.move(on_the_wire, choice), legal)
        except (ValueError, TypeError):
            action = None
        if action is None:
            shown = repr(choice)[:80]
            raise ArenaError(f"{where}: {self.label}.act returned {shown}, not one of the {len(legal)} legal "
                             f"actions (an action id of turn.legal_actions, or its index from 0)")
        return action, OK

    async def end(self, outcome: base.Outcome, forfeited: list[bool]) -> None:
        await self.session.handle(wire.to_referee_message({
            "kind": "match_ended", "match_id": MATCH_ID, "scores": list(outcome.scores),
            "ranks": list(outcome.ranks), "forfeited": forfeited[self.info.seat], "game": self.info.game,
            "seat": self.info.seat, "players": self.info.players}))


async def play_match(state: base.State, seat: OfflineSeat, house_bots: dict[int, Any], seed: int,
                     shown: Any) -> None:
    """Step ``state`` to its end, one seat at a time as ``arena play`` does: the SDK bot in its
    seat, house bots in the others (never asked for a forced decision either); ``shown(seat,
    action)`` is called after each decision."""
    await seat.start()
    steps = Steps(state, together=False)
    while asks := steps.asks():
        (turn_id, who), = asks
        if who == seat.info.seat:
            action, code = await seat.decide(state, turn_id, len(steps.decisions) + 1)
            answer = (action, 0.0, code)
        else:
            answer = forced_or(state, turn_id, who, lambda turn, s: house.decide(
                house_bots[s], state.observation(s), state.legal_actions(s), house.sampler(state, s, seed, turn)))
        steps.settle(asks, [answer])
        shown(who, answer[0])
    await seat.end(state.outcome(), [False] * state.num_players)


def run_offline(state: base.State, seat: OfflineSeat, house_bots: dict[int, Any], seed: int, shown: Any) -> None:
    asyncio.run(play_match(state, seat, house_bots, seed, shown))
