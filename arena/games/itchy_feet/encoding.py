"""Itchy Feet for learning: the observation tensor and the fixed action space
(``arena.envs.encoding``; the layout is in docs/games/itchy_feet.md)."""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Any

from arena.envs.encoding import (
    Encoding,
    cards,
    choice,
    flag,
    number,
    per_seat,
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
                                "`take <card> top=<a>,<b>`")
