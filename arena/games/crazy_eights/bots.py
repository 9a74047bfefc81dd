"""The Crazy 8s heuristic house bot: it sees only the observation and the legal action ids."""

from __future__ import annotations

import functools
import math
from typing import Any

from arena.games import HouseBot, cards

from .actions import PARSE
from .state import POINTS

SUITS = cards.SUITS
# Cards of each suit and of each rank in one pack.
FULL = {k: sum(1 for c in cards.deck() if k in (c[0], c[1])) for k in {*cards.SUITS, *(c[0] for c in cards.deck())}}
FADE = 3  # cards drawn after which a suit shown lacking counts as unknown again


class CrazyEightsHeuristic(HouseBot):
    """Plays like a careful club player:

    - with two players, looks at its whole turn: a two, a queen or an ace gives it another
      turn (DATA 5.4), so it chains them into the play that sheds most, and does not play
      one it could not follow (it would only have to draw);
    - keeps its eights for when nothing else fits (or to go out), and then wishes for the
      suit it holds most of, or one the other player is unlikely to follow;
    - counts the cards (two players, one pack): what is neither in its hand nor on the
      discard pile may be in the other hand, and a player who had to draw had nothing it
      could play (crazy_eights 4.2), so it leaves a top card the other player is unlikely to
      match, the more so when that player is close to going out;
    - sheds high penalty cards first;
    - with more players uses twos, queens and aces hard against a player about to go out;
    - stacks a two on a two rather than drawing, always calls "Last card!", and plays a
      card drawn under Fastplay.
    """

    def __init__(self, seat: int, seed: int) -> None:
        super().__init__(seat, seed)
        # Two players: the suits and ranks the other player was seen unable to play, and
        # how many cards it has drawn since (each draw may have brought one).
        self._void_suits: dict[str, int] = {}
        self._void_ranks: dict[str, int] = {}
        # After our own last decision: (hand number, discard pile size, the other hand's
        # size, the card it then had to follow, the wish binding it, a penalty pending).
        self._last: tuple[int, int, int, str, str | None, bool] | None = None

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if observation["num_players"] == 2:
            self._watch(observation)
        choice = self._choose(observation, legal_actions)
        if observation["num_players"] == 2:
            self._remember(observation, choice)
        return choice

    # ----- what the other player has shown ------------------------------------------------
    def _watch(self, obs: dict[str, Any]) -> None:
        """Read the other player's last turn: a plain draw (no penalty pending) means it had
        no card of the suit in force, of the top card's rank (no wish) nor an eight."""
        other = 1 - obs["seat"]
        size = obs["hand_sizes"][other]
        last = self._last
        if last is None or last[0] != obs["hand_number"]:
            self._void_suits = {}
            self._void_ranks = {}
            return
        _, after_me, before, top, wish, penalty = last
        drew = size - before
        if drew > 0:
            for table in (self._void_suits, self._void_ranks):
                for key in table:
                    table[key] += drew
        # Same discard pile as after our own turn and one card more: a plain draw.
        if len(obs["discard_pile"]) == after_me and drew == 1 and not penalty:
            if wish is not None:
                self._void_suits[wish] = 0
            else:
                self._void_suits[top[1]] = 0
                self._void_ranks[top[0]] = 0
            self._void_ranks["8"] = 0
        # Cards it played show it held them: a suit it just played is no longer a void.
        for card in obs["discard_pile"][after_me:]:
            self._void_suits.pop(card[1], None)
            self._void_ranks.pop(card[0], None)

    def _remember(self, obs: dict[str, Any], choice: str) -> None:
        other = 1 - obs["seat"]
        pile = len(obs["discard_pile"])
        parsed = PARSE.get(choice)
        if parsed is not None:
            card, wish, _ = parsed
            options = obs["options"]
            penalty = (card[0] == "2" and options["draw_two"]) or (
                card[0] == "J" and card[1] in "CS" and options["black_jack"]
            )
            self._last = (obs["hand_number"], pile + 1, obs["hand_sizes"][other], card, wish or None,
                          bool(penalty))
        else:
            # A draw (a penalty's too) or a pass ends our turn: the other player faces the
            # same top card, the wish that bound us over (crazy_eights 4.2.1).
            self._last = (obs["hand_number"], pile, obs["hand_sizes"][other], obs["top_card"], None, False)

    # ----- choosing --------------------------------------------------------------------------
    def _choose(self, obs: dict[str, Any], legal_actions: list[str]) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]
        plays = [a for a in legal_actions if a in PARSE]
        if not plays:
            return legal_actions[0]
        # "Last card!" costs nothing to call and two cards to forget.
        called = [a for a in plays if PARSE[a][2]]
        if called:
            plays = called
        if len(plays) == 1:
            return plays[0]
        look = _Look(self, obs)
        hand = obs["hand"]
        best = plays[0]
        best_value = -math.inf
        for action in plays:
            card, wish, _ = PARSE[action]
            i = hand.index(card)
            rest = (*hand[:i], *hand[i + 1:])
            value = look.after(rest, card, wish, 0) if rest else WIN  # going out wins the hand
            if value > best_value:
                best, best_value = action, value
        return best

# The weights of a turn's end, tuned in duplicate pairs against ``random`` (two players).
WIN = 1000.0
CARD = 10.0  # a card still to shed, against the smaller preferences below
MAX_CHAIN = 6  # plays looked at within one turn (two players: queens, aces, twos)
TWO = CARD  # the two cards a two makes the other player draw, were it never stacked
PTS = 0.5  # a penalty point still held
EIGHT = 20.0  # an eight spent while it could still be kept
WISH = 3.0  # a card held of the wished suit
WISH_BLOCK, WISH_BLOCK_THREAT = 3.0, 6.0  # a wish the other player is unlikely to follow
BLOCK, BLOCK_THREAT = 3.0, 8.0  # a top card it is unlikely to follow (threat: it holds <= 2)


