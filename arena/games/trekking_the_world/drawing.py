"""Trekking the World on the replay's table (``arena.games.drawing``), beside its map: each
seat's Trek cards (number and icon, coloured by suit), souvenirs in its suitcase by colour,
region bonus and VP tokens and the destinations it toured; the face-up Trek cards, the
destination row and the Journey cards. The map itself (places, cubes, trekkers, the last
move's route) is drawn by the viewer from the board and the state's positions."""

from __future__ import annotations

from arena.games import drawing as d

from . import data

# Suit colours (DATA.md 2.3: Camera red, Hiking Boot green, Compass blue, Binoculars yellow,
# Passport purple).
ICON_COLOUR = {"C": "#c0392b", "B": "#27813e", "M": "#2f6fb5", "N": "#d4a017", "P": "#8e44ad"}
CUBE_COLOUR = {"white": "#f4f4f4", "yellow": "#e8c21a", "red": "#c0392b", "blue": "#2f6fb5"}


def trek(code: str) -> d.Card:
    """A Trek card (``2P``): its number and icon."""
    icon = data.ICONS.get(code[1:], code[1:])
    return {"id": code, "label": f"{code[0]} {icon}", "kind": "trek", "colour": ICON_COLOUR.get(code[1:], "#888888"),
            "title": f"Trek card {code[0]} {icon}: pays {code[0]} towards a move or a tour needing {icon}"}


def destination(place: str) -> d.Card:
    """A destination card: its place, the icons a tour needs and its VP."""
    icons = ", ".join(data.ICONS.get(i, i) for i in data.DESTINATION_ICONS.get(place, ()))
    vp = data.DESTINATION_VP.get(place)
    return {"id": place, "label": data.LOCATION_NAME.get(place, place), "kind": "destination",
            "sub": f"{vp} VP", "colour": "#f7f1e1",
            "title": f"{data.LOCATION_NAME.get(place, place)} ({data.REGION_OF.get(place, '').replace('_', ' ')}): "
                     f"tour with {icons or 'no icons'} for {vp} VP"}


def cube(colour: str, count: int) -> d.Card:
    """Souvenir cubes of one colour in a suitcase."""
    tile = data.COMPONENTS["most_souvenirs"].get(colour, {}).get("name", colour)
    return {"id": f"cube-{colour}", "label": f"{count} {colour}", "kind": "souvenir", "colour": CUBE_COLOUR[colour],
            "title": f"{count} {colour} souvenir(s); {tile} tile for the most"}


def journey(card_id: str) -> d.Card:
    """A Journey card with its actions."""
    return {"id": card_id, "label": data.JOURNEY_NAME.get(card_id, card_id.replace("_", " ")), "kind": "journey",
            "colour": "#16a085", "title": "Journey card: " + "; ".join(
                " ".join(str(v).replace("_", " ") for v in a.values()) for a in data.JOURNEY_ACTIONS.get(card_id, ()))}


def table(fields: d.Fields, view: int | None) -> d.Table:
    """The table for one view: ``view`` None is the full state, a number a seat's observation."""
    full = view is None
    seats = []
    for s in d.seats_of(fields):
        suitcase = [cube(c, n) for c, n in fields["suitcases"][s].items() if n]
        tokens = [str(v) for v in fields["vp_tokens"][s]]
        bonus = (len(fields["bonus_tokens"][s]) if full else fields["bonus_token_counts"][s])
        facts: list[list[object]] = [["at", data.LOCATION_NAME.get(fields["positions"][s], fields["positions"][s])],
                                     ["souvenirs", sum(fields["suitcases"][s].values())],
                                     ["region bonus tokens", bonus], ["VP tokens", " + ".join(tokens) or "none"]]
        if not full:
            facts.append(["points shown", fields["public_points"][s]])
        areas = [d.hand(fields, s, view, fields.get("hands"), fields.get("hand_sizes"), trek),
                 d.area("suitcase", suitcase), d.area("toured", [destination(p) for p in fields["toured"][s]])]
        seats.append(d.seat(s, areas, facts=facts))
    row = fields["dest_row"] if full else fields["destination_row"]
    deck = len(fields["trek_deck"]) if full else fields["trek_deck_size"]
    areas = [d.area("face-up Trek cards", [trek(c) for c in fields["face_up"]]),
             d.area("Trek deck", hidden=deck, count=deck),
             d.area("destination row", [destination(p) for p in row]),
             d.area("Journeys", [journey(j) for j in fields["journeys"]])]
    return {"seats": seats, "areas": areas, "facts": [["phase", fields["phase"]]]}
