"""Backpacker on the replay's table (``arena.games.drawing``): countries coloured by their
continent with their camera points, event cards by their category colour (backpacker,
"Colour Code Of Cards And Symbols") with each card's own rule on hover (backpacker 9), each
seat's hand and played pile (a country with its bonuses on it), status cards, the Future and
Past piles, banked points and the year."""

from __future__ import annotations

from arena.games import drawing as d

from .deck import COUNTRIES, EVENTS

# Background colours of the printed cards: continents for countries, categories for events.
CONTINENT_COLOUR = {"asia": "#8cc63f", "americas": "#8e5bb5", "africa": "#8b5a2b", "europe": "#5b2c83",
                    "oceania": "#2bb5b0", "antarctica": "#f4f4f4"}
EVENT_COLOUR = {"blue": "#2f6fb5", "grey": "#8a8a8a", "red": "#c0392b", "green": "#2e8b3e",
                "orange": "#e67e22", "yellow": "#e8c21a", "pink": "#e377a8"}
# What each category does, in the rulebook's words (Colour Code Of Cards And Symbols).
EVENT_MEANING = {
    "blue": "Bonus: enables you to score more points.",
    "grey": "Bad: prevents you from going home and scoring points, and penalises you if you discard it.",
    "red": "Bad Advice: stops an opponent from travelling.",
    "green": "Good Advice: allows you to go travelling again if you are stopped.",
    "orange": "Change: improves your hand.",
    "yellow": "Special: alters the game to your advantage.",
    "pink": "Problem: played on another player.",
}
PAST_SHOWN = 5


def card(card_id: str) -> d.Card:
    """A Backpacker card's face: its name, colour and, on hover, what it is."""
    country = COUNTRIES.get(card_id)
    if country is not None:
        bonuses = ", ".join(sorted(country.bonuses)) or "none"
        return {"id": card_id, "label": country.name, "kind": "country", "sub": str(country.points),
                "colour": CONTINENT_COLOUR[country.continent],
                "title": f"{country.name}: {country.continent.title()}, {country.points} points; "
                         f"bonus symbols: {bonuses}"}
    event = EVENTS.get(card_id)
    if event is None:
        return {"id": card_id, "label": card_id.replace("_", " "), "kind": "event"}
    return {"id": card_id, "label": event.name, "kind": "event", "colour": EVENT_COLOUR[event.colour],
            "title": f"{event.name}: {event.colour} event (backpacker {event.section}). "
                     f"{event.text or EVENT_MEANING[event.colour]}"}


def _pile(trip: list[dict[str, object]], status: dict[str, object] | None, camera: bool) -> list[d.Card]:
    """A played pile: each country with its bonus cards on it, then the card lying on top."""
    out: list[d.Card] = []
    if camera:
        out.append(card("video_camera"))
    for entry in trip:
        out.append(card(str(entry["country"])))
        out.extend({**card(str(b)), "on": True} for b in entry["bonuses"])  # type: ignore[attr-defined]
    if status:
        out.append({**card(str(status["card"])), "on": True})
    return out


def table(fields: d.Fields, view: int | None) -> d.Table:
    """The table for one view: ``view`` None is the full state, a number a seat's observation."""
    full = view is None
    seats = []
    for s in d.seats_of(fields):
        if full:
            trip, status, camera, score = fields["trips"][s], fields["status"][s], fields["cameras"][s], fields["banked"][s]
            counts = None
        else:
            p = fields["players"][s]
            trip, status, camera, score = p["trip"], p["status"], p["video_camera"], p["score"]
            counts = [q["hand_size"] for q in fields["players"]]
        facts: list[list[object]] = [["banked", score]]
        if status and status.get("miss"):
            facts.append(["misses", f"{status['miss']} go(es)"])
        areas = [d.hand(fields, s, view, fields.get("hands"), counts, card), d.area("played pile", _pile(trip, status, camera))]
        seats.append(d.seat(s, areas, facts=facts))
    past = [card(c) for c in fields["past"] if c] if full else [card(c) for c in fields["past_pile"]]
    future = len(fields["future"]) if full else fields["future_size"]
    areas = [d.area("Future pile", hidden=future, count=future),
             d.area("Past pile", d.top(past, PAST_SHOWN), count=len(past))]
    facts = [["year", f"{fields['year']} of {fields['years']}"], ["phase", fields["phase"]]]
    return {"seats": seats, "areas": areas, "facts": facts}
