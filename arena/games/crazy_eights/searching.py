"""The Crazy 8s ``search`` house bot: the arena's flat search (``arena.games.search``), with
worlds that agree with what the other player has shown by its plays.

The plain search deals its worlds from the cards this seat cannot see, keeping only the voids
a forced draw revealed (``CrazyEightsState.voids``). Every play of the other player says more:
a player who counts the cards, keeps its eights and sheds its high cards first plays one card
rather than another for a reason. This search reads the other player's latest decisions (two
players, one pack) as its own ``heuristic`` would have made them: a world is kept when, given
the other hand that world deals (the cards played since back in it, the cards drawn since
taken out: those it could have played instead first, the rest at random), the heuristic
makes every one of those decisions as the other player did; of a few worlds that all miss,
the one that misses fewest. The playouts then start every seat's heuristic with
the memory the match gave it (what each saw the other unable to play), so they play on as
the match would.
"""

from __future__ import annotations

import random
from typing import Any, cast

from arena.games import cards
from arena.games.base import HouseBot, State
from arena.games.search import Budget, SearchBot, chances, standing

from .actions import DRAW, PARSE, PASS, PENALTY_DRAW
from .bots import CrazyEightsHeuristic
from .state import CrazyEightsState


def twin_of(state: State) -> CrazyEightsState:
    """A copy of a Crazy 8s state, typed as one (``clone`` is typed for any game)."""
    return cast(CrazyEightsState, state.clone())

# Worlds dealt, at most, to find one that agrees with every decision read; past that the
# world that disagrees with fewest stands (the other player may not play like the heuristic).
TRIES = 24
# The other player's latest decisions read (its whole hand's would cost more than they tell).
READ = 8


class _Decision:
    """One decision of the other player: the state just before it (public parts true, its
    hand to be filled in), its memory then (as ``CrazyEightsHeuristic`` keeps it), what it
    chose, and for a draw how many cards it drew."""

    __slots__ = ("action", "card", "drawn", "ranks", "state", "suits")

    def __init__(self, state: CrazyEightsState, bot: CrazyEightsHeuristic, action: str) -> None:
        self.state = state
        self.suits = dict(bot._void_suits)
        self.ranks = dict(bot._void_ranks)
        self.action = action
        parsed = PARSE.get(action)
        self.card = parsed[0] if parsed is not None else None
        self.drawn = 0


