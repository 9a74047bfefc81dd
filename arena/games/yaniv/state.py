"""The whole truth of one Yaniv match (Backpacker's Playing Cards, section 2).

A turn is two decisions of the same seat: first ``discard ...`` or ``yaniv``, then ``draw
deck`` or ``take <card>`` (the first or last card the previous player laid). The discard pile
is kept as three parts: ``buried`` (older cards, out of reach), ``last_discard`` (what the
previous player laid, whose outer cards may be taken) and ``my_discard`` (what the seat to
act has just laid, out of its reach this turn).
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import State, cards

from .melds import VALUE, discard_ids, hand_value, in_hand_order

DISCARD = "discard"
DRAW_DECK = "draw deck"
TAKE = "take"
YANIV = "yaniv"
DRAW_WILD = "draw_wild"  # yaniv 2.5 optional 90 rule
KEEP = "keep"


class YanivState(State):
    """One match: rounds until a player passes the end score (or one player is left)."""

    # The schema a client's state must fit (``arena.games.schema``).
    card_fields = ("hands", "last_discard", "buried", "my_discard", "deck", "known")
    seat_fields = ("starter", "ninety_queue", "current")
    per_seat_fields = ("totals", "out_round", "hands", "known", "redrawn")
    choices = {"phase": frozenset({"discard", "draw", "ninety"})}
    optional_fields = ("rebuilds", "redrawn")  # see _restore
    examples = {"last_round": {"round": 0, "caller": 0, "assaf": 0, "hands": [["2C"]], "points": [0],
                               "halved": [0], "wild_cards": {}}}

    @classmethod
    def packs(cls, num_players: int, options: dict[str, Any]) -> list[str]:
        return cards.deck(jokers=2, copies=options["decks"])

    def __init__(self, num_players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(num_players, seed, options)
        self.totals = [0] * num_players
        self.out_round: list[int | None] = [None] * num_players  # elimination variant
        self.round_number = 0
        # yaniv 2.4: the first starter is drawn at random (the rulebook's high-card draw).
        self.starter = self.rng("starter").randrange(num_players)
        self.last_round: dict[str, Any] | None = None
        self.ninety_queue: list[int] = []
        self.over = False
        self._deal()

    # ----- dealing ---------------------------------------------------------------------
    def _active(self, seat: int) -> bool:
        return self.out_round[seat] is None

    def _deal(self) -> None:
        """yaniv 2.2: 5 (6, 7) cards each; the top card of the draw pile opens the discard."""
        n = self.num_players
        pack = cards.deck(jokers=2, copies=self.options["decks"])
        pack = cards.shuffled(pack, self.rng(f"deal{self.round_number}"))
        self.hands: list[list[str]] = [[] for _ in range(n)]
        order = [(self.starter + k) % n for k in range(n)]
        dealt = [self.hands[s] for s in order if self._active(s)]
        cards.deal(pack, dealt, self.options["hand_size"])
        self.last_discard = [pack.pop()]
        self.buried: list[str] = []
        self.my_discard: list[str] = []
        self.deck = pack
        self.known: list[list[str]] = [[] for _ in range(n)]  # cards seen taken from the pile
        # yaniv 2.2: each rebuilt deck holds cards everyone saw in the discard pile. Cards
        # drawn from the n-th rebuilt deck are kept here as [card, n] until laid again, so a
        # resample deals every hand its unseen cards from the deck they came from.
        self.rebuilds = 0
        self.redrawn: list[list[list[Any]]] = [[] for _ in range(n)]
        self.current = self.starter
        self.phase = "discard"

    # ----- contract hooks --------------------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        if self.phase == "ninety":
            return (self.ninety_queue[0],)
        return (self.current,)

    def _finished(self) -> bool:
        return self.over

    def _legal_actions(self, seat: int) -> list[str]:
        if self.phase == "ninety":
            return [DRAW_WILD, KEEP]
        if self.phase == "draw":
            # yaniv 2.4.1: the top card of the deck, or the first or last card the previous
            # player laid.
            out = [f"{TAKE} {self.last_discard[0]}", f"{TAKE} {self.last_discard[-1]}"]
            if self.deck:
                out.append(DRAW_DECK)
            return list(dict.fromkeys(out))
        hand = self.hands[seat]
        out = discard_ids(hand)
        if hand_value(hand) <= self.options["call_limit"]:
            out.append(YANIV)  # yaniv 2.4.2
        return out

    def _apply(self, seat: int, action: str) -> None:
        if self.phase == "ninety":
            self._ninety(seat, action == DRAW_WILD)
        elif action == YANIV:
            self._call_yaniv(seat)
        elif self.phase == "discard":
            laid = action.split()[1:]
            hand = self.hands[seat]
            known = self.known[seat]
            for c in laid:
                hand.remove(c)
                if c in known:
                    known.remove(c)
                else:
                    self._forget_redrawn(seat, c)
            self.my_discard = laid
            self.phase = "draw"
        else:
            self._draw(seat, action)

    def _draw(self, seat: int, action: str) -> None:
        last = self.last_discard
        if action == DRAW_DECK:
            card = self.deck.pop()
            self.hands[seat].append(card)
            if self.rebuilds:
                self.redrawn[seat].append([card, self.rebuilds])
        else:
            card = action.split()[1]
            # Only an outer card can be taken; take it from the end it lies at.
            last.pop(0 if last[0] == card else -1)
            self.hands[seat].append(card)
            self.known[seat].append(card)
        self.buried += last
        self.last_discard = self.my_discard
        self.my_discard = []
        if not self.deck:
            # yaniv 2.2: the discard pile, without the last discard, becomes the new deck.
            self.deck = cards.shuffled(self.buried, self.rng("reshuffle"))
            self.buried = []
            self.rebuilds += 1
        self.phase = "discard"
        self.current = self._next_active(seat)

    def _restore(self) -> None:
        # States saved before the rebuilt decks were tracked: nothing drawn is pinned down.
        self.__dict__.setdefault("rebuilds", 0)
        self.__dict__.setdefault("redrawn", [[] for _ in range(self.num_players)])

    def _forget_redrawn(self, seat: int, card: str) -> None:
        """``card`` left the hand: if it came from a rebuilt deck it is no longer hidden.
        With two packs an equal card may have come from either deck: the later one is
        forgotten first, which the seat watching cannot tell apart anyway."""
        entries = [e for e in self.redrawn[seat] if e[0] == card]
        if entries:
            self.redrawn[seat].remove(max(entries, key=lambda e: int(e[1])))

    def _next_active(self, seat: int) -> int:
        n = self.num_players
        nxt = (seat + 1) % n
        while not self._active(nxt):
            nxt = (nxt + 1) % n
        return nxt

    # ----- the end of a round ----------------------------------------------------------
    def _call_yaniv(self, caller: int) -> None:
        """yaniv 2.4.2: the caller scores 0, the others their hands; a player with fewer
        points than the caller calls "Assaf": the caller scores hand + 20 (30), the Assaf
        caller 0. Several could: the fewest points, then the first after the caller, wins."""
        n = self.num_players
        values = [hand_value(h) for h in self.hands]
        mine = values[caller]
        assaf = None
        for k in range(1, n):
            s = (caller + k) % n
            if self._active(s) and values[s] < mine and (assaf is None or values[s] < values[assaf]):
                assaf = s
        points = [values[s] if self._active(s) else 0 for s in range(n)]
        if assaf is None:
            points[caller] = 0
            winner = caller
        else:
            points[caller] = mine + self.options["assaf_penalty"]
            points[assaf] = 0
            winner = assaf
        halved = []
        for s in range(n):
            if points[s] > 0:
                self.totals[s] += points[s]
                # yaniv 2.5: landing exactly on a multiple of 50 halves the score.
                if self.totals[s] % 50 == 0:
                    self.totals[s] //= 2
                    halved.append(s)
        self.last_round = {
            "round": self.round_number,
            "caller": caller,
            "assaf": assaf,
            "hands": [in_hand_order(h) for h in self.hands],
            "points": points,
            "halved": halved,
            "wild_cards": {},
        }
        self.starter = winner  # yaniv 2.4: the round's winner starts the next one
        if self.options["ninety_rule"]:
            order = [(caller + k) % n for k in range(n)]
            self.ninety_queue = [s for s in order if points[s] > 0 and self.totals[s] == 90]
            if self.ninety_queue:
                self.phase = "ninety"
                return
        self._close_round()

    def _ninety(self, seat: int, draw: bool) -> None:
        """yaniv 2.5 optional: at exactly 90 a seat may draw a card from a well shuffled
        pack: a ten-valued card takes the score to 70, any other card adds its value."""
        self.ninety_queue.pop(0)
        if draw:
            pack = cards.deck(jokers=2)
            card = self.rng(f"ninety{seat}").choice(pack)
            value = VALUE[card]
            self.totals[seat] = 70 if value == 10 else 90 + value
            assert self.last_round is not None
            self.last_round["wild_cards"][str(seat)] = card
        if not self.ninety_queue:
            self._close_round()

    def _close_round(self) -> None:
        """yaniv 2.1: past the end score the game ends (fewest points wins), or, in the
        elimination variant, those players drop out until one is left."""
        limit = self.options["end_score"]
        busted = [s for s in range(self.num_players) if self._active(s) and self.totals[s] > limit]
        if busted:
            if self.options["ending"] == "lowest":
                self.over = True
                return
            for s in busted:
                self.out_round[s] = self.round_number
            if sum(1 for s in range(self.num_players) if self._active(s)) <= 1:
                self.over = True
                return
            if not self._active(self.starter):
                self.starter = self._next_active(self.starter)
        self.round_number += 1
        self._deal()

    def _scores(self) -> list[float]:
        """Fewest points is best; in the elimination variant, staying in longer comes first.
        A capped match counts the points so far."""
        if self.options["ending"] == "lowest":
            return [-float(t) for t in self.totals]
        out = []
        for s in range(self.num_players):
            lasted = self.out_round[s]
            stage = self.round_number + 1 if lasted is None else lasted
            out.append(1000.0 * stage - self.totals[s])
        return out

    def _observation(self, seat: int) -> dict[str, Any]:
        hand = self.hands[seat]
        return {
            "hand": in_hand_order(hand),
            "hand_value": hand_value(hand),
            "hand_sizes": [len(h) for h in self.hands],
            "known_cards": [in_hand_order(k) for k in self.known],
            "last_discard": list(self.last_discard),
            "my_discard": list(self.my_discard),
            "discard_pile": list(self.buried),
            "deck": len(self.deck),
            "phase": self.phase,
            "current": self.current,
            "starter": self.starter,
            "totals": list(self.totals),
            "active": [self._active(s) for s in range(self.num_players)],
            "round_number": self.round_number,
            "call_limit": self.options["call_limit"],
            "last_round": self.last_round,
            "options": dict(self.options),
        }

    def _resample(self, seat: int, rng: random.Random) -> None:
        """Re-deal the unseen cards of the other hands and the deck order. Cards a seat was
        seen taking from the pile stay in its hand; every other card goes back whence it
        could have come: the cards drawn from a rebuilt deck are dealt again from that deck's
        unseen cards, the rest from the cards that were never seen (yaniv 2.2)."""
        pools: dict[int, list[str]] = {self.rebuilds: list(self.deck)}
        for s, hand in enumerate(self.hands):
            if s == seat:
                continue
            rest = list(hand)
            for c in self.known[s]:
                rest.remove(c)
            for c, rebuild in self.redrawn[s]:
                rest.remove(c)
                pools.setdefault(rebuild, []).append(c)
            pools.setdefault(0, []).extend(rest)
        for pool in pools.values():
            rng.shuffle(pool)
        for s in range(self.num_players):
            if s == seat:
                continue
            redrawn = [[pools[rebuild].pop(), rebuild] for _, rebuild in self.redrawn[s]]
            dealt = len(self.hands[s]) - len(self.known[s]) - len(redrawn)
            self.hands[s] = [*self.known[s], *(c for c, _ in redrawn), *(pools[0].pop() for _ in range(dealt))]
            self.redrawn[s] = redrawn
        self.deck = pools[self.rebuilds]
