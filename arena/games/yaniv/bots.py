"""The Yaniv heuristic house bot: it sees only the observation and the legal action ids."""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate
from operator import mul
from typing import Any

from arena.games import HouseBot, cards

from .melds import CARD_KEY, VALUE, cards_of, hand_key, hand_value, shed_profile
from .state import YanivState

FULL_PACK = cards.deck(jokers=2)
# Call Yaniv only when no Assaf is this likely (tuned against the house bots).
CALL_CONFIDENCE = 0.7
# What being able to call next turn is worth, in points.
CALL_BONUS = 10.0


_OUTLOOKS: dict[int, float] = {}  # hand_key -> outlook: searches ask again and again


def outlook(hand: list[str]) -> float:
    """Lower is better: points held, less half of what a set or run could shed at once."""
    return _outlook(hand_key(hand))


def _outlook(key: int) -> float:
    known = _OUTLOOKS.get(key)
    if known is None:
        if len(_OUTLOOKS) >= 200_000:
            _OUTLOOKS.clear()
        total, single, shed = shed_profile(cards_of(key))
        known = _OUTLOOKS[key] = total - 0.5 * (shed - single)
    return known


class _Laid:
    """What the heuristic needs of a ``discard ...`` action: the cards' key and points, and
    how many of its outer cards are low enough to feed the next player."""

    __slots__ = ("key", "low_outer", "value")

    def __init__(self, action: str) -> None:
        laid = action.split()[1:]
        self.key = hand_key(laid)
        self.value = hand_value(laid)
        self.low_outer = sum(1 for c in {laid[0], laid[-1]} if VALUE[c] <= 2)


_LAID: dict[str, _Laid] = {}


class _Unseen:
    """The values of the cards a seat has not seen, as counts per value (0 to 10)."""

    __slots__ = ("below", "counts", "mean", "size")

    def __init__(self, counts: list[int]) -> None:
        if not any(counts):
            counts = [1] + [0] * 10  # nothing unseen: one card worth nothing
        self.counts = counts
        self.below = list(accumulate(counts))  # below[t]: how many are worth t or less
        self.size = self.below[-1]
        self.mean = sum(map(mul, _POINTS, counts)) / self.size

    def at_most(self, points: int) -> int:
        """How many unseen cards are worth ``points`` or less."""
        if points < 0:
            return 0
        return self.below[min(points, 10)]


_POINTS = range(11)
_CARD_BIT = {c: 1 << i for i, c in enumerate(FULL_PACK)}
_VALUE_MASKS = [sum(bit for c, bit in _CARD_BIT.items() if VALUE[c] == v) for v in _POINTS]
_PACK_COUNTS: dict[int, list[int]] = {}  # decks -> count of each value in the full packs


