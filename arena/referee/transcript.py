"""Transcripts: what happened in a match, decision by decision, and replaying them.

A transcript holds everything that determines a match (game, version, options, seat count,
seed, the applied actions in order) plus how each decision was made (the seat's time, an
outcome code). Replaying the actions on a fresh state must give the same outcome.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arena import games
from arena.games.steps import FORCED, OK, Decision

# Outcome codes of a decision (the rules are ``arena.referee.match``'s). Anything but OK gets
# the referee's seeded random legal action. TIMEOUT, ILLEGAL, MALFORMED and DISCONNECTED earn
# the seat a strike, save one TIMEOUT: the server's own. When the runner's safety-net deadline
# (``ARENA_CLOCK_ALLOWANCE`` past the bot's time) passes with no word from the gateway while the
# bot is still connected, the server was slow, not the bot: no strike, no bank spent. FORFEITED
# marks the random actions played for a seat that is out (no strike either: it is out already).
# FORCED marks a decision with a single legal action, which the referee applied without asking
# the seat (unless its player asked for every decision): no time taken, nothing charged.
TIMEOUT = "timeout"
ILLEGAL = "illegal"
MALFORMED = "malformed"
DISCONNECTED = "disconnected"
FORFEITED = "forfeited"
CODES = (OK, TIMEOUT, ILLEGAL, MALFORMED, DISCONNECTED, FORFEITED, FORCED)


class ReplayMismatch(ValueError):
    """A transcript whose actions do not reproduce its recorded outcome."""




def final_ranks(game_ranks: Sequence[int], forfeited: Sequence[bool]) -> list[int]:
    """Ranks with forfeited seats last (sharing the last rank) and the others re-ranked
    among themselves, ties kept."""
    alive = [s for s, out in enumerate(forfeited) if not out]
    ranks = [len(alive) + 1] * len(game_ranks)
    for seat in alive:
        ranks[seat] = 1 + sum(1 for other in alive if game_ranks[other] < game_ranks[seat])
    return ranks


def replay(transcript: dict[str, Any], step: Callable[[games.State], None] | None = None) -> games.State:
    """Rebuild a match from its transcript (seed, options, actions) and check the recorded
    result: the one replay, of the referee's checks and of the web face's viewer.

    ``step``, if given, is called with the state of the first deal and again after each
    decision (the same object, changed in place). Returns the final state; raises
    ``ReplayMismatch`` when the rules' version differs, an action is illegal, the match does
    not end where the transcript does, or the scores, the rules' ranks (``game_ranks``) or
    the final standings (``ranks``, forfeited seats last) differ from the recorded ones."""
    game = games.get(transcript["game"])
    if str(transcript.get("version", game.version)) != game.version:
        raise ReplayMismatch(
            f"transcript is for {game.name} version {transcript['version']}, rules are {game.version}"
        )
    state = game.new_state(transcript["num_players"], transcript["seed"], transcript["options"])
    if step is not None:
        step(state)
    for row in transcript["decisions"]:
        decision = Decision.from_json(row)
        try:
            state.apply(decision.seat, decision.action)
        except games.IllegalAction as error:
            raise ReplayMismatch(f"turn {decision.turn}: {error}") from None
        if step is not None:
            step(state)
    if not state.is_terminal():
        raise ReplayMismatch(f"match not over after {len(transcript['decisions'])} decisions")
    outcome = state.outcome()
    ranks = final_ranks(outcome.ranks, transcript["forfeited"])
    if (outcome.scores, outcome.ranks, ranks) != (transcript["scores"], transcript["game_ranks"], transcript["ranks"]):
        raise ReplayMismatch(
            f"outcome {outcome.to_json()} with final ranks {ranks} differs from recorded scores "
            f"{transcript['scores']}, ranks {transcript['game_ranks']} and final ranks {transcript['ranks']}"
        )
    return state
