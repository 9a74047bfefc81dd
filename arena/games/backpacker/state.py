"""The Backpacker state behind the arena contract (backpacker 3, 6-9).

``to_act``, ``legal_actions`` and ``apply`` dispatch on the phase; the observation shows a
seat exactly what it may know; ``resample_hidden`` re-deals what it cannot. Decisions that
belong to other players (passing a card, answering an Internet Cafe request, Near Miss,
Travelling Companion, Follow the Trail, choosing the card Under the Influence forces) are
phases where ``to_act()`` names those seats.
"""

from __future__ import annotations

import random
from typing import Any

from . import knowledge
from .deck import GREY, build_deck, extra_cards
from .events import ECLIPSE_MAX, EventCards
from .plays import country_plays, play_actions

# Phases where the player whose go it is decides.
_CURRENT_PHASES = frozenset(
    {"start", "play", "cafe_ask", "cafe_offer", "seek_take", "seek_give", "grapevine_take",
     "fate_give", "eclipse", "whirlwind", "forced"}
)
# Simultaneous phases: every seat in pending["choices"] still at None decides.
_SIMULTANEOUS = frozenset({"pass", "companion", "trail"})


class BackpackerState(EventCards):
    """One match of Backpacker."""

    # The schema a client's state must fit (``arena.games.schema``).
    card_fields = ("hands", "future", "past", "known")
    seat_fields = ("dealer", "current")
    per_seat_fields = ("banked", "hands", "trips", "cameras", "status", "known")
    choices = {"phase": _CURRENT_PHASES | _SIMULTANEOUS
               | {"near_miss", "cafe_answer", "cafe_accept", "influence", "over"}}
    examples = {"last_home": {"seat": 0, "how": "home", "points": 0, "reasons": ["uk 0"], "hand": ["uk"]}}

    @classmethod
    def packs(cls, num_players: int, options: dict[str, Any]) -> list[str]:
        return build_deck(options["cards"], extra_cards(options))

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

