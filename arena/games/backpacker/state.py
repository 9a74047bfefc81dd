"""The whole truth of one Backpacker match and the order of play (backpacker 3, 6-9).

A go (6) is: ``start`` (draw or go home), ``play`` (play a country or an event, or discard)
until the player is back to 5 cards, then everyone is refilled to 5, and the next player
whose go is not missed takes theirs. Event cards open sub-phases; decisions that belong to
other players (passing a card, answering an Internet Cafe request, Near Miss, Travelling
Companion, Follow the Trail, choosing the card Under the Influence forces) are phases where
``to_act()`` names those seats.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import State, cards

from . import knowledge
from .deck import BAD_ADVICE, COUNTRIES, EVENTS, GREY, build_deck
from .plays import NEAR_MISS_TARGETS, country_plays, play_actions, visited
from .scoring import score_trip

HAND_SIZE = 5  # backpacker 3, 6 rule 3
ECLIPSE_MAX = 8  # 9.6 Solar Eclipse: a maximum of 8 cards drawn
LOG_LENGTH = 30

# Phases where the player whose go it is decides.
_CURRENT_PHASES = frozenset(
    {"start", "play", "cafe_ask", "cafe_offer", "seek_take", "seek_give", "grapevine_take",
     "fate_give", "eclipse", "whirlwind", "forced"}
)
# Simultaneous phases: every seat in pending["choices"] still at None decides.
_SIMULTANEOUS = frozenset({"pass", "companion", "trail"})


class BackpackerState(State):
    """One match: hands, Future and Past piles, played piles, banked points and the go."""

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
        from .game import extra_cards

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

    # ----- the contract hooks -----------------------------------------------------------------
    def _finished(self) -> bool:
        return self.finished

    def _scores(self) -> list[float]:
        return [float(p) for p in self.banked]

    def _to_act(self) -> tuple[int, ...]:
        phase = self.phase
        if phase in _CURRENT_PHASES:
            return (self.current,)
        if phase in _SIMULTANEOUS:
            choices = self.pending["choices"]
            # The choices dict is built in seat order, so this is already sorted.
            return tuple([int(s) for s, c in choices.items() if c is None])
        if phase in ("near_miss", "cafe_answer", "cafe_accept"):
            return (self.pending["target"],)
        if phase == "influence":
            return (self.pending["by"],)
        return ()

    def _legal_actions(self, seat: int) -> list[str]:
        phase = self.phase
        hand = self.hands[seat]
        if phase == "start":
            acts = ["draw"]
            if (self.trips[seat] or self.cameras[seat] or self.status[seat]) and not set(hand) & GREY:
                acts.append("go_home")
            return acts
        if phase == "play":
            return play_actions(self, seat)
        if phase == "trail":
            return ["decline", "play follow_the_trail"] if "follow_the_trail" in hand and self.past else ["decline"]
        if phase == "forced":
            forced = self.pending["forced"]
            acts = [a for a in play_actions(self, seat) if a.split()[1:2] == [forced]]
            return acts or [f"discard {forced}"]
        if phase == "whirlwind":
            # 9.6 Whirlwind Tour: play as many countries and bonuses as possible, then stop.
            return country_plays(self, seat, set(hand)) or ["stop"]
        if phase == "pass":
            return [f"pass {c}" for c in set(hand)]
        if phase == "near_miss":
            return ["decline", "play near_miss"] if "near_miss" in hand else ["decline"]
        if phase == "companion":
            return ["decline", "play travelling_companion"] if "travelling_companion" in hand else ["decline"]
        if phase == "cafe_ask":
            kinds = sorted(self._kinds())
            acts = ["no_exchange"]
            for t in range(self.num_players):
                if t != seat and self.hands[t]:
                    acts.extend(f"ask {c} from={t}" for c in kinds)
            return acts
        if phase == "cafe_answer":
            return ["agree", "refuse"] if self.pending["asked"] in hand else ["refuse"]
        if phase == "cafe_offer":
            return ["cancel", *(f"offer {c}" for c in set(hand))]
        if phase == "cafe_accept":
            return ["accept", "decline"]
        if phase in ("seek_take", "grapevine_take"):
            return [f"take {c}" for c in set(self.hands[self.pending["target"]])]
        if phase in ("seek_give", "fate_give"):
            return [f"give {c}" for c in set(hand)]
        if phase == "eclipse":
            return ["keep"] if self.pending["count"] >= ECLIPSE_MAX else ["keep", "reject"]
        if phase == "influence":
            return [f"force {c}" for c in set(self.hands[self.pending["target"]])]
        return []

    def _apply(self, seat: int, action: str) -> None:
        words = action.split()
        verb = words[0]
        phase = self.phase
        if phase == "start":
            self._start_go(seat, verb)
        elif phase in ("play", "forced"):
            self._main_action(seat, words)
        elif phase == "whirlwind":
            if verb == "stop":
                self._end_go()
            else:
                self._play_country_or_bonus(seat, words)
        elif phase in _SIMULTANEOUS:
            self.pending["choices"][str(seat)] = action
            if all(c is not None for c in self.pending["choices"].values()):
                self._resolve_simultaneous()
        elif phase == "near_miss":
            self._near_miss_answer(seat, verb)
        elif phase.startswith("cafe_"):
            self._cafe(seat, words)
        elif phase in ("seek_take", "seek_give", "grapevine_take"):
            self._look_and_take(seat, words)
        elif phase == "fate_give":
            self._fate_give(seat, words[1])
        elif phase == "eclipse":
            self._eclipse(seat, verb)
        elif phase == "influence":
            self._influence(words[1])

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

    # ----- the main step of a go --------------------------------------------------------------
    def _main_action(self, seat: int, words: list[str]) -> None:
        verb = words[0]
        if verb == "abandon":
            # 9.3: the country with the Bad Advice goes, with its bonuses and the Bad Advice.
            self._lose_top_country(seat)
            self._note(f"p{seat} abandons the top country")
            self._continue()
            return
        card = words[1]
        args = dict(w.split("=", 1) for w in words[2:])
        if self.phase == "forced":
            self.phase = "play"
        if verb == "discard":
            self._from_hand_to_past(seat, card)
            if args.get("with") == "insurance":
                knowledge.shown(self.known, seat, "insurance")
                self._note(f"p{seat} shows insurance and discards {card}")
            else:
                self._note(f"p{seat} discards {card}")
            status = self.status[seat]
            if status and status["card"] == "visa_problem" and card in COUNTRIES:
                if COUNTRIES[card].continent not in visited(self, seat):
                    # 9.7 Visa Problem: discarding a country it could still visit removes it.
                    self._to_past("visa_problem")
                    self.status[seat] = None
            self._continue()
            return
        self._play(seat, card, args)

    def _play_country_or_bonus(self, seat: int, words: list[str]) -> None:
        card = words[1]
        self._take_from_hand(seat, card)
        if card in COUNTRIES:
            if len(words) > 2:
                knowledge.shown(self.known, seat, "credit_card")
            self._place_country(seat, {"country": card, "bonuses": [], "boost": 0})
        else:
            top = self.trips[seat][-1]
            top["bonuses"].append(card)
            if self.cameras[seat]:
                top["boost"] += 1
        self._note(f"p{seat} plays {card}")

    def _play(self, seat: int, card: str, args: dict[str, str]) -> None:
        colour = EVENTS[card].colour if card in EVENTS else "country"
        if colour in ("country", "blue"):
            self._play_country_or_bonus(seat, ["play", card, *(f"{k}={v}" for k, v in args.items())])
            self._continue()
            return
        if card in NEAR_MISS_TARGETS:
            target = int(args.get("on", args.get("from", "0")))
            self._take_from_hand(seat, card)
            self._note(f"p{seat} plays {card} on p{target}")
            self.pending = {"card": card, "by": seat, "target": target}
            if self.in_game("near_miss") and "near_miss" not in self.past:
                # 9.6 Near Miss: the target always gets the window, holding it or not.
                self.phase = "near_miss"
            else:
                self._resolve_attack()
            return
        self._note(" ".join([f"p{seat} plays {card}", *(f"{k}={v}" for k, v in args.items())]))
        handler = getattr(self, "_card_" + card)
        handler(seat, args)

    # ----- grey cards (9.2) ---------------------------------------------------------------
    def _grey(self, seat: int, card: str, miss: int) -> None:
        self._take_from_hand(seat, card)
        self.status[seat] = {"card": card, "by": seat, "miss": miss}

    def _card_thief(self, seat: int, args: dict[str, str]) -> None:
        self._clear_pile(seat)
        self._grey(seat, "thief", 1)
        self._continue()

    def _card_sickness(self, seat: int, args: dict[str, str]) -> None:
        self._lose_top_country(seat)
        self._grey(seat, "sickness", 1)
        self._open_passing("sickness")

    def _card_no_flight(self, seat: int, args: dict[str, str]) -> None:
        self._grey(seat, "no_flight", 1)
        self._continue()

    def _card_out_of_cash(self, seat: int, args: dict[str, str]) -> None:
        self._grey(seat, "out_of_cash", 3)
        self._continue()

    def _open_passing(self, kind: str) -> None:
        self.pending = {"kind": kind, "choices": {str(s): None for s in range(self.num_players) if self.hands[s]}}
        self.phase = "pass"

    # ----- green cards (9.4) ----------------------------------------------------------------
    def _good_advice(self, seat: int, card: str) -> None:
        self._from_hand_to_past(seat, card)
        self._to_past(self.status[seat]["card"])  # type: ignore[index]
        self.status[seat] = None
        self._continue()

    def _card_good_timing(self, seat: int, args: dict[str, str]) -> None:
        self._good_advice(seat, "good_timing")

    def _card_good_transport(self, seat: int, args: dict[str, str]) -> None:
        self._good_advice(seat, "good_transport")

    def _card_good_bureaucracy(self, seat: int, args: dict[str, str]) -> None:
        self._good_advice(seat, "good_bureaucracy")

    def _card_money_talks(self, seat: int, args: dict[str, str]) -> None:
        self._good_advice(seat, "money_talks")

    # ----- cards played on another player (9.3, 9.5, 9.6, 9.7) ---------------------------------
    def _near_miss_answer(self, seat: int, verb: str) -> None:
        if verb == "decline":
            self._resolve_attack()
            return
        attack = self.pending
        by, card = attack["by"], attack["card"]
        # 9.6 Near Miss: the attacker takes Near Miss, the target takes the bad card.
        self.hands[seat].remove("near_miss")
        knowledge.public_loss(self.known, seat, "near_miss")
        self.hands[by].append("near_miss")
        knowledge.public_gain(self.known, by, "near_miss")
        self.hands[seat].append(card)
        knowledge.public_gain(self.known, seat, card)
        self._note(f"p{seat} plays near_miss and takes {card}")
        self._continue()

    def _resolve_attack(self) -> None:
        attack = self.pending
        card, by, target = attack["card"], attack["by"], attack["target"]
        if card in BAD_ADVICE or card in ("under_the_influence", "love", "visa_problem", "low_battery",
                                          "broken_camera"):
            status: dict[str, Any] = {"card": card, "by": by}
            if card == "broken_camera":
                self._lose_top_country(target)
                status["miss"] = 1
            elif card == "low_battery":
                status["miss"] = 2
            elif card == "love":
                status["goes"] = 2
            self.status[target] = status
            self._continue()
        elif card == "wrong_backpack":
            self._to_past(card)
            mine, theirs = self.hands[by], self.hands[target]
            knowledge.swap_hands(self.known, by, target, mine, theirs)
            self.hands[by], self.hands[target] = theirs, mine
            self._continue()
        elif card == "paths_cross":
            self._to_past(card)
            entry = self.trips[target].pop()
            status_t = self.status[target]
            if status_t and status_t["card"] in BAD_ADVICE:
                self._to_past(status_t["card"])
                self.status[target] = None
            self._place_country(by, entry)
            self._continue()
        elif card == "seek_guidance":
            self._to_past(card)
            knowledge.reveal(self.known, target, self.hands[target], [by])
            self.phase = "seek_take"
        else:  # grapevine
            knowledge.reveal(self.known, target, self.hands[target], [by])
            self.phase = "grapevine_take"

    def _look_and_take(self, seat: int, words: list[str]) -> None:
        target = self.pending["target"]
        card = words[1]
        if self.phase == "seek_give":
            self.hands[seat].remove(card)
            self.hands[target].append(card)
            knowledge.transfer(self.known, seat, target, card, ())
            self._note(f"p{seat} gives p{target} a card")
            self._continue()
            return
        self.hands[target].remove(card)
        self.hands[seat].append(card)
        knowledge.transfer(self.known, target, seat, card, ())
        self._note(f"p{seat} takes a card from p{target}")
        if self.phase == "seek_take":
            self.phase = "seek_give"  # 9.5 Seek Guidance: then give your worst card
            return
        # 9.6 Grapevine: the Grapevine card goes to them; then play or discard.
        self.hands[target].append("grapevine")
        knowledge.public_gain(self.known, target, "grapevine")
        self._continue()

    # ----- orange cards (9.5) ------------------------------------------------------------------
    def _card_reunion(self, seat: int, args: dict[str, str]) -> None:
        self._from_hand_to_past(seat, "reunion")
        self._open_passing("reunion")

    def _card_fate(self, seat: int, args: dict[str, str]) -> None:
        self._from_hand_to_past(seat, "fate")
        n = self.num_players
        self.pending = {"order": [(seat + k) % n for k in range(1, n)], "index": -1}
        self._fate_next(seat)

    def _fate_next(self, seat: int) -> None:
        order = self.pending["order"]
        index = self.pending["index"] + 1
        while index < len(order) and not self.hands[order[index]]:
            index += 1
        if index >= len(order):
            self._continue()
            return
        target = order[index]
        # Blindly pick: the card is drawn at random from the hand.
        card = self.rng("fate").choice(sorted(self.hands[target]))
        self.hands[target].remove(card)
        self.hands[seat].append(card)
        knowledge.transfer(self.known, target, seat, card, ())
        self.pending["index"] = index
        self.pending["target"] = target
        self.pending["took"] = card
        self.phase = "fate_give"

    def _fate_give(self, seat: int, card: str) -> None:
        target = self.pending["target"]
        self.hands[seat].remove(card)
        self.hands[target].append(card)
        knowledge.transfer(self.known, seat, target, card, ())
        self._fate_next(seat)

    def _card_inspiration(self, seat: int, args: dict[str, str]) -> None:
        self._from_hand_to_past(seat, "inspiration")
        name = args.get("country")
        if name and name in self.past:
            # The named country comes out of the Past pile onto the played pile.
            index = len(self.past) - 1 - self.past[::-1].index(name)
            del self.past[index]
            self.past_version += 1
            self._place_country(seat, {"country": name, "bonuses": [], "boost": 0})
            self._note(f"p{seat} finds {name} in the past pile")
        self._continue()

    def _card_change_of_plans(self, seat: int, args: dict[str, str]) -> None:
        self._from_hand_to_past(seat, "change_of_plans")
        for card in list(self.hands[seat]):
            self._from_hand_to_past(seat, card)  # 6 rule 7: greys too
        for _ in range(HAND_SIZE):
            self._draw(seat)
        self._continue()

    def _card_internet_cafe(self, seat: int, args: dict[str, str]) -> None:
        self._from_hand_to_past(seat, "internet_cafe")
        self._draw(seat)
        self.pending = {}
        self.phase = "cafe_ask"

    def _cafe(self, seat: int, words: list[str]) -> None:
        """9.5 Internet Cafe: ask for a card, they say yes, you offer one, both agree."""
        verb = words[0]
        phase = self.phase
        if phase == "cafe_ask":
            if verb == "no_exchange":
                self._continue()
                return
            target = int(words[2].split("=")[1])
            self.pending = {"asked": words[1], "target": target, "by": seat}
            self._note(f"p{seat} asks p{target} for {words[1]}")
            self.phase = "cafe_answer"
        elif phase == "cafe_answer":
            self._note(f"p{seat} {'agrees' if verb == 'agree' else 'refuses'}")
            if verb == "refuse":
                self._continue()
                return
            knowledge.shown(self.known, seat, self.pending["asked"])
            self.phase = "cafe_offer"
        elif phase == "cafe_offer":
            if verb == "cancel":
                self._continue()
                return
            self.pending["offered"] = words[1]
            self._note(f"p{seat} offers {words[1]}")
            self.phase = "cafe_accept"
        else:
            if verb == "accept":
                by, target = self.pending["by"], self.pending["target"]
                asked, offered = self.pending["asked"], self.pending["offered"]
                everyone = range(self.num_players)
                self.hands[target].remove(asked)
                self.hands[by].append(asked)
                knowledge.transfer(self.known, target, by, asked, everyone)
                self.hands[by].remove(offered)
                self.hands[target].append(offered)
                knowledge.transfer(self.known, by, target, offered, everyone)
            self._note(f"p{seat} {verb}s")
            self._continue()

    # ----- yellow cards (9.6) ------------------------------------------------------------------
    def _card_travel_the_clock(self, seat: int, args: dict[str, str]) -> None:
        self._from_hand_to_past(seat, "travel_the_clock")
        self.extra_goes += 3
        self._continue()

    def _card_whirlwind_tour(self, seat: int, args: dict[str, str]) -> None:
        self._from_hand_to_past(seat, "whirlwind_tour")
        self.phase = "whirlwind"

    def _card_everest(self, seat: int, args: dict[str, str]) -> None:
        self._from_hand_to_past(seat, "everest")
        for s in range(self.num_players):
            if s != seat:
                knowledge.reveal(self.known, s, self.hands[s], [seat])
        self.extra_goes += 1
        self._continue()

    def _card_video_camera(self, seat: int, args: dict[str, str]) -> None:
        self._take_from_hand(seat, "video_camera")
        self.cameras[seat] = True
        self._continue()

    def _card_follow_the_trail(self, seat: int, args: dict[str, str]) -> None:
        self._swap_trail(seat)
        self._continue()

    def _swap_trail(self, seat: int) -> None:
        top = self.past.pop()
        self._from_hand_to_past(seat, "follow_the_trail")
        self.hands[seat].append(top)
        knowledge.public_gain(self.known, seat, top)
        self._note(f"p{seat} follows the trail and takes {top}")

    def _card_solar_eclipse(self, seat: int, args: dict[str, str]) -> None:
        self._from_hand_to_past(seat, "solar_eclipse")
        self.pending = {"count": 0, "drawn": None}
        self._eclipse_draw()

    def _eclipse_draw(self) -> None:
        if not self.future:
            self._continue()
            return
        card = self.future.pop()
        if self.future_known:
            self.future_known -= 1
        self.pending["count"] += 1
        self.pending["drawn"] = card
        self.phase = "eclipse"

    def _eclipse(self, seat: int, verb: str) -> None:
        card = self.pending["drawn"]
        if verb == "keep":
            self.hands[seat].append(card)
            self._continue()
            return
        self._to_past(card)
        self._note(f"p{seat} rejects {card}")
        self._eclipse_draw()

    def _card_date_line(self, seat: int, args: dict[str, str]) -> None:
        # Turned one at a time from the Past pile face down onto the Future pile; everybody
        # saw them, so the top of the Future pile is known until drawn.
        self._take_from_hand(seat, "date_line")
        count = int(args["count"])
        for _ in range(count):
            self.future.append(self.past.pop())
        self.future_known += count
        self.past_version += 1
        self._to_past("date_line")
        self.extra_goes += 1
        self._continue()

    def _card_flying_visit(self, seat: int, args: dict[str, str]) -> None:
        self._from_hand_to_past(seat, "flying_visit")
        self._go_home(seat, "flying_visit")
        self._after_going_home(seat)

    # ----- simultaneous windows -----------------------------------------------------------------
    def _resolve_simultaneous(self) -> None:
        kind = self.pending["kind"]
        choices = self.pending["choices"]
        if kind in ("sickness", "reunion"):
            n = self.num_players
            moves = [(int(s), a.split()[1]) for s, a in choices.items()]
            for s, card in moves:
                self.hands[s].remove(card)
            for s, card in moves:
                left = (s + 1) % n
                self.hands[left].append(card)
                knowledge.transfer(self.known, s, left, card, ())
            self._note("everyone passes a card to the left")
            if kind == "reunion":
                self.extra_goes += 1  # 9.5 Reunion: you get another go
            self._continue()
            return
        takers = [int(s) for s, a in choices.items() if a != "decline"]
        if kind == "companion":
            for s in takers:
                self._from_hand_to_past(s, "travelling_companion")
                self._go_home(s, "travelling_companion")
                self._draw(s)
            self._continue()
            return
        for s in takers:  # trail
            self._swap_trail(s)
        self._next_go()

    def _influence(self, card: str) -> None:
        target = self.pending["target"]
        self._to_past("under_the_influence")  # the penalty is being served
        self.status[target] = None
        self.pending = {"forced": card, "by": self.pending["by"], "target": target}
        self._note(f"p{target} is forced to play or discard a chosen card")
        self.phase = "forced"

    # ----- what a seat sees -------------------------------------------------------------------
    def _observation(self, seat: int) -> dict[str, Any]:
        n = self.num_players
        players = []
        for s in range(n):
            players.append({
                "trip": [dict(e, bonuses=list(e["bonuses"])) for e in self.trips[s]],
                "video_camera": self.cameras[s],
                "status": dict(status) if (status := self.status[s]) else None,
                "hand_size": len(self.hands[s]),
                "score": self.banked[s],
            })
        return {
            "hand": sorted(self.hands[seat]),
            "phase": self.phase,
            "current": self.current,
            "year": self.year,
            "years": self.years,
            "dealer": self.dealer,
            "future_size": len(self.future),
            "future_top_known": self.future[len(self.future) - self.future_known:][::-1],
            "past_pile": list(self.past),
            "past_top": self.past[-1] if self.past else None,
            "players": players,
            "scores": list(self.banked),
            "extra_goes": self.extra_goes,
            "known_hands": {str(h): sorted(c) for h, c in enumerate(self.known[seat]) if c and h != seat},
            "pending": self._pending_view(seat),
            "last_home": self.last_home,
            "log": list(self.log),
        }

    def _pending_view(self, seat: int) -> dict[str, Any]:
        phase, p = self.phase, self.pending
        if phase == "near_miss":
            return {"card": p["card"], "by": p["by"], "target": p["target"]}
        if phase in _SIMULTANEOUS:
            return {"kind": p["kind"], "your_choice": p["choices"].get(str(seat))}
        if phase.startswith("cafe_"):
            return {k: p[k] for k in ("asked", "target", "by", "offered") if k in p}
        if phase in ("seek_take", "seek_give", "grapevine_take"):
            return {"card": p["card"], "target": p["target"]}
        if phase == "fate_give":
            view = {"target": p["target"]}
            if seat in (self.current, p["target"]):
                view["took"] = p["took"]
            return view
        if phase == "eclipse":
            view = {"count": p["count"]}
            if seat == self.current:
                view["drawn"] = p["drawn"]
            return view
        if phase == "influence":
            return {"target": p["target"], "by": p["by"]}
        if phase == "forced":
            view = {"target": p["target"], "by": p["by"]}
            if seat in (p["target"], p["by"]):
                view["forced"] = p["forced"]
            return view
        return {}

    # ----- determinization ---------------------------------------------------------------------
    def _resample(self, seat: int, rng: random.Random) -> None:
        n = self.num_players
        split = len(self.future) - self.future_known
        pool = self.future[:split]
        top = self.future[split:]
        keeps: dict[int, list[str]] = {}
        for h in range(n):
            if h == seat:
                continue
            keep = knowledge.keep_of(self.hands[h], self.known[seat][h])
            rest = list(self.hands[h])
            for card in keep:
                rest.remove(card)
            pool.extend(rest)
            keeps[h] = keep
        hidden_draw = self.phase == "eclipse" and seat != self.current
        if hidden_draw:
            pool.append(self.pending["drawn"])
        rng.shuffle(pool)
        for h, keep in keeps.items():
            size = len(self.hands[h])
            self.hands[h] = keep + [pool.pop() for _ in range(size - len(keep))]
        if hidden_draw:
            self.pending["drawn"] = pool.pop()
        self.future = pool + top
        # Other players' knowledge must stay true of the new hands.
        for viewer in range(n):
            if viewer == seat:
                continue
            for h in range(n):
                if h != viewer:
                    self.known[viewer][h] = knowledge.keep_of(self.hands[h], self.known[viewer][h])
        if self.phase in _SIMULTANEOUS:
            needed = {"trail": "follow_the_trail", "companion": "travelling_companion"}.get(self.pending["kind"])
            for s, choice in self.pending["choices"].items():
                h = int(s)
                if h == seat or choice is None:
                    continue
                if needed is None:
                    self.pending["choices"][s] = f"pass {rng.choice(self.hands[h])}"
                elif needed not in self.hands[h]:
                    self.pending["choices"][s] = "decline"
        if self.phase == "forced" and seat not in (self.pending["target"], self.pending["by"]):
            self.pending["forced"] = rng.choice(self.hands[self.pending["target"]])
        if self.phase == "fate_give" and seat not in (self.current, self.pending["target"]):
            self.pending["took"] = rng.choice(self.hands[self.current])
