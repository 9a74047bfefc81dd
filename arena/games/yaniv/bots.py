"""The Yaniv heuristic house bot: it sees only the observation and the legal action ids."""

from __future__ import annotations

from typing import Any

from arena.games import HouseBot, cards

from .melds import VALUE, discards, hand_value

FULL_PACK = cards.deck(jokers=2)
# Call Yaniv only when no Assaf is this likely (tuned against the house bots).
CALL_CONFIDENCE = 0.7
# What being able to call next turn is worth, in points.
CALL_BONUS = 10.0


def meld_bonus(hand: list[str]) -> int:
    """Points the best set or run sheds beyond the highest single card: what holding
    cards that belong together is worth next turn."""
    single = max((VALUE[c] for c in hand), default=0)
    return max((sum(VALUE[c] for c in d) for d in discards(hand)), default=0) - single


_OUTLOOKS: dict[tuple[str, ...], float] = {}  # sorted hand -> outlook: searches ask again and again


def outlook(hand: list[str]) -> float:
    """Lower is better: points held, less half of what a set or run could shed at once."""
    key = tuple(sorted(hand))
    known = _OUTLOOKS.get(key)
    if known is None:
        if len(_OUTLOOKS) >= 200_000:
            _OUTLOOKS.clear()
        known = _OUTLOOKS[key] = hand_value(hand) - 0.5 * meld_bonus(hand)
    return known


class YanivHeuristic(HouseBot):
    """Plays the rulebook's game (yaniv 2.4):

    - calls Yaniv when it may and no opponent is likely to hold fewer points (an estimate
      from the cards seen taken from the pile and the unseen cards' average), to avoid Assaf;
    - discards the set, run or card that leaves the best hand, counting the card it means
      to pick up: a low card or a card that joins a set or run on the pile, else the deck;
    - keeps jokers and aces, and never hands the next player a joker at the end of a run;
    - under the optional 90 rule, draws the wild card (it lowers the score on average).
    """

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]
        phase = observation["phase"]
        if phase == "ninety":
            return "draw_wild"
        hand: list[str] = list(observation["hand"])
        unseen = self._unseen_values(observation)
        limit = observation["call_limit"]
        if phase == "draw":
            return min(legal_actions, key=lambda a: self._draw_cost(a, hand, unseen, limit))
        if "yaniv" in legal_actions and self._safe_to_call(observation, unseen):
            return "yaniv"
        last = observation["last_discard"]
        draws = ["draw deck", *(f"take {c}" for c in dict.fromkeys([last[0], last[-1]]))]
        best = None
        best_cost = 0.0
        for action in legal_actions:
            if action == "yaniv":
                continue
            laid = action.split()[1:]
            rest = list(hand)
            for c in laid:
                rest.remove(c)
            cost = min(self._draw_cost(d, rest, unseen, limit) for d in draws)
            # Do not feed the next player: a low card or joker left on the outside of
            # the discard is theirs to take.
            outer = {laid[0], laid[-1]}
            cost += 0.3 * sum(1 for c in outer if VALUE[c] <= 2)
            if best is None or cost < best_cost:
                best, best_cost = action, cost
        assert best is not None
        return best

    @staticmethod
    def _draw_cost(action: str, hand: list[str], unseen: list[int], limit: int) -> float:
        """Expected outlook after the draw, less a bonus for being able to call Yaniv next
        turn (without it two careful players can swap middling cards for ever)."""
        if action == "draw deck":
            held = hand_value(hand)
            callable_chance = sum(1 for v in unseen if held + v <= limit) / len(unseen)
            return outlook(hand) + sum(unseen) / len(unseen) - CALL_BONUS * callable_chance
        taken = [*hand, action.split()[1]]
        return outlook(taken) - (CALL_BONUS if hand_value(taken) <= limit else 0.0)

    def _unseen_values(self, obs: dict[str, Any]) -> list[int]:
        """Values of the cards this seat has not seen (the deck and others' unknown cards)."""
        left = dict.fromkeys(FULL_PACK, obs["options"]["decks"])
        for pile in (obs["hand"], obs["discard_pile"], obs["last_discard"], obs["my_discard"],
                     *obs["known_cards"]):
            for c in pile:
                if left.get(c):
                    left[c] -= 1
        return [VALUE[c] for c, n in left.items() for _ in range(n)] or [0]

    def _safe_to_call(self, obs: dict[str, Any], values: list[int]) -> bool:
        """Whether calling is likely to stand against Assaf (yaniv 2.4.2): the chance that
        every opponent holds at least as many points, treating each unseen card in their
        hands as a random unseen card."""
        mine = obs["hand_value"]
        seat = obs["seat"]
        chance = 1.0
        for s, size in enumerate(obs["hand_sizes"]):
            if s == seat or not obs["active"][s]:
                continue
            known = obs["known_cards"][s]
            floor = mine - sum(VALUE[c] for c in known)  # Assaf needs unknown cards < floor
            chance *= 1.0 - _chance_below(values, size - len(known), floor)
        return chance >= CALL_CONFIDENCE


def _chance_below(values: list[int], count: int, limit: int) -> float:
    """Chance that ``count`` cards drawn from ``values`` (with replacement) sum below ``limit``."""
    if limit <= 0:
        return 0.0
    weights = [0.0] * (limit + 1)
    for v in values:
        if v < limit:
            weights[v] += 1.0 / len(values)
    dist = [1.0] + [0.0] * (limit - 1)  # dist[t]: chance the sum so far is t (< limit)
    for _ in range(count):
        nxt = [0.0] * limit
        for t, p in enumerate(dist):
            if p:
                for v in range(limit - t):
                    nxt[t + v] += p * weights[v]
        dist = nxt
    return sum(dist)
