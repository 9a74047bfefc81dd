"""The whole truth of one Card Trip Europe match and its turn structure.

card-trip-europe "Game Play": a round is (1) every player plays 2 cards face down at the
same time, the cards are turned over and each player places them in the order they choose,
then (2) the rest of each hand passes to the player on the left. Eight cards are dealt twice,
so every trip ends with 16 cards.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from arena.games import BadState, State

from .locations import BONUS_CARDS, LOCATIONS, NUMBERS
from .placement import can_camp, can_place
from .scoring import NEGATIVE, POSITIVE, scored, scored_bonus, total_points, type_counts

HAND_SIZE = 8  # card-trip-europe "Game Setup": deal each player 8 location cards
DEALS = 2  # "Deal 8 new location cards to each player again"
PLAY_COUNT = 2  # "Play 2 location cards from your hand"
TRIP_LENGTH = HAND_SIZE * DEALS

CHOOSE = "choose"  # step 1: pick 2 cards face down, all seats at once
PLACE = "place"  # step 1 continued: place the revealed cards, all seats at once
OVER = "over"


class CardTripState(State):
    """A Card Trip Europe match.

    Attributes (JSON only): ``pile`` (face-down location cards, dealt from the end),
    ``hands`` (sorted card numbers per seat; a face-down pair stays here until revealed),
    ``choice`` (each seat's face-down pair, or None), ``revealed`` (turned-over cards still to
    place), ``trips`` (placed cards, a campsite as the negative number), ``placing`` (how many
    entries at the end of each trip were placed in this step: only their owner sees them
    until every seat has placed), ``passes`` (hands
    passed in this deal: they tell who has seen which hand), ``deal`` (1 or 2), ``phase`` and
    ``bonus_sides`` (one side per bonus card)."""

    # The schema a client's state must fit (``arena.games.schema``); a campsite in a trip is
    # its card's number negated, checked in ``_check_json``.
    card_fields = ("pile", "hands", "choice", "revealed")
    per_seat_fields = ("hands", "choice", "revealed", "trips", "placing")
    choices = {"phase": frozenset({CHOOSE, PLACE, OVER}), "deal": frozenset(range(1, DEALS + 1))}

    @classmethod
    def packs(cls, num_players: int, options: dict[str, Any]) -> list[int]:
        return list(NUMBERS)

    @classmethod
    def _check_json(cls, state: dict[str, Any]) -> None:
        numbers = set(NUMBERS)
        for trip in state["trips"]:
            if not isinstance(trip, list) or any(type(c) is not int or abs(c) not in numbers for c in trip):
                raise BadState("state.trips: a trip holds card numbers (a campsite negated)")
        if any(side not in (POSITIVE, NEGATIVE) for side in state["bonus_sides"]) \
                or len(state["bonus_sides"]) != len(BONUS_CARDS):
            raise BadState(f"state.bonus_sides: one of {POSITIVE!r}, {NEGATIVE!r} per bonus card")

    def __init__(self, num_players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(num_players, seed, options)
        pile = list(NUMBERS)
        self.rng("deal").shuffle(pile)
        self.pile = pile
        self.hands: list[list[int]] = [[] for _ in range(num_players)]
        self.choice: list[list[int] | None] = [None] * num_players
        self.revealed: list[list[int]] = [[] for _ in range(num_players)]
        self.trips: list[list[int]] = [[] for _ in range(num_players)]
        self.placing = [0] * num_players
        self.passes = 0
        self.deal = 0
        self.phase = CHOOSE
        sides = options["bonus_sides"]
        if sides == "mixed":
            # "In later games, you can flip the cards or mix positive and negative points."
            side_rng = self.rng("bonus")
            self.bonus_sides = [side_rng.choice((POSITIVE, NEGATIVE)) for _ in BONUS_CARDS]
        else:
            self.bonus_sides = [sides] * len(BONUS_CARDS)
        self._deal_hands()

    # ----- turn structure -------------------------------------------------------------
    def _deal_hands(self) -> None:
        for seat in range(self.num_players):
            self.hands[seat] = sorted(self.pile[-HAND_SIZE:])
            del self.pile[-HAND_SIZE:]
        self.passes = 0
        self.deal += 1

    def _to_act(self) -> tuple[int, ...]:
        if self.phase == CHOOSE:
            return tuple(s for s in range(self.num_players) if self.choice[s] is None)
        if self.phase == PLACE:
            return tuple(s for s in range(self.num_players) if self.revealed[s])
        return ()

    def _legal_actions(self, seat: int) -> list[str]:
        if self.phase == CHOOSE:
            return [f"play {a} {b}" for a, b in combinations(self.hands[seat], PLAY_COUNT)]
        trip = self.trips[seat]
        actions = []
        camp = can_camp(trip)
        for number in self.revealed[seat]:
            if can_place(trip, number):
                actions.append(f"place {number}")
            if camp:
                actions.append(f"camp {number}")
        return actions

    def _apply(self, seat: int, action: str) -> None:
        verb, *numbers = action.split()
        if verb == "play":
            self.choice[seat] = [int(n) for n in numbers]
            if all(c is not None for c in self.choice):
                self._reveal()
            return
        self._place(seat, int(numbers[0]), verb == "place")
        if not any(self.revealed):
            # "All players do this simultaneously": the placements are shown together.
            self.placing = [0] * self.num_players
            self._pass_cards()

    def _place(self, seat: int, number: int, location_side: bool) -> None:
        self.revealed[seat].remove(number)
        self.trips[seat].append(number if location_side else -number)
        self.placing[seat] += 1

    def _reveal(self) -> None:
        # "Once everyone has done this, turn the cards over".
        for seat, pair in enumerate(self.choice):
            assert pair is not None
            for number in pair:
                self.hands[seat].remove(number)
            self.revealed[seat] = pair
        self.choice = [None] * self.num_players
        self.phase = PLACE

    def _pass_cards(self) -> None:
        # Step 2: "pass your remaining cards to the player on your left" (seat + 1).
        self.phase = CHOOSE
        if self.hands[0]:
            n = self.num_players
            self.hands = [self.hands[(seat - 1) % n] for seat in range(n)]
            self.passes += 1
        elif self.deal < DEALS:
            self._deal_hands()
        else:
            self.phase = OVER

    def _finished(self) -> bool:
        return self.phase == OVER

    def _scores(self) -> list[float]:
        # "The player with the most points wins. If there's a tie, the player with the most
        # campsites wins." Campsites (at most 8) break ties as hundredths of a point.
        points = total_points(self.trips, self.bonus_sides)
        return [p + type_counts(t)["campsite"] / 100 for p, t in zip(points, self.trips, strict=True)]

    # ----- what a seat knows ----------------------------------------------------------
    def _hand_known(self, seat: int, other: int) -> bool:
        """Has ``seat`` held ``other``'s hand in this deal? Hands move as a block, one seat
        on at each pass, so a seat knows every card of a hand it held that has not been
        played yet: its own dealt hand, then one more after each pass. ``other``'s hand was
        dealt to seat ``other - passes``, that is ``k`` seats before ``seat``; ``seat`` has
        held it when ``k`` is at most the passes (and at most ``n - 1``)."""
        n = self.num_players
        return (seat - other + self.passes) % n <= min(self.passes, n - 1)

    def _shown(self, seat: int, other: int) -> tuple[list[int], list[int]]:
        """``other``'s trip and turned-over cards as ``seat`` sees them: placements of this
        step stay with their owner until every seat has placed."""
        trip, revealed = self.trips[other], self.revealed[other]
        pending = self.placing[other]
        if other == seat or not pending:
            return trip, revealed
        return trip[:-pending], sorted(revealed + [abs(e) for e in trip[-pending:]])

    def _observation(self, seat: int) -> dict[str, Any]:
        n = self.num_players
        trips, revealed = zip(*(self._shown(seat, t) for t in range(n)), strict=True)
        own_choice = self.choice[seat]
        hand = [c for c in self.hands[seat] if own_choice is None or c not in own_choice]
        chosen = [c is not None for c in self.choice]
        known = [list(self.hands[t]) if t != seat and self._hand_known(seat, t) else [] for t in range(n)]
        counts = [len(self.hands[t]) - (PLAY_COUNT if chosen[t] else 0) for t in range(n)]
        visible = set(self.hands[seat])
        for cards in (*known, *revealed):
            visible.update(cards)
        for trip in trips:
            visible.update(map(abs, trip))
        # Each trip's scoring is worked out once (``scored``); the observation gets copies.
        scores = [scored(tuple(trip)) for trip in trips]
        bonus = scored_bonus(scores, tuple(self.bonus_sides))
        return {
            "phase": self.phase,
            "deal": self.deal,
            "round": self.passes + 1,
            "hand": hand,
            "face_down": list(own_choice) if own_choice is not None else None,
            "chosen": chosen,
            "hand_counts": counts,
            "known_cards": known,
            "revealed": [list(r) for r in revealed],
            "trips": [[entry.copy() for entry in s.entries] for s in scores],
            "week_energy_left": [s.week_energy_left for s in scores],
            "type_counts": [s.counts.copy() for s in scores],
            "points": [s.points.copy() for s in scores],
            "bonus_cards": [
                {"id": card.id, "counts": card.counts, "side": side, "points": list(points)}
                for card, side, points in zip(BONUS_CARDS, self.bonus_sides, bonus, strict=True)
            ],
            "pile_count": len(self.pile),
            "cards": {CARD_KEYS[c]: CARD_VIEWS[c].copy() for c in sorted(visible)},
        }

    def _resample(self, seat: int, rng: random.Random) -> None:
        n = self.num_players
        unknown = [t for t in range(n) if t != seat and not self._hand_known(seat, t)]
        pool = list(self.pile)
        for t in unknown:
            pool.extend(self.hands[t])
        rng.shuffle(pool)
        for t in unknown:
            size = len(self.hands[t])
            self.hands[t] = sorted(pool[len(pool) - size :])
            del pool[len(pool) - size :]
        self.pile = pool
        for t in range(n):
            # Another seat's face-down pair could be any 2 cards of its hand.
            if t != seat and self.choice[t] is not None:
                self.choice[t] = sorted(rng.sample(self.hands[t], PLAY_COUNT))
            if t != seat and self.placing[t]:
                self._replace_placements(t, rng)

    def _replace_placements(self, other: int, rng: random.Random) -> None:
        """Place ``other``'s unseen placements of this step anew: a seat done placing stays
        done, one still placing may have placed none or one of its cards."""
        trip, revealed = self._shown(-1, other)
        done = not self.revealed[other]
        self.trips[other], self.revealed[other], self.placing[other] = list(trip), list(revealed), 0
        for _ in range(PLAY_COUNT if done else rng.randrange(PLAY_COUNT)):
            verb, number = rng.choice(self._legal_actions(other)).split()
            self._place(other, int(number), verb == "place")


def _card(number: int) -> dict[str, Any]:
    card = LOCATIONS[number]
    return {"type": card.type, "energy": card.energy, "name": card.name}


# Each card as an observation's ``cards`` shows it, and its key there (observations get copies).
CARD_VIEWS = {number: _card(number) for number in NUMBERS}
CARD_KEYS = {number: str(number) for number in NUMBERS}
