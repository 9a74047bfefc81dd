"""Yaniv's fast paths for search: the remembered meld analysis, the hand keys and the
heuristic's cheaper arithmetic must not change a single choice (Backpacker's Playing Cards
section 2; the rules themselves are checked in ``test_yaniv.py``).

The golden digests were computed with the code before the fast paths: the heuristic's
transcripts of 50 two-player matches and of 10 matches under the test option sets, and the
first 60 decisions of one match of ``search`` at its former budget (which replays every
playout it ran)."""

from __future__ import annotations

import hashlib
import random

from arena import games
from arena.games import cards, house
from arena.games.search import Budget, SearchBot
from arena.games.yaniv import YanivHeuristic, YanivSearch, YanivState
from arena.games.yaniv.melds import VALUE, cards_of, discard_ids, discards, hand_key, most_shed

GAME = games.get("yaniv")

HEURISTIC_DIGEST = "f0d4ab315904c023c351e812b01c1e0e573450ca02d4be8c54a698e5086f1a7c"
# (seed, decisions, final totals) of the first two-player matches of that digest.
HEURISTIC_ENDS = [(0, 490, [93, 106]), (1, 245, [26, 118]), (2, 322, [110, 25]), (3, 393, [92, 112])]
SEARCH_DIGEST = "5c3b5056163b6e830cf6823550c017f7fcdefb3e2b99dcb3d00e140af0528a94"
SEARCH_PLAYOUTS = 351


def _hands(count: int) -> list[list[str]]:
    """Random hands of 0 to 8 cards from one or two packs, many holding runs."""
    rng = random.Random(5)
    one, two = cards.deck(jokers=2), cards.deck(jokers=2, copies=2)
    out = []
    for i in range(count):
        hand = rng.sample(two if i % 3 == 0 else one, rng.randrange(9))
        if i % 2:
            suit = rng.choice(cards.SUITS)
            hand = list(dict.fromkeys(hand + [r + suit for r in rng.sample("A23456789TJQK", 3)]))
        out.append(hand)
    return out


def test_most_shed_is_the_best_discard() -> None:
    """yaniv 2.4.1: ``most_shed`` is the most points any legal discard sheds."""
    for hand in _hands(20_000):
        want = max((sum(VALUE[c] for c in d) for d in discards(hand)), default=0)
        assert most_shed(hand) == want, hand


def test_hand_keys_ignore_order_and_give_the_cards_back() -> None:
    for hand in _hands(2_000):
        shuffled = random.Random(len(hand)).sample(hand, len(hand))
        assert hand_key(shuffled) == hand_key(hand)
        assert sorted(cards_of(hand_key(hand))) == sorted(hand)


def test_discard_ids_are_the_sorted_discards_whatever_the_order() -> None:
    for hand in _hands(2_000):
        want = sorted({"discard " + " ".join(d) for d in discards(hand)})
        assert discard_ids(hand) == want
        assert discard_ids(list(reversed(hand))) == want


def _transcript(bots: list[str], seed: int, options: dict | None = None) -> tuple[str, int, list[int]]:
    state, actions = house.play("yaniv", bots, seed, options)
    return "\n".join(f"{s} {a}" for s, a in actions), state.moves, list(state.totals)


def test_heuristic_plays_as_before() -> None:
    """The heuristic's choices, move for move, are those of the code before the fast paths."""
    digest = hashlib.sha256()
    ends = []
    for seed in range(50):
        text, moves, totals = _transcript(["heuristic", "heuristic"], seed)
        digest.update(text.encode())
        ends.append((seed, moves, totals))
    for options in GAME.test_option_sets:
        for seed in range(5):
            digest.update(_transcript(["heuristic"] * 3, seed, options)[0].encode())
    assert ends[: len(HEURISTIC_ENDS)] == HEURISTIC_ENDS
    assert digest.hexdigest() == HEURISTIC_DIGEST


def test_search_plays_as_before() -> None:
    """The shared search at the budget it played before, over the faster engine: the same
    first 60 decisions and the same number of playouts."""
    state = GAME.new_state(2, 1000)
    budget = Budget(iterations=12, depth=80, candidates=6, min_worlds=4, until_scored=True, halving=True,
                    scale=15.0)
    searcher = SearchBot("yaniv", 0, 1000, budget)
    bots = [searcher, house.house_bot("yaniv", "heuristic", 1, 1000)]
    lines: list[str] = []
    while (to_act := state.to_act()) and len(lines) < 60:
        seat = to_act[0]
        sample = house.sampler(state, seat, 1000, len(lines))
        action = house.decide(bots[seat], state.observation(seat), state.legal_actions(seat), sample)
        state.apply(seat, action)
        lines.append(f"{seat} {action}")
    assert hashlib.sha256("\n".join(lines).encode()).hexdigest() == SEARCH_DIGEST
    assert searcher.playouts == SEARCH_PLAYOUTS


