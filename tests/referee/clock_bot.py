"""An SDK bot for the clock tests: it prints one JSON line per turn with what the server told
it about its clock (bank left, the latency of its previous move), and answers at once
(``quick``), after a fifth of a second (``steady``: well inside any clock the tests use) or only
after sleeping past any clock they use (``sleepy``).

    python -m tests.referee.clock_bot quick|steady|sleepy [PID STOPS]   (ARENA_ADDRESS, ARENA_BOT_TOKEN from the env)

With ``PID``, the bot stalls the server on purpose on its first ``STOPS`` turns: it stops that
process (the match runner's) with SIGSTOP before it answers and lets it go on with SIGCONT
``STALL`` seconds later, so the runner reads the answer late.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

from arena_bot.sdk import Bot, Connection, Turn, run

SLEEP = 1.0  # seconds a sleepy bot thinks: more than the tests' move time and bank together
STALL = 1.0  # seconds the runner's process is stopped for
THINK = {"quick": 0.0, "steady": 0.2, "sleepy": SLEEP}  # seconds per move, by mode


class ClockBot(Bot):
    blocking = True  # a sleepy act must not hold the SDK's loop
    # The stalls are planned by turn (the first, the third, ...): the bot is asked every one.
    every_decision = True

    def __init__(self, think: float, stop_pid: int = 0, stops: int = 0) -> None:
        self.think = think
        self.stop_pid, self.stops = stop_pid, stops

    def act(self, turn: Turn) -> str:
        print(json.dumps({"match": turn.match.match_id, "turn": turn.turn_id, "bank_ms": turn.time_bank_ms,
                          "last_latency_ms": turn.last_move_latency_ms}), flush=True)
        if self.stops > 0:
            self.stops -= 1
            os.kill(self.stop_pid, signal.SIGSTOP)
            threading.Timer(STALL, os.kill, (self.stop_pid, signal.SIGCONT)).start()
            print(json.dumps({"stopped": self.stop_pid}), flush=True)
        if self.think:
            time.sleep(self.think)
        return turn.legal_actions[0]


if __name__ == "__main__":
    run(ClockBot(THINK[sys.argv[1]], *(int(a) for a in sys.argv[2:4])),
        Connection(address=os.environ["ARENA_ADDRESS"], token=os.environ["ARENA_BOT_TOKEN"]))
