"""What the Python SDK's Hello asks of the gateway (the Node kit's own test checks its Hello)."""

from __future__ import annotations

import asyncio

from arena_bot.sdk import Bot, Session, Turn
from arena_bot.v1 import gateway_pb2


class Quiet(Bot):
    def act(self, turn: Turn) -> str:
        return turn.legal_actions[0]


def first_message(bot: Bot) -> gateway_pb2.BotMessage:
    async def read() -> gateway_pb2.BotMessage:
        message: gateway_pb2.BotMessage = await Session(bot).messages().__anext__()
        return message

    return asyncio.run(read())


def test_the_sdk_leaves_ok_results_to_be_implied_and_asks_for_what_the_bot_says() -> None:
    """An OK result tells a bot nothing it acts on (the SDK logs only the others), so the SDK
    asks the gateway to leave it out: one message a move less both ways."""
    bot = Quiet()
    bot.games = ["durak"]
    bot.max_matches = 3
    hello = first_message(bot).hello
    assert hello.ok_implied is True
    assert list(hello.games) == ["durak"] and hello.max_matches == 3
    assert hello.every_decision is False
