"""Clock fairness: a bot is charged only for the time its turn was actually out, from the
moment the gateway wrote it to the bot's stream until the bot's move arrived there.

A real gateway, a real SDK bot process and the real match runner meet through the in-process
mailbox, into which stalls are injected on purpose, each longer than a whole turn's time
(move clock and bank together): the server holds a turn before the gateway writes it out, the
runner reads a bot's answer late, or the gateway's own loop is blocked while the turn is out.
A bot that answers in time gets no strike and spends no bank through them; a bot that really
sleeps past its clock is still timed out.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from arena_bot.v1 import gateway_pb2_grpc

from arena.referee import Clock, HousePlayer, run_match
from arena.referee.gateway import Gateway
from arena.referee.mailbox import LocalMailbox
from arena.referee.remote import MatchInfo, RemotePlayer
from arena.server.settings import ServerSettings
from tests.support.grpc import GAME, ServerThread, by_token, finish, start_bot, wait_online

CLOCK = Clock(move=0.5, bank=0.2, strikes=3)
STALL = 1.0  # seconds: more than a whole turn's time (move clock and bank)
HELD = (0, 2, 4)  # the bot's turns the server holds STALL seconds before the gateway writes them
READ_LATE = (1, 3, 5)  # the bot's turns whose answer the runner reads STALL seconds late
BLOCK_AFTER = 0.05  # seconds after picking a turn up that the gateway's loop is blocked (``blocked``)


class StalledMailbox(LocalMailbox):
    """The in-process mailbox, stalled on purpose on the server's side of the bot's first
    turns; it keeps every move the gateway posted (with the time it measured) by turn id."""

    def __init__(self, held: tuple[int, ...] = HELD, read_late: tuple[int, ...] = READ_LATE,
                 blocked: tuple[int, ...] = ()) -> None:
        super().__init__()
        self.held, self.read_late, self.blocked = held, read_late, blocked
        self.collected = 0  # turns the gateway has picked up
        self.asked: list[int] = []  # turn ids in the order the runner asked them
        self.posted: dict[int, dict[str, Any]] = {}
        self.stalls = 0
        # Set once the bot's stream has read its pending turns: a turn delivered before that
        # would go out with them, never through the stalls below.
        self.opened = threading.Event()

    async def pending_turns(self, bot_id: str) -> list[dict[str, Any]]:
        pending = await super().pending_turns(bot_id)
        self.opened.set()
        return pending

    async def _stall(self) -> None:
        self.stalls += 1
        await asyncio.sleep(STALL)

    async def collect(self, bot_id: str, timeout: float) -> dict[str, Any] | None:
        message = await super().collect(bot_id, timeout)
        if message is not None and message["kind"] == "turn":
            self.collected += 1
            if self.collected - 1 in self.held:  # the gateway has it, and has not written it yet
                await self._stall()
            if self.collected - 1 in self.blocked:  # the whole gateway stops while the turn is out
                self.stalls += 1
                asyncio.get_running_loop().call_later(BLOCK_AFTER, time.sleep, STALL)
        return message

    async def post_move(self, match_id: str, turn_id: int, move: dict[str, Any], reply_to: str = "",
                        settled_for: str = "") -> None:
        self.posted[turn_id] = move
        await super().post_move(match_id, turn_id, move, reply_to, settled_for)

    async def ask(self, bot_id: str, turn: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        self.asked.append(turn["turn_id"])
        return await super().ask(bot_id, turn, timeout)  # it waits with ``await_move``

    async def await_move(self, match_id: str, turn_id: int, timeout: float) -> dict[str, Any] | None:
        return await self._read(turn_id, await super().await_move(match_id, turn_id, timeout))

    async def _read(self, turn_id: int, move: dict[str, Any] | None) -> dict[str, Any] | None:
        if move is not None and self.asked.index(turn_id) in self.read_late:  # read, not yet charged
            await self._stall()
        return move


@pytest.fixture
def stalled_gateway(request: pytest.FixtureRequest) -> Iterator[tuple[ServerThread, StalledMailbox]]:
    mailbox = StalledMailbox(*getattr(request, "param", ()))
    servicer = Gateway(mailbox, by_token, heartbeat=0.2)
    server = ServerThread(ServerSettings(address="127.0.0.1:0"),
                          [(gateway_pb2_grpc.add_BotGatewayServicer_to_server, servicer, "arena.v1.BotGateway")])
    yield server, mailbox
    server.stop()


def play(mailbox: StalledMailbox, allowance: float = 5.0) -> Any:
    assert mailbox.opened.wait(20), "the bot's stream never opened"
    info = MatchInfo(match_id="m", game=GAME, options={}, seat=0, num_players=2, players=["alice", "house"],
                     move_deadline_ms=int(CLOCK.move * 1000), time_bank_ms=int(CLOCK.bank * 1000))
    players = [RemotePlayer(mailbox, "1", info, grace=5.0, server_allowance=allowance),
               HousePlayer(GAME, "random", 1, 3)]
    return asyncio.run(run_match(GAME, players, 3, clock=CLOCK, match_id="m"))


def bot_turns(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if "turn" in e and "bank_ms" in e]


def test_a_quick_bot_is_never_charged_for_a_stalled_server(
        stalled_gateway: tuple[ServerThread, StalledMailbox]) -> None:
    server, mailbox = stalled_gateway
    bot = start_bot("tests.referee.clock_bot", server.address, "tok-alice", "quick")
    try:
        wait_online(mailbox, "1")
        result = play(mailbox)
    finally:
        events = finish(bot)
    mine = [d for d in result.decisions if d.seat == 0 and d.code != "forced"]  # the turns it was asked
    assert [d.code for d in mine] == ["ok"] * len(mine)
    assert result.strikes[0] == 0 and not result.forfeited[0]
    assert mailbox.stalls == len(HELD) + len(READ_LATE), "every stall happened"
    assert len(mine) > len(HELD) + len(READ_LATE)
    turns = bot_turns(events)
    assert [t["bank_ms"] for t in turns] == [int(CLOCK.bank * 1000)] * len(turns), "no bank spent"
    # The time charged (the transcript's ms) is what the gateway measured at the bot's stream,
    # and it is what the bot is told its move cost (last_move_latency_ms, MoveResult.latency_ms).
    for decision in mine:
        assert decision.ms == pytest.approx(mailbox.posted[decision.turn]["latency_ms"], abs=0.01)
    for before, after in itertools.pairwise(turns):
        assert after["last_latency_ms"] == int(mailbox.posted[before["turn"]]["latency_ms"])


def test_a_bot_that_sleeps_past_its_clock_is_still_timed_out(
        stalled_gateway: tuple[ServerThread, StalledMailbox]) -> None:
    server, mailbox = stalled_gateway
    bot = start_bot("tests.referee.clock_bot", server.address, "tok-alice", "sleepy")
    try:
        wait_online(mailbox, "1")
        result = play(mailbox)
    finally:
        events = finish(bot, lambda got: len(bot_turns(got)) >= 3, "three turns")
    codes = [d.code for d in result.decisions if d.seat == 0 and d.code != "forced"]
    assert codes[:3] == ["timeout"] * 3, codes
    assert set(codes[3:]) <= {"forfeited"}
    assert result.forfeited[0] and result.strikes[0] == 3
    # The gateway answered for the bot when its time was up on its stream.
    assert all(mailbox.posted[d.turn].get("timeout") for d in result.decisions[:6] if d.code == "timeout")
    assert len(bot_turns(events)) >= 3


@pytest.mark.parametrize("stalled_gateway", [((0, 1, 2), ())], indirect=True)
def test_a_server_slower_than_the_allowance_still_strikes_nobody(
        stalled_gateway: tuple[ServerThread, StalledMailbox]) -> None:
    """The runner's own deadline passes before the gateway even wrote the turn out: with the
    bot's stream standing, the server was slow, not the bot: a random action, no strike."""
    server, mailbox = stalled_gateway
    bot = start_bot("tests.referee.clock_bot", server.address, "tok-alice", "quick")
    try:
        wait_online(mailbox, "1")
        result = play(mailbox, allowance=0.1)  # the runner gives up at 0.8 s, the stall is 1 s
    finally:
        finish(bot)
    mine = [d for d in result.decisions if d.seat == 0 and d.code != "forced"]  # the turns it was asked
    assert [d.code for d in mine[:3]] == ["timeout"] * 3  # decided without the bot's answer ...
    assert result.strikes[0] == 0 and not result.forfeited[0]  # ... and held against nobody
    assert {d.code for d in mine[3:]} == {"ok"}


