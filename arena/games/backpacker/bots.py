"""The Backpacker heuristic house bot: plays like the rulebook's Strategy Tips.

It sees only its observation and legal actions. Tips it follows: pass grey cards on rather
than play them (Sickness, Reunion, Seek Guidance, Fate, Wrong Backpack, Internet Cafe); time
going home against the size of the Future pile; play Bad Advice and pink cards on the leader
or on a player with a big trip; chase the 5-continent bonus; remove Bad Advice quickly.
"""

from __future__ import annotations

from typing import Any

from arena.games import HouseBot

from .deck import BAD_ADVICE, BONUS_CARDS, COUNTRIES, GREY
from .plays import GOOD_FOR
from .scoring import continents, score_trip

# How much a card in hand is worth keeping (higher = keep), for events.
KEEP = {
    "insurance": 90, "credit_card": 70, "near_miss": 80, "travelling_companion": 75,
    "travel_the_clock": 70, "paths_cross": 60, "money_talks": 55, "grapevine": 50,
    "seek_guidance": 45, "video_camera": 45, "flying_visit": 50, "follow_the_trail": 40,
    "solar_eclipse": 40, "everest": 25, "internet_cafe": 25, "reunion": 35, "fate": 30,
    "change_of_plans": 30, "wrong_backpack": 30, "whirlwind_tour": 35, "date_line": 20,
    "inspiration": 30, "broken_camera": 45, "low_battery": 35, "love": 35, "visa_problem": 35,
    "under_the_influence": 30, "bad_timing": 40, "bad_transport": 40, "bad_bureaucracy": 40,
    "good_timing": 25, "good_transport": 25, "good_bureaucracy": 25,
}
GREY_PAIN = {"thief": 200, "out_of_cash": 120, "sickness": 90, "no_flight": 60}


# Action ids parsed once: (verb, card, {"on": ..., "with": ...}). The set of ids is finite.
_PARSED: dict[str, tuple[str, str, dict[str, str]]] = {}


def _parse(action: str) -> tuple[str, str, dict[str, str]]:
    words = action.split()
    card = words[1] if len(words) > 1 else ""
    return words[0], card, dict(w.split("=", 1) for w in words[2:] if "=" in w)


