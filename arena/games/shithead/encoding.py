"""Shithead for learning: the observation tensor and the fixed action space
(``arena.envs.encoding``; the layout is in docs/games/shithead.md)."""

from __future__ import annotations

from typing import Any

from arena.envs.encoding import (
    Encoding,
    Write,
    cards,
    choice,
    flag,
    growing,
    mark,
    multisets,
    number,
    per_seat,
    positions,
    seat,
    seats_cards,
    seats_choice,
)
from arena.games import cards as playing_cards

from .rules import SWAPS, to_beat
from .state import ShitheadState

SOURCES = ("hand", "up", "down", "out")
FACE_DOWN = 3  # slots of face-down cards (shithead 1.2)


def actions(options: dict[str, Any]) -> list[str]:
    """Every action id under ``options``, in a fixed order: ``ready``, ``take``, ``pass``;
    ``swap <up> <hand>`` for every pair of different cards; ``play down 1``-``3``; then rank by
    rank every group of that rank (a multiset with two packs, by size, then cards in order):
    ``play <group>``, ``play up <group>``, ``cut <group>``, ``cut up <group>``, and ``play
    <group> up <group>`` (last hand cards with face-up cards of the rank, at most three)."""
    deck = playing_cards.deck(copies=options["decks"])
    distinct = list(dict.fromkeys(deck))
    out = ["ready", "take", "pass"]
    out += [f"swap {up} {held}" for up in distinct for held in distinct if up != held]
    out += [f"play down {slot}" for slot in range(1, FACE_DOWN + 1)]
    for rank in playing_cards.RANKS:
        same = [c for c in deck if c[0] == rank]
        groups = [" ".join(g) for g in multisets(same)]
        out += [f"play {g}" for g in groups]
        ups = [" ".join(g) for g in multisets(same, FACE_DOWN)]
        out += [f"play up {g}" for g in ups]
        out += [f"cut {g}" for g in groups]
        out += [f"cut up {g}" for g in ups]
        for held in multisets(same):
            left = list(same)
            for c in held:
                left.remove(c)
            out += [f"play {' '.join(held)} up {' '.join(up)}" for up in multisets(left, FACE_DOWN)]
    return out


def encoding(num_players: int, options: dict[str, Any]) -> Encoding:
    deck = playing_cards.deck(copies=options["decks"])
    size = len(deck)
    n = num_players
    ranks = tuple(playing_cards.RANKS)

    def last(o: dict[str, Any], key: str) -> Any:
        return o["last_play"][key] if o["last_play"] else None

    def cut(o: dict[str, Any], key: str) -> Any:
        return o["cut_window"][key] if o["cut_window"] else None

    blocks = [
        flag("swapping", lambda o: o["phase"] == "swap", "1 while seats arrange their cards (swap phase)"),
        cards("hand", deck, lambda o: o["hand"], "the seat's hand"),
        per_seat("hand_counts", n, lambda o: o["hand_counts"], "cards in each hand, the seat's first", size),
        seats_cards("face_up", n, deck, lambda o: o["face_up"], "per seat, its face-up cards"),
        per_seat("face_down", n, lambda o: [len(d) for d in o["face_down"]], "per seat, face-down cards left",
                 FACE_DOWN),
        seats_cards("known_in_hand", n, deck, lambda o: o["known_in_hand"],
                    "per seat, the cards every seat has seen it pick up and still holds"),
        number("swaps_left", lambda o: o["swaps_left"], "swaps the seat may still make", SWAPS),
        number("pack_count", lambda o: o["pack_count"], "cards left in the pack", size),
        cards("pile", deck, lambda o: o["pile"], "the discard pile"),
        cards("burned", deck, lambda o: o["burned"], "cards burned out of the game"),
        choice("to_beat", ranks, lambda o: o["to_beat"], "the rank to beat (none: anything goes)"),
        flag("at_most_seven", lambda o: o["at_most_seven"], "1 when a seven asks for seven or lower"),
        seat("turn", n, lambda o: o["turn"], "the seat in turn, relative (0: the seat itself)"),
        choice("opening_rank", ranks, lambda o: o["opening_rank"], "the rank the first play must be"),
        seats_choice("sources", n, SOURCES, lambda o: o["sources"],
                     "per seat, where it plays from: hand, up, down, or out"),
        seat("last_play_seat", n, lambda o: last(o, "seat"), "who played last, relative"),
        cards("last_play", deck, lambda o: last(o, "cards"), "the cards of the last play"),
        flag("last_play_blind", lambda o: last(o, "blind"), "1 when it was a face-down card"),
        flag("last_play_took", lambda o: last(o, "took"), "1 when the last seat took the pile"),
        choice("cut_rank", ranks, lambda o: cut(o, "rank"), "in a cut-in window, the rank that may cut in"),
        seat("cut_by", n, lambda o: cut(o, "played_by"), "who played it, relative"),
    ]
    return Encoding("shithead", n, blocks, actions(options), direct=lambda enc: _writer(enc, deck, options))


