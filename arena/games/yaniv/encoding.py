"""Yaniv for learning: the observation tensor and the fixed action space
(``arena.envs.encoding``; the layout is in docs/games/yaniv.md)."""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement
from typing import Any

from arena.envs.encoding import (
    Encoding,
    Write,
    cards,
    choice,
    growing,
    kept,
    mark,
    multisets,
    number,
    per_seat,
    positions,
    seat,
    seats_cards,
)
from arena.games import cards as playing_cards

from .melds import RUN_CARD, hand_value
from .state import DRAW_DECK, DRAW_WILD, KEEP, TAKE, YANIV, YanivState

PHASES = ("discard", "draw", "ninety")


def _sets(pack: list[str], most: int) -> list[tuple[str, ...]]:
    """Two or more cards of one rank: the two outer cards in card-id order, the inner cards
    sorted between them (yaniv: only the outer cards may be taken)."""
    out: list[tuple[str, ...]] = []
    for rank in playing_cards.RANKS:
        for combo in multisets([c for c in pack if c[0] == rank], most):
            if len(combo) == 2:
                out.append(combo)
            elif len(combo) > 2:
                for i, j in combinations(range(len(combo)), 2):
                    inner = [combo[k] for k in range(len(combo)) if k not in (i, j)]
                    out.append((combo[i], *inner, combo[j]))
    return out


def _runs(jokers: list[str], most: int) -> list[tuple[str, ...]]:
    """Three or more cards of one suit in sequence, ace low, laid from low to high; jokers fill
    places (at least one real card), ``BJ`` before ``RJ``."""
    out: list[tuple[str, ...]] = []
    for suit in playing_cards.SUITS:
        for low in range(1, 12):
            for high in range(low + 2, min(13, low + most - 1) + 1):
                span = list(range(low, high + 1))
                for count in range(0, min(len(jokers), len(span) - 1) + 1):
                    fills = sorted(set(combinations_with_replacement(sorted(set(jokers)), count)))
                    fills = [f for f in fills if all(f.count(j) <= jokers.count(j) for j in f)]
                    for places in combinations(span, count):
                        for fill in fills:
                            used = iter(fill)
                            out.append(tuple(next(used) if r in places else RUN_CARD[(r, suit)] for r in span))
    return out


def actions(options: dict[str, Any]) -> list[str]:
    """Every action id under ``options``, in a fixed order: ``yaniv``, ``draw deck``,
    ``draw_wild``, ``keep``; ``take <card>`` for each card of the pack; ``discard`` of each
    single card, then each set (rank by rank, by size), then each run (suit by suit, by its
    low card and length), of at most ``hand_size`` cards."""
    pack = playing_cards.deck(jokers=2, copies=options["decks"])
    distinct = list(dict.fromkeys(pack))
    most = options["hand_size"]
    out = [YANIV, DRAW_DECK, DRAW_WILD, KEEP] + [f"{TAKE} {c}" for c in distinct]
    melds = [(c,) for c in distinct] + _sets(pack, most)
    melds += _runs([c for c in pack if c in playing_cards.JOKERS], most)
    return out + ["discard " + " ".join(m) for m in dict.fromkeys(melds)]


def _last(o: dict[str, Any]) -> dict[str, Any]:
    """The previous round's showdown, or nothing before the first round ends."""
    last: dict[str, Any] = o["last_round"] or {}
    return last


