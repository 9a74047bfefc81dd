"""A bot that plays at random and prints every turn it is handed as a JSON line: the turn id,
how many legal actions it had and the forced decisions listed with it.

    python -m tests.referee.turn_log_bot [--every-decision]   (ARENA_ADDRESS, ARENA_BOT_TOKEN)
"""

from __future__ import annotations

import json
import random
import sys

from arena_bot.cli import main
from arena_bot.sdk import Bot, Turn


class TurnLog(Bot):
    def __init__(self) -> None:
        self.random = random.Random(11)

    def act(self, turn: Turn) -> str:
        print(json.dumps({"match": turn.match.match_id, "turn": turn.turn_id,
                          "legal": len(turn.legal_actions), "forced": [list(f) for f in turn.forced]}),
              flush=True)
        return self.random.choice(turn.legal_actions)


if __name__ == "__main__":
    main(TurnLog(), "a random bot that logs its turns", sys.argv[1:])
