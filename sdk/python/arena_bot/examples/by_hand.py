"""Play by hand: a bot whose every move a person types. ``python -m arena_bot.examples.by_hand``
(token from ARENA_BOT_TOKEN, the server from ARENA_ADDRESS or ``--address``).

Each turn is printed on stdout (the match, your seat, the forced decisions since your last
turn, the observation and the numbered legal actions); answer with a number or an action's
exact id. The clock runs as for any bot: ask for a long one when you challenge (``arena
challenge ... --move-time 600``). End of input (Ctrl-D) stops the bot."""

from __future__ import annotations

import _thread
import json
import sys
from typing import TextIO

from .. import cli
from ..sdk import Bot, MatchResult, Turn


class ByHand(Bot):
    max_matches = 1  # one match at a time: one person at the keyboard
    blocking = True  # reading the keyboard blocks: in a thread, so pings are answered meanwhile

    def __init__(self, keyboard: TextIO | None = None, screen: TextIO | None = None) -> None:
        self.keyboard = keyboard or sys.stdin
        self.screen = screen or sys.stdout

    def show(self, text: str) -> None:
        print(text, file=self.screen, flush=True)

    def act(self, turn: Turn) -> str:
        match = turn.match
        self.show(f"\n--- match {match.match_id} ({match.game}), seat {match.seat}, turn {turn.turn_id}, "
                  f"{turn.deadline_ms / 1000:g} s a move + {turn.time_bank_ms / 1000:g} s bank")
        for turn_id, action in turn.forced:
            self.show(f"forced on turn {turn_id}: {action}")
        self.show(json.dumps(turn.observation, indent=1, sort_keys=True))
        for index, action in enumerate(turn.legal_actions):
            self.show(f"  [{index}] {action}")
        while True:
            self.show("your move (number or action)>")
            line = self.keyboard.readline()
            if not line:  # end of input: stop the bot (this runs in a thread)
                _thread.interrupt_main()
                return turn.legal_actions[0]
            answer = line.strip()
            if answer.isdigit() and int(answer) < len(turn.legal_actions):
                return turn.legal_actions[int(answer)]
            if answer in turn.legal_actions:
                return answer
            self.show("not a legal action: give its number or its exact id")

    def on_match_end(self, result: MatchResult) -> None:
        self.show(f"--- match {result.match.match_id} over: rank {result.rank}, scores {result.scores}"
                  + (" (forfeited)" if result.forfeited else ""))


def main(argv: list[str] | None = None) -> None:
    """Play until interrupted or the input ends; the options are ``arena_bot.cli``'s."""
    cli.main(ByHand(), "Play by hand: every move is typed at the keyboard.", argv)


if __name__ == "__main__":
    main()
