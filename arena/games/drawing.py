"""The table a replay draws: a neutral description of one position that the viewer's one
generic renderer (``arena/web/static/replay.js``) lays out, whatever the game.

Each game draws itself in ``arena/games/<game>/drawing.py``: a pure function ``table(fields,
seat)`` from the state fields of one view (``seat`` None: the full state, ``State.to_json``;
a number: that seat's ``observation``) to a ``Table``. A game without that module is shown by
its raw fields only. The description is JSON:

    {"seats": [{"seat": 0, "facts": [["score", 12]],
                "areas": [{"name": "hand", "cards": [...], "hidden": 3}]}],
     "areas": [{"name": "pile", "cards": [...], "count": 30}],   # the middle of the table
     "facts": [["round", 2]]}

A card is ``{"code": "9C"}`` for a standard playing card (the renderer draws its face) or
``{"label": "Kenya", "colour": "#c98a2b", "kind": "country", "sub": "80", "title": "..."}``
for a game's own card; ``hidden`` counts cards lying face down (drawn as backs), ``count`` a
pile's size when only its top shows. ``highlight`` marks the cards the last decision put on
the table.
"""

from __future__ import annotations

import importlib
from collections import Counter
from typing import Any

from . import cards as standard

Card = dict[str, Any]
Area = dict[str, Any]
Seat = dict[str, Any]
Table = dict[str, Any]
Fields = dict[str, Any]

_SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
_RANK_NAMES = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}


def playing_card(code: str) -> Card:
    """A standard playing card (``9C``, ``TS``, ``RJ``) with its name as the title."""
    if standard.is_joker(code):
        return {"code": code, "title": f"{standard.colour(code)} joker"}
    return {"code": code, "title": f"{_RANK_NAMES.get(code[0], code[0])} of {_SUIT_NAMES[code[1]]}"}


def playing_cards(codes: list[str] | None) -> list[Card]:
    return [playing_card(c) for c in codes or []]


def area(name: str, cards: list[Card] | None = None, *, hidden: int = 0, count: int | None = None,
         title: str | None = None) -> Area:
    """One place cards lie: a hand, a pile, a trip. ``hidden`` cards lie face down."""
    out: Area = {"name": name, "cards": cards or []}
    if hidden:
        out["hidden"] = hidden
    if count is not None:
        out["count"] = count
    if title:
        out["title"] = title
    return out


def seat(number: int, areas: list[Area], *, facts: list[list[Any]] | None = None) -> Seat:
    """One seat at the table; the viewer names it and marks whose turn it is (from the
    decisions), so a game only lays out its cards and facts."""
    return {"seat": number, "facts": facts or [], "areas": areas}


def hand(fields: Fields, seat_number: int, view: int | None, all_hands: list[list[Any]] | None,
         counts: list[int] | None, face: Any) -> Area:
    """A seat's hand as the view sees it: faces for the full state and the viewing seat's
    own hand, backs (with their count) for anyone else's."""
    if view is None and all_hands is not None:
        return area("hand", [face(c) for c in all_hands[seat_number]])
    if view == seat_number:
        return area("hand", [face(c) for c in fields.get("hand") or []])
    return area("hand", hidden=(counts or [0] * (seat_number + 1))[seat_number])


def _keys(table: Table) -> dict[str, list[Area]]:
    """Every area of the table by a name that stays put from one position to the next."""
    out = {f"table:{a['name']}": [a] for a in table.get("areas", [])}
    for s in table.get("seats", []):
        for a in s["areas"]:
            out[f"{s['seat']}:{a['name']}"] = [a]
    return out


def _card_key(card: Card) -> str:
    return str(card.get("code") or card.get("id") or card.get("label"))


def highlight(now: Table, before: Table | None) -> Table:
    """Marks the cards the last decision laid on the table (every area but hands): those an
    area holds now and did not hold before. The first position marks nothing."""
    if before is None:
        return now
    old = _keys(before)
    for key, (now_area,) in _keys(now).items():
        if now_area["name"] == "hand":
            continue
        was_count = old[key][0].get("count") if key in old else None
        if was_count is not None and now_area.get("count", 0) <= was_count:
            continue  # a pile that shrank (a card taken off it) shows older cards, not a play
        was = Counter(_card_key(c) for a in old.get(key, []) for c in a["cards"])
        for card in now_area["cards"]:
            name = _card_key(card)
            if was[name]:
                was[name] -= 1
            else:
                card["last"] = True
    return now


def draw(game: str, fields: Fields, view: int | None) -> Table | None:
    """The table of ``game`` for the fields of one view, or None when the game has no
    drawing (then the viewer shows the raw fields alone)."""
    try:
        module = importlib.import_module(f"{__package__}.{game}.drawing")
    except ModuleNotFoundError as error:
        if error.name not in (f"{__package__}.{game}", f"{__package__}.{game}.drawing"):
            raise  # a drawing that exists but fails to import is a bug to see
        return None
    table: Table = module.table(fields, view)
    return table


def top(cards: list[Card], shown: int) -> list[Card]:
    """The last ``shown`` cards of a pile (the top is the end of the list)."""
    return cards[-shown:] if shown else []


def seats_of(fields: Fields) -> range:
    return range(int(fields["num_players"]))