class BackpackerHeuristic(HouseBot):
    """Rulebook strategy: greys on, Bad Advice on the leader, 5 continents, home in time."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]
        self.obs = observation
        self.me = observation["seat"]
        self.mine = observation["players"][self.me]
        # Facts of this observation asked for once per legal action: worked out once.
        self._been: set[str] | None = None
        self._greys: list[str] | None = None
        phase = observation["phase"]
        handler = getattr(self, "_" + phase, None)
        if handler is not None:
            choice = handler(legal_actions)
            if choice in legal_actions:
                return str(choice)
        return max(legal_actions, key=self._value)

    # ----- facts from the observation ---------------------------------------------------------
    def _trip_value(self, player: dict[str, Any]) -> int:
        status = player["status"]
        bad = bool(status and status["card"] in BAD_ADVICE)
        return score_trip(player["trip"], bad)[0]

    def _visited(self) -> set[str]:
        been = self._been
        if been is None:
            been = self._been = continents(self.mine["trip"])
        return been

    def _grey_in_hand(self) -> list[str]:
        greys = self._greys
        if greys is None:
            greys = self._greys = [c for c in self.obs["hand"] if c in GREY]
        return greys

    def _leader(self) -> int:
        """The opponent with the most banked plus travelling points."""
        players = self.obs["players"]
        others = [s for s in range(len(players)) if s != self.me]
        return max(others, key=lambda s: players[s]["score"] + self._trip_value(players[s]))

    def _threat(self, seat: int) -> float:
        player = self.obs["players"][seat]
        trip = self._trip_value(player)
        lead = player["score"] - self.mine["score"]
        return trip + 0.3 * max(lead, 0) + (60 if len(continents(player["trip"])) >= 4 else 0)

    def _card_worth(self, card: str) -> float:
        """How much this bot wants to keep ``card`` in hand."""
        if card in GREY:
            return -GREY_PAIN[card]
        country = COUNTRIES.get(card)
        if country is not None:
            if country.continent in self._visited():
                return country.points / 4
            return country.points + 20
        if card in BONUS_CARDS:
            trip = self.mine["trip"]
            if trip and card in COUNTRIES[trip[-1]["country"]].bonuses:
                return COUNTRIES[trip[-1]["country"]].points
            return 15
        if card in GOOD_FOR:
            status = self.mine["status"]
            return 90 if status and status["card"] in GOOD_FOR[card] else KEEP.get(card, 20)
        return KEEP.get(card, 20)

    # ----- phases ------------------------------------------------------------------------------
    def _start(self, legal: list[str]) -> str:
        if "go_home" not in legal:
            return "draw"
        value = self._trip_value(self.mine)
        n = self.obs["num_players"]
        future = self.obs["future_size"]
        cont = len(self._visited())
        status = self.mine["status"]
        stuck = bool(status) and status["card"] in BAD_ADVICE | {"love", "visa_problem"}
        if value <= 0 and not stuck:
            return "draw"
        # Time going home against the Future pile: the year may end before the next go.
        if future <= 2 * n + 2:
            return "go_home"
        if cont >= 5:
            return "go_home"
        playable = any(
            c in COUNTRIES and COUNTRIES[c].continent not in self._visited()
            for c in self.obs["hand"]
        )
        if stuck and value >= 100 and not any(c in GOOD_FOR for c in self.obs["hand"]):
            return "go_home"
        if not playable and value >= 260 and cont >= 3:
            return "go_home"
        return "draw"

    def _value(self, action: str) -> float:
        parsed = _PARSED.get(action)
        if parsed is None:
            parsed = _PARSED[action] = _parse(action)
        verb, card, args = parsed
        if verb == "abandon":
            top = self.mine["trip"][-1]
            loss = COUNTRIES[top["country"]].points * (1 + len(top["bonuses"]))
            new = max((COUNTRIES[c].points for c in self.obs["hand"] if c in COUNTRIES), default=0)
            has_good = any(
                c in GOOD_FOR and self.mine["status"]["card"] in GOOD_FOR[c] for c in self.obs["hand"]
            )
            return -100 if has_good else new - loss * 0.5
        if verb == "discard":
            if args.get("with") == "insurance":
                return 150 + GREY_PAIN.get(card, 0) / 2
            return -self._card_worth(card)
        if verb != "play":
            return 0
        return self._play_value(card, args)

    def _play_value(self, card: str, args: dict[str, str]) -> float:
        country = COUNTRIES.get(card)
        trip = self.mine["trip"]
        camera = 20 if self.mine["video_camera"] else 0
        if country is not None:
            cont = self._visited()
            value = country.points + camera + 40
            if len(cont | {country.continent}) >= 5 > len(cont):
                value += 200
            return value - (25 if args.get("with") else 0)
        if card in BONUS_CARDS:
            return COUNTRIES[trip[-1]["country"]].points + camera + 30
        if card in GREY:
            greys = len(self._grey_in_hand())
            top = trip[-1] if trip else None
            top_loss = COUNTRIES[top["country"]].points * (1 + len(top["bonuses"])) if top else 0
            if card == "sickness":
                return 40 * (greys - 1) - top_loss + 30 - (0 if self.obs["future_size"] > 20 else -40)
            if card == "thief":
                return -self._trip_value(self.mine) - 30
            return 60 - GREY_PAIN[card] + (40 if self.obs["future_size"] < 25 else 0)
        if card in GOOD_FOR:
            return 160
        if "on" in args or "from" in args:
            target = int(args.get("on", args.get("from", "0")))
            threat = self._threat(target)
            if card == "paths_cross":
                top = self.obs["players"][target]["trip"][-1]
                got = COUNTRIES[top["country"]].points * (1 + len(top["bonuses"]))
                return got + 40 + threat * 0.3
            if card in BAD_ADVICE:
                return 40 + threat * 0.5
            if card == "wrong_backpack":
                known = self.obs["known_hands"].get(str(target), [])
                return 60 * len(self._grey_in_hand()) - 40 * sum(c in GREY for c in known) - 40
            if card in ("seek_guidance", "grapevine"):
                relief = max((GREY_PAIN[g] for g in self._grey_in_hand()), default=0)
                return 60 + 0.5 * relief + threat * 0.1
            return 30 + threat * 0.4  # pink cards
        pains = sorted((GREY_PAIN[g] for g in self._grey_in_hand()), reverse=True)
        relief = pains[0] if pains else 0
        if card == "reunion":
            return 20 + 0.8 * relief
        if card == "fate":
            return 10 + 0.7 * sum(pains[: self.obs["num_players"] - 1])
        if card == "change_of_plans":
            return 0.8 * sum(pains) - 60
        if card == "inspiration":
            name = args.get("country")
            return (COUNTRIES[name].points + 40) if name else -20
        if card == "travel_the_clock":
            return 120
        if card == "video_camera":
            return 90 - 20 * len(trip)
        if card == "flying_visit":
            return self._trip_value(self.mine) - 60
        if card == "date_line":
            return -10 - int(args.get("count", "1"))
        if card == "follow_the_trail":
            top = self.obs["past_top"]
            return self._card_worth(top) - KEEP["follow_the_trail"] if top else -50
        return {"internet_cafe": 30, "everest": 50, "solar_eclipse": 70, "whirlwind_tour": 40}.get(card, 0)

    def _forced(self, legal: list[str]) -> str:
        return max(legal, key=self._value)

    def _whirlwind(self, legal: list[str]) -> str:
        plays = [a for a in legal if a != "stop"]
        return max(plays, key=self._value) if plays else "stop"

    def _pass(self, legal: list[str]) -> str:
        # Tip: pass grey cards to another player rather than play them.
        return min(legal, key=lambda a: self._card_worth(a.split()[1]))

    def _seek_give(self, legal: list[str]) -> str:
        return min(legal, key=lambda a: self._card_worth(a.split()[1]))

    _fate_give = _seek_give

    def _seek_take(self, legal: list[str]) -> str:
        return max(legal, key=lambda a: self._card_worth(a.split()[1]))

    _grapevine_take = _seek_take

    def _near_miss(self, legal: list[str]) -> str:
        return "play near_miss" if "play near_miss" in legal else "decline"

    def _companion(self, legal: list[str]) -> str:
        worth = self._trip_value(self.mine)
        return "play travelling_companion" if worth >= 100 or (worth > 0 and self._grey_in_hand()) else "decline"

    def _trail(self, legal: list[str]) -> str:
        top = self.obs["past_top"]
        if top and self._card_worth(top) > KEEP["follow_the_trail"] + 20:
            return "play follow_the_trail"
        return "decline"

    def _eclipse(self, legal: list[str]) -> str:
        drawn = self.obs["pending"].get("drawn")
        return "keep" if drawn and self._card_worth(drawn) >= 50 else "reject"

    def _cafe_ask(self, legal: list[str]) -> str:
        status = self.mine["status"]
        if status and status["card"] in BAD_ADVICE:
            leader = self._leader()
            for good in ("money_talks", *(g for g, bad in GOOD_FOR.items() if status["card"] in bad)):
                ask = f"ask {good} from={leader}"
                if ask in legal:
                    return ask
        return "no_exchange"

    def _cafe_answer(self, legal: list[str]) -> str:
        asked = self.obs["pending"]["asked"]
        return "agree" if self._card_worth(asked) < 10 else "refuse"

    def _cafe_offer(self, legal: list[str]) -> str:
        return min((a for a in legal if a != "cancel"), key=lambda a: self._card_worth(a.split()[1]))

    def _cafe_accept(self, legal: list[str]) -> str:
        offered = self.obs["pending"]["offered"]
        return "accept" if offered not in GREY else "decline"

    def _influence(self, legal: list[str]) -> str:
        # Force a grey card on them if they hold one, otherwise their best card.
        def harm(action: str) -> float:
            card = action.split()[1]
            if card in GREY:
                return 500 + GREY_PAIN[card]
            country = COUNTRIES.get(card)
            return country.points if country else KEEP.get(card, 10)

        return max(legal, key=harm)
