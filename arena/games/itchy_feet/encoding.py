"""Itchy Feet for learning: the observation tensor and the fixed action space
(``arena.envs.encoding``; the layout is in docs/games/itchy_feet.md)."""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Any

from arena.envs.encoding import (
    Encoding,
    Write,
    cards,
    choice,
    flag,
    growing,
    mark,
    number,
    per_seat,
    positions,
    seat,
    seats_cards,
    seats_choice,
)

from . import data
from .core import MAX_OFFERS
from .state import ItchyFeetState

# Every card id with the copies of the pack (items four times, every other card once).
DECK = [c for c in data.KIND for _ in range(data.ITEM_COPIES.get(c, 1))]
IDS = list(data.KIND)
COUNTRIES = list(data.COUNTRIES)
KINDS = sorted(set(data.KIND.values()))
PHASES = sorted(ItchyFeetState.choices["phase"])
AIMED = ("steal", "trading_post", "map", "local_guide", "steal_country", "smuggle")
ACCEPTED = 3  # trades answered with up to this many cards are in the action space
WORDS = ("draw", "recycle", "trade", "steal", "pass", "propose", "withdraw", "refuse", "mousetrap", "allow",
         "insurance", "play frequent_flyer", "play free_wifi", "play poorly_drawn_map aside", "take nothing")
STALL = 1000  # turns since a trip, capped in the tensor


def _accepts() -> list[str]:
    """``accept`` with one to ``ACCEPTED`` cards, sorted, no card more often than the pack holds."""
    out = []
    for size in range(1, ACCEPTED + 1):
        for pick in combinations_with_replacement(IDS, size):
            if all(pick.count(c) <= DECK.count(c) for c in set(pick)):
                out.append("accept " + " ".join(sorted(pick)))
    return out


def actions(num_players: int) -> list[str]:
    """Every action id at ``num_players``, a fixed superset of those the rules produce, in this
    order: the words (``draw``, ``trade``, ``refuse``, ...); per seat ``partner``, ``victim``,
    ``from``, ``play trading_post``, ``play poorly_drawn_map``; per card ``give``, ``take``,
    ``pay``, ``discard``, ``exchange``; per kind ``want``; per item ``play local_guide``; per
    pair of cards ``pay A B`` and ``swap A for=B``; forbidden items ``dispose`` with a card and
    ``smuggle`` to a seat; per country ``visit``, with ``card=`` or ``item=`` an item; ``steal_country``
    per seat, country and item; ``accept`` with up to three cards."""
    seats = range(num_players)
    items = [*data.ITEMS, "moms_credit_card"]
    out = list(WORDS)
    for s in seats:
        out += [f"partner {s}", f"victim {s}", f"from {s}", f"play trading_post {s}", f"play poorly_drawn_map {s}"]
    for c in IDS:
        out += [f"give {c}", f"take {c}", f"pay {c}", f"discard {c}", f"exchange {c}"]
    out += [f"want {k}" for k in KINDS]
    out += [f"play local_guide {item}" for item in data.ITEMS]
    out += [f"pay {a} {b}" for a in IDS for b in IDS if a <= b]
    out += [f"swap {a} for={b}" for a in IDS for b in IDS]
    out += [f"dispose {f} with={c}" for f in data.FORBIDDEN for c in IDS]
    out += [f"smuggle {f} to={s}" for f in data.FORBIDDEN for s in seats]
    for country in COUNTRIES:
        out.append(f"visit {country}")
        out += [f"visit {country} card={item}" for item in items]
        out += [f"visit {country} item={item}" for item in items]
        out += [f"steal_country {s} {country} pay={item}" for s in seats for item in items]
    out += _accepts()
    return list(dict.fromkeys(out))


def _unlisted(action: str) -> bool:
    """Answers to a trade with more than ``ACCEPTED`` cards, and Free Wi-Fi's choices (the card
    kept and the order the others go back in): a few at a time, too many to list."""
    return (action.startswith("accept ") and action.count(" ") > ACCEPTED) or " top=" in action


