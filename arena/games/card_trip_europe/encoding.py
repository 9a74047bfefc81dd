"""Card Trip Europe for learning: the observation tensor and the fixed action space
(``arena.envs.encoding``; the layout is in docs/games/card_trip_europe.md)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from arena.envs.encoding import Block, Encoding, cards, choice, number, per_seat, seats_cards

from .locations import BONUS_CARDS, CAMPSITE, LOCATION_TYPES, NUMBERS, WEEK_ENERGY
from .state import CHOOSE, DEALS, HAND_SIZE, OVER, PLACE, PLAY_COUNT, TRIP_LENGTH

DECK = sorted(NUMBERS)  # the location cards by number: the card blocks, read as the numbers they are
TYPES = (*LOCATION_TYPES, CAMPSITE)
MOST_POINTS = 200  # trip points are capped here in the tensor
BONUS = 10  # a bonus card's points lie within +-BONUS


def actions(num_players: int) -> list[str]:
    """Every action id, in a fixed order: ``play A B`` for each pair of card numbers ``A < B``
    (by ``A``, then ``B``), then ``place N`` and ``camp N`` for each card number."""
    pairs = [f"play {a} {b}" for a, b in combinations(sorted(NUMBERS), PLAY_COUNT)]
    return pairs + [f"place {n}" for n in sorted(NUMBERS)] + [f"camp {n}" for n in sorted(NUMBERS)]


def encoding(num_players: int, options: dict[str, Any]) -> Encoding:
    n = num_players

    def trip_of(kind: str) -> Any:
        if kind == CAMPSITE:
            return lambda o: [[t["card"] for t in trip if t["type"] == CAMPSITE] for trip in o["trips"]]
        return lambda o: [[t["card"] for t in trip if t["type"] != CAMPSITE] for trip in o["trips"]]

    def type_count(kind: str) -> Block:
        return per_seat(f"{kind}_count", n, lambda o: [c[kind] for c in o["type_counts"]],
                        f"per seat, {kind} cards on its trip", TRIP_LENGTH)

    def bonus(i: int) -> list[Block]:
        card = BONUS_CARDS[i]
        return [
            choice(f"{card.id}_side", ("positive", "negative"), lambda o: o["bonus_cards"][i]["side"],
                   f"bonus card {card.id} ({card.counts}): its side"),
            per_seat(f"{card.id}_points", n, lambda o: o["bonus_cards"][i]["points"],
                     "per seat, its points if the game ended now", BONUS, -BONUS),
        ]

    blocks = [
        choice("phase", (CHOOSE, PLACE, OVER), lambda o: o["phase"], "choose, place, over"),
        number("deal", lambda o: o["deal"], "which deal is being played", DEALS),
        number("round", lambda o: o["round"], "the round within the deal", HAND_SIZE // PLAY_COUNT),
        cards("hand", DECK, lambda o: o["hand"], "the seat's hand, by card number"),
        cards("face_down", DECK, lambda o: o["face_down"], "its face-down pair"),
        per_seat("chosen", n, lambda o: o["chosen"], "per seat, has it played its pair this round", 1),
        per_seat("hand_counts", n, lambda o: o["hand_counts"], "cards in each hand, the seat's first", HAND_SIZE),
        seats_cards("known_cards", n, DECK, lambda o: o["known_cards"],
                    "per seat, the cards the seat knows it holds"),
        seats_cards("revealed", n, DECK, lambda o: o["revealed"],
                    "per seat, turned-over cards not placed yet"),
        seats_cards("locations", n, DECK, trip_of("location"), "per seat, the cards on its trip location side up"),
        seats_cards("campsites", n, DECK, trip_of(CAMPSITE), "per seat, the cards on its trip as campsites"),
        per_seat("week_energy_left", n, lambda o: o["week_energy_left"], "per seat, energy left in its week",
                 WEEK_ENERGY),
        *[type_count(kind) for kind in TYPES],
        per_seat("points", n, lambda o: [p["total"] for p in o["points"]],
                 f"per seat, trip points without bonus cards (within +-{MOST_POINTS})", MOST_POINTS,
                 -MOST_POINTS),
        *[block for i in range(len(BONUS_CARDS)) for block in bonus(i)],
        number("pile_count", lambda o: o["pile_count"], "location cards left face down", len(DECK)),
    ]
    return Encoding("card_trip_europe", n, blocks, actions(n))
