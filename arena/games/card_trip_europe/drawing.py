"""Card Trip Europe on the replay's table (``arena.games.drawing``): location cards with their
number, type colour, stars (energy) and name, campsites where a card was played face down,
each seat's card trip, hand and the two cards it chose this round, and the points so far."""

from __future__ import annotations

from arena.games import drawing as d

from .locations import LOCATIONS

TYPE_COLOUR = {"city": "#c0392b", "park": "#27813e", "attraction": "#2f6fb5", "event": "#8e44ad",
               "campsite": "#8b5a2b"}
# How each type scores (card-trip-europe, Scoring: Points per Location Type).
TYPE_SCORE = {"city": "4 points for each attraction next to it",
              "park": "parks score together: 1, 3, 6, 10, 15 points for 1 to 5 parks",
              "attraction": "as many points as campsites in your card trip",
              "event": "as many points as its energy cost"}


def card(number: int) -> d.Card:
    """A location card face up: number, type, stars and name; rule text on hover."""
    loc = LOCATIONS[number]
    return {"id": str(number), "label": f"{number} {loc.name}", "kind": loc.type, "sub": "\u2605" * loc.energy,
            "colour": TYPE_COLOUR[loc.type],
            "title": f"#{number} {loc.name}: {loc.type}, {loc.energy} energy; {TYPE_SCORE[loc.type]}"}


def campsite(number: int) -> d.Card:
    """A card played campsite side up: it ends a week (card-trip-europe, Placement Rules)."""
    return {"id": f"-{number}", "label": "Campsite", "kind": "campsite", "colour": TYPE_COLOUR["campsite"],
            "title": f"campsite (location #{number} turned over): ends the week, energy back to 7"}


def _trip(entries: list[object]) -> list[d.Card]:
    out = []
    for entry in entries:
        if isinstance(entry, dict):  # a seat's observation
            number, camp = int(entry["card"]), entry["type"] == "campsite"
        else:  # the full state: a campsite is the card's number negated
            number, camp = abs(int(str(entry))), int(str(entry)) < 0
        out.append(campsite(number) if camp else card(number))
    return out


def table(fields: d.Fields, view: int | None) -> d.Table:
    """The table for one view: ``view`` None is the full state, a number a seat's observation."""
    full = view is None
    seats = []
    for s in d.seats_of(fields):
        if full:
            chosen = fields["choice"][s] or []  # still in the hand in the full state, but lying apart
            hand = d.area("hand", [card(c) for c in fields["hands"][s] if c not in chosen])
            choice = d.area("chosen", [{**card(c), "down": True} for c in chosen])
            facts: list[list[object]] = []
        else:
            hand = d.hand(fields, s, view, None, fields["hand_counts"], card)
            if s == view:
                choice = d.area("chosen", [{**card(c), "down": True} for c in fields["face_down"] or []])
            else:
                choice = d.area("chosen", hidden=2 if fields["chosen"][s] else 0)
            facts = [["points", fields["points"][s]["total"]], ["energy left", fields["week_energy_left"][s]]]
        seats.append(d.seat(s, [hand, choice, d.area("card trip", _trip(fields["trips"][s]))], facts=facts))
    pile = len(fields["pile"]) if full else fields["pile_count"]
    bonus = fields["bonus_sides"] if full else [b["side"] for b in fields["bonus_cards"]]
    facts = [["deal", f"{fields['deal']} of 2"], ["phase", fields["phase"]],
             ["bonus cards", ", ".join(bonus)]]
    return {"seats": seats, "areas": [d.area("pile", hidden=pile, count=pile)], "facts": facts}
