"""The table and the order of play of Backpacker (backpacker 3, 6-8).

``Table`` holds the whole truth of a match (hands, Future and Past piles, played piles, banked
points) and runs the go: ``start`` (draw or go home), the main step until the player is back
to 5 cards, the refill of every hand, missed goes, going home and the end of a year. The event
cards are in ``events.py``; the contract hooks, observation and determinization in ``state.py``.
"""

from __future__ import annotations

from typing import Any

from arena.games import State, cards

from . import knowledge
from .deck import BAD_ADVICE, GREY, build_deck, extra_cards
from .scoring import score_trip

HAND_SIZE = 5  # backpacker 3, 6 rule 3
LOG_LENGTH = 30


class Table(State):
    """Piles, hands and the go; the phases that event cards open live in subclasses."""

    def __init__(self, num_players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(num_players, seed, options)
        self._kind_cache: frozenset[str] | None = None
        self.years = int(options["years"])
        self.year = 0
        self.dealer = num_players - 1  # so that seat 0, left of the dealer, starts (3)
        self.banked = [0] * num_players
        self.log: list[str] = []
        self.last_home: dict[str, Any] | None = None
        self.finished = False
        self._start_year()

    # ----- setup and years (3, 8) -----------------------------------------------------------
    def _deck(self) -> list[str]:
        return build_deck(self.options["cards"], extra_cards(self.options))

    def _start_year(self) -> None:
        n = self.num_players
        self.year += 1
        self.dealer = (self.dealer + 1) % n if self.year > 1 else self.dealer
        pack = cards.shuffled(self._deck(), self.rng(f"year{self.year}"))
        self.hands: list[list[str]] = [[] for _ in range(n)]
        # Deal starting on the dealer's left, one at a time (Information For Beginners).
        order = [(self.dealer + 1 + i) % n for i in range(n)]
        for _ in range(HAND_SIZE):
            for seat in order:
                self.hands[seat].append(pack.pop())
        self.future: list[str] = pack  # top is the end of the list
        self.future_known = 0  # cards on top of the Future pile everyone knows (Date Line)
        self.past: list[str] = []  # top is the end of the list
        self.past_version = 0
        self.go_start_version = 0
        self.trips: list[list[dict[str, Any]]] = [[] for _ in range(n)]
        self.cameras = [False] * n
        self.status: list[dict[str, Any] | None] = [None] * n
        self.known = knowledge.empty(n)
        self.extra_goes = 0
        self.pending: dict[str, Any] = {}
        self.current = (self.dealer + 1) % n
        self.phase = "start"
        self._note(f"year {self.year} dealt by p{self.dealer}")

    def _kinds(self) -> frozenset[str]:
        kinds = self._kind_cache
        if kinds is None:
            kinds = frozenset(self._deck())
            self._kind_cache = kinds
        return kinds

    def in_game(self, card: str) -> bool:
        return card in self._kinds()

    def _restore(self) -> None:
        self._kind_cache = None

    def _note(self, text: str) -> None:
        self.log.append(text)
        if len(self.log) > LOG_LENGTH:
            del self.log[0]

    # ----- card movements ---------------------------------------------------------------------
    def _draw(self, seat: int) -> str | None:
        if not self.future:
            return None
        card = self.future.pop()
        self.hands[seat].append(card)
        if self.future_known:
            # 9.6 Date Line: everybody saw this card turned onto the Future pile.
            self.future_known -= 1
            knowledge.public_gain(self.known, seat, card)
        return card

    def _to_past(self, card: str) -> None:
        self.past.append(card)
        self.past_version += 1

    def _from_hand_to_past(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        knowledge.public_loss(self.known, seat, card)
        self._to_past(card)

    def _take_from_hand(self, seat: int, card: str) -> None:
        """The card leaves the hand face up (played, not yet placed)."""
        self.hands[seat].remove(card)
        knowledge.public_loss(self.known, seat, card)

    def _lose_top_country(self, seat: int) -> None:
        """9.1, 9.2: the top country and its bonuses go to the Past pile; 9.3: so does Bad Advice."""
        trip = self.trips[seat]
        if trip:
            entry = trip.pop()
            self._to_past(entry["country"])
            for bonus in entry["bonuses"]:
                self._to_past(bonus)
        status = self.status[seat]
        if status and status["card"] in BAD_ADVICE:
            self._to_past(status["card"])
            self.status[seat] = None

    def _clear_pile(self, seat: int, keep_top: bool = False) -> dict[str, Any] | None:
        """Everything on the played pile to the Past pile (7.7); Flying Visit keeps the top."""
        trip = self.trips[seat]
        kept = trip.pop() if keep_top and trip else None
        for entry in trip:
            self._to_past(entry["country"])
            for bonus in entry["bonuses"]:
                self._to_past(bonus)
        self.trips[seat] = []
        if self.cameras[seat]:
            self._to_past("video_camera")
            self.cameras[seat] = False
        if self.status[seat]:
            self._to_past(self.status[seat]["card"])  # type: ignore[index]
            self.status[seat] = None
        if kept is not None:
            kept["boost"] = 0
            self.trips[seat] = [kept]
        return kept

    def _place_country(self, seat: int, entry: dict[str, Any]) -> None:
        entry["boost"] = (1 + len(entry["bonuses"])) if self.cameras[seat] else 0
        self.trips[seat].append(entry)


    # ----- a go (6) ---------------------------------------------------------------------------
    def _start_go(self, seat: int, verb: str) -> None:
        if verb == "go_home":
            self._go_home(seat, "go_home")
            self._after_going_home(seat)
            return
        self._draw(seat)
        self._note(f"p{seat} draws")
        status = self.status[seat]
        if status and status["card"] == "under_the_influence":
            # 9.7 Under the Influence: the player who played it looks at the hand and chooses.
            by = status["by"]
            knowledge.reveal(self.known, seat, self.hands[seat], [by])
            self.pending = {"target": seat, "by": by}
            self.phase = "influence"
        else:
            self.phase = "play"

    def _continue(self) -> None:
        """After a step of the go: the go goes on while the player holds more than 5 cards."""
        if len(self.hands[self.current]) > HAND_SIZE:
            self.pending = {}
            self.phase = "play"
        else:
            self._end_go()

    def _end_go(self) -> None:
        seat = self.current
        status = self.status[seat]
        if status and status["card"] == "love":
            status["goes"] -= 1  # 9.7 Love lasts for the target's next 2 goes
            if status["goes"] <= 0:
                self._to_past("love")
                self.status[seat] = None
        # 6 rule 3: everyone ends every go with 5 cards.
        n = self.num_players
        for k in range(n):
            s = (seat + k) % n
            while len(self.hands[s]) < HAND_SIZE and self.future:
                self._draw(s)
        if not self.future:
            self._end_year()
            return
        if (
            self.past_version != self.go_start_version
            and self.in_game("follow_the_trail")
            and self.past
            and "follow_the_trail" not in self.past
        ):
            # 9.6 Follow the Trail: a window for every seat whenever the go changed the top
            # of the Past pile. Offered to everyone so that it says nothing about the holder.
            self.pending = {"kind": "trail", "choices": {str(s): None for s in range(n) if self.hands[s]}}
            self.phase = "trail"
            return
        self._next_go()

    def _next_go(self) -> None:
        n = self.num_players
        seat = self.current
        if self.extra_goes > 0:
            self.extra_goes -= 1
        else:
            seat = (seat + 1) % n
        # 9.2, 9.7: missed goes pass by (extra goes of a player who must miss goes are missed
        # too); the card leaves the pile once they are missed.
        while self._miss_go(seat):
            if seat == self.current and self.extra_goes > 0:
                self.extra_goes -= 1
            else:
                self.extra_goes = 0
                seat = (seat + 1) % n
        self.current = seat
        self.pending = {}
        self.phase = "start"
        self.go_start_version = self.past_version

    def _miss_go(self, seat: int) -> bool:
        status = self.status[seat]
        if not status or status.get("miss", 0) <= 0:
            return False
        status["miss"] -= 1
        self._note(f"p{seat} misses a go")
        if status["miss"] == 0:
            self._to_past(status["card"])
            self.status[seat] = None
        return True

    # ----- going home (7, 8) -----------------------------------------------------------------
    def _go_home(self, seat: int, how: str) -> int:
        if how != "travelling_companion":
            knowledge.reveal(self.known, seat, self.hands[seat], range(self.num_players))  # 7.3
        status = self.status[seat]
        bad = bool(status and status["card"] in BAD_ADVICE)
        points, reasons = score_trip(self.trips[seat], bad)
        self.banked[seat] += points
        self.last_home = {
            "seat": seat,
            "how": how,
            "points": points,
            "reasons": reasons,
            "hand": sorted(self.hands[seat]) if how != "travelling_companion" else None,
        }
        self._note(f"p{seat} goes home ({how}) and scores {points}")
        if how == "flying_visit":
            # 9.6 Flying Visit: Bad Advice goes, the top country starts the next trip.
            self._clear_pile(seat, keep_top=True)
        else:
            self._clear_pile(seat)
        return points

    def _after_going_home(self, seat: int) -> None:
        """9.6 Travelling Companion: before the next go, any other traveller may follow."""
        if (
            self.in_game("travelling_companion")
            and "travelling_companion" not in self.past
            and not (self.last_home and self.last_home["hand"] and "travelling_companion" in self.last_home["hand"])
        ):
            open_seats = [
                s for s in range(self.num_players)
                if s != seat and self.hands[s] and (self.trips[s] or self.cameras[s] or self.status[s])
            ]
            if open_seats:
                self.pending = {"kind": "companion", "choices": {str(s): None for s in open_seats}}
                self.phase = "companion"
                return
        self._continue()

    def _end_year(self) -> None:
        """8: everyone without grey cards goes home; greys in hand score nothing."""
        n = self.num_players
        went_home = False
        for s in range(n):
            if not set(self.hands[s]) & GREY:
                self._go_home(s, "year_end")
                went_home = True
        if went_home:
            # 9.6 Travelling Companion also works at the end of the Future pile; using it is
            # always right for a player who could not go home, so the engine plays it.
            for s in range(n):
                if "travelling_companion" in self.hands[s] and set(self.hands[s]) & GREY:
                    self._from_hand_to_past(s, "travelling_companion")
                    self._go_home(s, "travelling_companion")
        self._note(f"year {self.year} is over")
        if self.year >= self.years:
            self.finished = True
            self.phase = "over"
            self.pending = {}
            return
        self._start_year()

    def _open_passing(self, kind: str) -> None:
        self.pending = {"kind": kind, "choices": {str(s): None for s in range(self.num_players) if self.hands[s]}}
        self.phase = "pass"
