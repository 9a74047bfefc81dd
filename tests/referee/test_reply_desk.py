"""A runner loop's reply desk on a real Redis: an answer that comes after its runner stopped
waiting (the wait timed out, or was cancelled) is kept for the runner's next wait, and a
note never hides it."""

from __future__ import annotations

import asyncio
import uuid

from arena.referee.mailbox import RedisMailbox


def test_an_answer_after_a_timed_out_wait_is_the_next_waits(shared_redis: str) -> None:
    async def scenario() -> tuple[object, object, object]:
        mailbox = RedisMailbox(shared_redis, prefix=f"test:{uuid.uuid4().hex}:")
        desk = mailbox._desk()
        desk.expect("m1", 3, "bot")
        timed_out = await desk.wait("m1", 3, 0.05)
        await mailbox.post_move("m1", 3, {"action": "draw deck"}, desk.key)
        answer = await desk.wait("m1", 3, 5.0)
        expected_after = desk.expects("m1", 3)
        desk.close()
        await mailbox.close()
        return timed_out, answer, expected_after

    timed_out, answer, expected_after = asyncio.run(scenario())
    assert timed_out is None
    assert answer == {"action": "draw deck"}
    assert expected_after is False  # an answer settles the turn at the desk


def test_a_cancelled_wait_leaves_the_turn_expected(shared_redis: str) -> None:
    async def scenario() -> tuple[object, object]:
        mailbox = RedisMailbox(shared_redis, prefix=f"test:{uuid.uuid4().hex}:")
        desk = mailbox._desk()
        desk.expect("m2", 7, "bot")
        waiting = asyncio.ensure_future(desk.wait("m2", 7, 5.0))
        await asyncio.sleep(0.05)
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        # A note, then the answer, both after the cancelled wait: the answer is what counts.
        await mailbox.left("m2", 7, desk.key)
        await mailbox.post_move("m2", 7, {"action": "discard 3D"}, desk.key)
        await asyncio.sleep(0.2)  # both read by the desk's listener
        first = await desk.wait("m2", 7, 5.0)
        still = desk.expects("m2", 7)
        desk.close()
        await mailbox.close()
        return first, still

    first, still = asyncio.run(scenario())
    assert first == {"action": "discard 3D"}
    assert still is False
