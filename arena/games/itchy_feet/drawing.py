"""Itchy Feet on the replay's table (``arena.games.drawing``): each seat's backpack (hand) of
items and passports, its own country (visited or not) and the countries it has visited, the
centre country everyone races to, the deck and the discard pile. A country's title names the
three items it needs (itchy-feet, "Visiting any country requires 3 items and your passport")."""

from __future__ import annotations

from arena.games import drawing as d

from . import data

KIND_COLOUR = {"item": "#3f7cac", "passport": "#7a1f2b", "country": "#2e8b57", "event": "#e67e22",
               "special": "#8e44ad", "forbidden": "#222222", "postcard": "#d4a017", "character": "#6d6d6d"}
DISCARD_SHOWN = 5
_NEEDED_BY = {item: sorted(data.NAMES[c] for c, needs in data.REQUIRES.items() if item in needs) for item in data.ITEMS}


def _kind(card_id: str) -> str:
    for kind, ids in (("item", data.ITEM_SET), ("passport", data.PASSPORT_SET), ("country", data.COUNTRIES),
                      ("event", data.EVENT_SET), ("special", data.SPECIALS), ("forbidden", data.FORBIDDEN_SET),
                      ("postcard", data.POSTCARD_SET), ("character", data.CHARACTERS)):
        if card_id in ids:
            return kind
    return "card"


def card(card_id: str) -> d.Card:
    """An Itchy Feet card's face: its name, its kind's colour and, on hover, what it does."""
    kind, name = _kind(card_id), data.NAMES.get(card_id, card_id.replace("_", " "))
    face: d.Card = {"id": card_id, "label": name, "kind": kind, "colour": KIND_COLOUR.get(kind, "#888888")}
    if kind == "passport":
        face["label"] = f"Passport {name}"
        face["title"] = f"Passport of {name}: with 3 items it lets you visit a country"
    elif kind == "country":
        needs = ", ".join(data.NAMES[i] for i in data.REQUIRES[card_id])
        face["title"] = f"{name}: to visit, hold your passport and {needs}"
    elif kind == "item":
        face["title"] = f"{name}: item, needed by {', '.join(_NEEDED_BY[card_id]) or 'no country'}"
    else:
        face["title"] = f"{name}: {kind} card"
    return face


def table(fields: d.Fields, view: int | None) -> d.Table:
    """The table for one view: ``view`` None is the full state, a number a seat's observation."""
    full = view is None
    homes = fields["home"] if full else fields["countries"]
    seats = []
    for s in d.seats_of(fields):
        home = card(homes[s]) if homes[s] else None
        areas = [d.hand(fields, s, view, fields.get("hands"), fields.get("hand_sizes"), card)]
        if home:
            visited = fields["home_visited"][s]
            areas.append(d.area("own country", [{**home, "sub": "visited" if visited else "to visit"}]))
        if full and fields["collection"][s]:
            areas.append(d.area("visited", [card(c) for c in fields["collection"][s]]))
        seats.append(d.seat(s, areas))
    deck = len(fields["deck"]) if full else fields["deck_size"]
    discard = [card(c) for c in fields["discard"]]
    areas = [d.area("centre", [card(fields["centre"])] if fields.get("centre") else []),
             d.area("deck", hidden=deck, count=deck),
             d.area("discard pile", d.top(discard, DISCARD_SHOWN), count=len(discard))]
    facts: list[list[object]] = [["turn", fields["turns"] if full else fields["turn"]], ["phase", fields["phase"]]]
    if fields.get("winner") is not None:
        facts.append(["winner", f"seat {fields['winner']}"])
    return {"seats": seats, "areas": areas, "facts": facts}