@functools.cache
def _ranks_that_act(n: int, draw_two: bool, queen_skip: bool, ace_reverse: bool) -> tuple[str, str]:
    ranks = "".join(r for r, on in (("2", draw_two), ("Q", queen_skip), ("A", ace_reverse)) if on)
    return (ranks if n == 2 else ""), ranks


def _cards_in_play(n: int, options: dict[str, Any]) -> tuple[str, str]:
    """The ranks that give the same player another turn (two players: a 2 makes the other
    draw and miss the turn, a queen skips it, an ace reverses back; DATA 5.4), and the ranks
    that act at all."""
    return _ranks_that_act(n, options["draw_two"], options["queen_skip"], options["ace_reverse"])


class _Look:
    """One decision's look at the turn ahead: with two players a queen, an ace or a two
    gives the same player another turn (DATA 5.4), so a turn may shed several cards."""

    def __init__(self, bot: CrazyEightsHeuristic, obs: dict[str, Any]) -> None:
        n = obs["num_players"]
        nxt = (obs["seat"] + obs["direction"]) % n
        self.threat = obs["hand_sizes"][nxt] <= 2
        self.extra, self.action_ranks = _cards_in_play(n, obs["options"])
        self.memo: dict[tuple[tuple[str, ...], str], float] = {}
        # What the other player (two players, one pack) may hold: each unseen card is in its
        # hand with the odds of its share of the unseen cards, less for a suit or rank it has
        # shown it lacks (fading with every card it has drawn since).
        self.share = 0.0  # 0: nothing known of the other hand (more players, two packs)
        if n == 2 and obs["options"]["decks"] == 1:
            held = obs["hand_sizes"][1 - obs["seat"]]
            pool = held + obs["draw_pile"]
            self.share = held / pool if pool else 1.0
            self.seen = "".join(obs["hand"]) + "".join(obs["discard_pile"])
            self.voids = {**bot._void_suits, **bot._void_ranks}
        self.odds: dict[str, float] = {}
        self.blocked: dict[tuple[str, str], float] = {}
        self.kept: dict[tuple[str, ...], tuple[float, dict[str, int]]] = {}

    def chance(self, key: str) -> float:
        """Expected cards of suit or rank ``key`` in the other hand."""
        got = self.odds.get(key)
        if got is None:
            got = (FULL[key] - self.seen.count(key)) * self.share
            drawn = self.voids.get(key)
            if drawn is not None and drawn < FADE:
                got *= drawn / FADE
            self.odds[key] = got
        return got

    def stuck(self, suit: str, rank: str) -> float:
        """How unlikely the other player is to follow ``suit`` or ``rank`` ("" after a wish,
        which fixes the suit alone): 1 / (1 + the cards it may hold that fit)."""
        if not self.share:
            return 0.0
        key = (suit, rank)
        got = self.blocked.get(key)
        if got is None:
            fit = self.chance(suit) + self.chance("8") + (self.chance(rank) if rank and rank != "8" else 0.0)
            got = self.blocked[key] = 1.0 / (1.0 + fit)
        return got

    def after(self, hand: tuple[str, ...], card: str, wish: str, depth: int) -> float:
        """Value of having played ``card`` (wishing ``wish``), ``hand`` left."""
        rank = card[0]
        if rank in self.extra and depth < MAX_CHAIN:
            bonus = TWO if rank == "2" else 0.0  # the other player draws two, unless it stacks
            return bonus + self.turn(hand, card, depth + 1)
        return self.end(hand, card, wish)

    def turn(self, hand: tuple[str, ...], top: str, depth: int) -> float:
        """Best value of playing on from ``top`` with the turn still ours."""
        key = (hand, top)
        got = self.memo.get(key)
        if got is not None:
            return got
        best = -CARD + self.end(hand, top, "")  # nothing to play: draw one, the turn ends
        for i, c in enumerate(hand):
            if not (c[0] == "8" or c[0] == top[0] or c[1] == top[1]):
                continue
            if len(hand) == 1:
                best = WIN
                break
            rest = hand[:i] + hand[i + 1:]
            if c[0] == "8":
                value = max(self.end(rest, c, s) for s in SUITS)
            else:
                value = self.after(rest, c, "", depth)
            if value > best:
                best = value
        self.memo[key] = best
        return best

    def end(self, hand: tuple[str, ...], card: str, wish: str) -> float:
        """The turn ends with ``card`` on top and ``hand`` left: fewer cards and fewer
        penalty points, and a top card the other player is unlikely to follow."""
        known = self.kept.get(hand)
        if known is None:
            suits = {"": 0}
            for c in hand:
                if c[0] != "8":
                    suits[c[1]] = suits.get(c[1], 0) + 1
            known = self.kept[hand] = (-CARD * len(hand) - PTS * sum(POINTS[c] for c in hand), suits)
        score, suits = known
        if card[0] == "8":
            # An eight is the one card that always fits: spend it last, and wish for the
            # suit held most, or one the other player is unlikely to follow.
            score += -EIGHT + WISH * suits.get(wish, 0)
            score += (WISH_BLOCK_THREAT if self.threat else WISH_BLOCK) * self.stuck(wish, "")
            if len(suits) == 1:
                score += 15.0  # only eights left: nothing else to keep them for
            return score
        if card[0] in self.action_ranks and not self.extra:
            # Action cards: strongest against a player about to go out.
            score += 8.0 if self.threat else 1.0
        return score + (BLOCK_THREAT if self.threat else BLOCK) * self.stuck(card[1], card[0])
