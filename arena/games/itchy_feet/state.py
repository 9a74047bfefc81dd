"""The playable Itchy Feet state: legal actions, applying them, observations.

Action grammar (see docs/games/itchy_feet.md for the full list):

    draw | recycle, take <card>, pay <card> <card> | steal, victim <seat>, pay <card>
    trade, partner <seat>, give <card>... want <kind>... propose|withdraw | accept <card>... | refuse
    visit <country> [card=<item>] | dispose <forbidden> with=<card> | smuggle <card> to=<seat>
    play <special> [...] | allow | mousetrap | insurance | discard <card> | exchange <card>
    take <card> [top=<card>,...] | swap <card> for=<card> | steal_country <seat> <country> pay=<item>
    pass
"""

from __future__ import annotations

from collections import Counter
from itertools import chain, combinations, product
from typing import Any

from arena.games.schema import BadState

from . import data
from .core import ACTION, IDLE, MAX_OFFERS, PAYABLE
from .expansions import Expansions


class ItchyFeetState(Expansions):
    """One match of Itchy Feet; see the module docstring for the action grammar."""

    # The schema a client's state must fit (``arena.games.schema``).
    card_fields = ("hands", "known", "home", "collection", "centre", "pile", "aside", "deck", "discard", "events",
                   "exchange")
    seat_fields = ("current", "winner")
    per_seat_fields = ("hands", "known", "characters", "home", "home_visited", "collection", "exchange",
                       "exchanging")
    choices = {"phase": frozenset({IDLE, ACTION, "choose", "discard", "exchange", "guide", "offer", "pay", "post",
                                   "react", "respond", "take", "wifi"})}

    @classmethod
    def packs(cls, num_players: int, options: dict[str, Any]) -> list[str]:
        """Every card of the game and its expansions (options decide which are shuffled in)."""
        return [*data.PASSPORTS, *data.COUNTRIES, *data.item_deck(), *data.EVENTS, *data.SPECIALS,
                *data.FORBIDDEN, *data.POSTCARDS]

    @classmethod
    def _check_json(cls, state: dict[str, Any]) -> None:
        if any(c is not None and c not in data.CHARACTERS for c in state["characters"]):
            raise BadState(f"state.characters: each one of {sorted(data.CHARACTERS)} or null")

    # ----- who decides ------------------------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        phase = self.phase
        if phase == "respond":
            return (self.pending["to"],)
        if phase == "react":
            return (self.pending["target"],)
        if phase == "discard":
            return (self.pending["seat"],)
        if phase == "exchange":
            return tuple(s for s in range(self.num_players)
                         if self.exchanging[s] and self.exchange[s] is None)
        return (self.current,)

    def _payable(self, seat: int) -> list[str]:
        """Distinct cards that may pay a cost or be discarded (``core.PAYABLE``)."""
        return sorted({c for c in self.hands[seat] if c in PAYABLE})

    # ----- legal actions ----------------------------------------------------------------
    def _legal_actions(self, seat: int) -> list[str]:
        phase = self.phase
        if phase == ACTION:
            return self._turn_actions(seat)
        hand = self.hands[seat]
        if phase == "choose":
            verb = "partner" if self.pending["for"] == "trade" else "victim"
            return [f"{verb} {o}" for o in range(self.num_players)
                    if o != seat and self.hands[o]]
        if phase == "offer":
            return self._offer_actions(seat)
        if phase == "take":
            return [f"take {c}" for c in set(self.discard) if c not in data.EVENT_SET]
        if phase == "pay":
            return self._pay_actions(seat)
        if phase == "respond":
            return self._respond_actions(seat)
        if phase == "react":
            return self.react_actions(seat)
        if phase == "discard":
            return [f"discard {c}" for c in self._payable(seat)] or [f"discard {c}" for c in set(hand)]
        if phase == "exchange":
            return [f"exchange {c}" for c in set(hand)]
        if phase == "wifi":
            return self.wifi_actions()
        if phase == "guide":
            return [f"from {o}" for o in self.pending["holders"]]
        if phase == "post":
            theirs = set(self.hands[self.pending["target"]])
            return [f"swap {m} for={t}" for m in set(hand) for t in theirs]
        raise AssertionError(phase)

    def _turn_actions(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        opts = self.options
        n = self.num_players
        others = [(seat + k) % n for k in range(1, n)]
        out: list[str] = []
        discard = self.discard
        if self.deck or discard:
            out.append("draw")
        can_pay = sum(1 for c in hand if c in PAYABLE)
        cost = 1 if self.characters[seat] == "recycler" else 2
        if can_pay >= cost and any(c not in data.EVENT_SET for c in discard):
            out.append("recycle")  # then: take <card>, pay <cards>
        hands = self.hands
        if any(hands[o] for o in others):
            if self.offers < MAX_OFFERS and hand:
                out.append("trade")  # then: partner <seat>, give/want cards, propose
            if can_pay or self.characters[seat] == "pickpocket":
                out.append("steal")  # then: victim <seat>, pay <card>
        out += self._visit_actions(seat)
        if opts["forbidden"]:
            bad = {c for c in hand if c in data.FORBIDDEN_SET}
            payable = self._payable(seat)
            out += [f"dispose {f} with={c}" for f in bad for c in payable]
            if self.characters[seat] == "smuggler" and not self.smuggled:
                out += [f"smuggle {f} to={o}" for f in bad for o in others]
        if opts["specials"]:
            out += self.special_actions(seat)
        if self.bucket:
            out += self._steal_country_actions(seat, others)
        return out or ["pass"]

    def _can_travel(self, seat: int) -> bool:
        """Travelling needs a passport, and no forbidden item in hand."""
        hand = self.hands[seat]
        return (any(c in data.PASSPORT_SET for c in hand)
                and not any(c in data.FORBIDDEN_SET for c in hand))

    def _visit_actions(self, seat: int) -> list[str]:
        country = self.target(seat)
        if country is None or not self._can_travel(seat):
            return []
        hand = self.hands[seat]
        need = data.REQUIRES[country]
        card = "moms_credit_card" in hand
        out = []
        if self.bucket:
            # bucket list: one of the country's items is enough
            for item in need:
                if item in hand:
                    out.append(f"visit {country} item={item}")
            if card:
                out.append(f"visit {country} item=moms_credit_card")
            return out
        missing = [item for item in need if item not in hand]
        if not missing:
            out.append(f"visit {country}")
        if card and len(missing) <= 1:
            # Mom's Credit Card stands in for one item (never a passport or postcard)
            out += [f"visit {country} card={item}" for item in (missing or need)]
        return out

    def _steal_country_actions(self, seat: int, others: list[int]) -> list[str]:
        """Bucket list: steal a country from its owner by paying one of its items (you
        travel there), passport in hand and no forbidden item, as for travelling."""
        if not self._can_travel(seat):
            return []
        hand = self.hands[seat]
        out = []
        for o in others:
            for country in set(self.collection[o]):
                for item in data.REQUIRES[country]:
                    if item in hand:
                        out.append(f"steal_country {o} {country} pay={item}")
        return out

    def _wantable(self) -> list[str]:
        """The kinds a proposer can ask for: items, a passport (any will do, FAQ), and the
        postcards and special items when in play."""
        kinds = [*data.ITEMS, "passport"]
        if self.options["postcards"]:
            kinds.append("postcard")
        if self.options["specials"]:
            kinds += data.SPECIALS
        return kinds

    def _offer_actions(self, seat: int) -> list[str]:
        """Action 3, "exchange one or more cards": the proposer adds its own cards (``give``)
        and the kinds of card it asks for (``want``) one at a time, then ``propose``s. The
        list stays short: one id per distinct card or kind. Nobody gives and asks for the
        same kind (that would only fish for the bonus card), and nobody asks for more cards
        than the partner holds or than the game has of that kind. ``withdraw`` drops the
        offer, as a refusal would."""
        pending = self.pending
        give: list[str] = pending["give"]
        want: list[str] = pending["want"]
        hand = self.hands[seat]
        given_kinds = {data.KIND[c] for c in give}
        out = [f"give {c}" for c in set(hand)
               if hand.count(c) > give.count(c) and data.KIND[c] not in want]
        if len(want) < len(self.hands[pending["to"]]):
            out += [f"want {k}" for k in self._wantable()
                    if k not in given_kinds and want.count(k) < data.KIND_COUNT[k]]
        if give and want:
            out.append("propose")
        out.append("withdraw")
        return out

    def _pay_actions(self, seat: int) -> list[str]:
        payable = sorted(c for c in self.hands[seat] if c in PAYABLE)
        if self.pending["for"] == "steal" or self.characters[seat] == "recycler":
            return [f"pay {c}" for c in set(payable)]
        out = set()
        for i in range(len(payable)):
            for j in range(i + 1, len(payable)):
                out.add(f"pay {payable[i]} {payable[j]}")
        return list(out)

    def _respond_actions(self, seat: int) -> list[str]:
        """The partner accepts with concrete cards of the kinds asked for, or refuses."""
        hand = self.hands[seat]
        out = ["refuse"]
        if "mousetrap" in hand:
            out.append("mousetrap")
        per_kind = []
        for kind, count in Counter(self.pending["want"]).items():
            cards = sorted(c for c in hand if data.KIND[c] == kind)
            per_kind.append(sorted(set(combinations(cards, count))))
        out += [" ".join(["accept", *sorted(chain(*pick))]) for pick in product(*per_kind)]
        return out

    # ----- applying ---------------------------------------------------------------------
    def _apply(self, seat: int, action: str) -> None:
        words = action.split()
        verb = words[0]
        handler = getattr(self, "_do_" + verb)
        handler(seat, words)
        self.settle()

    def _do_pass(self, seat: int, words: list[str]) -> None:
        self.note(f"seat {seat} passes")
        self.end_turn()

    def _do_draw(self, seat: int, words: list[str]) -> None:
        count = 2 if self.characters[seat] == "packrat" else 1
        self.note(f"seat {seat} draws")
        self.draw(seat, count)
        self.end_turn()

    def _do_recycle(self, seat: int, words: list[str]) -> None:
        self.phase = "take"
        self.pending = {"for": "recycle"}

    def _do_take(self, seat: int, words: list[str]) -> None:
        if self.phase == "wifi":
            self.wifi_take(seat, words[1], words[2][4:].split(",") if len(words) > 2 else [])
            return
        card = words[1]
        self.discard.remove(card)
        self._add(seat, card, public=True)
        self.note(f"seat {seat} recycles {card}")
        self.phase = "pay"

    def _do_pay(self, seat: int, words: list[str]) -> None:
        for card in words[1:]:
            self._to_discard(seat, card)
        self.note(f"seat {seat} pays {' '.join(words[1:])}")
        if self.pending["for"] == "steal":
            self.aim(self.pending["target"], {"kind": "steal"})
        else:
            self.end_turn()

    def _do_trade(self, seat: int, words: list[str]) -> None:
        self.offers += 1
        self.phase = "choose"
        self.pending = {"for": "trade"}

    def _do_partner(self, seat: int, words: list[str]) -> None:
        self.phase = "offer"
        self.pending = {"to": int(words[1]), "give": [], "want": []}

    def _do_give(self, seat: int, words: list[str]) -> None:
        self.pending["give"].append(words[1])
        self.reveal(seat, words[1])  # the offered cards are shown face up

    def _do_want(self, seat: int, words: list[str]) -> None:
        self.pending["want"].append(words[1])

    def _do_propose(self, seat: int, words: list[str]) -> None:
        p = self.pending
        p["from"] = seat
        self.note(f"seat {seat} offers {' '.join(p['give'])} to seat {p['to']} "
                  f"for {' '.join(p['want'])}")
        self.phase = "respond"

    def _do_refuse(self, seat: int, words: list[str]) -> None:
        # FAQ: a refused offer is no action; the proposer may do something else
        self.note(f"seat {seat} refuses")
        self.phase = IDLE
        self.pending = {}

    def _do_withdraw(self, seat: int, words: list[str]) -> None:
        self.phase = IDLE
        self.pending = {}

    def _do_accept(self, seat: int, words: list[str]) -> None:
        proposer = self.pending["from"]
        give = self.pending["give"]
        for card in give:
            self._remove(proposer, card, public=True)
        for card in words[1:]:
            self._remove(seat, card, public=True)
            self._add(proposer, card, public=True)
        for card in give:
            self._add(seat, card, public=True)
        self.note(f"seat {seat} accepts with {' '.join(words[1:])}")
        # trade bonus: the trade began on the proposer's turn
        self.draw(proposer, 1)
        if self.characters[seat] == "diplomat":
            self.draw(seat, 1)
        self.end_turn()

    def _do_mousetrap(self, seat: int, words: list[str]) -> None:
        if self.phase == "respond":
            self._to_discard(seat, "mousetrap")
            self.note(f"seat {seat} plays mousetrap against a trade")
            self.end_turn()
        else:
            self.react(seat, "mousetrap")

    def _do_insurance(self, seat: int, words: list[str]) -> None:
        self.react(seat, "insurance")

    def _do_allow(self, seat: int, words: list[str]) -> None:
        self.react(seat, "allow")

    def _do_steal(self, seat: int, words: list[str]) -> None:
        self.phase = "choose"
        self.pending = {"for": "steal"}

    def _do_victim(self, seat: int, words: list[str]) -> None:
        target = int(words[1])
        self.note(f"seat {seat} tries to steal from seat {target}")
        if self.characters[seat] == "pickpocket":
            self.aim(target, {"kind": "steal"})
        else:
            self.phase = "pay"
            self.pending = {"for": "steal", "target": target}

    def _do_steal_country(self, seat: int, words: list[str]) -> None:
        self._to_discard(seat, words[3][4:])
        self.note(f"seat {seat} goes for {words[2]} of seat {words[1]}")
        self.aim(int(words[1]), {"kind": "steal_country", "country": words[2]})

    def _do_visit(self, seat: int, words: list[str]) -> None:
        country = words[1]
        used = list(data.REQUIRES[country])
        if self.bucket:
            used = [words[2][5:]]
        elif len(words) > 2:
            used[used.index(words[2][5:])] = "moms_credit_card"
        for card in used:
            self._to_discard(seat, card)
        # travelling shows the whole hand to everyone
        self.known[seat] = list(self.hands[seat])
        self.note(f"seat {seat} visits {country}")
        self.last_trip = self.turns
        if self.bucket:
            self.pile.pop()
            self.collection[seat].append(country)
            if not self.pile:
                self.over = True
                return
        elif country == self.centre:
            self.winner = seat
            return
        else:
            self.home[seat] = None
            self.home_visited[seat] = True
        self.draw(seat, 1)
        self.end_turn()

    def _do_dispose(self, seat: int, words: list[str]) -> None:
        self._to_discard(seat, words[1])
        self._to_discard(seat, words[2][5:])
        self.note(f"seat {seat} gets rid of {words[1]}")
        self.end_turn()

    def _do_smuggle(self, seat: int, words: list[str]) -> None:
        self.smuggled = True
        self.reveal(seat, words[1])
        self.aim(int(words[2][3:]), {"kind": "smuggle", "card": words[1]})
        if self.phase == "react":
            return
        self.phase = IDLE

    def _do_play(self, seat: int, words: list[str]) -> None:
        self.play_special(seat, words)

    def _do_discard(self, seat: int, words: list[str]) -> None:
        self._to_discard(seat, words[1])
        self.note(f"seat {seat} discards {words[1]} (hand limit)")
        self.phase = IDLE
        self.pending = {}

    def _do_exchange(self, seat: int, words: list[str]) -> None:
        self._remove(seat, words[1], public=False)
        self.exchange[seat] = words[1]
        if not any(self.exchanging[s] and self.exchange[s] is None for s in range(self.num_players)):
            self.exchange_done()

    def _do_from(self, seat: int, words: list[str]) -> None:
        self.guide_from(int(words[1]))

    def _do_swap(self, seat: int, words: list[str]) -> None:
        self.post_swap(seat, words[1], words[2][4:])

    # ----- what a seat sees -------------------------------------------------------------
    def _observation(self, seat: int) -> dict[str, Any]:
        obs: dict[str, Any] = {
            "hand": sorted(self.hands[seat]),
            "hand_limit": self.hand_limit(seat),
            "hand_sizes": [len(h) for h in self.hands],
            "known_cards": [sorted(k) for k in self.known],
            "current": self.current,
            "turn": self.turns,
            "turns_since_trip": self.turns - self.last_trip,  # see the stall_rounds option
            "phase": self.phase,
            "deck_size": len(self.deck),
            "deck_top": list(self.peek["cards"]) if self.peek["seat"] == seat else [],
            "discard": list(self.discard),
            "offers_left": MAX_OFFERS - self.offers,
            "characters": list(self.characters),
            "log": list(self.log),
            "winner": self.winner,
        }
        if self.bucket:
            obs["pile_top"] = self.pile[-1] if self.pile else None
            obs["pile_size"] = len(self.pile)
            obs["collections"] = [sorted(c) for c in self.collection]
        else:
            obs["countries"] = list(self.home)
            obs["home_visited"] = list(self.home_visited)
            obs["centre"] = self.centre
            obs["aside"] = list(self.aside)
        obs["target"] = self.target(seat)
        obs["pending"] = self._pending_view(seat)
        if self.options["postcards"]:
            obs["postcards"] = self.postcards(seat)
        return obs

    def _pending_view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` sees of the decision under way (the observation's ``pending``)."""
        phase = self.phase
        if phase in ("choose", "offer", "respond", "react", "take", "pay", "guide"):
            return {k: list(v) if isinstance(v, list) else v for k, v in self.pending.items()}
        if phase == "discard":
            return {"seat": self.pending["seat"]}
        if phase == "exchange":
            return {"waiting": list(self._to_act()), "mine": self.exchange[seat]}
        if phase == "wifi":
            return {"cards": list(self.pending["cards"]) if seat == self.current else None,
                    "count": len(self.pending["cards"])}
        if phase == "post":
            target = self.pending["target"]
            return {"target": target, "their_hand": sorted(self.hands[target]) if seat == self.current else None}
        return {}

    def postcards(self, seat: int) -> int:
        """Postcards in ``seat``'s hand (the postcards option)."""
        return sum(1 for c in self.hands[seat] if c in data.POSTCARD_SET)
