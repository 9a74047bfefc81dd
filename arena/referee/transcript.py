"""Transcripts: what happened in a match, decision by decision, and replaying them.

A transcript holds everything that determines a match (game, version, options, seat count,
seed, the applied actions in order) plus what the referee observed (time taken, outcome
code per decision). Replaying the actions on a fresh state must give the same outcome.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena import games

# Outcome codes of a decision. Anything but OK earns a strike and the referee's seeded
# random legal action; FORFEITED marks the random actions played for a seat that is out.
OK = "ok"
TIMEOUT = "timeout"
ILLEGAL = "illegal"
MALFORMED = "malformed"
DISCONNECTED = "disconnected"
FORFEITED = "forfeited"
CODES = (OK, TIMEOUT, ILLEGAL, MALFORMED, DISCONNECTED, FORFEITED)


class ReplayMismatch(ValueError):
    """A transcript whose actions do not reproduce its recorded outcome."""


@dataclass(frozen=True)
class Decision:
    """One applied action: the turn it answered, the seat, the action, the time the seat
    took in milliseconds (measured by the referee) and the outcome code."""

    turn: int
    seat: int
    action: str
    ms: float
    code: str = OK

    def to_json(self) -> list[Any]:
        return [self.turn, self.seat, self.action, round(self.ms, 3), self.code]

    @staticmethod
    def from_json(row: list[Any]) -> Decision:
        return Decision(int(row[0]), int(row[1]), str(row[2]), float(row[3]), str(row[4]))


def replay(transcript: dict[str, Any]) -> games.State:
    """Play the transcript's actions on a fresh state and check the recorded outcome.

    Returns the final state; raises ``ReplayMismatch`` when an action is illegal, the match
    does not end where the transcript does, or the game's scores and ranks differ."""
    game = games.get(transcript["game"])
    if str(transcript.get("version", game.version)) != game.version:
        raise ReplayMismatch(
            f"transcript is for {game.name} version {transcript['version']}, rules are {game.version}"
        )
    state = game.new_state(transcript["num_players"], transcript["seed"], transcript["options"])
    for row in transcript["decisions"]:
        decision = Decision.from_json(row)
        try:
            state.apply(decision.seat, decision.action)
        except games.IllegalAction as error:
            raise ReplayMismatch(f"turn {decision.turn}: {error}") from None
    if not state.is_terminal():
        raise ReplayMismatch(f"match not over after {len(transcript['decisions'])} decisions")
    outcome = state.outcome()
    if outcome.scores != transcript["scores"] or outcome.ranks != transcript["game_ranks"]:
        raise ReplayMismatch(
            f"outcome {outcome.to_json()} differs from recorded scores {transcript['scores']} "
            f"and ranks {transcript['game_ranks']}"
        )
    return state