def encoding(num_players: int, options: dict[str, Any]) -> Encoding:
    n = num_players
    size = len(DECK)

    def pending(key: str) -> Any:
        return lambda o: o["pending"].get(key)

    blocks = [
        cards("hand", DECK, lambda o: o["hand"], "the seat's hand, over every card id"),
        number("hand_limit", lambda o: o["hand_limit"], "its hand limit", 9),
        per_seat("hand_sizes", n, lambda o: o["hand_sizes"], "cards in each hand, the seat's first", size),
        seats_cards("known_cards", n, DECK, lambda o: o["known_cards"], "per seat, the cards everyone has seen it hold"),
        seat("current", n, lambda o: o["current"], "whose turn it is, relative (0: the seat itself)"),
        number("turns_since_trip", lambda o: o["turns_since_trip"], f"turns since the last visit (capped at {STALL})",
               STALL),
        choice("phase", PHASES, lambda o: o["phase"], f"the phase: {', '.join(PHASES)}"),
        number("deck_size", lambda o: o["deck_size"], "cards in the deck", size),
        cards("deck_top", DECK, lambda o: o["deck_top"], "deck cards the seat put back with Free Wi-Fi"),
        cards("discard", DECK, lambda o: o["discard"], "the discard pile"),
        number("offers_left", lambda o: o["offers_left"], "trade offers left this turn", MAX_OFFERS),
        seats_choice("characters", n, data.CHARACTERS, lambda o: o["characters"], "per seat, its character"),
        seats_choice("countries", n, COUNTRIES, lambda o: o.get("countries") or [None] * n,
                     "classic: per seat, its own country until visited"),
        per_seat("home_visited", n, lambda o: o.get("home_visited") or [0] * n, "classic: who visited theirs", 1),
        choice("centre", COUNTRIES, lambda o: o.get("centre"), "classic: the centre country"),
        cards("aside", COUNTRIES, lambda o: o.get("aside"), "classic: the countries set aside"),
        choice("pile_top", COUNTRIES, lambda o: o.get("pile_top"), "bucket list: the face-up country"),
        number("pile_size", lambda o: o.get("pile_size", 0), "bucket list: countries left", len(COUNTRIES)),
        seats_cards("collections", n, COUNTRIES, lambda o: o.get("collections") or [[]] * n,
                    "bucket list: per seat, its countries"),
        choice("target", COUNTRIES, lambda o: o["target"], "the country the seat may visit next"),
        choice("pending_for", ("trade", "steal", "recycle"), pending("for"), "what a choice or payment is for"),
        choice("pending_kind", AIMED, pending("kind"), "what an aimed action is (react)"),
        seat("pending_to", n, pending("to"), "the trade partner, relative"),
        seat("pending_target", n, pending("target"), "the target, relative"),
        seat("pending_actor", n, pending("actor"), "who aims at it, relative"),
        cards("pending_give", DECK, pending("give"), "the cards offered in the trade"),
        cards("pending_want", KINDS, pending("want"), "the kinds asked for, counted", max(data.KIND_COUNT.values())),
        cards("wifi_cards", DECK, pending("cards"), "Free Wi-Fi: the cards seen (its player only)"),
        number("wifi_count", lambda o: o["pending"].get("count", 0) if o["phase"] == "wifi" else 0,
               "how many were drawn", 3),
        cards("their_hand", DECK, pending("their_hand"), "Trading Post: the target's hand (its player only)"),
        per_seat("holders", n, lambda o: [int(s in (o["pending"].get("holders") or ())) for s in range(n)],
                 "Local Guide: the seats holding the item", 1),
        flag("exchange_chosen", lambda o: o["pending"].get("mine"), "1 when the seat chose its exchange card"),
        number("postcards", lambda o: o.get("postcards", 0), "postcards held", 6),
        choice("pending_card", IDS, lambda o: o["pending"].get("card") or o["pending"].get("item"),
               "the card an aimed action is about: the item smuggled (react), the item a Local Guide asks for "
               "(guide, react)"),
        choice("pending_country", COUNTRIES, lambda o: o["pending"].get("country"),
               "the country an aimed Steal Country takes (react)"),
    ]
    return Encoding("itchy_feet", n, blocks, actions(n), beyond=_unlisted,
                    beyond_help=f"`accept` with more than {ACCEPTED} cards, and Free Wi-Fi's "
                                "`take <card> top=<a>,<b>`", direct=_writer)


