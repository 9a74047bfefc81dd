"""Durak on the replay's table (``arena.games.drawing``): the hands, the bout's attack and
defence cards in pairs, the stock with the trump turned up under it, the discards face down."""

from __future__ import annotations

from arena.games import drawing as d

SUIT = {"C": "\u2663 clubs", "D": "\u2666 diamonds", "H": "\u2665 hearts", "S": "\u2660 spades"}


def table(fields: d.Fields, view: int | None) -> d.Table:
    """The table for one view: ``view`` None is the full state, a number a seat's observation."""
    full = view is None
    if full:
        pairs = list(zip(fields["attacks"], fields["defences"], strict=True))
        stock = len(fields["stock"])
        trump_in_stock = fields["trump_card"] in fields["stock"]
        losers = fields["losers"] if fields["phase"] == "over" else []
    else:
        pairs = [(p["attack"], p["defence"]) for p in fields["table"]]
        stock, trump_in_stock, losers = fields["stock_count"], fields["trump_card_in_stock"], fields["losers"]
    seats = []
    for s in d.seats_of(fields):
        role = "attacker" if s == fields["attacker"] else "defender" if s == fields["defender"] else ""
        facts = [["role", role]] if role else []
        if s in losers:
            facts.append(["durak" if losers and s == losers[-1] else "out", "\u2713"])
        seats.append(d.seat(s, [d.hand(fields, s, view, fields.get("hands"), fields.get("hand_counts"),
                                       d.playing_card)], facts=facts))
    bout: list[d.Card] = []
    for attack, defence in pairs:
        bout.append(d.playing_card(attack))
        if defence:
            bout.append({**d.playing_card(defence), "on": True})  # durak 5: the beating card lies across
    trump = [{**d.playing_card(fields["trump_card"]), "title": "trump card, under the stock"}] if trump_in_stock else []
    areas = [d.area("bout", bout),
             d.area("stock", trump, hidden=max(0, stock - len(trump)), count=stock),
             d.area("discards", hidden=len(fields["discards"]), count=len(fields["discards"]))]
    facts = [["trump", SUIT[fields["trump"]]], ["bout", fields["bout"]]]
    if fields.get("taking"):
        facts.append(["defender", "takes"])
    return {"seats": seats, "areas": areas, "facts": facts}