def _pack_counts(decks: int) -> list[int]:
    known = _PACK_COUNTS.get(decks)
    if known is None:
        known = _PACK_COUNTS[decks] = [0] * 11
        for c in FULL_PACK:
            known[VALUE[c]] += decks
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
        obs = observation
        known = obs["known_cards"]
        unseen = _unseen_values(
            obs["options"]["decks"], (obs["hand"], obs["discard_pile"], obs["last_discard"], obs["my_discard"], *known)
        )

        def safe_to_call() -> bool:
            return _safe_to_call(obs["hand_value"], obs["seat"], obs["hand_sizes"], obs["active"], known, unseen)

        return self._choose(phase, obs["hand"], obs["hand_value"], unseen, obs["call_limit"], obs["last_discard"],
                            legal_actions, safe_to_call)

    def act_in(self, state: YanivState, seat: int, legal_actions: list[str]) -> str:
        """``act(state.observation(seat), legal_actions)``, read from the state without
        building the observation: the search's playouts hold the state already. It reads
        only what the observation shows (the order of a hand does not matter here)."""
        if len(legal_actions) == 1:
            return legal_actions[0]
        phase = state.phase
        if phase == "ninety":
            return "draw_wild"
        hand = state.hands[seat]
        held = hand_value(hand)
        known = state.known
        unseen = _unseen_values(
            state.options["decks"], (hand, state.buried, state.last_discard, state.my_discard, *known)
        )

        def safe_to_call() -> bool:
            sizes = [len(h) for h in state.hands]
            active = [state.out_round[s] is None for s in range(state.num_players)]
            return _safe_to_call(held, seat, sizes, active, known, unseen)

        return self._choose(phase, hand, held, unseen, state.options["call_limit"], state.last_discard,
                            legal_actions, safe_to_call)

    def _choose(self, phase: str, hand: list[str], held: int, unseen: _Unseen, limit: int, last: list[str],
                legal_actions: list[str], safe_to_call: Callable[[], bool]) -> str:
        key = hand_key(hand)
        if phase == "draw":
            return min(legal_actions, key=lambda a: self._draw_cost(a, key, held, unseen, limit))
        if "yaniv" in legal_actions and safe_to_call():
            return "yaniv"
        takes = list(dict.fromkeys([last[0], last[-1]]))
        best = None
        best_cost = 0.0
        for action in legal_actions:
            if action == "yaniv":
                continue
            laid = _LAID.get(action)
            if laid is None:
                laid = _LAID[action] = _Laid(action)
            rest = key - laid.key
            rest_value = held - laid.value
            cost = min(
                self._deck_cost(rest, rest_value, unseen, limit),
                *(self._take_cost(rest, rest_value, c, limit) for c in takes),
            )
            # Do not feed the next player: a low card or joker left on the outside of
            # the discard is theirs to take.
            cost += 0.3 * laid.low_outer
            if best is None or cost < best_cost:
                best, best_cost = action, cost
        assert best is not None
        return best

    @classmethod
    def _draw_cost(cls, action: str, key: int, held: int, unseen: _Unseen, limit: int) -> float:
        """Expected outlook after the draw, less a bonus for being able to call Yaniv next
        turn (without it two careful players can swap middling cards for ever)."""
        if action == "draw deck":
            return cls._deck_cost(key, held, unseen, limit)
        return cls._take_cost(key, held, action.split()[1], limit)

    @staticmethod
    def _deck_cost(key: int, held: int, unseen: _Unseen, limit: int) -> float:
        """``_draw_cost`` of drawing from the deck: a random unseen card joins the hand."""
        callable_chance = unseen.at_most(limit - held) / unseen.size
        return _outlook(key) + unseen.mean - CALL_BONUS * callable_chance

    @staticmethod
    def _take_cost(key: int, held: int, card: str, limit: int) -> float:
        """``_draw_cost`` of taking ``card`` from the pile."""
        return _outlook(key + CARD_KEY[card]) - (CALL_BONUS if held + VALUE[card] <= limit else 0.0)

def _unseen_values(decks: int, piles: tuple[list[str], ...]) -> _Unseen:
    """Values of the cards a seat has not seen (the deck and others' unknown cards): every
    card of the packs less those in ``piles`` (its hand, the discards, the cards seen taken)."""
    if decks == 1:
        seen = 0  # one bit per card of the pack
        for pile in piles:
            seen |= sum(map(_CARD_BIT.__getitem__, pile))  # a pile holds a card once at most
        return _Unseen([n - (seen & mask).bit_count() for n, mask in zip(_pack_counts(1), _VALUE_MASKS, strict=True)])
    counts = list(_pack_counts(decks))
    times: dict[str, int] = {}
    for pile in piles:
        for c in pile:
            times[c] = times.get(c, 0) + 1
    for c, n in times.items():
        counts[VALUE[c]] -= min(n, decks)  # a card seen twice may be the same card
    return _Unseen(counts)


def _safe_to_call(mine: int, seat: int, hand_sizes: list[int], active: list[bool], known_cards: list[list[str]],
                  values: _Unseen) -> bool:
    """Whether calling is likely to stand against Assaf (yaniv 2.4.2): the chance that
    every opponent holds at least as many points, treating each unseen card in their
    hands as a random unseen card."""
    chance = 1.0
    for s, size in enumerate(hand_sizes):
        if s == seat or not active[s]:
            continue
        known = known_cards[s]
        floor = mine - sum(VALUE[c] for c in known)  # Assaf needs unknown cards < floor
        chance *= 1.0 - _chance_below(values, size - len(known), floor)
    return chance >= CALL_CONFIDENCE


def _chance_below(values: _Unseen, count: int, limit: int) -> float:
    """Chance that ``count`` cards drawn from ``values`` (with replacement) sum below ``limit``."""
    if limit <= 0:
        return 0.0
    weights = [0.0] * (limit + 1)
    share = 1.0 / values.size
    for v, n in enumerate(values.counts):
        if v < limit:
            for _ in range(n):  # added one card at a time, as the sum of the cards' chances
                weights[v] += share
    dist = [1.0] + [0.0] * (limit - 1)  # dist[t]: chance the sum so far is t (< limit)
    for _ in range(count):
        nxt = [0.0] * limit
        for t, p in enumerate(dist):
            if p:
                for v in range(limit - t):
                    nxt[t + v] += p * weights[v]
        dist = nxt
    return sum(dist)
