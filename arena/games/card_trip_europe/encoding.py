"""Card Trip Europe for learning: the observation tensor and the fixed action space
(``arena.envs.encoding``; the layout is in docs/games/card_trip_europe.md)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from arena.envs.encoding import (
    Block,
    Encoding,
    Write,
    cards,
    choice,
    kept,
    mark,
    number,
    per_seat,
    positions,
    seats_cards,
)

from .locations import BONUS_CARDS, CAMPSITE, LOCATION_TYPES, NUMBERS, WEEK_ENERGY
from .scoring import scored, scored_bonus
from .state import CHOOSE, DEALS, HAND_SIZE, OVER, PLACE, PLAY_COUNT, TRIP_LENGTH, CardTripState

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
    return Encoding("card_trip_europe", n, blocks, actions(n), direct=_writer)


def _writer(enc: Encoding) -> Write:
    """The blocks above written straight from the state, reading only what ``observation(seat)``
    shows: the seat's hand and face-down pair, the hands it has held, the trips as the seat
    sees them (``_shown``: another seat's placements of this step stay hidden), their scoring."""
    n = enc.num_players
    at = enc.starts
    where = positions(DECK)
    width = len(where)
    phases = {phase: i for i, phase in enumerate((CHOOSE, PLACE, OVER))}
    hand, face_down, chosen, hand_counts, known_cards, revealed, locations, campsites, energy, points = (at[b] for b in (
        "hand", "face_down", "chosen", "hand_counts", "known_cards", "revealed", "locations", "campsites",
        "week_energy_left", "points"))
    kinds = [(kind, at[f"{kind}_count"]) for kind in TYPES]
    bonuses = [(at[f"{card.id}_side"], at[f"{card.id}_points"]) for card in BONUS_CARDS]
    sides = {"positive": 0, "negative": 1}
    rounds = HAND_SIZE // PLAY_COUNT

    def write(state: CardTripState, me: int, out: memoryview[float]) -> None:
        if state.phase in phases:
            out[at["phase"] + phases[state.phase]] = 1
        out[at["deal"]] = min(max(state.deal, 0), DEALS)
        out[at["round"]] = min(max(state.passes + 1, 0), rounds)
        own_choice = state.choice[me]
        mark(out, hand, where, [c for c in state.hands[me] if own_choice is None or c not in own_choice], 1)
        if own_choice is not None:
            mark(out, face_down, where, own_choice, 1)
        trips = []
        for t in range(n):
            rel = (t - me) % n
            picked = state.choice[t] is not None
            out[chosen + rel] = picked
            out[hand_counts + rel] = min(max(len(state.hands[t]) - (PLAY_COUNT if picked else 0), 0), HAND_SIZE)
            if t != me and state._hand_known(me, t):
                mark(out, known_cards + rel * width, where, state.hands[t], 1)
            trip, turned = state._shown(me, t)
            mark(out, revealed + rel * width, where, turned, 1)
            trips.append(tuple(trip))
        scoring((tuple(trips), tuple(state.bonus_sides)), me, out)
        out[at["pile_count"]] = min(len(state.pile), len(DECK))

    def write_scoring(shown: tuple[tuple[tuple[int, ...], ...], tuple[str, ...]], me: int,
                      out: memoryview[float]) -> None:
        """The trips as the seat sees them and their scoring, the bonus cards' sides and points."""
        trips, faces = shown
        scores = []
        for t, trip in enumerate(trips):
            rel = (t - me) % n
            for e in trip:  # a campsite is a card placed face down: its number negated
                if e < 0:
                    out[campsites + rel * width + where[-e]] = 1
                else:
                    out[locations + rel * width + where[e]] = 1
            score = scored(trip)
            scores.append(score)
            out[energy + rel] = min(max(score.week_energy_left, 0), WEEK_ENERGY)
            for kind, block in kinds:
                out[block + rel] = min(max(score.counts[kind], 0), TRIP_LENGTH)
            out[points + rel] = min(max(score.points["total"], -MOST_POINTS), MOST_POINTS)
        for (side, block), face, bonus in zip(bonuses, faces, scored_bonus(scores, faces), strict=True):
            if face in sides:
                out[side + sides[face]] = 1
            for t, value in enumerate(bonus):
                out[block + (t - me) % n] = min(max(value, -BONUS), BONUS)

    # From the trips on, up to the pile's count, the tensor follows from the trips as the seat
    # sees them and the bonus cards' sides: they change only when a seat places a card.
    scoring = kept(locations, at["pile_count"], write_scoring, copy_of=tuple)  # of tuples: nothing to copy
    return write  # type: ignore[return-value]  # a writer of Card Trip Europe's states only
