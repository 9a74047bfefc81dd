"""The heuristic house bot for Itchy Feet: a traveller who packs for the next country.

It sees only its observation and legal actions. A hand is worth what it does for the trip
ahead (``hand_value``): the items of the country it is heading for, one passport, then the
items of the centre country, postcards and useful special items; everything else is ballast
to pay costs with, to offer in trades or to throw away. Every seat's next country is public,
so the same measure tells what a card is worth to anyone else.

It travels the moment it can, gets rid of forbidden items, recycles a missing item from the
discard pile, proposes trades that both sides gain from (several cards for one when needed),
accepts any trade that does not leave it worse off, and then draws or steals, whichever is
likelier to bring a missing card: counting the copies it has not seen tells whether the deck
still holds them or only other hands do. That last choice is what ends the race at big
tables, where everyone chases the same three items of the centre country.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..base import HouseBot
from . import data

_GOOD_SPECIALS = {"moms_credit_card": 5.0, "mousetrap": 4.0, "travel_insurance": 3.0,
                  "frequent_flyer": 3.5, "free_wifi": 3.5, "local_guide": 3.5,
                  "trading_post": 3.0, "extra_baggage": 2.5, "poorly_drawn_map": 1.0}
# The worth of a kind of card: the first copy, then each further copy.
_PASSPORT = (8.0, 0.5)
_NEEDED = (7.0, 1.0)  # an item of the country you head for
_LATER = (3.0, 0.8)  # an item of the centre country, before your own is visited
_BALLAST = 0.2
_MAX_GIVE = 3  # cards offered for what is asked, at most


class Needs:
    """What one seat is after: the items of its next country and of the one after."""

    def __init__(self, need: tuple[str, ...], later: tuple[str, ...], bucket: bool) -> None:
        self.need = need
        self.later = later
        self.bucket = bucket

    def hand_value(self, hand: list[str]) -> float:
        """How far ``hand`` carries this traveller; a card's worth is what it adds."""
        counts = Counter(data.KIND[c] for c in hand)
        value = 0.0
        for kind, count in counts.items():
            if kind == "passport":
                first, more = _PASSPORT
            elif kind in self.need and not self.bucket:
                first, more = _NEEDED
            elif kind in self.later:
                first, more = _LATER
            elif kind == "postcard":
                value += sum(3.0 + k for k in range(1, count + 1))
                continue
            elif kind in _GOOD_SPECIALS:
                first = more = _GOOD_SPECIALS[kind]
            elif kind in data.FORBIDDEN_SET:
                first = more = -5.0
            elif self.bucket and kind in data.ITEM_SET:
                first = more = 2.0  # every item opens some country of the pile
            else:
                first = more = _BALLAST
            value += first + more * (count - 1)
        if self.bucket and any(kind in counts for kind in self.need):
            value += 5.0  # bucket list: any one item of the top country is enough
        return value

    def missing(self, hand: list[str]) -> list[str]:
        """The kinds still lacking for the next trip, most useful first."""
        kinds = {data.KIND[c] for c in hand}
        out = [] if "passport" in kinds else ["passport"]
        if self.bucket:
            return out if any(k in kinds for k in self.need) else [*out, *self.need]
        return [*out, *(k for k in self.need if k not in kinds)]


