"""The table of one Itchy Feet match: setup, moving cards, drawing, the turn flow.

Section numbers refer to the rulebook (rules/itchy-feet.ru.txt): "Setup", "Actions",
"Other rules", "Travelling", "Expansions" and the FAQ. Player choices live in
``state.py`` (the expansions' in ``expansions.py``); this module owns everything that happens without a choice.
"""

from __future__ import annotations

import random
from typing import Any

from ..base import State
from . import data

HAND_LIMIT = 7
BIG_HAND_LIMIT = 9  # the Backpacker character and the Extra Baggage special item
START_HAND = 3
MAX_OFFERS = 3  # trade offers a player may make in one turn; keeps every match finite
# The trip is over when nobody has travelled for the option ``stall_rounds`` full rounds
# (like the fifty-move rule of chess): the arena's bound that keeps every match finite,
# however the players play. The standing is then by progress (see ``_scores``).
LOG_LENGTH = 12

# Phases: who must decide what (see ``_to_act``). IDLE means nobody: ``settle`` runs the
# automatic steps (events, hand limits, end of turn) until someone must decide.
IDLE = "idle"
ACTION = "action"

# Cards that may pay a cost or be discarded: never a forbidden item (FAQ "Forbidden items"),
# never a passport (FAQ "Travelling": a lost passport is traded for or stolen back, so
# passports only change hands, they are never thrown away).
PAYABLE = frozenset(data.KIND) - data.FORBIDDEN_SET - data.PASSPORT_SET


