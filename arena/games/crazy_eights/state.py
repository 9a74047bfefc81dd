"""The whole truth of one Crazy 8s match (Backpacker's Playing Cards, section 4).

Cards are strings ``rank + suit``; piles are lists whose end is the top. Crazy 8s is the
arena's speed benchmark against OpenSpiel, so the hot path of a random playout works on plain
lists and the prebuilt ids of ``actions``, and the public ``to_act`` / ``legal_actions`` /
``apply`` are inlined (same behaviour as the base class, checked by the game's tests): a
decision costs a few microseconds.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import State, cards

from .actions import DRAW, PARSE, PASS, PENALTY_DRAW, PLAY, PLAY_AND_CALL

# crazy_eights 4.2: penalty points equal the card value; J, Q, K, A count 10.
POINTS = {c: (int(c[0]) if c[0].isdigit() else 10) for c in cards.deck()}

PACKS = {copies: cards.deck(copies=copies) for copies in (1, 2)}  # crazy_eights 4.1, no jokers
TURN_CAP = 20_000  # the game's turn_cap
SEATS = tuple((seat,) for seat in range(10))

TWO = "two"  # stacked draw-two penalty (DATA 5.4)
BLACK_JACK = "black_jack"  # draw five from a black jack, cancelled by a red jack (DATA 5.4)


def follows(card: str, rank: str, suits: str) -> bool:
    """Whether ``card`` is of ``rank`` or one of ``suits``, or an eight: what a void lacks."""
    return card[0] == "8" or card[0] == rank or card[1] in suits


class CrazyEightsState(State):
    """One match: one hand, or hands until a target score (option ``target_score``)."""

    # The schema a client's state must fit (``arena.games.schema``).
    card_fields = ("hands", "discard", "draw_pile", "drawn")
    seat_fields = ("current", "dealer")
    per_seat_fields = ("totals", "hands", "last_card", "voids")
    choices = {"phase": frozenset({"play", "drawn"}), "direction": frozenset({1, -1}),
               "wish": frozenset({None, *cards.SUITS}), "penalty_kind": frozenset({"", TWO, BLACK_JACK})}
    examples = {"last_hand": {"winner": 0, "points": [0], "blocked": False}}
    optional_fields = ("voids",)  # see _restore

    @classmethod
    def packs(cls, num_players: int, options: dict[str, Any]) -> list[str]:
        return PACKS[options["decks"]]

    def __init__(self, num_players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(num_players, seed, options)
        self.totals = [0] * num_players  # penalty points of finished hands
        self.hand_number = 0
        self.dealer = num_players - 1  # so that seat 0, left of the dealer, starts
        self.last_hand: dict[str, Any] | None = None
        self.over = False
        self._deal()

    # ----- dealing and drawing ---------------------------------------------------------
    def _deal(self) -> None:
        """crazy_eights 4.2: 5 cards each (7 with two players); the top card of the draw
        pile opens the discard pile. The opening card has no effect (nobody played it)."""
        n = self.num_players
        pack = cards.shuffled(PACKS[self.options["decks"]], self.rng(f"deal{self.hand_number}"))
        self.hands: list[list[str]] = [[] for _ in range(n)]
        cards.deal(pack, self.hands, 7 if n == 2 else 5)
        self.discard = [pack.pop()]
        self.draw_pile = pack
        self.current = (self.dealer + 1) % n
        self.direction = 1
        self.wish: str | None = None  # suit wished by an eight; binds only self.current
        self.penalty = 0  # cards self.current must draw unless it counters
        self.penalty_kind = ""
        self.phase = "play"  # or "drawn": Fastplay, deciding on the card just drawn
        self.drawn: str | None = None
        self.passes = 0  # consecutive passes with nothing to play nor draw, no wish in force
        self.last_card = [False] * n  # who has called "Last card!" and still holds one card
        # Voids shown by forced draws (crazy_eights 4.2: a player draws only when unable to
        # play): per seat, [rank, suits, held]: at least ``held`` cards of the hand follow
        # neither the rank nor the suits, nor are eights. Public: derived from the plays.
        self.voids: list[list[list[Any]]] = [[] for _ in range(n)]

    def _can_draw(self) -> bool:
        return bool(self.draw_pile) or (self.options["reshuffle"] and len(self.discard) > 1)

    def _draw_cards(self, seat: int, count: int) -> str | None:
        """Move up to ``count`` cards to ``seat``; returns the last card drawn. When the draw
        pile is empty play continues without drawing (crazy_eights 4.2), unless option
        ``reshuffle`` turns the discard pile, all but its top card, into a new draw pile."""
        hand = self.hands[seat]
        pile = self.draw_pile
        card = None
        for _ in range(count):
            if not pile:
                if not (self.options["reshuffle"] and len(self.discard) > 1):
                    break
                pile.extend(cards.shuffled(self.discard[:-1], self.rng(f"reshuffle{len(hand)}")))
                del self.discard[:-1]
            card = pile.pop()
            hand.append(card)
        self.last_card[seat] = False
        return card

    # ----- the contract hooks ----------------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        return SEATS[self.current]

    def _finished(self) -> bool:
        return self.over

    # ----- the public contract, inlined ---------------------------------------------------
    # Random playouts are what bots and benchmarks run most. These four methods keep the
    # base class's behaviour exactly (sorted cached ids, the turn cap, rejected actions
    # leave the state untouched, via the base class) but skip its layers of calls.
    def to_act(self) -> tuple[int, ...]:
        """Seats that must decide now: the seat in turn; () once the match is over."""
        if self.over or self.moves >= TURN_CAP:
            return ()
        return SEATS[self.current]

    def is_terminal(self) -> bool:
        """True when the match is over: by the rules, or the turn cap."""
        return self.over or self.moves >= TURN_CAP

    def legal_actions(self, seat: int) -> list[str]:
        """Sorted, stable action ids for ``seat`` (empty if it need not act)."""
        cached = self._legal.get(seat)
        if cached is None:
            if seat == self.current and not self.over and self.moves < TURN_CAP:
                cached = self._legal_actions(seat)
                cached.sort()
            else:
                cached = []
            self._legal[seat] = cached
        return cached[:]

    def apply(self, seat: int, action: str) -> None:
        """Apply ``seat``'s ``action``; ``IllegalAction`` (state unchanged) unless legal."""
        cached = self._legal.get(seat) if seat.__class__ is int else None
        if cached is None or action.__class__ is not str or action not in cached:
            super().apply(seat, action)  # fills the cache, or raises as the contract says
            return
        self._apply(seat, action)
        self.moves += 1
        self._legal = {}

    def _playable(self, card: str) -> bool:
        """crazy_eights 4.2.1: same suit or rank as the top card, or an eight; after an eight
        only the wished suit (or another eight) for the one player the wish binds."""
        if card[0] == "8":
            return True
        wish = self.wish
        if wish is not None:
            return card[1] == wish
        top = self.discard[-1]
        return card[0] == top[0] or card[1] == top[1]

    def _legal_actions(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        if self.penalty or self.phase != "play":
            return self._reactions(hand)
        # "Last card!" is called with the second-to-last card (crazy_eights 4.3).
        table = PLAY_AND_CALL if (len(hand) == 2 and self.options["last_card"]) else PLAY
        wish = self.wish
        if wish is None:
            top = self.discard[-1]
            tr = top[0]
            ts = top[1]
            out = [a for c in hand if c[0] == "8" or c[0] == tr or c[1] == ts for a in table[c]]
        else:
            out = [a for c in hand if c[0] == "8" or c[1] == wish for a in table[c]]
        if not out:
            # crazy_eights 4.2: unable to play, a card must be drawn; none left: pass.
            return [DRAW if self._can_draw() else PASS]
        if self.options["decks"] == 2:
            out = list(dict.fromkeys(out))  # two packs: the same card twice in a hand
        return out

    def _reactions(self, hand: list[str]) -> list[str]:
        """Legal actions while a draw penalty is pending or a Fastplay card was drawn."""
        table = PLAY_AND_CALL if (len(hand) == 2 and self.options["last_card"]) else PLAY
        out: list[str] = []
        if self.penalty:
            # DATA 5.4: a two may be stacked on a two; a red jack cancels a black jack.
            if self.penalty_kind == TWO:
                counters = [c for c in hand if c[0] == "2"]
            else:
                counters = [c for c in hand if c[0] == "J" and c[1] in "DH"]
            for c in dict.fromkeys(counters):
                out += table[c]
            out.append(PENALTY_DRAW[self.penalty])
        else:
            # crazy_eights 4.3 Fastplay: the drawn card may be played at once, or kept.
            drawn = self.drawn
            assert drawn is not None
            out += table[drawn]
            out.append(PASS)
        return out

    def _apply(self, seat: int, action: str) -> None:
        parsed = PARSE.get(action)
        if parsed is not None:
            self._play(seat, *parsed)
        elif action == DRAW:
            self._record_void(seat)
            self.passes = 0
            card = self._draw_cards(seat, 1)
            if self.options["fastplay"] and card is not None and self._playable(card):
                self.phase = "drawn"
                self.drawn = card
                return
            self._end_turn(seat, False)
        elif action == PASS:
            if self.phase == "drawn":
                self.phase = "play"
                self.drawn = None
            else:
                self._record_void(seat)  # nothing to play nor to draw
                if self.wish is None:
                    # Nothing to play nor draw, and no wish in force: once every seat has
                    # passed in a row on the same top card, nobody will ever play again.
                    self.passes += 1
                    if self.passes >= self.num_players:
                        self._end_hand(None)
                        return
            self._end_turn(seat, False)
        else:  # "draw N": accept the penalty and miss the turn (DATA 5.4)
            self.passes = 0
            self._draw_cards(seat, self.penalty)
            self.penalty = 0
            self.penalty_kind = ""
            self._end_turn(seat, False)

    def _record_void(self, seat: int) -> None:
        """crazy_eights 4.2: ``seat`` draws (or passes) because no card of its hand can be
        played: none follows the top card (or the wish), none is an eight."""
        wish = self.wish
        rank, suits = ("", wish) if wish is not None else (self.discard[-1][0], self.discard[-1][1])
        if self.hands[seat]:
            self.voids[seat].append([rank, suits, len(self.hands[seat])])

    def _played_from(self, seat: int, card: str) -> None:
        """A card played that was not shown lacking may be one of the cards a void binds:
        one fewer of them is certainly still held. A card that was shown lacking was drawn
        since, and leaves the void's count as it was."""
        kept = []
        for void in self.voids[seat]:
            if not follows(card, void[0], void[1]):
                void[2] -= 1
            if void[2] > 0:
                kept.append(void)
        self.voids[seat] = kept

    def _end_turn(self, seat: int, skip: bool) -> None:
        self.wish = None
        step = self.direction
        nxt = (seat + step) % self.num_players
        if skip:
            nxt = (nxt + step) % self.num_players
        self.current = nxt

    def _play(self, seat: int, card: str, wish: str, called: bool) -> None:
        hand = self.hands[seat]
        hand.remove(card)
        self.discard.append(card)
        self.passes = 0
        if self.voids[seat]:
            self._played_from(seat, card)
        self.phase = "play"
        self.drawn = None
        if not hand:
            self._end_hand(seat)  # crazy_eights 4.2: the first to discard all cards wins
            return
        options = self.options
        if options["last_card"] and len(hand) == 1:
            # crazy_eights 4.3 "Last card!": without the call, 2 penalty cards.
            if called:
                self.last_card[seat] = True
            else:
                self._draw_cards(seat, 2)
        skip = False
        rank = card[0]
        if rank == "2":
            if options["draw_two"]:
                self.penalty += 2
                self.penalty_kind = TWO
        elif rank == "J":
            if options["black_jack"]:
                if card[1] in "CS":
                    self.penalty = 5
                    self.penalty_kind = BLACK_JACK
                elif self.penalty_kind == BLACK_JACK:
                    self.penalty = 0
                    self.penalty_kind = ""
        elif rank == "Q":
            if card == "QS" and options["queen_of_spades"]:
                victim = (seat + self.direction) % self.num_players
                self._draw_cards(victim, 5)
                skip = True
            elif options["queen_skip"]:
                skip = True
        elif rank == "A" and options["ace_reverse"]:
            self.direction = -self.direction
            # With two players a reverse gives the same player another turn.
            skip = self.num_players == 2
        self._end_turn(seat, skip)
        if wish:
            self.wish = wish

    def _end_hand(self, winner: int | None) -> None:
        """Score the hand: the others' cards are penalty points (crazy_eights 4.2). A blocked
        hand (``winner`` None) charges every seat its own cards."""
        points = [sum(POINTS[c] for c in hand) for hand in self.hands]
        for s in range(self.num_players):
            self.totals[s] += points[s]
        self.last_hand = {"winner": winner, "points": points, "blocked": winner is None}
        target = self.options["target_score"]
        if target == 0 or max(self.totals) >= target:
            self.over = True
            return
        self.hand_number += 1
        self.dealer = (self.dealer + 1) % self.num_players
        self._deal()

    def _scores(self) -> list[float]:
        """Fewer penalty points is better; a capped match also counts the cards in hand."""
        if self.over:
            return [-float(t) for t in self.totals]
        return [-float(t + sum(POINTS[c] for c in h)) for t, h in zip(self.totals, self.hands, strict=True)]

    def _observation(self, seat: int) -> dict[str, Any]:
        obs: dict[str, Any] = {
            "hand": cards.sort_cards(self.hands[seat]),
            "top_card": self.discard[-1],
            "discard_pile": list(self.discard),
            "draw_pile": len(self.draw_pile),
            "hand_sizes": [len(h) for h in self.hands],
            "current": self.current,
            "direction": self.direction,
            "wish": self.wish,
            "penalty": self.penalty,
            "penalty_kind": self.penalty_kind,
            "phase": self.phase,
            "drawn": self.drawn if seat == self.current else None,
            "last_card": list(self.last_card),
            "passes": self.passes,
            "totals": list(self.totals),
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "last_hand": self.last_hand,
            "options": dict(self.options),
        }
        return obs

    def _restore(self) -> None:
        if "voids" not in self.__dict__:  # states written before voids were recorded
            self.voids = [[] for _ in range(self.num_players)]

    def _resample(self, seat: int, rng: random.Random) -> None:
        """Re-deal the other hands and the draw pile from the cards ``seat`` cannot see,
        keeping what the others have shown: a Fastplay decision shows that the drawn card is
        playable, so it stays playable; a forced draw shows a void (``voids``), so the
        cards it binds still follow neither the top card of that moment nor its wish. A
        few re-deals that cannot keep every void give way to the world as it is."""
        for _ in range(8):
            dealt = self._redeal(seat, rng)
            if dealt is not None:
                self.hands, self.draw_pile, drawn = dealt
                if drawn is not None:
                    self.drawn = drawn
                return

    def _redeal(self, seat: int, rng: random.Random) -> tuple[list[list[str]], list[str], str | None] | None:
        pool = list(self.draw_pile)
        for s, hand in enumerate(self.hands):
            if s != seat:
                pool += hand
        rng.shuffle(pool)
        fastplay_other = self.phase == "drawn" and self.current != seat
        drawn = None
        if fastplay_other:
            pick = next(i for i, c in enumerate(pool) if self._playable(c))
            drawn = pool.pop(pick)
        hands = [list(h) for h in self.hands]
        for s, hand in enumerate(self.hands):
            if s == seat:
                continue
            keep_drawn = fastplay_other and s == self.current
            size = len(hand) - keep_drawn
            new = [pool.pop() for _ in range(size)]
            if self.voids[s] and not _keep_voids(new, pool, self.voids[s], rng):
                return None
            # The card just drawn stays the last of the hand, as _draw_cards put it.
            hands[s] = new + [drawn] if keep_drawn and drawn is not None else new
        return hands, pool, drawn


def _keep_voids(hand: list[str], pool: list[str], voids: list[list[Any]], rng: random.Random) -> bool:
    """Swap cards of ``hand`` with cards of ``pool`` until every void holds (at least its
    count of cards follows neither its rank nor its suits); False if that fails."""
    for _ in range(4 * len(hand) + 8):
        broken = next((v for v in voids if sum(not follows(c, v[0], v[1]) for c in hand) < v[2]), None)
        if broken is None:
            return True
        rank, suits = broken[0], broken[1]
        out = [i for i, c in enumerate(hand) if follows(c, rank, suits)]
        into = [j for j, c in enumerate(pool) if not follows(c, rank, suits)]
        if not out or not into:
            return False
        i, j = rng.choice(out), rng.choice(into)
        hand[i], pool[j] = pool[j], hand[i]
    return all(sum(not follows(c, v[0], v[1]) for c in hand) >= v[2] for v in voids)