def encoding(num_players: int, options: dict[str, Any]) -> Encoding:
    pack = playing_cards.deck(jokers=2, copies=options["decks"])
    size = len(pack)
    n = num_players
    most = options["hand_size"]
    limit = options["end_score"] * 2
    blocks = [
        cards("hand", pack, lambda o: o["hand"], "the seat's hand (jokers last)"),
        number("hand_value", lambda o: o["hand_value"], "its points", 10 * most),
        per_seat("hand_sizes", n, lambda o: o["hand_sizes"], "cards in each hand, the seat's first", size),
        seats_cards("known_cards", n, pack, lambda o: o["known_cards"],
                    "per seat, the cards every seat has seen it take and still holds"),
        cards("last_discard", pack, lambda o: o["last_discard"], "the cards the previous player laid"),
        cards("first_taken", pack, lambda o: o["last_discard"][:1], "its first card (may be taken)"),
        cards("last_taken", pack, lambda o: o["last_discard"][-1:], "its last card (may be taken)"),
        cards("my_discard", pack, lambda o: o["my_discard"], "the cards the seat itself just laid"),
        cards("discard_pile", pack, lambda o: o["discard_pile"], "the buried discard pile"),
        number("deck", lambda o: o["deck"], "cards left in the deck", size),
        choice("phase", PHASES, lambda o: o["phase"], "discard, draw, ninety"),
        seat("current", n, lambda o: o["current"], "the seat in turn, relative (0: the seat itself)"),
        seat("starter", n, lambda o: o["starter"], "who started the round, relative"),
        per_seat("totals", n, lambda o: o["totals"], f"points of finished rounds (capped at {limit})", limit),
        per_seat("active", n, lambda o: o["active"], "seats still in the match", 1),
        number("round_number", lambda o: o["round_number"], "rounds played (capped at 100)", 100),
        number("call_limit", lambda o: o["call_limit"], "the hand value at most which yaniv may be called", 7),
        # The previous round's showdown (``last_round``; all zero before the first ends).
        seat("last_caller", n, lambda o: _last(o).get("caller"), "the previous round: who called yaniv, relative"),
        seat("last_assaf", n, lambda o: _last(o).get("assaf"), "who called assaf on it, relative"),
        seats_cards("last_hands", n, pack, lambda o: _last(o).get("hands") or (), "per seat, the hand it showed"),
        per_seat("last_points", n, lambda o: _last(o).get("points") or [0] * n, "per seat, the points it scored",
                 10 * most + options["assaf_penalty"]),
        per_seat("last_halved", n, lambda o: [int(s in _last(o).get("halved", ())) for s in range(n)],
                 "the seats whose total was halved (a multiple of 50)", 1),
        seats_cards("last_wild_cards", n, pack,
                    lambda o: [[c] if (c := _last(o).get("wild_cards", {}).get(str(s))) else [] for s in range(n)],
                    "per seat, the card it drew at 90 (the 90 rule)"),
    ]
    return Encoding("yaniv", n, blocks, actions(options), direct=lambda enc: _writer(enc, pack, options))


def _writer(enc: Encoding, pack: list[str], options: dict[str, Any]) -> Write:
    """The blocks above written straight from the state, reading only what ``observation(seat)``
    shows: the seat's own hand, the cards seen taken, the discards, the previous showdown."""
    n = enc.num_players
    where = positions(pack)
    width = len(where)
    copies = max(pack.count(c) for c in where)
    size = len(pack)
    most = options["hand_size"]
    limit = options["end_score"] * 2
    shown_most = 10 * most + options["assaf_penalty"]
    call_limit = min(max(options["call_limit"], 0), 7)
    phases = {phase: i for i, phase in enumerate(PHASES)}
    (hand, value, hand_sizes, known_cards, last_discard, first_taken, last_taken, my_discard, discard_pile, deck,
     phase, current, starter, totals, active, round_number, call_limit_, last_caller, last_assaf, last_hands,
     last_points, last_halved, last_wild_cards) = enc.offsets

    def write(state: YanivState, me: int, out: memoryview[float]) -> None:
        mark(out, hand, where, state.hands[me], copies)
        out[value] = min(max(hand_value(state.hands[me]), 0), 10 * most)
        for s in range(n):
            rel = (s - me) % n
            out[hand_sizes + rel] = min(len(state.hands[s]), size)
            mark(out, known_cards + rel * width, where, state.known[s], copies)
            out[totals + rel] = min(max(state.totals[s], 0), limit)
            out[active + rel] = state.out_round[s] is None
        laid = state.last_discard
        mark(out, last_discard, where, laid, copies)
        if laid:  # its outer cards, the ones that may be taken
            out[first_taken + where[laid[0]]] = 1
            out[last_taken + where[laid[-1]]] = 1
        mark(out, my_discard, where, state.my_discard, copies)
        buried(state.buried, me, out)
        out[deck] = min(len(state.deck), size)
        if state.phase in phases:
            out[phase + phases[state.phase]] = 1
        for block, s in ((current, state.current), (starter, state.starter)):
            if s is not None and s >= 0:
                out[block + (s - me) % n] = 1
        out[round_number] = min(max(state.round_number, 0), 100)
        out[call_limit_] = call_limit
        if state.last_round:
            showdown(state.last_round, me, out)

    def _write_showdown(last: dict[str, Any], me: int, out: memoryview[float]) -> None:
        """The previous round's showdown, all public: the same for a whole round."""
        for block, s in ((last_caller, last.get("caller")), (last_assaf, last.get("assaf"))):
            if s is not None and s >= 0:
                out[block + (s - me) % n] = 1
        for s, held in enumerate(last.get("hands") or ()):
            mark(out, last_hands + ((s - me) % n) * width, where, held, copies)
        for s, points in enumerate(last.get("points") or ()):
            out[last_points + (s - me) % n] = min(max(points, 0), shown_most)
        halved = last.get("halved", ())
        wild = last.get("wild_cards", {})
        for s in range(n):
            rel = (s - me) % n
            out[last_halved + rel] = s in halved
            drawn = wild.get(str(s))
            if drawn:
                mark(out, last_wild_cards + rel * width, where, (drawn,), copies)

    showdown = kept(last_caller, enc.size, _write_showdown)  # the last blocks
    buried = growing(discard_pile, where, copies)
    return write  # type: ignore[return-value]  # a writer of Yaniv's states only