class Core(State):
    """Setup and the automatic parts of the rules; subclassed by the playable state."""

    def __init__(self, num_players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(num_players, seed, options)
        n = num_players
        self.bucket = options["variant"] == "bucket_list"
        rng = self.rng("setup")
        # setup 1: one passport each, into the hand (the official rulebook page says so)
        passports = list(data.PASSPORTS)
        rng.shuffle(passports)
        self.hands: list[list[str]] = [[passports[s]] for s in range(n)]
        # Cards of each hand that every player has seen (trades are face up, travelling
        # shows the hand); cleared when a card leaves the hand unseen.
        self.known: list[list[str]] = [[passports[s]] for s in range(n)]
        self.characters: list[str | None] = [None] * n
        if options["characters"] and not self.bucket:
            chars = list(data.CHARACTERS)
            rng.shuffle(chars)
            self.characters = list[str | None](chars[:n])
        # setup 2: countries
        countries = list(data.COUNTRIES)
        rng.shuffle(countries)
        self.home: list[str | None] = [None] * n  # own country until visited
        self.home_visited: list[bool] = [False] * n
        self.collection: list[list[str]] = [[] for _ in range(n)]  # bucket list: visited
        if self.bucket:
            # bucket list: all countries in one pile, the top (end of the list) face up
            self.centre: str | None = None
            self.pile: list[str] = countries
            self.aside: list[str] = []
        else:
            self.home = list[str | None](countries[:n])
            self.centre = countries[n]
            self.pile = []
            self.aside = sorted(countries[n + 1:])
        # setup 3: items, 3 cards each; setup 4: expansions shuffled in afterwards
        deck = data.item_deck()
        extra = self._expansion_cards()
        if self.bucket:
            deck += extra  # bucket list: all cards shuffled together from the start
            extra = []
        rng.shuffle(deck)
        for _ in range(START_HAND):
            for s in range(n):
                card = deck.pop()
                while card in data.EVENT_SET:  # bucket list setup: reshuffle events back
                    deck.insert(rng.randrange(len(deck) + 1), card)
                    card = deck.pop()
                self.hands[s].append(card)
        deck += extra
        rng.shuffle(deck)
        self.deck: list[str] = deck  # top of the deck is the end of the list
        self.discard: list[str] = []  # public (FAQ: look through it at any time)
        # The top cards of the deck that one player knows, top first: those a Free Wi-Fi
        # put back, until they are drawn.
        self.peek: dict[str, Any] = {"seat": None, "cards": []}
        self.events: list[str] = []  # drawn events waiting to be resolved
        self.exchange: list[str | None] = [None] * n  # Currency Exchange choices
        self.exchanging: list[bool] = [False] * n
        self.phase = ACTION
        self.pending: dict[str, Any] = {}
        self.offers = 0
        self.smuggled = False
        self.turn_over = False
        self.winner: int | None = None
        self.over = False
        self.reshuffles = 0
        self.turns = 1
        self.last_trip = 1  # the turn of the latest visit (or the first turn)
        self.log: list[str] = []
        self.current = self._first_player()

    def _expansion_cards(self) -> list[str]:
        opts = self.options
        cards: list[str] = []
        if opts["events"]:
            cards += [e for e in data.EVENTS if not (self.bucket and e == "civil_unrest")]
        if opts["specials"]:
            cards += [c for c in data.SPECIALS if not (self.bucket and c == "poorly_drawn_map")]
        if opts["forbidden"]:
            cards += data.FORBIDDEN
        if opts["postcards"]:
            cards += data.POSTCARDS
        return cards

    def _first_player(self) -> int:
        """Start: the player whose country is closest, in the real world, to the centre one
        (bucket list: whose passport's country is closest to the top country)."""
        n = self.num_players
        if self.bucket:
            target = self.pile[-1]
            dist = [data.distance_km(self.hands[s][0], target) for s in range(n)]
        else:
            assert self.centre is not None
            dist = [data.distance_km(self.home[s] or "", self.centre) for s in range(n)]
        return min(range(n), key=lambda s: (dist[s], s))

    # ----- cards changing hands ---------------------------------------------------------
    def _remove(self, seat: int, card: str, public: bool) -> None:
        """Take ``card`` out of ``seat``'s hand; a card leaving unseen clears what the
        table knows of that hand, since nobody else can tell which card it was."""
        self.hands[seat].remove(card)
        if public:
            if card in self.known[seat]:
                self.known[seat].remove(card)
        else:
            self.known[seat] = []

    def reveal(self, seat: int, card: str) -> None:
        """``card`` of ``seat``'s hand is shown to everyone (an offer, a Local Guide hit)."""
        if self.known[seat].count(card) < self.hands[seat].count(card):
            self.known[seat].append(card)

    def _add(self, seat: int, card: str, public: bool) -> None:
        self.hands[seat].append(card)
        if public:
            self.known[seat].append(card)

    def _to_discard(self, seat: int, card: str) -> None:
        self._remove(seat, card, public=True)
        self.discard.append(card)

    def _pop_deck(self) -> str | None:
        """The top card; an empty deck is refilled from the shuffled discard pile at once
        (other rules: empty deck)."""
        if not self.deck:
            self._reshuffle()
            if not self.deck:
                return None
        card = self.deck.pop()
        if self.peek["cards"]:
            self.peek["cards"].pop(0)
        if not self.deck:
            self._reshuffle()
        return card

    def _reshuffle(self) -> None:
        self.reshuffles += 1
        pile = self.discard
        self.discard = []
        self.rng(f"reshuffle:{self.reshuffles}").shuffle(pile)
        self.deck = pile + self.deck

    def draw(self, seat: int, count: int = 1) -> int:
        """Draw ``count`` cards for ``seat``; an event is played at once (events expansion)
        and replaced by the next card. Returns how many cards reached the hand."""
        got = 0
        while got < count:
            card = self._pop_deck()
            if card is None:
                break
            if card in data.EVENT_SET:
                self.events.append(card)
                self.note(f"seat {seat} draws event {card}")
                continue
            self._add(seat, card, public=False)
            got += 1
        return got

    def note(self, text: str) -> None:
        """Public log line (what every player saw happen)."""
        self.log.append(text)
        if len(self.log) > LOG_LENGTH:
            del self.log[0]

    # ----- derived facts ----------------------------------------------------------------
    def hand_limit(self, seat: int) -> int:
        """Other rules: at most 7 cards (passports and special items included)."""
        if self.characters[seat] == "backpacker" or "extra_baggage" in self.hands[seat]:
            return BIG_HAND_LIMIT
        return HAND_LIMIT

    def target(self, seat: int) -> str | None:
        """The country ``seat`` may visit next: its own, then the centre (goal)."""
        if self.bucket:
            return self.pile[-1] if self.pile else None
        return self.centre if self.home_visited[seat] else self.home[seat]

    def next_seat(self, seat: int) -> int:
        return (seat + 1) % self.num_players

    # ----- the automatic flow -----------------------------------------------------------
    def settle(self) -> None:
        """Run everything that needs no decision until some seat must decide."""
        while not self._finished():
            self._check_postcards()
            if self.winner is not None or self.phase != IDLE:
                return
            if self.events:
                self.resolve_event(self.events.pop(0))
                continue
            seat = self._over_limit()
            if seat is not None:
                self.phase = "discard"
                self.pending = {"seat": seat}
                return
            if self.turn_over:
                self._next_turn()
                continue
            self.phase = ACTION
            return

    def _check_postcards(self) -> None:
        """Postcards: whoever holds 4 wins at once, even off turn."""
        if not self.options["postcards"]:
            return
        for seat, hand in enumerate(self.hands):
            if sum(1 for c in hand if c in data.POSTCARD_SET) >= 4:
                self.winner = seat
                self.note(f"seat {seat} collects 4 postcards and wins")
                return

    def _over_limit(self) -> int | None:
        n = self.num_players
        for k in range(n):
            seat = (self.current + k) % n
            size = len(self.hands[seat])
            if size > HAND_LIMIT and size > self.hand_limit(seat):
                return seat
        return None

    def _next_turn(self) -> None:
        stall = self.options["stall_rounds"]
        if self.turns - self.last_trip >= stall * self.num_players:
            self.over = True
            self.note(f"nobody travelled for {stall} rounds: the trip is over")
            return
        self.current = self.next_seat(self.current)
        self.turns += 1
        self.offers = 0
        self.smuggled = False
        self.turn_over = False
        self.pending = {}
        if not self.hands[self.current]:
            # other rules: an empty hand draws 3 at the start of the turn, not an action
            self.draw(self.current, START_HAND)
            self.note(f"seat {self.current} refills an empty hand")

    def end_turn(self) -> None:
        self.turn_over = True
        self.phase = IDLE
        self.pending = {}

    def resolve_event(self, event: str) -> None:
        """Hook for the events expansion (``expansions.py``)."""
        raise NotImplementedError

    # ----- contract hooks -----------------------------------------------------------------
    def _finished(self) -> bool:
        return self.winner is not None or self.over

    def _scores(self) -> list[float]:
        """The winner scores 10. Otherwise (turn cap) progress: 1 for the own country
        visited, plus a quarter per item of the next country already in hand. Bucket list:
        the number of countries collected."""
        n = self.num_players
        if self.bucket:
            return [float(len(self.collection[s])) for s in range(n)]
        if self.winner is not None:
            return [10.0 if s == self.winner else float(self.home_visited[s]) for s in range(n)]
        scores = []
        for s in range(n):
            target = self.target(s)
            held = sum(1 for item in data.REQUIRES[target] if item in self.hands[s]) if target else 0
            scores.append(float(self.home_visited[s]) + held / 4)
        return scores

    def _resample(self, seat: int, rng: random.Random) -> None:
        """Re-deal every card ``seat`` has not seen: the deck (but the top cards its own Free
        Wi-Fi put back), the unknown part of the other hands, the others' Currency Exchange
        choices, Free Wi-Fi cards shown to another player, and the order of the bucket-list
        pile under its face-up top card."""
        sees_hand = {seat}
        if self.phase == "post" and self.current == seat:
            sees_hand.add(self.pending["target"])  # Trading Post shows the target's hand
        payer, cost = self._paying()
        for _attempt in range(50):
            if self._redeal(sees_hand, seat, rng, payer, cost):
                break
        else:
            # a half-made Recycle or Steal proves the player can pay; keep that hand
            self._redeal(sees_hand | {payer}, seat, rng, payer, 0)
        if len(self.pile) > 2:
            under = self.pile[:-1]
            rng.shuffle(under)
            self.pile = under + self.pile[-1:]

    def _paying(self) -> tuple[int, int]:
        """The player in the middle of a Recycle or Steal and how many cards it must still
        be able to pay (its earlier choice showed everyone it can)."""
        pending_for = self.pending.get("for") if self.phase in ("choose", "take", "pay") else None
        if pending_for == "steal" and self.characters[self.current] != "pickpocket":
            return self.current, 1
        if pending_for == "recycle":
            return self.current, 1 if self.characters[self.current] == "recycler" else 2
        return self.current, 0

    def _redeal(self, sees_hand: set[int], seat: int, rng: random.Random, payer: int,
                cost: int) -> bool:
        """One random deal of the unseen cards; False (state untouched) if ``payer`` could
        not pay ``cost`` with it."""
        n = self.num_players
        known_top: list[str] = self.peek["cards"] if self.peek["seat"] == seat else []
        pool = self.deck[:len(self.deck) - len(known_top)]
        fresh: list[list[str]] = []
        for s in range(n):
            if s in sees_hand:
                fresh.append(list(self.hands[s]))
                continue
            rest = list(self.hands[s])
            for card in self.known[s]:
                rest.remove(card)
            pool += rest
            fresh.append(list(self.known[s]))
        wifi_hidden = self.phase == "wifi" and self.current != seat
        if wifi_hidden:
            pool += self.pending["cards"]
        pool += [c for s, c in enumerate(self.exchange) if s != seat and c is not None]
        rng.shuffle(pool)
        for s in range(n):
            while len(fresh[s]) < len(self.hands[s]):
                fresh[s].append(pool.pop())
        if cost and payer not in sees_hand:
            payable = sum(1 for c in fresh[payer] if c in PAYABLE)
            if payable < cost:
                return False
        self.hands = fresh
        for s in range(n):
            if s != seat and self.exchange[s] is not None:
                self.exchange[s] = pool.pop()
        if wifi_hidden:
            self.pending["cards"] = [pool.pop() for _ in self.pending["cards"]]
        self.deck = pool + known_top[::-1]
        if not known_top:
            # whoever peeked knows the new top cards instead
            self.peek["cards"] = self.deck[::-1][:len(self.peek["cards"])]
        return True
