"""Durak for learning: the observation tensor and the fixed action space
(``arena.envs.encoding``; the layout is in docs/games/durak.md)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from arena.envs.encoding import (
    Encoding,
    Write,
    card,
    cards,
    choice,
    flag,
    growing,
    number,
    per_seat,
    positions,
    seat,
    seats_cards,
)
from arena.games import cards as playing_cards

from .cards import in_order, pack
from .state import DEFEND, LEAD, OVER, REDEAL, THROW_IN, DurakState

PHASES = (REDEAL, LEAD, DEFEND, THROW_IN, OVER)
MOST = 9  # the largest attack of a bout (durak 3.7 with 52 cards: nine)


def _groups(deck: list[str]) -> list[str]:
    """Every choice of one or more cards of one rank, in the canonical order of action ids."""
    out = []
    for rank in dict.fromkeys(c[0] for c in deck):
        same = in_order([c for c in deck if c[0] == rank])
        out += [" ".join(g) for size in range(1, len(same) + 1) for g in combinations(same, size)]
    return out


def actions(options: dict[str, Any]) -> list[str]:
    """Every action id under ``options``, in a fixed order: ``keep``, ``redeal``, ``done``,
    ``take``; ``attack`` with each group of one rank (rank by rank, groups by size, cards by
    suit C, D, H, S); ``defend <attack> <card>`` for every pair of cards where the second may
    beat the first under some trump (same suit and higher, or another suit); with ``shoving``,
    ``shove`` with each group (and ``... reverse`` with ``shove_direction``)."""
    deck = pack(options["pack"])
    groups = _groups(deck)
    out = ["keep", "redeal", "done", "take"]
    out += [f"attack {g}" for g in groups]
    out += [f"defend {a} {d}" for a in deck for d in deck
            if a != d and (a[1] != d[1] or playing_cards.RANK_VALUE[d[0]] > playing_cards.RANK_VALUE[a[0]])]
    if options["shoving"] != "off":
        out += [f"shove {g}" for g in groups]
        if options["shove_direction"]:
            out += [f"shove {g} reverse" for g in groups]
    return out


def encoding(num_players: int, options: dict[str, Any]) -> Encoding:
    deck = pack(options["pack"])
    size = len(deck)
    n = num_players

    def unbeaten(o: dict[str, Any]) -> list[str]:
        return [t["attack"] for t in o["table"] if t["defence"] is None]

    def beaten(o: dict[str, Any]) -> list[str]:
        return [t["attack"] for t in o["table"] if t["defence"] is not None]

    def mates(o: dict[str, Any]) -> list[int]:
        teams = o["teams"]
        return [0] * n if teams is None else [int(t == teams[o["seat"]]) for t in teams]

    blocks = [
        cards("hand", deck, lambda o: o["hand"], "the seat's hand"),
        choice("trump", playing_cards.SUITS, lambda o: o["trump"], "the trump suit (C, D, H, S)"),
        card("trump_card", deck, lambda o: o["trump_card"], "the card turned for trumps"),
        flag("trump_card_in_stock", lambda o: o["trump_card_in_stock"], "1 while it is still under the stock"),
        flag("hidden_bottom_card", lambda o: o["hidden_bottom_card"], "1 when the stock's bottom card is hidden"),
        number("stock_count", lambda o: o["stock_count"], "cards left in the stock", size),
        per_seat("hand_counts", n, lambda o: o["hand_counts"], "cards in each hand, the seat's first", size),
        seats_cards("known_cards", n, deck, lambda o: o["known_cards"],
                    "per seat, the cards every seat has seen it pick up and still holds"),
        cards("discards", deck, lambda o: o["discards"], "the discarded cards"),
        cards("unbeaten", deck, unbeaten, "attack cards on the table not yet beaten"),
        cards("beaten", deck, beaten, "attack cards on the table already beaten"),
        cards("defences", deck, lambda o: [t["defence"] for t in o["table"] if t["defence"]],
              "the cards that beat them"),
        choice("phase", PHASES, lambda o: o["phase"], "redeal, lead, defend, throw_in, over"),
        seat("attacker", n, lambda o: o["attacker"], "the main attacker, relative (0: the seat itself)"),
        seat("defender", n, lambda o: o["defender"], "the defender, relative"),
        flag("reversed", lambda o: o["direction"] == -1, "1 when play goes the other way"),
        flag("taking", lambda o: o["taking"], "1 when the defender has chosen to take"),
        number("room", lambda o: o["room"], "attack cards that may still be laid now", MOST),
        number("attack_cap", lambda o: o["attack_cap"], "most attack cards this bout", MOST),
        per_seat("throw_in_order", n, lambda o: [int(s in o["throw_in_order"]) for s in range(n)],
                 "the seats asked in this throw-in round", 1),
        seat("dealer", n, lambda o: o["dealer"], "the dealer, relative"),
        card("shown_trump", deck, lambda o: o["shown_trump"], "the trump shown to claim a redeal"),
        per_seat("partners", n, mates, "with option teams: 1 for the seat's own team", 1),
        number("bout", lambda o: o["bout"], "bouts played (capped at 50)", 50),
    ]
    return Encoding("durak", n, blocks, actions(options), direct=lambda enc: _writer(enc, deck))


def _writer(enc: Encoding, deck: list[str]) -> Write:
    """The blocks above written straight from the state, reading only what ``observation(seat)``
    shows: the seat's own hand, the public piles and counts, the cards seen picked up."""
    n = enc.num_players
    where = positions(deck)
    width = len(where)
    suits = {suit: i for i, suit in enumerate(playing_cards.SUITS)}
    phases = {phase: i for i, phase in enumerate(PHASES)}
    size = len(deck)
    (hand, trump, trump_card, in_stock, hidden_bottom, stock_count, hand_counts, known, discards, unbeaten,
     beaten, defences, phase, attacker, defender, reversed_, taking, room, attack_cap, throw_in_order, dealer,
     shown_trump, partners, bout) = enc.offsets
    playing = (LEAD, DEFEND, THROW_IN)

    def write(state: DurakState, me: int, out: memoryview[float]) -> None:
        for c in state.hands[me]:
            out[hand + where[c]] = 1
        if state.trump in suits:
            out[trump + suits[state.trump]] = 1
        if state.trump_card is not None:
            out[trump_card + where[state.trump_card]] = 1
            out[in_stock] = state.trump_card in state.stock
        out[hidden_bottom] = bool(state.hidden_bottom)
        out[stock_count] = min(len(state.stock), size)
        for s in range(n):
            rel = (s - me) % n
            out[hand_counts + rel] = min(len(state.hands[s]), size)
            base = known + rel * width
            for c in state.known[s]:
                out[base + where[c]] = 1
        discarded(state.discards, me, out)
        for a, d in zip(state.attacks, state.defences, strict=True):
            if d is None:
                out[unbeaten + where[a]] = 1
            else:
                out[beaten + where[a]] = 1
                if d:
                    out[defences + where[d]] = 1
        if state.phase in phases:
            out[phase + phases[state.phase]] = 1
        for block, s in ((attacker, state.attacker), (defender, state.defender), (dealer, state.dealer)):
            if s is not None and s >= 0:
                out[block + (s - me) % n] = 1
        out[reversed_] = state.direction == -1
        out[taking] = bool(state.taking)
        out[room] = min(max(state.room(), 0), MOST) if state.phase in playing else 0
        out[attack_cap] = min(max(state.attack_cap(), 0), MOST)
        for s in state.window:
            if 0 <= s < n:
                out[throw_in_order + (s - me) % n] = 1
        if state.shown_trump is not None:
            out[shown_trump + where[state.shown_trump]] = 1
        teams = state.teams
        if teams is not None:
            for s in range(n):
                out[partners + (s - me) % n] = teams[s] == teams[me]
        out[bout] = min(max(state.bout, 0), 50)

    discarded = growing(discards, where, 1)  # it grows when a bout is beaten off
    return write  # type: ignore[return-value]  # a writer of Durak's states only