class CrazyEightsSearch(SearchBot):
    """``SearchBot`` whose worlds agree with the other player's plays, read as the heuristic's."""

    def __init__(self, game: str, seat: int, seed: int, budget: Budget | None = None) -> None:
        super().__init__(game, seat, seed, budget)
        self.other = 1 - seat
        # The other player's heuristic, fed only public facts: its memory is exact whatever
        # its hand (it watches hand sizes and the discard pile), its choices are tried on the
        # hands a world deals.
        self.shadow = CrazyEightsHeuristic(self.other, seed)
        self.window: list[_Decision] = []  # the other player's decisions this hand
        self.reading = False  # two players, one pack, no reshuffle, no Fastplay
        self.after_me: CrazyEightsState | None = None  # the sample, my last decision applied
        self.seen: dict[str, Any] | None = None

    # ----- the match as this seat saw it -----------------------------------------------------
    def act(self, observation: dict[str, Any], legal_actions: list[str], sample: State | None = None) -> str:
        """As ``SearchBot.act``, reading the other player's decisions since this seat's last
        one first, and keeping the heuristic guide's memory at every decision (a forced move
        included), as the heuristic itself would."""
        self.seen = observation
        if isinstance(sample, CrazyEightsState):
            self._read(observation, sample)
        else:
            # Without a sample this decision is not replayed: start reading afresh.
            self.after_me = None
            self.window = []
        if self.guide is not None and len(legal_actions) == 1:
            self.guide.act(observation, legal_actions)  # its memory follows every decision
            choice = legal_actions[0]
        else:
            choice = super().act(observation, legal_actions, sample)
        if sample is not None and self.reading:
            twin = twin_of(sample)
            twin.apply(self.seat, choice)
            self.after_me = twin
        return choice

    def _read(self, observation: dict[str, Any], sample: CrazyEightsState) -> None:
        """Replay the other player's decisions since this seat's last one on the public
        facts: its memory (the shadow's) follows them, and they join the window that worlds
        are read against."""
        options = sample.options
        self.reading = (sample.num_players == 2 and options["decks"] == 1 and not options["fastplay"]
                        and not options["reshuffle"] and not options["last_card"])
        before, self.after_me = self.after_me, None
        if not self.reading:
            return
        if before is None or before.hand_number != sample.hand_number:
            self.window = []
            self.shadow = CrazyEightsHeuristic(self.other, 0)
            before = self._opening(sample)
            if before is None:
                return
        if before.current == self.seat:
            return  # this seat played on (a queen, an ace): the other player made no decision
        plays = sample.discard[len(before.discard):]
        if sample.discard[: len(before.discard)] != before.discard:
            self.window = []
            return
        # A hand that holds the cards the other player played since: any will do to replay
        # its decisions on the public facts (its memory does not depend on its hand).
        twin = twin_of(before)
        twin.hands[self.other] = list(sample.hands[self.other]) + list(plays)
        queue = list(plays)
        while twin.current == self.other and not twin.is_terminal():
            if queue:
                card = queue.pop(0)
                if card[0] == "8":
                    if queue or sample.wish is None:
                        self.window = []
                        return
                    action = f"play {card} suit={sample.wish}"
                else:
                    action = f"play {card}"
            elif twin.penalty:
                action = PENALTY_DRAW[twin.penalty]
            else:
                action = DRAW if twin._can_draw() else PASS
            obs = twin.observation(self.other)
            self.shadow._watch(obs)
            decision = _Decision(twin_of(twin), self.shadow, action)
            self.window.append(decision)
            self.shadow._remember(obs, action)
            held = len(twin.hands[self.other])
            # Past the rules' check: the hand filled in may not be the one that made it legal.
            twin._apply(self.other, action)
            decision.drawn = max(0, len(twin.hands[self.other]) - held)
            twin.moves += 1
            twin._legal = {}
        if queue:
            self.window = []

    def _opening(self, sample: CrazyEightsState) -> CrazyEightsState | None:
        """The deal of this hand as this seat saw it (crazy_eights 4.2: seven cards each, the
        seat left of the dealer starts): the state to replay the other player's first
        decisions on. Its hand there holds the cards it played since; the rest of it is
        filled in by each world read against it."""
        plays = sample.discard[1:]
        kept = 7 - len(plays)
        if kept < 0 or len(sample.hands[self.seat]) != 7 or len(sample.hands[self.other]) < kept:
            return None
        start = twin_of(sample)
        start.discard = sample.discard[:1]
        start.hands[self.other] = list(sample.hands[self.other][:kept]) + list(plays)
        start.current = (start.dealer + 1) % 2
        start.direction = 1
        start.wish = None
        start.penalty = 0
        start.penalty_kind = ""
        start.passes = 0
        start.phase = "play"
        start.drawn = None
        start.voids = [[], []]
        start.moves = 0
        start._legal = {}
        return start

    def mismatches(self, world: CrazyEightsState, limit: int, rng: random.Random) -> int:
        """How many of the other player's latest decisions (``READ``) the heuristic would have
        made otherwise with the other hand ``world`` deals (counting stops past ``limit``).
        Going back in time, a card played returns to the hand; a draw takes back the cards
        drawn: those that would have been playable then (it could play none, crazy_eights
        4.2, nor stack a two), the rest drawn at random from the hand (``rng``), as the
        world deals no order of drawing."""
        hand = list(world.hands[self.other])
        missed = 0
        bot = self.shadow
        suits, ranks = bot._void_suits, bot._void_ranks
        try:
            for decision in reversed(self.window[-READ:]):
                state = decision.state
                if decision.card is not None:
                    hand.append(decision.card)
                elif decision.drawn:
                    missed += _take_back(state, hand, decision.drawn, rng)
                    if missed > limit:
                        break
                state.hands[self.other] = list(hand)
                state._legal = {}
                legal = state.legal_actions(self.other)
                if decision.action not in legal:
                    missed += 1
                else:
                    bot._void_suits, bot._void_ranks = decision.suits, decision.ranks
                    if bot._choose(state.observation(self.other), legal) != decision.action:
                        missed += 1
                if missed > limit:
                    break
        finally:
            bot._void_suits, bot._void_ranks = suits, ranks
        return missed

    # ----- worlds ----------------------------------------------------------------------------
    def world(self, sample: State, rng: random.Random) -> State:
        """A world this seat cannot tell from ``sample`` that agrees with the other player's
        decisions read as the heuristic's (or, of ``TRIES`` worlds, disagrees least)."""
        best = sample.resample_hidden(self.seat, rng)
        if not self.reading or not self.window:
            return best
        fewest = self.mismatches(best, 2 * READ, rng)  # type: ignore[arg-type]
        tries = 1
        while fewest and tries < TRIES:
            world = sample.resample_hidden(self.seat, rng)
            tries += 1
            missed = self.mismatches(world, fewest - 1, rng)  # type: ignore[arg-type]
            if missed < fewest:
                best, fewest = world, missed
        return best

    def search(self, sample: State, legal: list[str], guess: str | None, rng: random.Random) -> str:
        """``SearchBot.search`` from a first world that agrees with what was read (the
        sample handed over may not)."""
        if self.reading and self.window and self.mismatches(sample, 0, rng):  # type: ignore[arg-type]
            sample = self.world(sample, rng)
        return super().search(sample, legal, guess, rng)

    def overrules(self, best: list[float], guess: list[float], best_last: list[float],
                  guess_last: list[float]) -> bool:
        """The heuristic's choice is overruled on the worlds of the last round of halving
        alone: the rival that reached it was picked as the best of several on the earlier
        worlds, where it is flattered by their noise; on fresh worlds it is not."""
        return bool(best_last) and self.departs(best_last, guess_last)

    # ----- playouts --------------------------------------------------------------------------
    def _bots(self, action: str, seed: int) -> dict[int, HouseBot]:
        """Both seats' heuristics with the memory the match gave them: the guide's, having
        made ``action``, and the other player's (the shadow's)."""
        bots: dict[int, HouseBot] = {}
        if not self.reading or self.guide is None or self.seen is None:
            return bots
        mine = CrazyEightsHeuristic(self.seat, seed)
        guide = self.guide
        assert isinstance(guide, CrazyEightsHeuristic)
        mine._void_suits = dict(guide._void_suits)
        mine._void_ranks = dict(guide._void_ranks)
        mine._remember(self.seen, action)
        theirs = CrazyEightsHeuristic(self.other, seed)
        theirs._void_suits = dict(self.shadow._void_suits)
        theirs._void_ranks = dict(self.shadow._void_ranks)
        theirs._last = self.shadow._last
        bots[self.seat] = mine
        bots[self.other] = theirs
        return bots

    def playout(self, world: State, action: str, seed: int) -> float:
        """``action`` in a copy of ``world``, then the heuristic in every seat, each with the
        memory it has in the match."""
        if self.budget.rollout != "heuristic":
            return super().playout(world, action, seed)
        state = twin_of(world)
        state.apply(self.seat, action)
        self.playouts += 1
        bots = self._bots(action, seed)
        fast = self.reading
        depth = self.budget.depth
        plies = 0
        while (to_act := state.to_act()) and (depth is None or plies < depth):
            seat = to_act[0]
            legal = state.legal_actions(seat)
            bot = bots.get(seat)
            if bot is None:
                bot = bots[seat] = CrazyEightsHeuristic(seat, seed)
            # Every decision, a forced one too, so that each heuristic's memory follows.
            seen = glance(state, seat, len(legal) > 1) if fast else state.observation(seat)
            choice = bot.act(seen, legal)
            state.apply(seat, choice)
            plies += 1
        if self.budget.scale is not None:
            return chances(state, self.seat, self.budget.scale)
        return standing(state, self.seat)


