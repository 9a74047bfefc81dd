"""The heuristic house bot for Itchy Feet: a traveller who packs for the next country.

It sees only its observation and legal actions. Every card in hand gets a worth: items of
the country it is heading for first, a passport (one is enough), then items of the centre
country, postcards and useful special items; everything else is ballast to pay costs with,
offer in trades or throw away. It travels the moment it can, gets rid of forbidden items,
recycles or trades for missing items, steals from full hands, and draws otherwise.
"""

from __future__ import annotations

from typing import Any

from ..house import HouseBot
from . import data

_GOOD_SPECIALS = {"moms_credit_card": 5.0, "mousetrap": 4.0, "travel_insurance": 3.0,
                  "frequent_flyer": 3.5, "free_wifi": 3.5, "local_guide": 3.5,
                  "trading_post": 3.0, "extra_baggage": 2.5, "poorly_drawn_map": 1.0}


class Traveller(HouseBot):
    """Heuristic bot: values cards by the trip ahead and picks the plainest good move."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        self.obs = observation
        self.hand: list[str] = observation["hand"]
        target = observation.get("target")
        self.need: tuple[str, ...] = data.REQUIRES[target] if target else ()
        centre = observation.get("centre")
        later = data.REQUIRES[centre] if centre and centre != target else ()
        self.later: tuple[str, ...] = later
        self.bucket = "pile_top" in observation
        phase = observation["phase"]
        handler = getattr(self, "_" + phase, None)
        choice = handler(legal_actions) if handler else None
        return choice if choice in legal_actions else legal_actions[0]

    # ----- what a card is worth to me ---------------------------------------------------
    def worth(self, card: str, hand: list[str] | None = None) -> float:
        hand = self.hand if hand is None else hand
        if card in data.PASSPORT_SET:
            return 8.0 if sum(1 for c in hand if c in data.PASSPORT_SET) <= 1 else 0.5
        if card in data.FORBIDDEN_SET:
            return -5.0
        if card in data.POSTCARD_SET:
            return 3.0 + sum(1 for c in hand if c in data.POSTCARD_SET)
        if card in _GOOD_SPECIALS:
            return _GOOD_SPECIALS[card]
        if card in self.need:
            return 7.0 if hand.count(card) <= 1 else 1.0
        if card in self.later:
            return 3.0 if hand.count(card) <= 1 else 0.8
        if self.bucket and card in data.ITEM_SET:
            return 2.0  # every item opens some country of the pile
        return 0.2

    def missing(self) -> list[str]:
        return [item for item in self.need if item not in self.hand]

    def ballast(self) -> list[str]:
        """Cards that may pay a cost (never passports or forbidden items), worst first."""
        payable = [c for c in self.hand if c not in data.PASSPORT_SET and c not in data.FORBIDDEN_SET]
        return sorted(payable, key=lambda c: (self.worth(c), c))

    @staticmethod
    def _with(legal: list[str], prefix: str) -> list[str]:
        return [a for a in legal if a.startswith(prefix)]

    # ----- the turn ---------------------------------------------------------------------
    def _action(self, legal: list[str]) -> str:
        stolen = self._with(legal, "steal_country")
        if stolen:  # a country taken counts twice: one more for me, one less for them
            return min(stolen, key=lambda a: self.worth(a.split("=")[1]))
        visits = self._with(legal, "visit")
        if visits:
            plain = [v for v in visits if "=" not in v]
            if plain:
                return plain[0]
            return max(visits, key=lambda v: -self.worth(v.split("=")[1]))
        smuggle = self._with(legal, "smuggle")
        if smuggle:
            return smuggle[0]
        dispose = self._with(legal, "dispose")
        if dispose:
            return min(dispose, key=lambda a: self.worth(a.split("=")[1]))
        for card in ("frequent_flyer", "free_wifi"):
            if f"play {card}" in legal:
                return f"play {card}"
        missing = self.missing()
        for item in missing:
            if f"play local_guide {item}" in legal:
                return f"play local_guide {item}"
        junk = [c for c in self.ballast() if self.worth(c) < (2.5 if self.bucket else 1.5)]
        discard = self.obs["discard"]
        if "recycle" in legal and len(junk) >= 2 and any(m in discard for m in missing):
            return "recycle"
        has_passport = any(c in data.PASSPORT_SET for c in self.hand)
        if "trade" in legal and junk and (missing or not has_passport) and self._partner():
            return "trade"
        if "steal" in legal and junk and self._victim() is not None:
            return "steal"
        if "draw" in legal:
            return "draw"
        return legal[0]

    def _partner(self) -> int | None:
        """Whom to ask: someone known to hold what I miss, else the biggest hand."""
        known = self.obs["known_cards"]
        sizes = self.obs["hand_sizes"]
        wanted = self.missing() or ["passport"]
        me = self.obs["seat"]
        for seat, cards in enumerate(known):
            if seat != me and any(data.KIND[c] in wanted for c in cards):
                return seat
        others = [s for s in range(len(sizes)) if s != me and sizes[s] > 0]
        if not others:
            return None
        return max(others, key=lambda s: sizes[s])

    def _victim(self) -> int | None:
        """Steal from a player closer to winning than me, or from a big hand (5+ cards);
        stealing from everyone all the time only slows the whole table down."""
        sizes = self.obs["hand_sizes"]
        me = self.obs["seat"]
        visited = self.obs.get("home_visited") or [False] * len(sizes)
        others = [s for s in range(len(sizes)) if s != me and sizes[s] >= 2
                  and ((visited[s] and not visited[me]) or sizes[s] >= 5
                       or ((visited[s] or self.bucket) and sizes[s] >= 3))]
        if not others:
            return None
        return max(others, key=lambda s: (visited[s], sizes[s]))

    def _choose(self, legal: list[str]) -> str:
        pick = self._partner() if legal[0].startswith("partner") else self._victim()
        verb = legal[0].split()[0]
        if pick is not None and f"{verb} {pick}" in legal:
            return f"{verb} {pick}"
        sizes = self.obs["hand_sizes"]
        return max(legal, key=lambda a: sizes[int(a.split()[1])])

    def _give(self, legal: list[str]) -> str:
        forbidden = [a for a in legal if a.split()[1] in data.FORBIDDEN_SET]
        if forbidden:
            return forbidden[0]
        return min(legal, key=lambda a: (self.worth(a.split()[1]), a))

    def _want(self, legal: list[str]) -> str:
        for item in self.missing():
            if f"want {item}" in legal:
                return f"want {item}"
        if "want passport" in legal and not any(c in data.PASSPORT_SET for c in self.hand):
            return "want passport"
        for item in self.later:
            if f"want {item}" in legal and item not in self.hand:
                return f"want {item}"
        return legal[0]

    def _take(self, legal: list[str]) -> str:
        return max(legal, key=lambda a: (self.worth(a.split()[1]) if a != "take nothing" else -9, a))

    def _pay(self, legal: list[str]) -> str:
        return min(legal, key=lambda a: (sum(self.worth(c) for c in a.split()[1:]), a))

    def _discard(self, legal: list[str]) -> str:
        return min(legal, key=lambda a: (self.worth(a.split()[1]), a))

    def _exchange(self, legal: list[str]) -> str:
        return min(legal, key=lambda a: (self.worth(a.split()[1]), a))

    def _respond(self, legal: list[str]) -> str:
        pending = self.obs["pending"]
        if pending.get("to") != self.obs["seat"]:
            return legal[0]
        best, gain = "refuse", 0.0
        for a in self._with(legal, "accept"):
            cards = a.split()[1:]
            rest = list(self.hand)
            for c in cards:
                rest.remove(c)
            value = self.worth(pending["give"], rest + [pending["give"]]) - sum(
                self.worth(c) for c in cards)
            # a trade also hands the proposer a bonus card: demand a gain, unless only
            # ballast goes and the proposer is not ahead of me
            ahead = (self.obs.get("home_visited") or [False] * 9)[pending["from"]]
            cheap = all(self.worth(c) < 1.0 for c in cards) and not ahead
            if value > gain + 1.0 or (cheap and value >= 0 and best == "refuse"):
                best, gain = a, max(value, gain)
        return best

    def _react(self, legal: list[str]) -> str:
        if "insurance" in legal:
            return "insurance"
        if "mousetrap" in legal and len(self.hand) >= 3:
            return "mousetrap"
        return "allow"

    def _wifi(self, legal: list[str]) -> str:
        return self._take(legal)

    def _post(self, legal: list[str]) -> str:
        def gain(a: str) -> float:
            words = a.split()
            return self.worth(words[2][4:]) - self.worth(words[1])
        return max(legal, key=lambda a: (gain(a), a))
