"""An SDK bot for the clock tests: it prints one JSON line per turn with what the server told
it about its clock (bank left, the latency of its previous move), and answers at once
(``quick``) or only after sleeping past any clock the tests use (``sleepy``).

    python -m tests.referee.clock_bot quick|sleepy   (ARENA_ADDRESS, ARENA_BOT_TOKEN from the env)
"""

from __future__ import annotations

import json
import os
import sys
import time

from bots.sdk import Bot, Connection, Turn, run

SLEEP = 1.0  # seconds a sleepy bot thinks: more than the tests' move time and bank together


class ClockBot(Bot):
    blocking = True  # a sleepy act must not hold the SDK's loop

    def __init__(self, sleepy: bool) -> None:
        self.sleepy = sleepy

    def act(self, turn: Turn) -> str:
        print(json.dumps({"match": turn.match.match_id, "turn": turn.turn_id, "bank_ms": turn.time_bank_ms,
                          "last_latency_ms": turn.last_move_latency_ms}), flush=True)
        if self.sleepy:
            time.sleep(SLEEP)
        return turn.legal_actions[0]


if __name__ == "__main__":
    run(ClockBot(sys.argv[1] == "sleepy"),
        Connection(address=os.environ["ARENA_ADDRESS"], token=os.environ["ARENA_BOT_TOKEN"]))
