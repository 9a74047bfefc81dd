"""Backpacker's ``search`` house bot: the arena's determinized search, scored Backpacker's way.

The generic search scores a playout that stops before the end of the match by the banked
points alone (``standing``). In Backpacker that says little: points are banked only when a
player goes home, a handful of times a year, so a playout stopped 40 plies on sees none of
the trips still on the table, and it cannot tell the go-home that banked 300 points from the
draw that keeps them travelling. ``BackpackerSearch`` scores such a playout by what each
player could take home: the banked points plus the trip on its pile as it would score now
(7, 9.1, 7.4 Bad Advice, 7.6 five continents), a little less when a grey card in hand stops
it going home (6 rules 10, 11), and compares the players by a logistic of that margin. A
finished playout is scored by the final standings as before.

    >>> from arena.games import house
    >>> state, _ = house.play("backpacker", ["search", "heuristic"], seed=3)
    >>> state.is_terminal()
    True
"""

from __future__ import annotations

import math
import random
from typing import Any

from arena.games.search import SearchBot, standing

from .bots import BackpackerHeuristic
from .deck import BAD_ADVICE, GREY
from .scoring import score_trip

# The margin, in points, over which an unfinished playout's logistic turns (Budget.scale
# overrides it): a heuristic match between two players is decided by some 240 points.
SCALE = 120.0
# How much of a trip on the table counts: it may still be lost (grey cards, Bad Advice,
# Thief) or the year may end on it, and a grey card in hand stops its player going home.
TRIP_WEIGHT = 0.8
GREY_TRIP_WEIGHT = 0.4


def potential(state: Any, seat: int) -> float:
    """What ``seat`` has banked plus what its trip on the table would score if it went home
    now, discounted for the risks on the way."""
    status = state.status[seat]
    bad = bool(status and status["card"] in BAD_ADVICE)
    trip = score_trip(state.trips[seat], bad)[0] if state.trips[seat] else 0
    weight = GREY_TRIP_WEIGHT if GREY.intersection(state.hands[seat]) else TRIP_WEIGHT
    return state.banked[seat] + weight * trip


def prospects(state: Any, seat: int, scale: float) -> float:
    """How good ``state`` is for ``seat``: the final standings once the match is over, else
    a logistic of its potential's margin over each opponent's, averaged."""
    if state.is_terminal():
        return standing(state, seat)
    mine = potential(state, seat)
    total = 0.0
    others = 0
    for other in range(state.num_players):
        if other == seat:
            continue
        margin = (potential(state, other) - mine) / scale
        total += 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, margin))))
        others += 1
    return total / others


def playout_observation(state: Any, seat: int) -> dict[str, Any]:
    """The fields of ``state.observation(seat)`` that the heuristic reads, equal to them but
    not copied (the heuristic never changes its observation): a playout asks for one every
    ply, and the full observation copies the log, the Past pile and every trip."""
    n = state.num_players
    known = state.known[seat]
    return {
        "seat": seat,
        "num_players": n,
        "hand": sorted(state.hands[seat]),
        "phase": state.phase,
        "current": state.current,
        "future_size": len(state.future),
        "past_top": state.past[-1] if state.past else None,
        "players": [
            {"trip": state.trips[s], "video_camera": state.cameras[s], "status": state.status[s],
             "hand_size": len(state.hands[s]), "score": state.banked[s]}
            for s in range(n)
        ],
        "scores": state.banked,
        "extra_goes": state.extra_goes,
        "known_hands": {str(h): sorted(c) for h, c in enumerate(known) if c and h != seat},
        "pending": state._pending_view(seat),
    }


def rank(guide: BackpackerHeuristic, action: str) -> float:
    """How the heuristic, which has just decided, rates ``action``: its value of a play or a
    discard, its keeping worth of a card taken (or, given away, the opposite)."""
    verb, _, rest = action.partition(" ")
    card = rest.split(" ", 1)[0]
    if verb in ("play", "discard", "abandon"):
        return guide._value(action)
    if verb == "take":
        return guide._card_worth(card)
    if verb in ("pass", "give", "offer"):
        return -guide._card_worth(card)
    return 0.0


class BackpackerSearch(SearchBot):
    """``SearchBot`` whose unfinished playouts count the trips on the table."""

    def candidates(self, legal: list[str], guess: str | None, rng: random.Random) -> list[str]:
        """All the actions, or the heuristic's choice and the runners-up by its own measure
        of them, rather than a random draw: with six cards in hand there are often a dozen
        plays and discards, most of them plainly poor."""
        limit = max(1, self.budget.candidates)
        guide = self.guide
        if len(legal) <= limit or guess is None or not isinstance(guide, BackpackerHeuristic):
            return super().candidates(legal, guess, rng)
        ranked = sorted((a for a in legal if a != guess), key=lambda a: -rank(guide, a))
        return [guess, *ranked[: limit - 1]]

    def view(self, state: Any, seat: int) -> dict[str, Any]:
        """The heuristic's view in a playout: only the fields it reads, not copied."""
        return playout_observation(state, seat)

    def score(self, state: Any) -> float:
        """An unfinished playout scored by ``prospects``: the trips on the table count."""
        return prospects(state, self.seat, self.budget.scale or SCALE)
