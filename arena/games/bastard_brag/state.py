"""The whole truth of one Bastard Brag match (Backpacker's Playing Cards, section 5)."""

from __future__ import annotations

import random
from typing import Any

from arena.games import State, cards, hidden

from .rules import HAND_SIZE, alternating_runs, beats, direction_after, opposite


class BastardBragState(State):
    """Phases: ``play`` (the seat in turn plays a run of one rank, a joker, or passes) and
    ``gift`` (bastard rule 5.4 with an empty pack: one holder at a time gives a card)."""

    # The schema a client's state must fit (``arena.games.schema``).
    card_fields = ("hands", "pack", "pile")
    seat_fields = ("turn", "last_player", "out", "gift_to", "giver")
    per_seat_fields = ("hands", "groups")
    choices = {"phase": frozenset({"play", "gift"}), "direction": frozenset({"up", "down"})}
    examples = {"last_action": {"seat": 0, "action": "play", "cards": ["2C"], "to": 0}}

    @classmethod
    def packs(cls, num_players: int, options: dict[str, Any]) -> list[str]:
        return cards.deck(jokers=2, copies=1 if num_players <= 6 else 2)  # 5.2

    def __init__(self, num_players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(num_players, seed, options)
        # 5.2: one pack of 54 cards; two packs shuffled together above six players.
        copies = 1 if num_players <= 6 else 2
        pack = cards.shuffled(cards.deck(jokers=2, copies=copies), self.rng("deal"))
        self.hands: list[list[str]] = [[] for _ in range(num_players)]
        cards.deal(pack, self.hands, HAND_SIZE)
        first = pack.pop()  # 5.2: the top card of the pack opens the discard pile
        self.pack = pack
        self.pile = [first]
        self.direction = direction_after(first, "up")
        self.open_lead = False  # any card may be led (after the bastard rule or a round of passes)
        self.turn = 0  # 5.3: the player left of the dealer starts
        self.last_player: int | None = None  # who played the top card
        self.passes = 0  # passes since the top card was played
        self.pass_denied = False  # 5.3: the previous player passed voluntarily
        self.out: list[int] = []  # seats in the order they got rid of their cards
        self.phase = "play"
        self.gift_to: int | None = None
        self.gift_left = 0
        self.giver: int | None = None
        self.last_action: dict[str, Any] | None = None
        # What every player can tell of each hand, for ``resample_hidden``: its cards in
        # groups by when they came, each group with the cards it cannot hold. A player who
        # had to pass held nothing that follows the top card (5.3); the card drawn after may
        # be anything. Each group is [count, sorted barred cards].
        self.groups: list[hidden.Groups] = [[[HAND_SIZE, []]] for _ in range(num_players)]

    # ----- helpers ------------------------------------------------------------------------
    def active(self) -> list[int]:
        return [s for s in range(self.num_players) if s not in self.out]

    def next_seat(self, seat: int) -> int:
        n = self.num_players
        seat = (seat + 1) % n
        while seat in self.out:
            seat = (seat + 1) % n
        return seat

    def free(self) -> bool:
        """Any card may go next: an open lead, or a joker on top (5.3 reset)."""
        return self.open_lead or cards.is_joker(self.pile[-1])

    def plays(self, seat: int) -> list[str]:
        """Every legal ``play`` action of ``seat`` now."""
        top = self.pile[-1]
        free = self.free()
        groups: dict[str, list[str]] = {}
        actions: set[str] = set()
        for card in self.hands[seat]:
            if card in cards.JOKERS:
                if self.follows(card):
                    actions.add("play " + card)
            elif free or beats(card[0], top[0], self.direction):
                # A rank's cards may run in alternating colours after the first (5.3).
                groups.setdefault(card[0], []).append(card)
        first = None if free else opposite(cards.colour(top))
        for group in groups.values():
            actions.update("play " + " ".join(run) for run in alternating_runs(group, first))
        return sorted(actions)

    def follows(self, card: str) -> bool:
        """Could ``card`` be played alone on the top card now? 5.3: a joker at any time
        (option: on the other colour only), else the other colour and higher (lower after an
        ace), anything on an open lead or a joker."""
        top = self.pile[-1]
        if card in cards.JOKERS:
            return self.open_lead or not self.options["coloured_jokers"] or cards.colour(card) != cards.colour(top)
        return self.free() or (cards.colour(card) != cards.colour(top) and beats(card[0], top[0], self.direction))

    def followers(self) -> list[str]:
        """Every card of the packs that ``follows`` now: what a player who must pass cannot
        be holding."""
        copies = 1 if self.num_players <= 6 else 2
        return sorted({card for card in cards.deck(jokers=2, copies=copies) if self.follows(card)})

    def _must_pass(self, seat: int) -> None:
        """``seat`` passes where it may not pass at will: none of its cards follows the top."""
        self.groups[seat] = hidden.bar(self.groups[seat], self.followers())

    # ----- the contract hooks -------------------------------------------------------------
    def _finished(self) -> bool:
        return len(self.out) >= self.num_players - 1

    def _to_act(self) -> tuple[int, ...]:
        if self.phase == "gift":
            assert self.giver is not None
            return (self.giver,)
        return (self.turn,)

    def _legal_actions(self, seat: int) -> list[str]:
        if self.phase == "gift":
            return sorted({f"give {c}" for c in self.hands[seat]})
        actions = self.plays(seat)
        if not actions or self._may_pass_freely(seat):
            actions.append("pass")
        return actions

    def _may_pass_freely(self, seat: int) -> bool:
        """5.3 voluntary pass: not right after someone else's, not with two players left,
        and not for the player facing his own card after everyone passed (5.4 "must")."""
        return not self.pass_denied and len(self.active()) > 2 and seat != self.last_player

    def _apply(self, seat: int, action: str) -> None:
        words = action.split()
        if words[0] == "play":
            self._play(seat, words[1:])
        elif words[0] == "pass":
            self._pass(seat)
        else:
            self._give(seat, words[1])

    def _play(self, seat: int, run: list[str]) -> None:
        for card in run:
            self.hands[seat].remove(card)
            self.groups[seat] = hidden.lose(self.groups[seat], card)
        self.pile.extend(run)
        self.direction = direction_after(run[-1], self.direction)
        self.open_lead = False
        self.last_player, self.passes, self.pass_denied = seat, 0, False
        self.last_action = {"seat": seat, "action": "play", "cards": list(run)}
        if not self.hands[seat]:
            self.out.append(seat)  # 5.3: players who play all their cards are out
        if not self._finished():
            self.turn = self.next_seat(seat)

    def _pass(self, seat: int) -> None:
        # apply() has just checked the action against the cached legal actions.
        voluntary = any(a != "pass" for a in self.legal_actions(seat))
        if not self._may_pass_freely(seat) and not self.free():
            self._must_pass(seat)  # everyone sees that it could not follow
        self.last_action = {"seat": seat, "action": "pass", "cards": []}
        if seat == self.last_player:
            self._bastard(seat)
            return
        if self.pack:
            self.hands[seat].append(self.pack.pop())  # 5.3: pass and draw
            hidden.gain(self.groups[seat], 1)
        self.passes += 1
        self.pass_denied = voluntary
        if self.passes >= len(self.active()):
            # The top card's player is out and no one could follow it: the next leads anew.
            self._open(seat)
            return
        self.turn = self.next_seat(seat)

    def _bastard(self, seat: int) -> None:
        """5.4: the interrupter draws one card for each other player of the round (eliminated
        ones too); once the pack is empty the holders to his left give him the rest."""
        due = self.num_players - 1
        while due and self.pack:
            self.hands[seat].append(self.pack.pop())
            hidden.gain(self.groups[seat], 1)
            due -= 1
        self.last_action = {"seat": seat, "action": "bastard", "cards": []}
        if due and len(self.active()) > 1:
            self.phase, self.gift_to, self.gift_left = "gift", seat, due
            self.giver = self.next_seat(seat)
            return
        self._open(seat)

    def _give(self, seat: int, card: str) -> None:
        assert self.gift_to is not None
        self.hands[seat].remove(card)
        self.hands[self.gift_to].append(card)
        self.groups[seat] = hidden.lose(self.groups[seat], None)  # only giver and taker see the card
        hidden.gain(self.groups[self.gift_to], 1)
        self.gift_left -= 1
        self.last_action = {"seat": seat, "action": "give", "cards": [], "to": self.gift_to}
        if not self.hands[seat]:
            self.out.append(seat)  # giving away the last card empties the hand too
        if self._finished():
            return
        giver = self.next_seat(seat)
        if giver == self.gift_to:
            giver = self.next_seat(giver)
        if self.gift_left and giver != self.gift_to:
            self.giver = giver
            return
        bastard = self.gift_to
        self.phase, self.gift_to, self.gift_left, self.giver = "play", None, 0, None
        self._open(bastard)

    def _open(self, seat: int) -> None:
        """The flow restarts: the next player left of ``seat`` may lead any card."""
        self.open_lead = True
        self.last_player, self.passes, self.pass_denied = None, 0, False
        self.direction = "up"
        self.turn = self.next_seat(seat)

    # ----- outcome ------------------------------------------------------------------------
    def _scores(self) -> list[float]:
        """The first out scores best, the bastard (last holding cards) worst. If the turn cap
        stops the match, seats still holding cards rank by how many they hold."""
        n = self.num_players
        scores = [0.0] * n
        for place, seat in enumerate(self.out):
            scores[seat] = float(n - 1 - place)
        for seat in self.active():
            scores[seat] = -float(len(self.hands[seat]))
        return scores

    # ----- what a seat sees ---------------------------------------------------------------
    def _observation(self, seat: int) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "hand": sorted(self.hands[seat]),
            "hand_counts": [len(h) for h in self.hands],
            "pack_count": len(self.pack),
            "pile": list(self.pile),
            "top": self.pile[-1],
            "direction": self.direction,
            "open_lead": self.free(),
            "turn": self.turn,
            "last_player": self.last_player,
            "passes": self.passes,
            "pass_denied": self.pass_denied,
            "out": list(self.out),
            "gift": None
            if self.phase != "gift"
            else {"to": self.gift_to, "left": self.gift_left, "giver": self.giver},
            "last_action": dict(self.last_action) if self.last_action else None,
        }

    def _resample(self, seat: int, rng: random.Random) -> None:
        """Re-deal the pack and every other hand, keeping the counts and what everyone knows
        of each hand: a group of cards held since a forced pass gets none of the cards that
        would have followed (the most constrained groups are dealt first; should no card be
        left that a group may hold, it takes any)."""
        pool = list(self.pack)
        for s in range(self.num_players):
            if s != seat:
                pool += self.hands[s]
        rng.shuffle(pool)
        for s in range(self.num_players):
            if s != seat:
                self.hands[s] = hidden.deal(pool, hidden.fitted(self.groups[s], len(self.hands[s])))
        self.pack = pool