def _writer(enc: Encoding) -> Write:
    """The blocks above written straight from the state, reading only what ``observation(seat)``
    shows: the seat's own hand and the cards it put back, the known cards, the countries; the
    decision under way is filled by its blocks from the observation's own view of it
    (``_pending_view``)."""
    n = enc.num_players
    where, in_countries = positions(DECK), positions(COUNTRIES)
    width, country_width = len(where), len(in_countries)
    copies = max(DECK.count(c) for c in where)
    size = len(DECK)
    phases = {phase: i for i, phase in enumerate(PHASES)}
    characters_of: dict[str | None, int] = {c: i for i, c in enumerate(data.CHARACTERS)}
    first_pending = [b.name for b in enc.blocks].index("pending_for")
    pending_fills = [(b.fill, at) for b, at in zip(enc.blocks[first_pending:], enc.offsets[first_pending:], strict=True)
                     if b.name != "postcards"]
    postcards = enc.starts["postcards"]
    (hand, hand_limit, hand_sizes, known_cards, current, turns_since_trip, phase, deck_size, deck_top, discard,
     offers_left, characters, countries, home_visited, centre, aside, pile_top, pile_size, collections,
     target) = enc.offsets[:first_pending]

    def write(state: ItchyFeetState, me: int, out: memoryview[float]) -> None:
        mark(out, hand, where, state.hands[me], copies)
        out[hand_limit] = min(max(state.hand_limit(me), 0), 9)
        for s in range(n):
            rel = (s - me) % n
            out[hand_sizes + rel] = min(len(state.hands[s]), size)
            mark(out, known_cards + rel * width, where, state.known[s], copies)
            character = characters_of.get(state.characters[s])
            if character is not None:
                out[characters + rel * len(characters_of) + character] = 1
        if state.current is not None and state.current >= 0:
            out[current + (state.current - me) % n] = 1
        out[turns_since_trip] = min(max(state.turns - state.last_trip, 0), STALL)
        if state.phase in phases:
            out[phase + phases[state.phase]] = 1
        out[deck_size] = min(len(state.deck), size)
        if state.peek["seat"] == me:  # the cards it put back itself
            mark(out, deck_top, where, state.peek["cards"], copies)
        discarded(state.discard, me, out)
        out[offers_left] = min(max(MAX_OFFERS - state.offers, 0), MAX_OFFERS)
        if state.bucket:
            if state.pile:
                out[pile_top + in_countries[state.pile[-1]]] = 1
            out[pile_size] = min(len(state.pile), len(COUNTRIES))
            for s in range(n):
                mark(out, collections + ((s - me) % n) * country_width, in_countries, state.collection[s], 1)
        else:
            for s in range(n):
                rel = (s - me) % n
                home = in_countries.get(state.home[s])
                if home is not None:
                    out[countries + rel * country_width + home] = 1
                out[home_visited + rel] = min(max(state.home_visited[s], 0), 1)
            if state.centre in in_countries:
                out[centre + in_countries[state.centre]] = 1
            mark(out, aside, in_countries, state.aside, 1)
        aim = in_countries.get(state.target(me))
        if aim is not None:
            out[target + aim] = 1
        if state.options["postcards"]:
            out[postcards] = min(state.postcards(me), 6)
        pending = state._pending_view(me)
        if pending:  # its blocks write nothing of an empty view
            view = {"seat": me, "phase": state.phase, "pending": pending}
            for fill, at in pending_fills:
                fill(view, out, at)

    discarded = growing(discard, where, copies)
    return write  # type: ignore[return-value]  # a writer of Itchy Feet's states only
