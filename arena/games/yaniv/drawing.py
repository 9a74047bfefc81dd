"""Yaniv on the replay's table (``arena.games.drawing``): the hands, the last discard (the
cards a player may take), the buried discards, the deck, the running totals and the round."""

from __future__ import annotations

from arena.games import drawing as d


def table(fields: d.Fields, view: int | None) -> d.Table:
    """The table for one view: ``view`` None is the full state, a number a seat's observation."""
    full = view is None
    buried = fields["buried"] if full else fields["discard_pile"]
    deck = len(fields["deck"]) if full else fields["deck"]
    seats = []
    for s in d.seats_of(fields):
        hand = d.hand(fields, s, view, fields.get("hands"), fields.get("hand_sizes"), d.playing_card)
        facts: list[list[object]] = [["total", fields["totals"][s]]]
        if not full and not fields["active"][s]:
            facts.append(["out", "\u2713"])
        elif full and fields["out_round"][s] is not None:
            facts.append(["out in round", fields["out_round"][s] + 1])
        seats.append(d.seat(s, [hand], facts=facts))
    areas = [d.area("last discard", d.playing_cards(fields["last_discard"]), title="the cards a player may take"),
             d.area("discard pile", hidden=len(buried), count=len(buried)),
             d.area("deck", hidden=deck, count=deck)]
    facts = [["round", fields["round_number"] + 1], ["phase", fields["phase"]]]
    return {"seats": seats, "areas": areas, "facts": facts}
