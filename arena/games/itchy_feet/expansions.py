"""The expansions: events, special items, forbidden items, postcards and characters
(rulebook "Expansions" and FAQ), as helpers of the playable state.

Reaction window (special items, FAQ "Special items"): whenever an action is aimed at a
player (steal, steal a country, Local Guide, Trading Post, Poorly Drawn Map on a player,
the Smuggler's gift) and the special items are in play, that player decides before it
resolves: ``allow``, ``mousetrap`` (cancel it; the acting player's turn ends) or, against a
steal, ``insurance`` (Travel Insurance: keep the card). The window opens whether or not the
player holds a reaction card, so opening it reveals nothing. A trade offer is answered in
its own window, where ``mousetrap`` is one of the answers.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

from . import data
from .core import IDLE, Core

# Lost Luggage never takes a forbidden item (FAQ: a forbidden item is never discarded but
# to get rid of it); a passport it may take (rules/DATA.md 1.4.4 E2).
_KEPT = data.FORBIDDEN_SET


class Expansions(Core):
    """Events, special items, forbidden items and characters."""

    # ----- events (resolved when drawn, affect everyone, never recyclable) -------------
    def resolve_event(self, event: str) -> None:
        self.discard.append(event)
        self.note(f"event {event}")
        n = self.num_players
        order = [(self.current + k) % n for k in range(n)]
        if event == "civil_unrest":
            # the centre country is closed and replaced by a random set-aside one
            if self.centre is not None and self.aside:
                new = self.rng("unrest").choice(self.aside)
                self.aside.remove(new)
                self.aside = sorted([*self.aside, self.centre])
                self.centre = new
        elif event == "lost_luggage":
            rng = self.rng(f"luggage:{len(self.discard)}")
            for seat in order:
                losable = sorted(c for c in self.hands[seat] if c not in _KEPT)
                if losable:
                    card = rng.choice(losable)
                    self._to_discard(seat, card)
                    self.note(f"seat {seat} loses {card}")
        elif event == "currency_exchange":
            self.exchanging = [bool(self.hands[s]) for s in range(n)]
            self.exchange = [None] * n
            if any(self.exchanging):
                self.phase = "exchange"
        elif event == "free_upgrade":
            for seat in order:
                self.draw(seat, 1)

    def exchange_done(self) -> None:
        """Currency Exchange: every chosen card goes to the player on the left at once."""
        n = self.num_players
        for seat in range(n):
            card = self.exchange[seat]
            if card is not None:
                self._add(self.next_seat(seat), card, public=False)
        self.exchange = [None] * n
        self.exchanging = [False] * n
        self.note("cards passed left")
        self.phase = IDLE

    # ----- the reaction window ----------------------------------------------------------
    def aim(self, target: int, what: dict[str, Any]) -> None:
        """An action aimed at ``target``: open its reaction window, or resolve at once
        when special items are not in play."""
        what["target"] = target
        what["actor"] = self.current
        if self.options["specials"]:
            self.phase = "react"
            self.pending = what
        else:
            self.resolve_aimed(what)

    def react_actions(self, seat: int) -> list[str]:
        out = ["allow"]
        hand = self.hands[seat]
        if "mousetrap" in hand:
            out.append("mousetrap")
        if self.pending["kind"] == "steal" and "travel_insurance" in hand:
            out.append("insurance")
        return out

    def react(self, seat: int, action: str) -> None:
        what = self.pending
        if action == "allow":
            self.resolve_aimed(what)
            return
        card = "mousetrap" if action == "mousetrap" else "travel_insurance"
        self._to_discard(seat, card)
        self.note(f"seat {seat} plays {card} against {what['kind']}")
        # FAQ: interrupting another player's action with a special item ends their turn
        self.end_turn()

    def resolve_aimed(self, what: dict[str, Any]) -> None:
        kind = what["kind"]
        actor, target = what["actor"], what["target"]
        if kind == "steal":
            hand = sorted(self.hands[target])
            if hand:
                card = self.rng("steal").choice(hand)
                self._remove(target, card, public=False)
                self._add(actor, card, public=False)
            self.note(f"seat {actor} steals a card from seat {target}")
            self.end_turn()
        elif kind == "steal_country":
            country = what["country"]
            self.collection[target].remove(country)
            self.collection[actor].append(country)
            self.note(f"seat {actor} steals {country} from seat {target}")
            self.end_turn()
        elif kind == "local_guide":
            item = what["item"]
            self._remove(target, item, public=True)
            self._add(actor, item, public=True)
            self.note(f"seat {target} gives {item} to seat {actor}")
            self.end_turn()
        elif kind == "trading_post":
            if self.hands[target] and self.hands[actor]:
                self.phase = "post"
                self.pending = {"target": target}
            else:
                self.end_turn()
        elif kind == "map":
            self.home[actor], self.home[target] = self.home[target], self.home[actor]
            self.note(f"seat {actor} swaps countries with seat {target}")
            self.end_turn()
        elif kind == "smuggle":
            card = what["card"]
            self._remove(actor, card, public=True)
            self._add(target, card, public=True)
            self.note(f"seat {actor} smuggles {card} to seat {target}")
            self.phase = IDLE  # a free action: the turn goes on

    # ----- special items played as the turn's action -----------------------------------
    def special_actions(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        n = self.num_players
        out: list[str] = []
        if "frequent_flyer" in hand:
            out.append("play frequent_flyer")
        if "free_wifi" in hand and (self.deck or self.discard):
            out.append("play free_wifi")
        if "local_guide" in hand:
            out += [f"play local_guide {item}" for item in data.ITEMS]  # then: from <seat>
        others = [(seat + k) % n for k in range(1, n)]
        if "trading_post" in hand and len(hand) > 1:
            out += [f"play trading_post {o}" for o in others if self.hands[o]]
        if "poorly_drawn_map" in hand and self.home[seat] is not None:
            out += [f"play poorly_drawn_map {o}" for o in others if self.home[o] is not None]
            if self.aside:
                out.append("play poorly_drawn_map aside")
        return out

    def play_special(self, seat: int, words: list[str]) -> None:
        card = words[1]
        self._to_discard(seat, card)
        self.note(f"seat {seat} plays {card}")
        if card == "frequent_flyer":
            self.draw(seat, 2)
            self.end_turn()
        elif card == "free_wifi":
            cards = []
            for _ in range(3):
                top = self._pop_deck()
                if top is None:
                    break
                cards.append(top)
            # an event seen this way is not drawn: it can only go back into the deck
            self.phase = "wifi"
            self.pending = {"cards": cards}
        elif card == "local_guide":
            # rules/DATA.md 1.4.4 S3: take the item from any player who has it, the user's
            # pick. Every holder must give it if picked, so every holder shows one.
            item = words[2]
            holders = [o for o in range(self.num_players) if o != seat and item in self.hands[o]]
            for other in holders:
                self.reveal(other, item)
            if not holders:
                self.note(f"nobody holds {item}")
                self.end_turn()
            elif len(holders) == 1:
                self.guide_from(holders[0], item)
            else:
                self.note(f"seats {' '.join(map(str, holders))} hold {item}")
                self.phase = "guide"
                self.pending = {"item": item, "holders": holders}
        elif card == "trading_post":
            self.aim(int(words[2]), {"kind": "trading_post"})
        elif card == "poorly_drawn_map":
            if words[2] == "aside":
                new = self.rng("map").choice(self.aside)
                self.aside.remove(new)
                old = self.home[seat]
                assert old is not None
                self.aside = sorted([*self.aside, old])
                self.home[seat] = new
                self.note(f"seat {seat} swaps its country for {new}")
                self.end_turn()
            else:
                self.aim(int(words[2]), {"kind": "map"})

    def guide_from(self, target: int, item: str | None = None) -> None:
        """Local Guide: ``target``, a holder, is asked for the item (its reaction window)."""
        item = item or self.pending["item"]
        self.aim(target, {"kind": "local_guide", "item": item})

    def wifi_actions(self) -> list[str]:
        """Free Wi-Fi (rules/DATA.md 1.4.4 S8): take one of the cards seen (never an event:
        an event seen is not drawn), put the rest back on the deck in the order the player
        chooses: ``take <card> top=<first>,<second>``, the first on top."""
        cards: list[str] = self.pending["cards"]
        picks = sorted({c for c in cards if c not in data.EVENT_SET}) or ["nothing"]
        out = []
        for pick in picks:
            rest = list(cards)
            if pick != "nothing":
                rest.remove(pick)
            orders = {",".join(order) for order in permutations(rest)}
            out += [f"take {pick} top={order}" if order else f"take {pick}" for order in orders]
        return out

    def wifi_take(self, seat: int, card: str, order: list[str]) -> None:
        """Free Wi-Fi: keep ``card``, put ``order`` back on top of the deck, ``order[0]``
        uppermost. The player knows those cards until they are drawn (``peek``)."""
        if card != "nothing":
            self._add(seat, card, public=False)
        self.deck += reversed(order)
        self.peek = {"seat": seat, "cards": list(order)}
        self.end_turn()

    def post_swap(self, seat: int, mine: str, theirs: str) -> None:
        """Trading Post: the swap is made face up."""
        target = self.pending["target"]
        self._remove(seat, mine, public=True)
        self._remove(target, theirs, public=True)
        self._add(seat, theirs, public=True)
        self._add(target, mine, public=True)
        self.note(f"seat {seat} swaps {mine} for {theirs} of seat {target}")
        self.end_turn()
