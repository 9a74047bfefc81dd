"""A match's end told again on a newer stream (a replaced stream hands back what it wrote in
its last seconds): the bot's ``on_match_end`` runs once a match, across its streams."""

from __future__ import annotations

import asyncio

from arena_bot.sdk import Bot, Ended, MatchResult, Session, Turn
from arena_bot.v1 import gateway_pb2


class Counting(Bot):
    def __init__(self) -> None:
        self.ends: list[str] = []

    def act(self, turn: Turn) -> str:
        return turn.legal_actions[0]

    def on_match_end(self, result: MatchResult) -> None:
        self.ends.append(result.match.match_id)


def ended(match_id: str) -> gateway_pb2.RefereeMessage:
    return gateway_pb2.RefereeMessage(match_ended=gateway_pb2.MatchEnded(
        match_id=match_id, scores=[1, 0], ranks=[1, 2], game="yaniv", seat=0, players=["a", "b"]))


def test_a_match_end_told_on_two_streams_is_the_bots_once() -> None:
    bot = Counting()
    shared = Ended()

    async def streams() -> None:
        older, newer = Session(bot, shared), Session(bot, shared)
        await older.handle(ended("m1"))
        await newer.handle(ended("m1"))  # handed back by the older stream's gateway
        await newer.handle(ended("m2"))

    asyncio.run(streams())
    assert bot.ends == ["m1", "m2"]
