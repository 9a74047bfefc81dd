"""Bastard Brag on the replay's table (``arena.games.drawing``): the hands, the last play,
the pile, the pack, the direction, and who is out."""

from __future__ import annotations

from arena.games import drawing as d

PILE_SHOWN = 6


def table(fields: d.Fields, view: int | None) -> d.Table:
    """The table for one view: ``view`` None is the full state, a number a seat's observation."""
    full = view is None
    pack = len(fields["pack"]) if full else fields["pack_count"]
    out = fields["out"]
    seats = [d.seat(s, [d.hand(fields, s, view, fields.get("hands"), fields.get("hand_counts"), d.playing_card)],
                    facts=[["out", f"{out.index(s) + 1}."]] if s in out else []) for s in d.seats_of(fields)]
    pile = d.playing_cards(fields["pile"])
    last = fields.get("last_action") or {}
    areas = [d.area("pile", d.top(pile, PILE_SHOWN), count=len(pile)),
             d.area("pack", hidden=pack, count=pack)]
    facts: list[list[object]] = [["direction", fields["direction"]]]
    if last:
        facts.append(["last", f"seat {last['seat']} {last['action']} {' '.join(last.get('cards') or [])}".strip()])
    return {"seats": seats, "areas": areas, "facts": facts}
