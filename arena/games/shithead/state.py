"""The whole truth of one Shithead match (Backpacker's Playing Cards, section 1)."""

from __future__ import annotations

import random
from typing import Any

from arena.games import State, cards, hidden

from .rules import (
    HAND_SIZE,
    OPENING_ORDER,
    SWAPS,
    burns,
    can_play,
    discard_known,
    multiples,
    remove_cards,
    same_rank_groups,
    skips,
    to_beat,
)


class ShitheadState(State):
    """Phases: ``swap`` (every seat at once arranges its face-up cards, shithead 1.3), then
    ``play``. With cutting in on, every play opens a ``cut`` window: a simultaneous decision
    of every other seat that is not playing blind (DATA 5.3)."""

    # The schema a client's state must fit (``arena.games.schema``).
    card_fields = ("face_down", "face_up", "dealt_up", "hands", "pack", "pile", "burned", "known")
    seat_fields = ("turn", "out", "cut_by", "cut_seats")
    per_seat_fields = ("face_down", "face_up", "dealt_up", "hands", "known", "groups", "ready", "swaps_left",
                       "cut_choice")
    choices = {"phase": frozenset({"swap", "play"}), "opening": frozenset({None, *cards.RANKS}),
               "cut_rank": frozenset({None, *cards.RANKS})}
    examples = {"last_play": {"seat": 0, "cards": ["2C"], "blind": False, "took": False}}

    @classmethod
    def packs(cls, num_players: int, options: dict[str, Any]) -> list[str]:
        return cards.deck(copies=options["decks"])

    def __init__(self, num_players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(num_players, seed, options)
        pack = cards.shuffled(cards.deck(copies=options["decks"]), self.rng("deal"))
        n = num_players
        # shithead 1.3: three face down, three face up on top, then three in hand.
        down: list[list[str]] = [[] for _ in range(n)]
        up: list[list[str]] = [[] for _ in range(n)]
        hands: list[list[str]] = [[] for _ in range(n)]
        cards.deal(pack, down, HAND_SIZE)
        cards.deal(pack, up, HAND_SIZE)
        cards.deal(pack, hands, HAND_SIZE)
        self.face_down: list[list[str | None]] = [list(d) for d in down]  # slots 1..3, None once played
        self.face_up = up
        self.dealt_up = [list(u) for u in up]  # what everyone saw dealt face up
        self.hands = hands
        self.pack = pack  # the draw pile; its top is the end of the list
        self.pile: list[str] = []  # the discard pile, bottom first
        self.burned: list[str] = []
        self.known: list[list[str]] = [[] for _ in range(n)]  # cards everyone knows are in a hand
        # The rest of each hand, as everyone can tell it (``arena.games.hidden``): a player who
        # had to take the pile held no unknown card whose rank fitted it (1.4.1.3).
        self.groups: list[hidden.Groups] = [[] for _ in range(n)]
        self.phase = "swap"
        self.ready = [False] * n
        self.swaps_left = [SWAPS] * n
        self.turn = 0
        self.opening: str | None = None  # the rank the opener must lead with
        self.out: list[int] = []  # seats in the order they got rid of all their cards
        self.last_play: dict[str, Any] | None = None
        self.cut_rank: str | None = None  # the rank a cut-in must match while the window is open
        self.cut_by: int | None = None  # who played that rank
        self.cut_choice: list[str | None] = [None] * n
        self.cut_seats: list[int] = []

    # ----- who holds what ---------------------------------------------------------------
    def down_count(self, seat: int) -> int:
        return sum(1 for c in self.face_down[seat] if c is not None)

    def holds_cards(self, seat: int) -> bool:
        return bool(self.hands[seat] or self.face_up[seat] or self.down_count(seat))

    def source(self, seat: int) -> str:
        """Where ``seat`` plays from (shithead 1.4.3): hand, then face up, then face down."""
        if self.hands[seat]:
            return "hand"
        if self.face_up[seat]:
            return "up"
        return "down"

    def active(self) -> list[int]:
        return [s for s in range(self.num_players) if s not in self.out]

    def next_seat(self, seat: int, steps: int = 1) -> int:
        """The ``steps``-th seat clockwise from ``seat`` that still holds cards."""
        n = self.num_players
        for _ in range(steps):
            seat = (seat + 1) % n
            while seat in self.out:
                seat = (seat + 1) % n
        return seat

    # ----- the contract hooks -------------------------------------------------------------
    def _finished(self) -> bool:
        return len(self.out) >= self.num_players - 1

    def _to_act(self) -> tuple[int, ...]:
        if self.phase == "swap":
            return tuple(s for s in range(self.num_players) if not self.ready[s])
        if self.cut_rank is not None:
            return tuple(s for s in self.cut_seats if self.cut_choice[s] is None)
        return (self.turn,)

    def _legal_actions(self, seat: int) -> list[str]:
        if self.phase == "swap":
            return self._swap_actions(seat)
        if self.cut_rank is not None:
            return self._cut_actions(seat)
        return self._turn_actions(seat)

    def _swap_actions(self, seat: int) -> list[str]:
        actions = {"ready"}
        if self.swaps_left[seat] > 0:
            for up in self.face_up[seat]:
                for held in self.hands[seat]:
                    if up != held:
                        actions.add(f"swap {up} {held}")
        return list(actions)

    def _cut_actions(self, seat: int) -> list[str]:
        actions = ["pass"]
        held = self.hands[seat] if self.hands[seat] else self.face_up[seat]
        prefix = "cut " if self.hands[seat] else "cut up "
        group = [c for c in sorted(held) if c[0] == self.cut_rank]
        actions += [prefix + " ".join(m) for m in multiples(group)]
        return actions

    def _turn_actions(self, seat: int) -> list[str]:
        where = self.source(seat)
        if where == "down":
            return [f"play down {i + 1}" for i, c in enumerate(self.face_down[seat]) if c is not None]
        held = self.hands[seat] if where == "hand" else self.face_up[seat]
        actions: list[str] = []
        prefix = "play " if where == "hand" else "play up "
        for rank, group in same_rank_groups(held).items():
            if self.opening is not None and rank != self.opening:
                continue
            if not can_play(rank, self.pile, self.options):
                continue
            for choice in multiples(group):
                actions.append(prefix + " ".join(choice))
            # shithead 1.4.3.1: the last hand card(s) may take face-up cards of that rank along.
            if where == "hand" and not self.pack and len(group) == len(held):
                ups = [c for c in sorted(self.face_up[seat]) if c[0] == rank]
                if ups:
                    base = "play " + " ".join(group) + " up "
                    actions += [base + " ".join(m) for m in multiples(ups)]
        if not actions:
            actions.append("take")  # shithead 1.4.1.3
        return actions

    def _apply(self, seat: int, action: str) -> None:
        words = action.split()
        verb = words[0]
        if verb == "ready":
            self.ready[seat] = True
            if all(self.ready):
                self._start_play()
        elif verb == "swap":
            up, held = words[1], words[2]
            self.face_up[seat][self.face_up[seat].index(up)] = held
            self.hands[seat][self.hands[seat].index(held)] = up
            self.swaps_left[seat] -= 1
        elif verb == "take":
            self._take(seat)
        elif verb == "pass" or verb == "cut":
            self.cut_choice[seat] = action
            if all(self.cut_choice[s] is not None for s in self.cut_seats):
                self._close_cut_window()
        elif words[1] == "down":
            self._play_blind(seat, int(words[2]) - 1)
        else:
            self._play_words(seat, words[1:])

    # ----- phases -------------------------------------------------------------------------
    def _start_play(self) -> None:
        """shithead 1.4: the lowest card opens (4, then 5, ...); ties go to the first seat."""
        self.phase = "play"
        for s in range(self.num_players):
            # Cards seen dealt face up that are no longer face up are known to be in the hand.
            still_up = list(self.face_up[s])
            for card in self.dealt_up[s]:
                if card in still_up:
                    still_up.remove(card)
                else:
                    self.known[s].append(card)
            hidden.gain(self.groups[s], len(self.hands[s]) - len(self.known[s]))
        for rank in OPENING_ORDER:
            for s in range(self.num_players):
                if any(c[0] == rank for c in self.hands[s]):
                    self.turn, self.opening = s, rank
                    return

    def _play_words(self, seat: int, words: list[str]) -> None:
        if words[0] == "up":
            self._play(seat, [], words[1:])
        elif "up" in words:
            cut = words.index("up")
            self._play(seat, words[:cut], words[cut + 1 :])
        else:
            self._play(seat, words, [])

    def _play(self, seat: int, from_hand: list[str], from_up: list[str], blind: str | None = None) -> None:
        """Put cards on the pile, then draw, burn, skip and open a cut-in window as due."""
        remove_cards(self.hands[seat], from_hand)
        for card in discard_known(self.known[seat], from_hand):
            self.groups[seat] = hidden.lose(self.groups[seat], card[0])
        remove_cards(self.face_up[seat], from_up)
        played = from_hand + from_up + ([blind] if blind else [])
        self.pile.extend(played)
        self.opening = None
        self.last_play = {"seat": seat, "cards": played, "blind": blind is not None, "took": False}
        # shithead 1.4.2: draw back up to three while the pack lasts.
        while self.pack and len(self.hands[seat]) < HAND_SIZE:
            self.hands[seat].append(self.pack.pop())
            hidden.gain(self.groups[seat], 1)
        if not self.holds_cards(seat):
            self.out.append(seat)
        if self._finished():
            return
        if burns(self.pile, played, self.options):
            # shithead 1.4.1.2: the burner opens a new pile.
            self.burned.extend(self.pile)
            self.pile = []
            self.last_play["burned"] = True
            self.turn = seat if seat not in self.out else self.next_seat(seat)
            return
        self.turn = self.next_seat(seat, 1 + skips(played, self.options))
        if self.options["cutting_in"]:
            self._open_cut_window(seat, played[-1][0])

    def _play_blind(self, seat: int, slot: int) -> None:
        """shithead 1.4.3.2: the face-down card is turned; if it does not fit, the pile
        (with it) is picked up."""
        card = self.face_down[seat][slot]
        assert card is not None
        self.face_down[seat][slot] = None
        if can_play(card[0], self.pile, self.options):
            self._play(seat, [], [], blind=card)
        else:
            self.pile.append(card)
            self._take(seat)
            assert self.last_play is not None
            self.last_play["blind"] = True
            self.last_play["cards"] = [card]

    def _take(self, seat: int) -> None:
        """shithead 1.4.1.3: the pile goes into the hand and the turn passes on. A take is
        never chosen: nothing the seat held fitted the pile, which everyone now knows."""
        fitting = [rank for rank in cards.RANKS if can_play(rank, self.pile, self.options)]
        self.groups[seat] = hidden.bar(self.groups[seat], fitting)
        self.hands[seat].extend(self.pile)
        self.known[seat].extend(self.pile)
        self.last_play = {"seat": seat, "cards": [], "blind": False, "took": True}
        self.pile = []
        self.turn = self.next_seat(seat)

    # ----- cutting in (DATA 5.3) ----------------------------------------------------------
    def _open_cut_window(self, seat: int, rank: str) -> None:
        """Ask every seat that may hold ``rank`` by the public facts, whatever it really
        holds, so the window itself tells no one anything about hidden hands. Seats playing
        blind may not cut in (DATA 5.3); face-up cards are public, so a seat down to them is
        asked only if one of them fits."""
        unseen = 4 * self.options["decks"] - sum(
            1 for c in self.pile + self.burned + sum(self.face_up, []) + sum(self.known, []) if c[0] == rank
        )
        seats = []
        for s in self.active():
            if s == seat:
                continue
            where = self.source(s)
            if where == "up":
                fits = any(c[0] == rank for c in self.face_up[s])
            else:
                fits = where == "hand" and (unseen > 0 or any(c[0] == rank for c in self.known[s]))
            if fits:
                seats.append(s)
        if not seats:
            return
        self.cut_rank, self.cut_by, self.cut_seats = rank, seat, seats
        self.cut_choice = [None] * self.num_players

    def _close_cut_window(self) -> None:
        by = self.cut_by
        assert by is not None
        cutter = None
        seat = by
        for _ in range(self.num_players - 1):
            seat = (seat + 1) % self.num_players
            choice = self.cut_choice[seat]
            if choice is not None and choice != "pass":
                cutter = seat
                break
        words = self.cut_choice[cutter].split()[1:] if cutter is not None else []  # type: ignore[union-attr]
        self.cut_rank, self.cut_by, self.cut_seats = None, None, []
        self.cut_choice = [None] * self.num_players
        if cutter is None:
            return
        # The first to cut in clockwise plays; play then continues from that player.
        self._play_words(cutter, words)
        assert self.last_play is not None
        self.last_play["cut_in"] = True

    # ----- outcome ------------------------------------------------------------------------
    def _scores(self) -> list[float]:
        """The first out scores best; the Shithead (last holding cards) worst (shithead 1.1.2).
        If the turn cap stops the match, seats still holding cards rank by how many they hold."""
        n = self.num_players
        scores = [0.0] * n
        for place, seat in enumerate(self.out):
            scores[seat] = float(n - 1 - place)
        for seat in self.active():
            scores[seat] = -float(len(self.hands[seat]) + len(self.face_up[seat]) + self.down_count(seat))
        return scores

    # ----- what a seat sees ---------------------------------------------------------------
    def _observation(self, seat: int) -> dict[str, Any]:
        n = self.num_players
        swapping = self.phase == "swap"
        top = to_beat(self.pile, self.options)
        return {
            "phase": self.phase,
            "hand": sorted(self.hands[seat]),
            "hand_counts": [len(h) for h in self.hands],
            # While seats arrange their cards no one sees another's choice (shithead 1.3).
            "face_up": [
                sorted(self.face_up[s] if (s == seat or not swapping) else self.dealt_up[s]) for s in range(n)
            ],
            "face_down": [[i + 1 for i, c in enumerate(d) if c is not None] for d in self.face_down],
            "known_in_hand": [sorted(k) for k in self.known],
            "swaps_left": self.swaps_left[seat] if swapping else 0,
            "pack_count": len(self.pack),
            "pile": list(self.pile),
            "burned": list(self.burned),
            "to_beat": top,
            "at_most_seven": top == "7" and bool(self.options["seven_lower"]),
            "turn": None if swapping else self.turn,
            "opening_rank": self.opening,
            "sources": [self.source(s) if s not in self.out else "out" for s in range(n)],
            "out": list(self.out),
            "last_play": {**self.last_play, "cards": list(self.last_play["cards"])}
            if self.last_play
            else None,
            "cut_window": (
                None if self.cut_rank is None else {"rank": self.cut_rank, "played_by": self.cut_by}
            ),
        }

    def _resample(self, seat: int, rng: random.Random) -> None:
        """Re-deal the pack, every face-down card and the unknown part of the other hands.
        While seats are still arranging, another seat's six cards are its dealt face-up
        three (known) plus three unknown, arranged in any way. A hand's unknown cards held
        since a forced take are none of the ranks that fitted the pile then."""
        swapping = self.phase == "swap"
        pool = list(self.pack)
        for d in self.face_down:
            pool += [c for c in d if c is not None]
        keep: dict[int, list[str]] = {}
        for s in range(self.num_players):
            if s == seat:
                continue
            if swapping:
                unknown = self.hands[s] + self.face_up[s]
                remove_cards(unknown, self.dealt_up[s])
                keep[s] = list(self.dealt_up[s])
            else:
                unknown = list(self.hands[s])
                remove_cards(unknown, self.known[s])
                keep[s] = list(self.known[s])
            pool += unknown
        rng.shuffle(pool)
        # Cards a take ruled out come first, so the face-down deal cannot use up what they
        # may be (with nothing barred the deal is as it always was).
        barred: dict[int, list[str]] = {}
        if not swapping:
            for s, known in keep.items():
                groups = hidden.fitted(self.groups[s], len(self.hands[s]) - len(known))
                barred[s] = hidden.deal(pool, [g for g in groups if g[1]], key=lambda card: card[0])
        for d in self.face_down:
            for i, c in enumerate(d):
                if c is not None:
                    d[i] = pool.pop()
        for s, known in keep.items():
            if swapping:
                six = known + [
                    pool.pop() for _ in range(len(self.hands[s]) + len(self.face_up[s]) - len(known))
                ]
                rng.shuffle(six)
                k = len(self.face_up[s])
                self.face_up[s], self.hands[s] = six[:k], six[k:]
            else:
                free = len(self.hands[s]) - len(known) - len(barred[s])
                self.hands[s] = known + barred[s] + [pool.pop() for _ in range(free)]
            # Another seat's pending cut-in is secret: it might as well have been a pass.
            if self.cut_choice[s] is not None:
                self.cut_choice[s] = "pass"
        self.pack = pool