class ItchyFeetHeuristic(HouseBot):
    """Heuristic bot: values cards by the trip ahead and picks the plainest good move."""

    def __init__(self, seat: int, seed: int) -> None:
        super().__init__(seat, seed)
        self.plan: dict[str, Any] = {}  # the trade or steal decided on in the action phase
        self.asked: set[int] = set()  # partners whose offers this turn came to nothing
        self.asked_turn = -1

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]
        self.obs = observation
        self.me: int = observation["seat"]
        self.hand: list[str] = observation["hand"]
        self.bucket = "pile_top" in observation
        self.needs = [self._needs_of(s) for s in range(observation["num_players"])]
        self.mine = self.needs[self.me]
        if observation.get("turn") != self.asked_turn:
            self.asked_turn = observation.get("turn", -1)
            self.asked = set()
        handler = getattr(self, "_" + observation["phase"], None)
        choice = handler(legal_actions) if handler else None
        return choice if choice in legal_actions else legal_actions[0]

    # ----- what the table shows -----------------------------------------------------------
    def _needs_of(self, seat: int) -> Needs:
        obs = self.obs
        if self.bucket:
            top = obs.get("pile_top")
            return Needs(data.REQUIRES[top] if top else (), (), True)
        centre = obs.get("centre")
        own = obs["countries"][seat]
        target = centre if obs["home_visited"][seat] or own is None else own
        need = data.REQUIRES[target] if target else ()
        later = data.REQUIRES[centre] if centre and centre != target else ()
        return Needs(need, later, False)

    def worth(self, card: str, hand: list[str] | None = None, seat: int | None = None) -> float:
        """What ``card`` (in ``hand``) adds to that seat's trip."""
        hand = self.hand if hand is None else hand
        needs = self.mine if seat is None else self.needs[seat]
        rest = list(hand)
        rest.remove(card)
        return needs.hand_value(hand) - needs.hand_value(rest)

    def gain(self, card: str, hand: list[str] | None = None, seat: int | None = None) -> float:
        """What ``card`` would add to ``hand``."""
        hand = self.hand if hand is None else hand
        needs = self.mine if seat is None else self.needs[seat]
        return needs.hand_value([*hand, card]) - needs.hand_value(hand)

    def missing(self) -> list[str]:
        return self.mine.missing(self.hand)

    def ballast(self) -> list[str]:
        """Cards that may pay a cost (never passports or forbidden items), worst first."""
        payable = [c for c in self.hand if c not in data.PASSPORT_SET and c not in data.FORBIDDEN_SET]
        return sorted(payable, key=lambda c: (self.worth(c), c))

    def _unseen(self) -> tuple[Counter[str], int]:
        """Copies of each kind not seen (in the deck or hidden in hands), and how many cards
        are unseen in all."""
        obs = self.obs
        seen = Counter(data.KIND[c] for c in [*self.hand, *obs["discard"]])
        hidden = obs["deck_size"]
        for seat, cards in enumerate(obs["known_cards"]):
            if seat != self.me:
                seen.update(data.KIND[c] for c in cards)
                hidden += obs["hand_sizes"][seat] - len(cards)
        passports = obs["num_players"]  # only the players' passports are in play
        total = Counter({k: n for k, n in data.KIND_COUNT.items() if k in data.ITEM_SET})
        total["passport"] = passports
        return total - seen, hidden

    def _chance_from(self, seat: int, kinds: list[str]) -> float:
        """The chance that a random card of ``seat``'s hand is of one of ``kinds``."""
        size = self.obs["hand_sizes"][seat]
        if not size:
            return 0.0
        known = self.obs["known_cards"][seat]
        unseen, hidden = self._unseen()
        sure = sum(1 for c in known if data.KIND[c] in kinds)
        rate = sum(unseen[k] for k in kinds) / hidden if hidden else 0.0
        return (sure + (size - len(known)) * rate) / size

    def _chance_to_draw(self, kinds: list[str]) -> float:
        unseen, hidden = self._unseen()
        if self.obs["deck_size"] == 0:  # the discard pile becomes the deck
            pile = self.obs["discard"]
            return sum(1 for c in pile if data.KIND[c] in kinds) / len(pile) if pile else 0.0
        return sum(unseen[k] for k in kinds) / hidden if hidden else 0.0

    @staticmethod
    def _with(legal: list[str], prefix: str) -> list[str]:
        return [a for a in legal if a.startswith(prefix)]

    # ----- the turn -----------------------------------------------------------------------
    def _action(self, legal: list[str]) -> str:
        self.plan = {}
        visits = self._with(legal, "visit")
        if visits:
            plain = [v for v in visits if "=" not in v]
            if plain:
                return plain[0]
            return min(visits, key=lambda v: (self._spent(v), v))
        stolen = self._country_steal(legal)
        if stolen:  # a country taken counts twice: one more for me, one less for them
            return stolen
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
            guide = f"play local_guide {item}"
            if guide in legal and any(self._chance_from(s, [item]) >= 0.5 for s in self._others()):
                return guide
        if "recycle" in legal and self._recycle_pick():
            return "recycle"
        if "trade" in legal and self._plan_trade(missing):
            return "trade"
        if "steal" in legal and self._plan_steal(missing):
            return "steal"
        if "draw" in legal:
            return "draw"
        return legal[0]

    def _country_steal(self, legal: list[str]) -> str | None:
        """Bucket list: take a country from the player with the most, paying the card I
        miss least. Only when I cannot travel: trips, not thefts, empty the pile."""
        collections = self.obs.get("collections") or []

        def value(action: str) -> tuple[int, float, str]:
            return (-len(collections[int(action.split()[1])]),
                    self.worth(action.split("=")[1]), action)
        steals = self._with(legal, "steal_country")
        return min(steals, key=value) if steals else None

    def _spent(self, visit: str) -> float:
        """What a visit costs beyond the plain items: ``item=`` (bucket list) spends that
        card; ``card=`` spends Mom's Credit Card and keeps the named item."""
        card = visit.split("=")[1]
        if visit.split()[-1].startswith("card="):
            return -self.worth(card) if card in self.hand else 0.0
        return self.worth(card)

    def _others(self) -> list[int]:
        n = self.obs["num_players"]
        return [(self.me + k) % n for k in range(1, n)]

    def _recycle_pick(self) -> str | None:
        """A missing card on the discard pile worth more than the two cheapest to pay."""
        pile = [c for c in self.obs["discard"] if c not in data.EVENT_SET]
        if not pile:
            return None
        best = max(sorted(set(pile)), key=self.gain)
        cost = 1 if (self.obs["characters"][self.me] == "recycler") else 2
        payable = self.ballast()
        if len(payable) < cost:
            return None
        paid = sum(self.worth(c) for c in payable[:cost])
        return best if self.gain(best) >= 3.0 and self.gain(best) > paid + 1.0 else None

    def _plan_trade(self, missing: list[str]) -> bool:
        """Find an offer a partner should take: ask for a missing kind from someone likely to
        hold it, and give what that partner lacks and I can spare, up to three cards."""
        sizes = self.obs["hand_sizes"]
        best: tuple[float, dict[str, Any]] | None = None
        for kind in missing:
            for partner in self._others():
                if partner in self.asked or not sizes[partner]:
                    continue
                chance = self._chance_from(partner, [kind])
                if chance * sizes[partner] < 0.5:
                    continue  # probably none there
                offer = self._offer_for(partner, kind)
                if offer is None:
                    continue
                score = chance * sizes[partner] + offer[0]
                if best is None or score > best[0]:
                    best = (score, offer[1])
        if best is None:
            return False
        self.plan = best[1]
        return True

    def _offer_for(self, partner: int, kind: str) -> tuple[float, dict[str, Any]] | None:
        """The cheapest cards of mine that make asking ``partner`` for ``kind`` fair to it:
        ``(what I gain, the plan)``, or None when no such offer pays for me."""
        known = list(self.obs["known_cards"][partner])
        card = next((c for c in known if data.KIND[c] == kind),
                    kind if kind in data.ITEM_SET else data.PASSPORTS[0])
        theirs = known if card in known else [*known, card]
        their_needs = self.needs[partner]
        visited = self.obs.get("home_visited") or [False] * self.obs["num_players"]
        margin = 2.0 if visited[self.me] and not visited[partner] else 0.0
        price = self.worth(card, theirs, partner) + margin
        my_gain = self.gain(card)
        spare = [c for c in self.hand if data.KIND[c] != kind and self.worth(c) < my_gain]
        # what the partner gains most from first, then what costs me least
        spare.sort(key=lambda c: (-self.gain(c, theirs, partner), self.worth(c), c))
        give: list[str] = []
        for extra in spare[:_MAX_GIVE]:
            if their_needs.hand_value([*theirs, *give]) - their_needs.hand_value(theirs) >= price:
                break
            give.append(extra)
        rest = list(self.hand)
        for c in give:
            rest.remove(c)
        my_cost = self.mine.hand_value(self.hand) - self.mine.hand_value(rest)
        their_gain = their_needs.hand_value([*theirs, *give]) - their_needs.hand_value(theirs)
        if not give or their_gain < price or my_cost >= my_gain:
            return None
        return my_gain - my_cost, {"partner": partner, "give": give, "want": [kind]}

    def _plan_steal(self, missing: list[str]) -> bool:
        """Steal when a hand is likelier than the deck to hold a missing card."""
        if not missing or not self.ballast() and self.obs["characters"][self.me] != "pickpocket":
            return False
        sizes = self.obs["hand_sizes"]
        victims = [s for s in self._others() if sizes[s]]
        if not victims:
            return False
        victim = max(victims, key=lambda s: (self._chance_from(s, missing), sizes[s]))
        odds = self._chance_from(victim, missing)
        if odds <= self._chance_to_draw(missing) or odds < 0.2:
            return False
        self.plan = {"victim": victim}
        return True

    def _choose(self, legal: list[str]) -> str:
        verb = legal[0].split()[0]
        pick = self.plan.get("partner" if verb == "partner" else "victim")
        if pick is not None and f"{verb} {pick}" in legal:
            return f"{verb} {pick}"
        sizes = self.obs["hand_sizes"]
        return max(legal, key=lambda a: sizes[int(a.split()[1])])

    def _offer(self, legal: list[str]) -> str:
        pending = self.obs["pending"]
        partner = pending["to"]
        self.asked.add(partner)
        if self.plan.get("partner") != partner:  # chosen elsewhere: make the best offer
            offers = [self._offer_for(partner, kind) for kind in self.missing()]
            self.plan = max((o for o in offers if o), key=lambda o: o[0], default=(0, {}))[1]
        plan = self.plan
        if not plan:
            return "withdraw"
        given = Counter(pending["give"])
        for card in plan["give"]:
            if given[card] < plan["give"].count(card):
                return f"give {card}"
        asked = Counter(pending["want"])
        for kind in plan["want"]:
            if asked[kind] < plan["want"].count(kind):
                return f"want {kind}"
        return "propose" if "propose" in legal else "withdraw"

    def _take(self, legal: list[str]) -> str:
        def value(action: str) -> float:
            card = action.split()[1]
            return self.gain(card) if card in data.KIND else -9.0
        return max(legal, key=lambda a: (value(a), a))

    def _pay(self, legal: list[str]) -> str:
        def cost(action: str) -> float:
            cards = action.split()[1:]
            rest = list(self.hand)
            for c in cards:
                rest.remove(c)
            return self.mine.hand_value(self.hand) - self.mine.hand_value(rest)
        return min(legal, key=lambda a: (cost(a), a))

    def _discard(self, legal: list[str]) -> str:
        return min(legal, key=lambda a: (self.worth(a.split()[1]), a))

    def _exchange(self, legal: list[str]) -> str:
        return self._discard(legal)

    def _respond(self, legal: list[str]) -> str:
        """Accept the offer that leaves me best off, if it leaves me no worse off; a
        proposer closer to the win than me must pay for the help."""
        pending = self.obs["pending"]
        proposer = pending["from"]
        visited = self.obs.get("home_visited") or [False] * self.obs["num_players"]
        ahead = visited[proposer] and not visited[self.me]
        before = self.mine.hand_value(self.hand)
        best, best_gain = "refuse", 2.0 if ahead else 0.0
        for action in self._with(legal, "accept"):
            rest = list(self.hand)
            for c in action.split()[1:]:
                rest.remove(c)
            gain = self.mine.hand_value(rest + pending["give"]) - before
            if gain >= best_gain:
                best, best_gain = action, gain
        return best

    def _react(self, legal: list[str]) -> str:
        if "insurance" in legal:
            return "insurance"
        if "mousetrap" in legal and len(self.hand) >= 3:
            return "mousetrap"
        return "allow"

    def _wifi(self, legal: list[str]) -> str:
        """Keep the most useful card; leave the one the next player needs least on top."""
        nxt = (self.me + 1) % self.obs["num_players"]

        def value(action: str) -> tuple[float, float]:
            words = action.split()
            card = words[1]
            mine = self.gain(card) if card in data.KIND else -9.0
            top = words[2][4:].split(",")[0] if len(words) > 2 else ""
            theirs = self.gain(top, [], nxt) if top in data.KIND else 0.0
            return mine, -theirs
        return max(legal, key=lambda a: (value(a), a))

    def _guide(self, legal: list[str]) -> str:
        """Local Guide: take from the holder nearest the win, else the biggest hand."""
        visited = self.obs.get("home_visited") or [False] * self.obs["num_players"]
        sizes = self.obs["hand_sizes"]
        return max(legal, key=lambda a: (visited[int(a.split()[1])], sizes[int(a.split()[1])], a))

    def _post(self, legal: list[str]) -> str:
        def gain(a: str) -> float:
            words = a.split()
            mine, theirs = words[1], words[2][4:]
            rest = list(self.hand)
            rest.remove(mine)
            return self.mine.hand_value([*rest, theirs]) - self.mine.hand_value(self.hand)
        return max(legal, key=lambda a: (gain(a), a))
