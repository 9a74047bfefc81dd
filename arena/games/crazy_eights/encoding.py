"""Crazy 8s for learning: the observation tensor and the fixed action space
(``arena.envs.encoding``; the layout is in docs/games/crazy_eights.md)."""

from __future__ import annotations

from typing import Any

from arena.envs.encoding import (
    Encoding,
    Write,
    card,
    cards,
    choice,
    flag,
    growing,
    mark,
    number,
    per_seat,
    positions,
    seat,
)
from arena.games import cards as playing_cards

from .actions import DRAW, PASS, PENALTY_DRAW, PLAY, PLAY_AND_CALL
from .state import BLACK_JACK, PACKS, TWO, CrazyEightsState

DECK = playing_cards.deck()  # the 52 cards, in the order of every card block
NO_HAND: dict[str, Any] = {"winner": None, "points": (), "blocked": False}  # before any hand ended


def actions(options: dict[str, Any]) -> list[str]:
    """Every action id the rules can produce under ``options``, in a fixed order: each card's
    plays (an eight once per wished suit; with ``last_card``, with and without the call), then
    ``draw``, ``pass`` and the penalty draws (stacked twos: 2, 4, ... up to every two of the
    packs; a black jack: 5)."""
    table = PLAY_AND_CALL if options["last_card"] else PLAY
    out = [a for c in DECK for a in table[c]]
    out += [DRAW, PASS]
    penalties: set[int] = set()
    if options["draw_two"]:
        penalties.update(range(2, 2 * 4 * options["decks"] + 1, 2))  # DATA 5.4: twos stack
    if options["black_jack"]:
        penalties.add(5)
    out += [PENALTY_DRAW[n] for n in sorted(penalties)]
    return out


def encoding(num_players: int, options: dict[str, Any]) -> Encoding:
    pack = PACKS[options["decks"]]
    size = len(pack)
    n = num_players
    blocks = [
        cards("hand", pack, lambda o: o["hand"], "the seat's hand (counts with two packs)"),
        card("top_card", DECK, lambda o: o["top_card"], "the top card of the discard pile"),
        cards("discard_pile", pack, lambda o: o["discard_pile"], "every card of the discard pile"),
        per_seat("hand_sizes", n, lambda o: o["hand_sizes"], "cards in each hand, the seat's first", size),
        number("draw_pile", lambda o: o["draw_pile"], "cards left in the draw pile", size),
        seat("current", n, lambda o: o["current"], "the seat in turn, relative (0: the seat itself)"),
        flag("reversed", lambda o: o["direction"] == -1, "1 when play goes the other way (an ace)"),
        choice("wish", playing_cards.SUITS, lambda o: o["wish"], "the suit an eight wished for (C, D, H, S)"),
        number("penalty", lambda o: o["penalty"], "cards the seat in turn must draw unless it counters", 16),
        choice("penalty_kind", (TWO, BLACK_JACK), lambda o: o["penalty_kind"], "stacked twos, or a black jack"),
        flag("fastplay", lambda o: o["phase"] == "drawn", "1 while deciding on a card just drawn (Fastplay)"),
        card("drawn", DECK, lambda o: o["drawn"], "the card just drawn, seen by its drawer only"),
        per_seat("last_card", n, lambda o: o["last_card"], "who has called \"Last card!\"", 1),
        number("passes", lambda o: o["passes"], "passes in a row with nothing to play nor draw", n),
        per_seat("totals", n, lambda o: o["totals"], "penalty points of finished hands (capped at 400)", 400),
        seat("dealer", n, lambda o: o["dealer"], "the dealer of this hand, relative"),
        number("hand_number", lambda o: o["hand_number"], "hands played before this one (capped at 100)", 100),
        # The previous hand's result (``last_hand``; all zero before the first hand ends).
        seat("last_winner", n, lambda o: (o["last_hand"] or NO_HAND)["winner"],
             "the previous hand's winner, relative (none when it was blocked)"),
        per_seat("last_points", n, lambda o: (o["last_hand"] or NO_HAND)["points"],
                 "penalty points each seat took in the previous hand (capped at 400)", 400),
        flag("last_blocked", lambda o: (o["last_hand"] or NO_HAND)["blocked"],
             "1 when the previous hand ended blocked (nobody could go out)"),
    ]
    return Encoding("crazy_eights", n, blocks, actions(options), direct=lambda enc: _writer(enc, pack))


def _writer(enc: Encoding, pack: list[str]) -> Write:
    """The blocks above written straight from the state, reading only what ``observation(seat)``
    shows: the seat's own hand, the card it just drew, the public piles and counts."""
    n = enc.num_players
    in_pack, in_deck = positions(pack), positions(DECK)
    copies = max(pack.count(c) for c in in_pack)
    size = len(pack)
    suits = {suit: i for i, suit in enumerate(playing_cards.SUITS)}
    kinds = {TWO: 0, BLACK_JACK: 1}
    (hand, top_card, discard_pile, hand_sizes, draw_pile, current, reversed_, wish, penalty, penalty_kind, fastplay,
     drawn, last_card, passes, totals, dealer, hand_number, last_winner, last_points, last_blocked) = enc.offsets

    def write(state: CrazyEightsState, me: int, out: memoryview[float]) -> None:
        mark(out, hand, in_pack, state.hands[me], copies)
        out[top_card + in_deck[state.discard[-1]]] = 1
        discarded(state.discard, me, out)
        for s in range(n):
            rel = (s - me) % n
            out[hand_sizes + rel] = min(len(state.hands[s]), size)
            out[last_card + rel] = min(max(state.last_card[s], 0), 1)
            out[totals + rel] = min(max(state.totals[s], 0), 400)
        out[draw_pile] = min(len(state.draw_pile), size)
        for block, s in ((current, state.current), (dealer, state.dealer)):
            if s is not None and s >= 0:
                out[block + (s - me) % n] = 1
        out[reversed_] = state.direction == -1
        if state.wish in suits:
            out[wish + suits[state.wish]] = 1
        out[penalty] = min(max(state.penalty, 0), 16)
        if state.penalty_kind in kinds:
            out[penalty_kind + kinds[state.penalty_kind]] = 1
        out[fastplay] = state.phase == "drawn"
        if me == state.current and state.drawn is not None:  # the drawn card: its drawer's alone
            out[drawn + in_deck[state.drawn]] = 1
        out[passes] = min(max(state.passes, 0), n)
        out[hand_number] = min(max(state.hand_number, 0), 100)
        last = state.last_hand or NO_HAND
        if last["winner"] is not None and last["winner"] >= 0:
            out[last_winner + (last["winner"] - me) % n] = 1
        for s, points in enumerate(last["points"]):
            out[last_points + (s - me) % n] = min(max(points, 0), 400)
        out[last_blocked] = bool(last["blocked"])

    discarded = growing(discard_pile, in_pack, copies)
    return write  # type: ignore[return-value]  # a writer of Crazy 8s' states only
