"""Shithead for learning: the observation tensor and the fixed action space
(``arena.envs.encoding``; the layout is in docs/games/shithead.md)."""

from __future__ import annotations

from typing import Any

from arena.envs.encoding import (
    Encoding,
    cards,
    choice,
    flag,
    multisets,
    number,
    per_seat,
    seat,
    seats_cards,
    seats_choice,
)
from arena.games import cards as playing_cards

from .rules import SWAPS

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
    return Encoding("shithead", n, blocks, actions(options))
