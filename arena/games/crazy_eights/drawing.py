"""Crazy 8s on the replay's table (``arena.games.drawing``): the hands, the discard pile with
its top card, the draw pile, the direction of play, the wished suit and pending penalty."""

from __future__ import annotations

from arena.games import drawing as d

PILE_SHOWN = 6
SUIT = {"C": "\u2663 clubs", "D": "\u2666 diamonds", "H": "\u2665 hearts", "S": "\u2660 spades"}


def table(fields: d.Fields, view: int | None) -> d.Table:
    """The table for one view: ``view`` None is the full state, a number a seat's observation."""
    full = view is None
    discard = d.playing_cards(fields["discard"] if full else fields["discard_pile"])
    draw = len(fields["draw_pile"]) if full else fields["draw_pile"]
    seats = [d.seat(s, [d.hand(fields, s, view, fields.get("hands"), fields.get("hand_sizes"), d.playing_card)],
                    facts=[["total", fields["totals"][s]]]) for s in d.seats_of(fields)]
    areas = [d.area("discard pile", d.top(discard, PILE_SHOWN), count=len(discard)),
             d.area("draw pile", hidden=draw, count=draw)]
    facts: list[list[object]] = [["hand", fields["hand_number"] + 1],
                                 ["direction", "clockwise" if fields["direction"] > 0 else "anticlockwise"]]
    if fields.get("wish"):
        facts.append(["wished suit", SUIT.get(fields["wish"], fields["wish"])])
    if fields.get("penalty"):
        facts.append(["penalty", f"{fields['penalty']} {fields.get('penalty_kind') or ''}".strip()])
    return {"seats": seats, "areas": areas, "facts": facts}
