"""Forced decisions: a seat with a single legal action is not asked; the referee applies it,
records it as ``forced`` and tells the seat with its next turn, unless the seat's bot asked for
every decision. The match itself is the same either way."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena import games
from arena.referee import Clock, HousePlayer, run_match
from arena.referee.match import MatchResult
from arena.referee.players import Turn
from arena.referee.remote import MatchInfo, RemotePlayer
from arena.referee.transcript import FORCED, OK, replay
from tests.support.grpc import ServerThread

ROOT = Path(__file__).resolve().parents[2]


class EveryDecision(HousePlayer):
    """A house bot that asks for every decision, as a bot's Hello may."""

    every_decision = True


class Recording(HousePlayer):
    """A house bot that keeps every turn it was handed."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.turns: list[Turn] = []

    async def act(self, turn: Turn) -> str:
        self.turns.append(turn)
        return await super().act(turn)


def choices(transcript: dict[str, Any]) -> list[int]:
    """How many legal actions each recorded decision had, by replaying the transcript."""
    counts: list[int] = []
    decisions = transcript["decisions"]

    def count(state: games.State) -> None:
        if len(counts) < len(decisions):
            counts.append(len(state.legal_actions(decisions[len(counts)][1])))

    replay(transcript, count)
    return counts


def moves(result: MatchResult) -> list[tuple[int, int, str]]:
    return [(d.turn, d.seat, d.action) for d in result.decisions]


@pytest.mark.parametrize("game", games.names())
def test_forced_decisions_are_applied_by_the_referee_and_change_nothing_else(game: str) -> None:
    seed = 21
    asked = asyncio.run(run_match(game, [EveryDecision(game, "heuristic", s, seed) for s in range(2)], seed))
    applied = asyncio.run(run_match(game, [HousePlayer(game, "heuristic", s, seed) for s in range(2)], seed))
    assert moves(applied) == moves(asked), "the same decisions, in the same turns"
    assert (applied.scores, applied.ranks) == (asked.scores, asked.ranks)
    assert set(asked.codes()) == {OK}, "a player that asks for every decision is asked for each"
    counts = choices(applied.transcript())
    codes = [d.code for d in applied.decisions]
    assert codes == [FORCED if n == 1 else OK for n in counts], "forced exactly where one action was legal"
    assert all(d.ms == 0 for d in applied.decisions if d.code == FORCED), "nobody's time was taken"


def test_a_player_learns_its_forced_decisions_with_its_next_turn() -> None:
    game, seed = "crazy_eights", 4
    players = [Recording(game, "random", s, seed) for s in range(2)]
    result = asyncio.run(run_match(game, players, seed))
    assert result.codes().get(FORCED), "crazy eights forces draws and passes"
    for seat, player in enumerate(players):
        assert all(len(turn.legal_actions) > 1 for turn in player.turns), "never asked without a choice"
        told = [(t, a) for turn in player.turns for t, a in turn.forced]
        mine = [(d.turn, d.action) for d in result.decisions if d.seat == seat and d.code == FORCED]
        last_asked = max(turn.turn_id for turn in player.turns)
        assert told == [f for f in mine if f[0] < last_asked], "each forced decision told once, in order"
        for turn in player.turns:
            assert all(t < turn.turn_id for t, _ in turn.forced)


def test_forced_decisions_take_nothing_from_the_clock() -> None:
    # A 10 ms move clock and no bank: every asked decision of a paced bot (50 ms) is a time-out,
    # and three forfeit the seat. Forced decisions are never asked, so they are never late.
    game, seed = "crazy_eights", 4
    slow = HousePlayer(game, "random", 0, seed, think=0.05)
    result = asyncio.run(run_match(game, [slow, HousePlayer(game, "random", 1, seed)], seed,
                                   clock=Clock(move=0.01, bank=0.0, strikes=1000)))
    mine = [d for d in result.decisions if d.seat == 0]
    forced = [d for d in mine if d.code == FORCED]
    assert forced and all(d.code == "timeout" for d in mine if d.code != FORCED)
    assert result.strikes[0] == len(mine) - len(forced)


def start_bot(address: str, token: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": address, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "tests.referee.turn_log_bot", *args], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def wait_online(mailbox: Any, bot_id: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while asyncio.run(mailbox.holder(bot_id)) is None:
        assert time.monotonic() < deadline, f"bot {bot_id} never connected"
        time.sleep(0.05)


@pytest.mark.parametrize("every_decision", [False, True], ids=["default", "every-decision"])
def test_an_sdk_bot_sees_single_action_turns_only_when_it_asks(
        gateway: tuple[ServerThread, Any], every_decision: bool) -> None:
    server, mailbox = gateway
    game, seed = "crazy_eights", 4
    bot = start_bot(server.address, "tok-alice", *(["--every-decision"] if every_decision else []))
    try:
        wait_online(mailbox, "1")
        info = MatchInfo(match_id="m1", game=game, options={}, seat=0, num_players=2,
                         players=["alice", "house"], move_deadline_ms=2000, time_bank_ms=5000)
        players = [RemotePlayer(mailbox, "1", info, grace=5.0), HousePlayer(game, "random", 1, seed)]
        result = asyncio.run(run_match(game, players, seed, clock=Clock(move=2.0, bank=5.0), match_id="m1"))
    finally:
        bot.terminate()
        output = bot.communicate(timeout=10)[0]
    turns = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    mine = [d for d in result.decisions if d.seat == 0]
    counts = choices(result.transcript())
    single = [d.turn for d, n in zip(result.decisions, counts, strict=True) if d.seat == 0 and n == 1]
    assert single, "the deal gives seat 0 forced decisions"
    # Asked exactly these (a move slowed past its clock on a loaded machine was asked too).
    assert [t["turn"] for t in turns] == [d.turn for d in mine if d.code != FORCED], "asked exactly these"
    if every_decision:
        assert FORCED not in {d.code for d in mine}
        assert any(t["legal"] == 1 for t in turns) and not any(t["forced"] for t in turns)
    else:
        assert all(t["legal"] > 1 for t in turns), "never a turn without a choice"
        told = [tuple(f) for t in turns for f in t["forced"]]
        applied = [(d.turn, d.action) for d in mine if d.code == FORCED]
        assert [d.turn for d in mine if d.code == FORCED] == single
        assert told == [f for f in applied if f[0] < turns[-1]["turn"]]
