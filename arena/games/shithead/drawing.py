"""Shithead on the replay's table (``arena.games.drawing``): each seat's hand, face-up and
face-down cards, the pile, the pack and the burned cards."""

from __future__ import annotations

from arena.games import drawing as d

PILE_SHOWN = 8


def table(fields: d.Fields, view: int | None) -> d.Table:
    """The table for one view: ``view`` None is the full state, a number a seat's observation."""
    full = view is None
    seats = []
    for s in d.seats_of(fields):
        down = fields["face_down"][s]
        if full:  # the full state knows the face-down cards; they still lie face down
            face_down = d.area("face down", [{**d.playing_card(c), "down": True} for c in down if c])
        else:
            face_down = d.area("face down", hidden=len(down))
        areas = [d.hand(fields, s, view, fields.get("hands"), fields.get("hand_counts"), d.playing_card),
                 d.area("face up", d.playing_cards(fields["face_up"][s])), face_down]
        out = fields["out"]
        seats.append(d.seat(s, areas, facts=[["out", f"{out.index(s) + 1}."]] if s in out else []))
    pile = d.playing_cards(fields["pile"])
    pack = len(fields["pack"]) if full else fields["pack_count"]
    areas = [d.area("pile", d.top(pile, PILE_SHOWN), count=len(pile)),
             d.area("pack", hidden=pack, count=pack),
             d.area("burned", hidden=len(fields["burned"]), count=len(fields["burned"]))]
    facts = [["phase", fields["phase"]]]
    if not full and fields.get("to_beat"):
        facts.append(["to beat", fields["to_beat"]])
    return {"seats": seats, "areas": areas, "facts": facts}
