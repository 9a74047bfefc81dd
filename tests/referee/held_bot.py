"""A bot whose moves wait while a file exists, so that a test holds its match in play for as
long as it needs, then lets it finish.

    python -m tests.referee.held_bot   (ARENA_ADDRESS, ARENA_BOT_TOKEN, ARENA_HOLD_FILE)
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

from arena_bot.sdk import Bot, Connection, Turn, run


class Held(Bot):
    max_matches = 1

    def __init__(self, hold: Path) -> None:
        self.hold = hold
        self.random = random.Random(3)

    def act(self, turn: Turn) -> str:
        while self.hold.exists():
            time.sleep(0.05)
        return self.random.choice(turn.legal_actions)


if __name__ == "__main__":
    run(Held(Path(os.environ["ARENA_HOLD_FILE"])),
        Connection(address=os.environ["ARENA_ADDRESS"], token=os.environ["ARENA_BOT_TOKEN"]))
