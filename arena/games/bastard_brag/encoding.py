"""Bastard Brag for learning: the observation tensor and the fixed action space
(``arena.envs.encoding``; the layout is in docs/games/bastard_brag.md)."""

from __future__ import annotations

from typing import Any

from arena.envs.encoding import Encoding, card, cards, choice, flag, number, per_seat, seat
from arena.games import cards as playing_cards

from .rules import alternating_runs
from .state import BastardBragState


def actions(num_players: int) -> list[str]:
    """Every action id at ``num_players``, in a fixed order: ``pass``; ``give <card>`` for each
    card of the pack (jokers last); ``play BJ``, ``play RJ``; then rank by rank every run of
    that rank in alternating colours (as ``alternating_runs`` orders them), cards in the order
    laid."""
    pack = BastardBragState.packs(num_players, {})
    distinct = list(dict.fromkeys(pack))
    out = ["pass"] + [f"give {c}" for c in distinct] + [f"play {j}" for j in playing_cards.JOKERS]
    for rank in playing_cards.RANKS:
        same = [c for c in pack if c[0] == rank]
        out += ["play " + " ".join(run) for run in alternating_runs(same, None)]
    return out


def encoding(num_players: int, options: dict[str, Any]) -> Encoding:
    pack = BastardBragState.packs(num_players, options)
    size = len(pack)
    n = num_players

    def gift(o: dict[str, Any], key: str) -> Any:
        return o["gift"][key] if o["gift"] else None

    def last(o: dict[str, Any], key: str) -> Any:
        return o["last_action"].get(key) if o["last_action"] else None

    blocks = [
        cards("hand", pack, lambda o: o["hand"], "the seat's hand (jokers last)"),
        per_seat("hand_counts", n, lambda o: o["hand_counts"], "cards in each hand, the seat's first", size),
        number("pack_count", lambda o: o["pack_count"], "cards left in the pack", size),
        cards("pile", pack, lambda o: o["pile"], "every card of the pile"),
        card("top", pack, lambda o: o["top"], "the top card of the pile"),
        flag("ace_down", lambda o: o["direction"] == "down", "1 when play goes down (after an ace)"),
        flag("open_lead", lambda o: o["open_lead"], "1 on an open lead: any card may go"),
        seat("turn", n, lambda o: o["turn"], "the seat in turn, relative (0: the seat itself)"),
        seat("last_player", n, lambda o: o["last_player"], "who played last, relative"),
        number("passes", lambda o: o["passes"], "passes since", n),
        flag("pass_denied", lambda o: o["pass_denied"], "1 when the seat in turn may not pass at will"),
        per_seat("out", n, lambda o: [int(s in o["out"]) for s in range(n)], "the seats out of cards", 1),
        flag("gift_phase", lambda o: o["phase"] == "gift", "1 in the gift phase"),
        seat("gift_to", n, lambda o: gift(o, "to"), "who receives the gift, relative"),
        number("gift_left", lambda o: gift(o, "left") or 0, "cards still to give", size),
        seat("last_actor", n, lambda o: last(o, "seat"), "who acted last, relative"),
        choice("last_action", ("play", "pass", "bastard", "give"), lambda o: last(o, "action"),
               "what it did: play, pass, bastard (passed at its own card), give"),
        cards("last_cards", pack, lambda o: last(o, "cards"), "the cards it played"),
    ]
    return Encoding("bastard_brag", n, blocks, actions(n))