@pytest.mark.parametrize("stalled_gateway", [((), (), (0, 2, 4))], indirect=True)
def test_a_stall_of_the_gateways_own_loop_is_not_charged_either(
        stalled_gateway: tuple[ServerThread, StalledMailbox]) -> None:
    """The gateway's loop is blocked for a second while the bot thinks (a fifth of a second):
    its move waits unread on the socket, yet it is charged only its own time."""
    server, mailbox = stalled_gateway
    bot = start_bot("tests.referee.clock_bot", server.address, "tok-alice", "steady")
    try:
        wait_online(mailbox, "1")
        result = play(mailbox)
    finally:
        events = finish(bot)
    mine = [d for d in result.decisions if d.seat == 0 and d.code != "forced"]  # the turns it was asked
    assert [d.code for d in mine] == ["ok"] * len(mine)
    assert result.strikes[0] == 0 and not result.forfeited[0]
    assert mailbox.stalls == 3 and len(mine) > 5
    turns = bot_turns(events)
    assert [t["bank_ms"] for t in turns] == [int(CLOCK.bank * 1000)] * len(turns), "no bank spent"


def test_the_stall_watch_credits_only_what_overlaps_a_turn() -> None:
    from arena.referee.stalls import StallWatch

    watch = StallWatch(tick=0.05, threshold=0.05)
    watch.last = 10.0
    watch.woke(10.05)  # on time: no stall
    watch.woke(11.10)  # due at 10.10, woke a second late: stalled 10.10-11.10
    assert list(watch.spans) == [(pytest.approx(10.10), 11.10)]
    assert watch.stalled(10.0, 10.5) == pytest.approx(0.40)  # the part inside the turn
    watch.woke(11.15)
    watch.woke(11.20)
    assert watch.stalled(11.12, 11.2) == 0.0  # a turn after it
    # A stall going on when the move is read: the watcher, due at 11.25, has not woken yet.
    assert watch.stalled(11.22, 12.0) == pytest.approx(12.0 - 11.25)


@pytest.mark.timeout(60)
def test_a_bot_gone_mid_turn_is_timed_by_the_runner_without_waiting_for_the_allowance(
        stalled_gateway: tuple[ServerThread, StalledMailbox]) -> None:
    """No gateway times the turn of a bot without a stream: the runner's clock does, so a bot
    that died is struck when its time is up there, not a (here huge) allowance later, and
    forfeits after three strikes, within its grace period."""
    server, mailbox = stalled_gateway
    mailbox.held = mailbox.read_late = ()
    bot = start_bot("tests.referee.rogue_bot", server.address, "tok-alice", "die_after_3")
    wait_online(mailbox, "1")
    result = play(mailbox, allowance=600.0)
    bot.wait(10)
    codes = [d.code for d in result.decisions if d.seat == 0 and d.code != "forced"]
    assert codes[:5] == ["ok", "ok", "timeout", "timeout", "timeout"], codes
    assert result.forfeited[0] and result.strikes[0] == 3
