"""Where the threaded SDK runs a bot's code: a quick ``act`` inline on the event loop (no
thread hop on the move's path), a slow one in a thread per turn so the bot's other matches go
on, and ``Bot.blocking`` fixing either choice."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from arena_bot import sdk
from arena_bot.sdk import Bot, Match, Session, Turn

MATCH = Match("m", "yaniv", {}, 0, 2, ["a", "b"], 2000, 30_000, "")
LIMIT = 0.05  # a quick act here takes microseconds: only a pause this long on a busy machine misleads


@pytest.fixture(autouse=True)
def roomy_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sdk, "INLINE_LIMIT", LIMIT)


def turn(turn_id: int) -> Turn:
    return Turn(MATCH, turn_id, {}, ["x"], 2000, 30_000, 0)


class Recorder(Bot):
    """Sleeps ``pause`` seconds on the turns listed in ``slow``; notes the thread of each act."""

    def __init__(self, slow: set[int], pause: float = 2 * LIMIT) -> None:
        self.slow, self.pause = slow, pause
        self.threads: list[bool] = []  # per turn: ran on the loop's thread

    def act(self, turn: Turn) -> str:
        self.threads.append(threading.current_thread() is threading.main_thread())
        if turn.turn_id in self.slow:
            time.sleep(self.pause)
        return "x"


def play(bot: Bot, turns: int) -> list[bool]:
    async def run() -> None:
        session = Session(bot)
        for turn_id in range(turns):
            assert await session.call(bot.act, turn(turn_id)) == "x"

    asyncio.run(run())
    return bot.threads  # type: ignore[attr-defined, no-any-return]


def test_a_quick_act_runs_inline_after_its_first_turn() -> None:
    assert play(Recorder(slow=set()), 5) == [False, True, True, True, True]


def test_a_slow_act_moves_to_a_thread_and_earns_its_way_back() -> None:
    inline = play(Recorder(slow={3}), 4 + sdk.QUICK_STREAK + 1)
    assert inline[:4] == [False, True, True, True]  # turn 3 ran inline, and was slow
    assert inline[4:4 + sdk.QUICK_STREAK] == [False] * sdk.QUICK_STREAK  # in a thread until quick again
    assert inline[-1] is True


def test_an_act_slow_every_time_always_runs_in_a_thread() -> None:
    assert play(Recorder(slow=set(range(6))), 6) == [False] * 6


def test_blocking_fixes_where_act_runs() -> None:
    threaded, inline = Recorder(slow=set()), Recorder(slow={0, 1})
    threaded.blocking, inline.blocking = True, False
    assert play(threaded, 3) == [False] * 3
    assert play(inline, 3) == [True] * 3


def test_the_default_hooks_are_called_inline() -> None:
    session = Session(Bot())
    assert session.runs_inline(session.bot.on_match_start) and session.runs_inline(session.bot.on_match_end)
    assert not session.runs_inline(session.bot.act)  # not seen yet: a thread first
