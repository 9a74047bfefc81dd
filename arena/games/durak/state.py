"""The whole truth of one game of Durak (rulebook section 3), one decision at a time.

A game runs in *bouts*: the main attacker leads, the defender beats each card or takes,
and the attackers, each asked in turn, throw in more cards of the ranks on the table or
say ``done``. Every one of those choices is a decision of its own seat (``to_act``).

While the defence is under way the attackers may join in too (durak 3.4.2, option
``throw_in_timing``): each step of the defence is then a simultaneous decision of the
defender and the attackers, revealed together once all have chosen (``pending``).
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import State, cards

from .cards import beats, groups, in_order, pack

REDEAL, LEAD, DEFEND, THROW_IN, OVER = "redeal", "lead", "defend", "throw_in", "over"


class DurakState(State):
    """One game of Durak. Attributes are JSON data only (see ``arena.games.base``)."""

    # The schema a client's state must fit (``arena.games.schema``).
    card_fields = ("attacks", "defences", "discards", "shown_trump", "hands", "known", "stock", "trump_card")
    seat_fields = ("dealer", "attacker", "defender", "window", "losers")
    per_seat_fields = ("pending", "hands", "known", "dealt_hidden")
    choices = {"phase": frozenset({REDEAL, LEAD, DEFEND, THROW_IN, OVER}), "direction": frozenset({1, -1}),
               "trump": frozenset(cards.SUITS)}

    @classmethod
    def packs(cls, num_players: int, options: dict[str, Any]) -> list[str]:
        return pack(options["pack"])

    def __init__(self, num_players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(num_players, seed, options)
        n = num_players
        # durak 3.7 Playing with 52 cards: nine cards each instead of six.
        self.hand_size = 6 if options["pack"] == 36 else 9
        # durak 3.4.1: in a later game the previous Durak (seat 0 here) shuffles and deals.
        self.dealer = n - 1 if options["later_game"] == "no" else 0
        self.teams: list[int] | None = [s % 2 for s in range(n)] if options["teams"] else None
        self.direction = 1  # +1 clockwise (to the left); shoving may reverse it (durak 3.7)
        self.redeals = 0
        self.attacker = -1
        self.defender = -1
        self.attacks: list[str] = []
        self.defences: list[str | None] = []
        self.taking = False
        self.window: list[int] = []  # the attackers asked for throw-ins, in order
        self.window_pos = 0
        self.pending: list[str | None] = [None] * n  # choices of a simultaneous defence step
        self.bout = 0
        self.discards: list[str] = []
        self.losers: list[int] = []
        self.shown_trump: str | None = None
        self.phase = REDEAL
        self.asked = 0
        self._deal()

    # ----- dealing ---------------------------------------------------------------------
    def _deal(self) -> None:
        """durak 4.2 Preparation: deal from the dealer's left, turn up the trump card."""
        n = self.num_players
        pile = cards.shuffled(pack(self.options["pack"]), self.rng(f"deal {self.redeals}"))
        self.hands: list[list[str]] = [[] for _ in range(n)]
        cards.deal(pile, [self.hands[(self.dealer + 1 + i) % n] for i in range(n)], self.hand_size)
        self.known: list[list[str]] = [[] for _ in range(n)]
        # Per seat: how many of its unseen cards must have been dealt, so cannot be trumps
        # below the one shown at the start (durak 3.4.1). Set when play starts.
        self.dealt_hidden = [0] * n
        self.hidden_bottom = False
        if pile:
            # The top card is turned face up under the pile: it is drawn last.
            trump_card = pile.pop()
            pile.insert(0, trump_card)
            if self.options["trump_change"] and len(pile) >= 2:
                # durak 3.7 Trump change: a face-down card goes under the trump card.
                pile.insert(0, pile.pop())
                self.hidden_bottom = True
        else:
            # durak 4.2: with no pile left the dealer's last card is shown and kept.
            trump_card = self.hands[self.dealer][-1]
            self.known[self.dealer].append(trump_card)
        self.stock = pile
        self.trump_card = trump_card
        self.trump = trump_card[1]
        self.asked = 0
        if self.options["redeal"]:
            self.phase = REDEAL
        else:
            self._first_bout()

    def _ask_seat(self) -> int:
        return (self.dealer + 1 + self.asked) % self.num_players

    def may_insist_on_redeal(self, seat: int) -> bool:
        """durak 4.2: five or more of one suit and not a single trump."""
        hand = self.hands[seat]
        if any(c[1] == self.trump for c in hand):
            return False
        return any(sum(1 for c in hand if c[1] == s) >= 5 for s in cards.SUITS)

    def _first_bout(self) -> None:
        """durak 3.4.1 Start of play."""
        n = self.num_players
        later = self.options["later_game"]
        if later == "durak_deals":
            self._begin_bout((self.dealer + 1) % n)
            return
        if later == "durak_attacked":
            self._begin_bout((self.dealer - 1) % n, defender=self.dealer)
            return
        lowest: tuple[int, int, str] | None = None
        for seat, hand in enumerate(self.hands):
            for c in hand:
                if c[1] == self.trump and (lowest is None or cards.RANK_VALUE[c[0]] < lowest[0]):
                    lowest = (cards.RANK_VALUE[c[0]], seat, c)
        if lowest is None:
            # Nobody holds a trump: the player to the dealer's left begins.
            self._count_dealt_hidden()
            self._begin_bout((self.dealer + 1) % n)
            return
        _, seat, card = lowest
        self.shown_trump = card  # shown to prove the claim, so it is public from now on
        if card not in self.known[seat]:
            self.known[seat].append(card)
        self._count_dealt_hidden()
        self._begin_bout(seat)

    def _count_dealt_hidden(self) -> None:
        self.dealt_hidden = [len(h) - len(k) for h, k in zip(self.hands, self.known, strict=True)]

    def barred_from_deal(self, card: str) -> bool:
        """durak 3.4.1: the lowest trump starts, so once it is shown everyone knows that no
        hand was dealt a lower trump (nor any trump when nobody could show one). Such a card
        can only have come into a hand from the stock or the table."""
        if not any(self.dealt_hidden) or card[1] != self.trump_card[1]:
            return False
        shown = self.shown_trump
        return shown is None or cards.RANK_VALUE[card[0]] < cards.RANK_VALUE[shown[0]]

    # ----- seats -----------------------------------------------------------------------
    def _opponent_after(self, seat: int, direction: int) -> int:
        """The next seat in ``direction`` that holds cards and may be attacked by ``seat``
        (durak 3.7 Team game: never a team mate); -1 if there is none."""
        n = self.num_players
        for k in range(1, n):
            other = (seat + k * direction) % n
            if self.hands[other] and (self.teams is None or self.teams[other] != self.teams[seat]):
                return other
        return -1

    def _begin_bout(self, attacker: int, defender: int = -1) -> None:
        self.attacker = attacker
        self.defender = defender if defender >= 0 else self._opponent_after(attacker, self.direction)
        self.attacks = []
        self.defences = []
        self.taking = False
        self.window = []
        self.window_pos = 0
        self.bout += 1
        self.phase = LEAD

    def attack_cap(self) -> int:
        """Most attack cards in this bout (durak 3.4.2; 3.7 with 52 cards: nine)."""
        limits = self.options["attack_limits"]
        if limits == "standard":
            return self.hand_size
        if self.bout == 1:
            return 5
        return 6 if limits == "5/6" else 7

    def room(self) -> int:
        """How many more attack cards may be laid now: the cap for the bout, and never
        more unbeaten cards than the defender holds (durak 3.4.2)."""
        unbeaten = self.defences.count(None)
        return min(self.attack_cap() - len(self.attacks), len(self.hands[self.defender]) - unbeaten)

    def _helpers(self) -> list[int]:
        """durak 3.4.2: "The player to the left of the defender may now enter the battle":
        with ``throw_in_timing`` ``during``, the seats that may add cards join every step of
        the defence while there is room, in no particular order (sorted)."""
        if self.options["throw_in_timing"] != "during" or self.taking or self.room() <= 0:
            return []
        return sorted(s for s in self._throw_in_order(shuffle=False) if self.hands[s])

    def _throw_in_order(self, shuffle: bool = True) -> list[int]:
        """Who may add cards, in the order they are asked (durak 3.4.2, 3.7 Team game)."""
        n, d = self.num_players, self.direction
        around = [(self.attacker + k * d) % n for k in range(1, n)]
        if self.teams is not None:
            mates = [s for s in around if self.teams[s] == self.teams[self.attacker]]
            return [self.attacker, *mates]
        style = self.options["throw_ins"]
        if style == "neighbour":
            # The defender's left neighbour (the next one still holding cards) joins in.
            order = [self.attacker]
            for k in range(1, n):
                other = (self.defender + k * d) % n
                if self.hands[other]:
                    if other not in (self.attacker, self.defender):
                        order.append(other)
                    break
            return order
        others = [s for s in around if s != self.defender]
        if style == "any":
            others = [self.attacker, *others]
            if shuffle:
                self.rng("throw-in order").shuffle(others)
            return others
        return [self.attacker, *others]

    # ----- the contract hooks -------------------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        phase = self.phase
        if phase == DEFEND:
            deciding = [self.defender, *self._helpers()]
            return tuple(sorted(s for s in deciding if self.pending[s] is None))
        if phase == THROW_IN:
            return (self.window[self.window_pos],)
        if phase == LEAD:
            return (self.attacker,)
        if phase == REDEAL:
            return (self._ask_seat(),)
        return ()

    def _finished(self) -> bool:
        return self.phase == OVER

    def _legal_actions(self, seat: int) -> list[str]:
        phase = self.phase
        hand = self.hands[seat]
        if phase == REDEAL:
            return ["keep", "redeal"] if self.may_insist_on_redeal(seat) else ["keep"]
        if phase == DEFEND and seat == self.defender:
            return self._defences(hand)
        room = self.room()
        by_rank: dict[str, list[str]] = {}
        for c in hand:
            by_rank.setdefault(c[0], []).append(c)
        if phase == LEAD:
            # durak 3.4.2: one or more cards of one rank.
            return ["attack " + g for same in by_rank.values() for g in groups(same, room)]
        # durak 3.4.2: only ranks already on the table may be added; "done" adds nothing
        # (now, while the defence is under way).
        on_table = {c[0] for c in self.attacks}
        on_table.update(c[0] for c in self.defences if c is not None)
        out = ["done"]
        for r, same in by_rank.items():
            if r in on_table:
                out.extend("attack " + g for g in groups(same, room))
        return out

    def _defences(self, hand: list[str]) -> list[str]:
        trump = self.trump
        out = ["take"]
        for a, d in zip(self.attacks, self.defences, strict=True):
            if d is None:
                out.extend(f"defend {a} {c}" for c in hand if beats(c, a, trump))
        if self.options["shoving"] != "off" and all(d is None for d in self.defences):
            out.extend(self._shoves(hand))
        return out

    def _shoves(self, hand: list[str]) -> list[str]:
        """durak 3.7 Shoving: pass the attack on with cards of the attacked rank (no trumps)."""
        r = self.attacks[0][0]
        mine = [c for c in hand if c[0] == r and c[1] != self.trump]
        if not mine:
            return []
        laid = len(self.attacks)
        targets = [(self._opponent_after(self.defender, self.direction), "")]
        if self.options["shove_direction"]:
            back = self._opponent_after(self.defender, -self.direction)
            if back != targets[0][0]:
                targets.append((back, " reverse"))
        out = []
        for target, suffix in targets:
            if target < 0:
                continue
            most = min(self.attack_cap() - laid, len(self.hands[target]) - laid)
            for g in groups(mine, most):
                if self.options["shoving"] == "match" and g.count(" ") + 1 != laid:
                    continue
                out.append("shove " + g + suffix)
        return out

    def _apply(self, seat: int, action: str) -> None:
        if self.phase == DEFEND:
            self.pending[seat] = action
            if not self._to_act():
                self._resolve_defence_step()
            return
        self._resolve(seat, action)

    def _resolve_defence_step(self) -> None:
        """Every seat of the step has chosen: lay the throw-ins, in throw-in order while they
        fit, then the defender's move. A shove passes the attack on before anything lands."""
        choices, self.pending = self.pending, [None] * self.num_players
        defence = choices[self.defender]
        assert defence is not None
        if not defence.startswith("shove"):
            for helper in self._throw_in_order():
                laid = (choices[helper] or "done").split()[1:]
                if helper != self.defender and laid and len(laid) <= self.room():
                    self._add_attacks(helper, laid)
        self._resolve(self.defender, defence)

    def _resolve(self, seat: int, action: str) -> None:
        words = action.split()
        verb = words[0]
        if verb == "attack":
            self._lay(seat, words[1:])
        elif verb == "defend":
            self._play_card(seat, words[2])
            self.defences[self.attacks.index(words[1])] = words[2]
            if None not in self.defences:
                self._open_window()
        elif verb == "done":
            self.window_pos += 1
            self._next_in_window()
        elif verb == "take":
            # durak 3.4.3: the attackers may still add cards before he picks up.
            self.taking = True
            self._open_window()
        elif verb == "shove":
            self._shove(seat, words[1:])
        elif verb == "keep":
            self.asked += 1
            if self.asked == self.num_players:
                self._first_bout()
        else:  # redeal
            self.redeals += 1
            self._deal()

    def _play_card(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        known = self.known[seat]
        if card in known:
            known.remove(card)
        elif self.dealt_hidden[seat] and not self.barred_from_deal(card):
            # As far as the others can tell it may have been one of the dealt cards.
            self.dealt_hidden[seat] -= 1

    def _add_attacks(self, seat: int, laid: list[str]) -> None:
        for c in laid:
            self._play_card(seat, c)
        self.attacks.extend(laid)
        self.defences.extend([None] * len(laid))

    def _lay(self, seat: int, laid: list[str]) -> None:
        self._add_attacks(seat, laid)
        if self.phase == THROW_IN and self.taking:
            # After a take the same attacker may add another rank or say done.
            self._next_in_window()
        else:
            self.phase = DEFEND

    def _shove(self, seat: int, words: list[str]) -> None:
        if words[-1] == "reverse":
            words = words[:-1]
            self.direction = -self.direction
        self._add_attacks(seat, words)
        # The shover becomes the main attacker of the bout, the next player defends.
        self.attacker = seat
        self.defender = self._opponent_after(seat, self.direction)

    def _open_window(self) -> None:
        self.phase = THROW_IN
        self.window = self._throw_in_order()
        self.window_pos = 0
        self._next_in_window()

    def _next_in_window(self) -> None:
        """Skip attackers without cards; close the bout when nobody may add more."""
        window, hands = self.window, self.hands
        while self.window_pos < len(window) and not hands[window[self.window_pos]]:
            self.window_pos += 1
        if self.window_pos >= len(window) or self.room() <= 0:
            self._end_bout()

    def _end_bout(self) -> None:
        """durak 3.4.3 and 3.6: the cards go to the discards or to the taker, then everyone
        draws: the main attacker first, then clockwise, the defender last."""
        table = self.attacks + [c for c in self.defences if c is not None]
        taken = self.taking
        if taken:
            self.hands[self.defender].extend(table)
            self.known[self.defender].extend(table)
        else:
            self.discards.extend(table)
        self.attacks, self.defences, self.window = [], [], []
        for seat in self.draw_order():
            self._draw(seat)
        holders = [s for s in range(self.num_players) if self.hands[s]]
        if self.teams is not None:
            teams_left = {self.teams[s] for s in holders}
            if len(teams_left) <= 1:
                # The team left holding cards loses together, members already out too.
                self.losers = [s for s in range(self.num_players) if self.teams[s] in teams_left]
                self.phase = OVER
                return
        elif len(holders) <= 1:
            # durak 3.6: the last one holding cards is the Durak; nobody left is a draw.
            self.losers = holders
            self.phase = OVER
            return
        n, d = self.num_players, self.direction
        # durak 3.3: a successful defender attacks next; after a take his neighbour does.
        start = self.defender if not taken else (self.defender + d) % n
        for k in range(n):
            seat = (start + k * d) % n
            if self.hands[seat] and self._opponent_after(seat, d) >= 0:
                self._begin_bout(seat)
                return
        raise AssertionError("no attacker found in an unfinished game")

    def draw_order(self) -> list[int]:
        """durak 3.6: the main attacker, then clockwise round the table, the defender last."""
        n, d = self.num_players, self.direction
        around = [(self.attacker + k * d) % n for k in range(n)]
        return [s for s in around if s != self.defender] + [self.defender]

    def _draw(self, seat: int) -> None:
        hand, stock = self.hands[seat], self.stock
        while len(hand) < self.hand_size and stock:
            card = stock.pop()
            hand.append(card)
            if card == self.trump_card:
                self.known[seat].append(card)  # it lay face up: everyone saw who took it
            elif self.hidden_bottom and not stock:
                # durak 3.7 Trump change: the last card is shown and names the new trump.
                self.hidden_bottom = False
                self.trump = card[1]
                self.known[seat].append(card)

    def _scores(self) -> list[float]:
        if self.phase == OVER:
            return [0.0 if s in self.losers else 1.0 for s in range(self.num_players)]
        # The turn cap ended the game: fewer cards in hand is the better standing.
        return [-float(len(h)) for h in self.hands]

    def _observation(self, seat: int) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "pack": self.options["pack"],
            "hand": in_order(self.hands[seat]),
            "trump": self.trump,
            "trump_card": self.trump_card,
            "trump_card_in_stock": self.trump_card in self.stock,
            "hidden_bottom_card": self.hidden_bottom,
            "stock_count": len(self.stock),
            "hand_counts": [len(h) for h in self.hands],
            "known_cards": [in_order(k) for k in self.known],
            "discards": list(self.discards),
            "table": [
                {"attack": a, "defence": d}
                for a, d in zip(self.attacks, self.defences, strict=True)
            ],
            "attacker": self.attacker,
            "defender": self.defender,
            "direction": self.direction,
            "taking": self.taking,
            "room": self.room() if self.phase in (LEAD, DEFEND, THROW_IN) else 0,
            "attack_cap": self.attack_cap(),
            "bout": self.bout,
            "throw_in_order": list(self.window),
            "dealer": self.dealer,
            "redeals": self.redeals,
            "shown_trump": self.shown_trump,
            "teams": self.teams,
            "losers": list(self.losers) if self.phase == OVER else [],
        }

    def _resample(self, seat: int, rng: random.Random) -> None:
        """Re-deal the other hands' unknown cards and the face-down stock, keeping the known
        cards in their hands and the face-up trump card in its place; a hand's cards that
        must have been dealt get no trump below the one shown (durak 3.4.1)."""
        stock = self.stock
        face_up = [i for i, c in enumerate(stock) if c == self.trump_card]
        pool = [c for i, c in enumerate(stock) if i not in face_up]
        others = [s for s in range(self.num_players) if s != seat]
        unknown = {}
        for other in others:
            known = self.known[other]
            hidden = [c for c in self.hands[other] if c not in known]
            unknown[other] = len(hidden)
            pool.extend(hidden)
        rng.shuffle(pool)
        free = [c for c in pool if not self.barred_from_deal(c)]
        rest = [c for c in pool if self.barred_from_deal(c)]
        dealt = {s: [free.pop() for _ in range(min(self.dealt_hidden[s], unknown[s], len(free)))] for s in others}
        rest.extend(free)
        rng.shuffle(rest)
        for other in others:
            drawn = [rest.pop() for _ in range(unknown[other] - len(dealt[other]))]
            self.hands[other] = [*self.known[other], *dealt[other], *drawn]
        self.stock = [c if i in face_up else rest.pop() for i, c in enumerate(stock)]
        for other in others:
            if self.pending[other] is not None:
                # Its choice in this step is unseen: any choice its new hand allows.
                self.pending[other] = rng.choice(self._legal_actions(other))