def test_the_registered_search_is_yanivs() -> None:
    assert isinstance(house.house_bot("yaniv", "search", 0, 1), YanivSearch)


def _positions() -> list[tuple[YanivState, int]]:
    """Positions along heuristic matches of every option set, with the seat to act."""
    out: list[tuple[YanivState, int]] = []
    for index, options in enumerate([{}, *GAME.test_option_sets]):
        players = 2 if index == 0 else 3
        for seed in range(3):
            state = GAME.new_state(players, seed, options)
            assert isinstance(state, YanivState)
            bots = [YanivHeuristic(seat, seed) for seat in range(players)]
            while (to_act := state.to_act()) and state.moves < 400:
                seat = to_act[0]
                twin = state.clone()
                assert isinstance(twin, YanivState)
                out.append((twin, seat))
                state.apply(seat, bots[seat].act(state.observation(seat), state.legal_actions(seat)))
    return out


def test_the_heuristic_reads_the_state_as_it_reads_the_observation() -> None:
    """``act_in`` (playouts) chooses what ``act`` (the house bot) chooses, everywhere."""
    bot = YanivHeuristic(0, 1)
    for state, seat in _positions():
        legal = state.legal_actions(seat)
        assert bot.act_in(state, seat, legal) == bot.act(state.observation(seat), legal)


def test_yaniv_playouts_score_as_the_shared_playouts() -> None:
    """``YanivSearch.playout`` scores every playout as ``SearchBot.playout`` does, at the
    depths and scorings the budgets use."""
    rng = random.Random(3)
    positions = _positions()
    budgets = [(Budget(depth=80, until_scored=True, scale=15.0), 40), (Budget(depth=30), 20), (Budget(depth=None), 4)]
    for budget, count in budgets:
        for state, seat in rng.sample(positions, count):
            fast = YanivSearch("yaniv", seat, 1, budget)
            shared = SearchBot("yaniv", seat, 1, budget)
            world = state.resample_hidden(seat, random.Random(seat))
            for action in world.legal_actions(seat):
                assert fast.playout(world, action, 5) == shared.playout(world, action, 5)


def _unknown(state: YanivState, seat: int) -> list[str]:
    out = list(state.hands[seat])
    for c in state.known[seat]:
        out.remove(c)
    return out


def test_worlds_deal_the_opponent_low_cards_and_nothing_the_seat_can_see() -> None:
    """A world is one the seat cannot tell from the sample (every card where it could be,
    the same observation), and the opponent's unknown cards are lower than a uniform
    resample deals them."""
    rng = random.Random(9)
    skewed = uniform = 0.0
    for state, seat in _positions():
        if state.phase == "ninety":
            continue
        searcher = YanivSearch("yaniv", seat, 1)
        world = searcher.world(state, rng)
        assert isinstance(world, YanivState)
        assert world.observation(seat) == state.observation(seat)
        everything = [world.hands, [world.deck, world.buried, world.last_discard, world.my_discard]]
        truth = [state.hands, [state.deck, state.buried, state.last_discard, state.my_discard]]
        assert sorted(c for group in everything for pile in group for c in pile) == sorted(
            c for group in truth for pile in group for c in pile
        )
        if state.num_players == 2 and not state.rebuilds:
            other = 1 - seat
            skewed += sum(VALUE[c] for c in _unknown(world, other))
            resampled = state.resample_hidden(seat, rng)
            assert isinstance(resampled, YanivState)
            uniform += sum(VALUE[c] for c in _unknown(resampled, other))
    assert skewed < 0.85 * uniform


def test_yaniv_search_is_deterministic_for_a_seed() -> None:
    state = GAME.new_state(2, 4)
    seat = state.to_act()[0]
    choices = set()
    for _ in range(2):
        bot = YanivSearch("yaniv", seat, 4, Budget(iterations=8, depth=40, halving=True, until_scored=True))
        sample = house.sampler(state, seat, 4, 0)
        choices.add(house.decide(bot, state.observation(seat), state.legal_actions(seat), sample))
    assert len(choices) == 1