def _writer(enc: Encoding, deck: list[str], options: dict[str, Any]) -> Write:
    """The blocks above written straight from the state, reading only what ``observation(seat)``
    shows: the seat's own hand, face-up cards (while arranging, another seat's as dealt),
    counts of face-down cards, the public piles and plays."""
    n = enc.num_players
    where = positions(deck)
    width = len(where)
    copies = max(deck.count(c) for c in where)
    size = len(deck)
    ranks = {rank: i for i, rank in enumerate(playing_cards.RANKS)}
    sources_of = {source: i for i, source in enumerate(SOURCES)}
    seven_lower = bool(options["seven_lower"])
    (swapping_, hand, hand_counts, face_up, face_down, known_in_hand, swaps_left, pack_count, pile, burned,
     to_beat_, at_most_seven, turn, opening_rank, sources, last_play_seat, last_play, last_play_blind,
     last_play_took, cut_rank, cut_by) = enc.offsets

    def write(state: ShitheadState, me: int, out: memoryview[float]) -> None:
        swapping = state.phase == "swap"
        out[swapping_] = swapping
        mark(out, hand, where, state.hands[me], copies)
        for s in range(n):
            rel = (s - me) % n
            out[hand_counts + rel] = min(len(state.hands[s]), size)
            # While seats arrange their cards no one sees another's choice (shithead 1.3).
            up = state.face_up[s] if s == me or not swapping else state.dealt_up[s]
            mark(out, face_up + rel * width, where, up, copies)
            out[face_down + rel] = min(sum(1 for c in state.face_down[s] if c is not None), FACE_DOWN)
            mark(out, known_in_hand + rel * width, where, state.known[s], copies)
            source = "out" if s in state.out else state.source(s)
            out[sources + rel * len(SOURCES) + sources_of[source]] = 1
        if swapping:
            out[swaps_left] = min(max(state.swaps_left[me], 0), SWAPS)
        out[pack_count] = min(len(state.pack), size)
        laid(state.pile, me, out)
        burnt(state.burned, me, out)
        top = to_beat(state.pile, options)
        if top in ranks:
            out[to_beat_ + ranks[top]] = 1
        out[at_most_seven] = top == "7" and seven_lower
        if not swapping and state.turn is not None and state.turn >= 0:
            out[turn + (state.turn - me) % n] = 1
        if state.opening in ranks:
            out[opening_rank + ranks[state.opening]] = 1
        played = state.last_play
        if played:
            if played["seat"] is not None and played["seat"] >= 0:
                out[last_play_seat + (played["seat"] - me) % n] = 1
            mark(out, last_play, where, played["cards"] or (), copies)
            out[last_play_blind] = bool(played["blind"])
            out[last_play_took] = bool(played["took"])
        if state.cut_rank is not None:
            if state.cut_rank in ranks:
                out[cut_rank + ranks[state.cut_rank]] = 1
            if state.cut_by is not None and state.cut_by >= 0:
                out[cut_by + (state.cut_by - me) % n] = 1

    laid, burnt = growing(pile, where, copies), growing(burned, where, copies)
    return write  # type: ignore[return-value]  # a writer of Shithead's states only
