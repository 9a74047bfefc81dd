"""What every event card does when played (backpacker 9), and the sub-phases they open.

Each ``_card_<id>`` method plays one card; cards played on another player go through
``_resolve_attack`` after that player's Near Miss window (9.6).
"""

from __future__ import annotations

from typing import Any

from . import knowledge
from .deck import BAD_ADVICE, COUNTRIES, EVENTS
from .plays import NEAR_MISS_TARGETS, visited
from .table import HAND_SIZE, Table

ECLIPSE_MAX = 8  # 9.6 Solar Eclipse: a maximum of 8 cards drawn


class EventCards(Table):
    """The main step of a go and the event cards."""

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