def _take_back(state: CrazyEightsState, hand: list[str], count: int, rng: random.Random) -> int:
    """Remove from ``hand`` the ``count`` cards drawn at the decision ``state`` is before:
    first those that would have let the drawer play instead (crazy_eights 4.2; under a draw
    penalty, DATA 5.4: a two to stack, a red jack on a black one), then at random. 1 when
    more such cards are held than were drawn (the world disagrees), else 0."""
    if state.penalty_kind == "two":
        blocking = [c for c in hand if c[0] == "2"]
    elif state.penalty_kind:
        blocking = [c for c in hand if c[0] == "J" and c[1] in "DH"]
    else:
        blocking = [c for c in hand if state._playable(c)]
    for card in blocking[:count]:
        hand.remove(card)
    for _ in range(count - min(count, len(blocking))):
        if hand:
            hand.pop(rng.randrange(len(hand)))
    return int(len(blocking) > count)


# Cards in the order of an observation's hand (``cards.sort_cards``), as one lookup.
ORDER = {card: index for index, card in enumerate(cards.sort_cards(cards.deck()))}


def glance(state: CrazyEightsState, seat: int, choosing: bool) -> dict[str, Any]:
    """What the heuristic reads of ``observation(seat)`` (two players, one pack), built
    without copying the piles: the hand only when it has a choice to make (its memory reads
    the public facts alone). Its decisions on it are its decisions on the observation."""
    return {
        "seat": seat,
        "num_players": 2,
        "hand": sorted(state.hands[seat], key=ORDER.__getitem__) if choosing else [],
        "top_card": state.discard[-1],
        "discard_pile": state.discard,
        "draw_pile": len(state.draw_pile),
        "hand_sizes": [len(state.hands[0]), len(state.hands[1])],
        "direction": state.direction,
        "hand_number": state.hand_number,
        "options": state.options,
    }
