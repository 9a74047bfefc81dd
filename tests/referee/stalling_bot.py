"""A bot that takes its time: every decision waits ``--stall`` seconds, then plays the first
legal action. It prints ``turn <match>`` (flushed) as each turn arrives, so a test knows when
its match is under way. The SDK's own command line otherwise (``arena_bot.cli``).

    python -m tests.referee.stalling_bot --stall 8   (ARENA_ADDRESS, ARENA_BOT_TOKEN from the env)
"""

from __future__ import annotations

import argparse
import sys
import time

from arena_bot import cli
from arena_bot.sdk import Bot, Turn, run


class StallingBot(Bot):
    max_matches = 8
    blocking = True  # each stall in a thread of its own: the bot's other matches go on

    def __init__(self, stall: float) -> None:
        self.stall = stall

    def act(self, turn: Turn) -> str:
        print(f"turn {turn.match.match_id}", flush=True)
        time.sleep(self.stall)
        return turn.legal_actions[0]


def main(argv: list[str]) -> None:
    own = argparse.ArgumentParser(add_help=False)
    own.add_argument("--stall", type=float, default=5.0)
    args, rest = own.parse_known_args(argv)
    bot = StallingBot(args.stall)
    run(bot, cli.parse(bot, "A bot that waits before every move.", rest))


if __name__ == "__main__":
    main(sys.argv[1:])
