"""Trekking the World for learning: the observation tensor and the fixed action space
(``arena.envs.encoding``; the layout is in docs/games/trekking_the_world.md)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement, product
from typing import Any

from arena.envs.encoding import (
    Block,
    Encoding,
    Write,
    cards,
    choice,
    flag,
    growing,
    kept,
    mark,
    number,
    per_seat,
    positions,
    seat,
    seats_cards,
    seats_choice,
)

from . import data, trek
from .state import JOURNEY, PAY, TrekkingState

CARDS = sorted(set(data.TREK_DECK))  # the trek card ids (number + icon), each several times
DECK = list(data.TREK_DECK)
LOCATIONS = list(data.LOCATIONS)
DESTINATIONS = list(data.DESTINATIONS)
JOURNEYS = [j for deck in data.JOURNEY_DECK.values() for j in deck]
PHASES = sorted(TrekkingState.choices["phase"])
PAID = 6  # move payments totalling up to this are listed; longer ones take the overflow ids
POINTS = 200  # points are capped here in the tensor


def _payments(most: int) -> list[tuple[str, ...]]:
    """Every multiset of trek cards (no card more often than the deck holds) whose numbers
    total at most ``most``, by total, then cards."""
    copies = Counter(DECK)
    found: list[tuple[str, ...]] = []

    def extend(at: int, chosen: tuple[str, ...], total: int) -> None:
        if at == len(CARDS):
            if chosen:
                found.append(chosen)
            return
        card = CARDS[at]
        for k in range(copies[card] + 1):
            if total + k * int(card[0]) > most:
                break
            extend(at + 1, chosen + (card,) * k, total + k * int(card[0]))

    extend(0, (), 0)
    return sorted(found, key=lambda p: (sum(int(c[0]) for c in p), sorted(p)))


def _tours() -> list[str]:
    """Every tour of every destination: the icons it asks for, or one fewer (Take a Tour for
    1 less), each paid with cards of those icons (their numbers do not matter)."""
    out = []
    for dest in DESTINATIONS:
        icons = data.DESTINATION_ICONS[dest]
        for need in dict.fromkeys([icons, *trek.reduced_requirements(icons, 1)]):
            per_icon = [list(combinations_with_replacement([c for c in CARDS if trek.icon(c) == ic], k))
                        for ic, k in sorted(Counter(need).items())]
            for combo in product(*per_icon):
                out.append(f"tour {dest} cards={trek.fmt([c for part in combo for c in part])}")
    return out


def actions(num_players: int) -> list[str]:
    """Every action id at ``num_players`` but the longer move payments, in this order: the
    words (``no_move``, ``pass``, ``skip``, ``gain_vp``, ``draw deck``); ``start``, ``fly`` per
    airport; ``move``, ``goto``, ``take_cube`` per location; ``draw`` per card; ``draw_deck`` 1-3;
    ``swap`` per seat; ``recolour`` per pair of colours; ``pay`` with every multiset of cards
    totalling at most 6; every tour; ``journey <J> cards=<pair>`` per journey and pair of one
    icon."""
    out = ["no_move", "pass", "skip", "gain_vp", "draw deck"]
    out += [f"start {a}" for a in data.AIRPORTS] + [f"fly {a}" for a in data.AIRPORTS]
    for loc in LOCATIONS:
        out += [f"move {loc}", f"goto {loc}", f"take_cube {loc}"]
    out += [f"draw {c}" for c in CARDS]
    out += [f"draw_deck {k}" for k in (1, 2, 3)]
    out += [f"swap {s}" for s in range(num_players)]
    out += [f"recolour {a} {b}" for a in data.COLOURS for b in data.COLOURS if a != b]
    out += [f"pay {trek.fmt(p)}" for p in _payments(PAID)]
    out += _tours()
    pairs = [pair for ic in data.ICONS for pair in combinations_with_replacement(
        [c for c in CARDS if trek.icon(c) == ic], 2)]
    out += [f"journey {j} cards={trek.fmt(p)}" for j in JOURNEYS for p in pairs]
    return list(dict.fromkeys(out))


def _long_payment(action: str) -> bool:
    return action.startswith("pay ")


def encoding(num_players: int, options: dict[str, Any]) -> Encoding:
    n = num_players
    size = len(DECK)
    regions = list(data.REGIONS)
    colours = list(data.COLOURS)

    def cubes(colour: str) -> Any:
        return lambda o: [loc for loc, c in o["cubes"].items() if c == colour]

    def suitcase(colour: str) -> Any:
        return per_seat(f"suitcase_{colour}", n, lambda o: [s[colour] for s in o["suitcases"]],
                        f"per seat, its {colour} cubes", 20)

    def tile(colour: str) -> Block:
        return seat(f"tile_{colour}", n, lambda o: o["tiles"][colour], f"who holds the Most Souvenirs tile of {colour}")

    def must_see(vp: int) -> Block:
        def touring(o: dict[str, Any]) -> str | None:  # the first destination of the row that gives it
            rewards = o["must_see"]
            return o["destination_row"][rewards.index(vp)] if vp in rewards else None
        return choice(f"must_see_{vp}", DESTINATIONS, touring, f"the destination whose tour gives a {vp} VP token now")

    blocks = [
        choice("phase", PHASES, lambda o: o["phase"], f"the phase: {', '.join(PHASES)}"),
        seat("current", n, lambda o: o["current"], "whose turn it is, relative (0: the seat itself)"),
        number("turn", lambda o: o["turn"], "turns played (capped at 500)", 500),
        cards("hand", DECK, lambda o: o["hand"], "the seat's trek cards"),
        per_seat("hand_sizes", n, lambda o: o["hand_sizes"], "cards in each hand, the seat's first", size),
        seats_cards("known_cards", n, DECK, lambda o: o["known_cards"], "per seat, face-up cards it took"),
        cards("face_up", DECK, lambda o: o["face_up"], "the face-up trek cards"),
        number("trek_deck_size", lambda o: o["trek_deck_size"], "cards in the trek deck", size),
        cards("discard", DECK, lambda o: o["discard"], "the discarded trek cards"),
        seats_choice("positions", n, LOCATIONS, lambda o: o["positions"], "per seat, its trekker's location"),
        flag("can_fly", lambda o: o["can_fly"], "1 when the current player may still Fly"),
        *[cards(f"cubes_{c}", LOCATIONS, cubes(c), f"locations with a {c} cube") for c in colours],
        *[suitcase(c) for c in colours],
        per_seat("sets", n, lambda o: o["sets"], "per seat, complete sets of cubes", 10),
        *[tile(c) for c in colours],
        cards("region_bonus_left", regions, lambda o: o["region_bonus_left"], "regions whose bonus token is left"),
        per_seat("bonus_token_counts", n, lambda o: o["bonus_token_counts"], "bonus tokens each seat holds", 6),
        number("my_bonus_points", lambda o: sum(o["my_bonus_tokens"]), "the value of the seat's own tokens", 40),
        per_seat("vp_tokens", n, lambda o: [sum(t) for t in o["vp_tokens"]], "per seat, points of its VP tokens",
                 POINTS),
        number("vp5_left", lambda o: o["vp_stacks"]["5"], "5 VP tokens left", data.VP5_TOKENS),
        number("vp3_left", lambda o: o["vp_stacks"]["3"], "3 VP tokens left", data.VP3_TOKENS),
        cards("destination_row", DESTINATIONS, lambda o: o["destination_row"], "the face-up destinations"),
        *[must_see(vp) for vp in (5, 3)],
        number("destination_deck_size", lambda o: o["destination_deck_size"], "destinations left", len(DESTINATIONS)),
        seats_cards("toured", n, DESTINATIONS, lambda o: o["toured"], "per seat, the destinations it toured"),
        cards("journeys", JOURNEYS, lambda o: o["journeys"], "the journey cards in play"),
        choice("pending_destination", LOCATIONS, lambda o: o["pending"].get("destination"),
               "pay: the announced location"),
        choice("pending_journey", JOURNEYS, lambda o: o["pending"].get("journey"), "journey: the journey under way"),
        number("steps_left", lambda o: len(o["pending"].get("steps_left") or ()), "its steps left", 3),
        per_seat("public_points", n, lambda o: o["public_points"], "points without secret bonus tokens", POINTS),
        number("my_points", lambda o: o["my_points"], "the seat's own full points", POINTS),
    ]
    return Encoding("trekking_the_world", n, blocks, actions(n), beyond=_long_payment,
                    beyond_help=f"`pay` with cards totalling more than {PAID}", direct=_writer)


def _writer(enc: Encoding) -> Write:
    """The blocks above written straight from the state, reading only what ``observation(seat)``
    shows: the seat's own cards and bonus tokens, of the others only how many they hold, and
    the board."""
    n = enc.num_players
    at = enc.starts
    size = len(DECK)
    cards_at, locations_at, destinations_at = positions(DECK), positions(LOCATIONS), positions(DESTINATIONS)
    journeys_at, regions_at = positions(JOURNEYS), positions(data.REGIONS)
    copies = max(DECK.count(c) for c in cards_at)
    journey_copies = max(JOURNEYS.count(j) for j in journeys_at)
    phases = {phase: i for i, phase in enumerate(PHASES)}
    colours = [(c, at[f"cubes_{c}"], at[f"suitcase_{c}"], at[f"tile_{c}"]) for c in data.COLOURS]
    cubes_at = {c: cubes for c, cubes, _, _ in colours}
    hand, hand_sizes, known_cards, face_up, discard = (at[b] for b in (
        "hand", "hand_sizes", "known_cards", "face_up", "discard"))
    places, sets_, bonus_counts, vp_tokens, toured = (at[b] for b in (
        "positions", "sets", "bonus_token_counts", "vp_tokens", "toured"))
    public_points, must_see = at["public_points"], [(5, at["must_see_5"]), (3, at["must_see_3"])]
    width, places_width, toured_width = len(cards_at), len(locations_at), len(destinations_at)

    def write(state: TrekkingState, me: int, out: memoryview[float]) -> None:
        if state.phase in phases:
            out[at["phase"] + phases[state.phase]] = 1
        if state.current is not None and state.current >= 0:
            out[at["current"] + (state.current - me) % n] = 1
        out[at["turn"]] = min(max(state.turns, 0), 500)
        mark(out, hand, cards_at, state.hands[me], copies)
        mark(out, face_up, cards_at, state.face_up, copies)
        out[at["trek_deck_size"]] = min(len(state.trek_deck), size)
        discarded(state.discard, me, out)
        out[at["can_fly"]] = bool(state.can_fly)
        placed(state.cubes, me, out)
        for c, _, _, tile in colours:
            holder = state.tiles[c]
            if holder is not None and holder >= 0:
                out[tile + (holder - me) % n] = 1
        for s in range(n):
            rel = (s - me) % n
            out[hand_sizes + rel] = min(len(state.hands[s]), size)
            mark(out, known_cards + rel * width, cards_at, state.known[s], copies)
            place = locations_at.get(state.positions[s])
            if place is not None:
                out[places + rel * places_width + place] = 1
            case = state.suitcases[s]
            for c, _, suitcase, _ in colours:
                out[suitcase + rel] = min(max(case[c], 0), 20)
            sets = state.sets(s)
            out[sets_ + rel] = min(max(sets, 0), 10)
            out[bonus_counts + rel] = min(len(state.bonus_tokens[s]), 6)
            out[vp_tokens + rel] = min(max(sum(state.vp_tokens[s]), 0), POINTS)
            mark(out, toured + rel * toured_width, destinations_at, state.toured[s], 1)
            # Of the bonus tokens, face down, only the seat's own count in its points.
            public = state._public_points(s, sets)
            out[public_points + rel] = min(max(public, 0), POINTS)
            if s == me:
                mine = sum(state.bonus_tokens[me])
                out[at["my_bonus_points"]] = min(max(mine, 0), 40)
                out[at["my_points"]] = min(max(public + mine, 0), POINTS)
        mark(out, at["region_bonus_left"], regions_at,
             [r for r in data.REGIONS if state.region_bonus[r] is not None], 1)
        out[at["vp5_left"]] = min(max(state.vp5_left, 0), data.VP5_TOKENS)
        out[at["vp3_left"]] = min(max(state.vp3_left, 0), data.VP3_TOKENS)
        mark(out, at["destination_row"], destinations_at, state.dest_row, 1)
        rewards = state.must_see_rewards()
        for vp, block in must_see:
            if vp in rewards:
                out[block + destinations_at[state.dest_row[rewards.index(vp)]]] = 1
        out[at["destination_deck_size"]] = min(len(state.dest_deck), len(DESTINATIONS))
        mark(out, at["journeys"], journeys_at, state.journeys, journey_copies)
        if state.phase == PAY:
            if state.target in locations_at:
                out[at["pending_destination"] + locations_at[state.target]] = 1
        elif state.phase == JOURNEY and state.journey is not None:
            out[at["pending_journey"] + journeys_at[state.journey]] = 1
            out[at["steps_left"]] = min(len(data.JOURNEY_ACTIONS[state.journey][state.journey_step:]), 3)

    def write_cubes(cubes: dict[str, str], me: int, out: memoryview[float]) -> None:
        for loc, colour in cubes.items():
            block = cubes_at.get(colour)
            if block is not None:
                out[block + locations_at[loc]] = 1

    discarded = growing(discard, cards_at, copies)
    # The cubes on the map change on a few turns only.
    first_cubes = min(cubes_at.values())
    placed = kept(first_cubes, first_cubes + len(cubes_at) * len(locations_at), write_cubes, dict)
    return write  # type: ignore[return-value]  # a writer of Trekking the World's states only
