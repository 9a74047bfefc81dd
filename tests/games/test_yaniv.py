"""Yaniv scenarios: Backpacker's Playing Cards section 2.

Positions are built by dealing a match with ``new_state`` and then setting the hands, the
piles and the turn directly."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations
from typing import Any

import pytest

from arena import games
from arena.games import IllegalAction, cards
from arena.games.house import evaluate
from arena.games.testing import resampled_along_random_matches
from arena.games.yaniv.melds import RUN_RANK, VALUE, discards, hand_value
from arena.games.yaniv.state import YanivState

GAME = games.get("yaniv")


def position(
    hands: list[list[str]],
    last_discard: list[str],
    deck: list[str] | None = None,
    options: dict[str, Any] | None = None,
    **attrs: Any,
) -> YanivState:
    """A match with these hands, ``last_discard`` laid by the previous player, seat 0 to act
    in the discard phase. ``deck`` lists the cards from the bottom; its end is drawn first."""
    state = GAME.new_state(len(hands), 1, options)
    assert isinstance(state, YanivState)
    state.hands = [list(h) for h in hands]
    state.last_discard = list(last_discard)
    state.buried = []
    state.my_discard = []
    state.deck = list(deck if deck is not None else ["9C", "9D", "9H", "9S"])
    state.current = 0
    state.phase = "discard"
    for key, value in attrs.items():
        setattr(state, key, value)
    state._legal = {}
    return state


# ----- 2.2 preparation ----------------------------------------------------------------
@pytest.mark.parametrize(("hand_size", "players"), [(5, 2), (6, 4), (7, 5)])
def test_deal_and_the_first_discard(hand_size: int, players: int) -> None:
    """yaniv 2.2: 5 (6 or 7) cards each; the top card of the draw pile opens the discard pile."""
    state = GAME.new_state(players, 4, {"hand_size": hand_size})
    assert isinstance(state, YanivState)
    assert [len(h) for h in state.hands] == [hand_size] * players
    assert len(state.last_discard) == 1
    assert len(state.deck) == 54 - hand_size * players - 1


def test_player_counts_second_pack() -> None:
    """yaniv 2.1: 2-5 players; more than 4 may add a second pack, which allows more players."""
    assert list(GAME.player_counts(GAME.resolve_options({}))) == [2, 3, 4, 5]
    assert list(GAME.player_counts(GAME.resolve_options({"decks": 2}))) == list(range(2, 9))


# ----- 2.3 card values ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("hand", "value"),
    [(["AS", "2D", "9C"], 12), (["JH", "QS", "KD", "TC"], 40), (["RJ", "BJ", "AH"], 1)],
)
def test_card_values(hand: list[str], value: int) -> None:
    """yaniv 2.3: number cards at face value, ace 1, wild (joker) 0, J Q K 10."""
    assert hand_value(hand) == value


# ----- 2.4.1 discards -----------------------------------------------------------------
DISCARDS = [
    # (hand, some legal discards, some illegal discards)
    (["8C", "8H", "KD"], ["discard 8C 8H", "discard KD"], ["discard 8C KD"]),
    (["8C", "8H", "8S"], ["discard 8C 8H 8S", "discard 8C 8S 8H", "discard 8H 8C 8S"], []),
    (["4H", "5H", "6H", "KD"], ["discard 4H 5H 6H"], ["discard 6H 5H 4H", "discard 4H 5H"]),
    (["AS", "2S", "3S"], ["discard AS 2S 3S"], []),
    (["QS", "KS", "AS"], [], ["discard QS KS AS", "discard AS QS KS"]),
    (["4H", "RJ", "6H"], ["discard 4H RJ 6H"], ["discard 4H 6H RJ"]),
    (["4H", "5H", "RJ"], ["discard RJ 4H 5H", "discard 4H 5H RJ"], []),
    (["4H", "5H", "6H", "BJ"], ["discard 4H BJ 6H", "discard 4H 5H 6H BJ", "discard BJ 4H 5H 6H"], []),
    (["4H", "5D", "6H"], [], ["discard 4H 5D 6H"]),
    (["RJ", "BJ", "KD"], ["discard RJ", "discard BJ"], ["discard BJ RJ"]),
]


@pytest.mark.parametrize(("hand", "legal", "illegal"), DISCARDS)
def test_single_set_or_run(hand: list[str], legal: list[str], illegal: list[str]) -> None:
    """yaniv 2.4.1: a single card, a set of 2+ of one value, or a run of 3+ of one suit, laid
    in order, ace low (before the 2, never after the king), a joker for any card of a run."""
    state = position([hand, ["2C", "3C"]], ["9D"], options={"call_limit": 5})
    actions = state.legal_actions(0)
    for a in legal:
        assert a in actions
    for a in illegal:
        assert a not in actions


def _brute_force_runs(hand: list[str]) -> set[tuple[str, ...]]:
    """Every run by trying every subset of the hand in every window: slow and obviously right."""
    out = set()
    jokers_held = sorted(c for c in hand if c in cards.JOKERS)
    for size in range(3, len(hand) + 1):
        for subset in combinations(hand, size):
            real = [c for c in subset if c not in cards.JOKERS]
            jokers = sorted(c for c in subset if c in cards.JOKERS)
            if not real or len({c[1] for c in real}) != 1 or jokers != jokers_held[: len(jokers)]:
                continue
            ranks = [RUN_RANK[c[0]] for c in real]
            if len(set(ranks)) != len(ranks):
                continue
            for low in range(1, 14 - size + 1):
                window = range(low, low + size)
                if not all(r in window for r in ranks):
                    continue
                by_rank = {RUN_RANK[c[0]]: c for c in real}
                fill = iter(jokers)
                out.add(tuple(by_rank[r] if r in by_rank else next(fill) for r in window))
    return out


def test_runs_match_a_brute_force_enumeration() -> None:
    """yaniv 2.4.1 runs, checked on random hands against a slow enumeration."""
    rng = random.Random(0)
    pack = cards.deck(jokers=2)
    for _ in range(300):
        hand = rng.sample(pack, rng.choice([5, 6, 7]))
        # Bias towards runs: add neighbours of one suit.
        suit = rng.choice("CDHS")
        hand = list(dict.fromkeys(hand + [r + suit for r in rng.sample("A23456789TJQK", 3)]))
        mine = {d for d in discards(hand) if len(d) >= 3 and len({c[0] for c in d}) == len(d)}
        mine |= {d for d in discards(hand) if len(d) >= 3 and any(c in cards.JOKERS for c in d)}
        assert mine == _brute_force_runs(hand), hand


# ----- 2.4.1 drawing ------------------------------------------------------------------
def test_draw_from_deck_or_the_outer_cards_of_the_previous_discard() -> None:
    """yaniv 2.4.1: after discarding, draw the top card of the deck or the first or last
    card the previous player laid; never a middle card, never one's own discard."""
    state = position([["KD", "QC"], ["2C", "3C"]], ["4H", "5H", "6H"], deck=["9S", "TS"])
    state.apply(0, "discard KD")
    assert state.legal_actions(0) == ["draw deck", "take 4H", "take 6H"]
    state.apply(0, "take 6H")
    assert sorted(state.hands[0]) == ["6H", "QC"]
    assert state.buried == ["4H", "5H"] and state.last_discard == ["KD"]
    assert state.to_act() == (1,) and state.phase == "discard"
    assert state.observation(1)["known_cards"][0] == ["6H"]


def test_draw_deck_takes_its_top_card() -> None:
    state = position([["KD", "QC"], ["2C", "3C"]], ["4H"], deck=["9S", "TS"])
    state.apply(0, "discard KD")
    state.apply(0, "draw deck")
    assert sorted(state.hands[0]) == ["QC", "TS"] and state.deck == ["9S"]


def test_used_up_deck_is_rebuilt_from_the_discard_pile_but_the_last_discard() -> None:
    """yaniv 2.2: the discard pile, without the last discard, is reshuffled as the new deck."""
    state = position([["KD", "QC"], ["2C", "3C"]], ["4H"], deck=["TS"], buried=["7C", "7D", "JS"])
    state.apply(0, "discard KD")
    state.apply(0, "draw deck")
    assert state.last_discard == ["KD"]
    assert sorted(state.deck) == ["4H", "7C", "7D", "JS"] and state.buried == []


# ----- 2.4.2 Yaniv and Assaf -------------------------------------------------------------
@pytest.mark.parametrize(
    ("limit", "hand", "may_call"),
    [(7, ["AS", "6D"], True), (7, ["2S", "6D"], False), (6, ["AS", "6D"], False), (5, ["2S", "3D"], True)],
)
def test_yaniv_only_at_the_call_limit_or_below(limit: int, hand: list[str], may_call: bool) -> None:
    """yaniv 2.3 / 2.4: Yaniv only with 7 (6 or 5) points or fewer."""
    state = position([hand, ["KC", "KD"]], ["9D"], options={"call_limit": limit})
    assert ("yaniv" in state.legal_actions(0)) == may_call


def test_yaniv_caller_scores_zero_the_others_their_hands() -> None:
    """yaniv 2.4.2: the caller gets 0 points, the others note the points in their hands."""
    state = position([["AS", "6D"], ["KC", "KD"], ["9C", "TC"]], ["9D"])
    state.apply(0, "yaniv")
    assert state.totals == [0, 20, 19]
    assert state.last_round is not None and state.last_round["assaf"] is None
    assert state.starter == 0 and state.round_number == 1


@pytest.mark.parametrize(("penalty", "caller_total"), [(20, 27), (30, 37)])
def test_assaf_beats_the_caller(penalty: int, caller_total: int) -> None:
    """yaniv 2.4.2: a player with fewer points calls Assaf: the Yaniv caller gets 20 (30)
    penalty points plus his hand, the Assaf caller 0; the Assaf caller starts next round."""
    state = position([["AS", "6D"], ["KC", "KD"], ["2C", "3C"]], ["9D"], options={"assaf_penalty": penalty})
    state.apply(0, "yaniv")
    assert state.totals == [caller_total, 20, 0]
    assert state.last_round is not None and state.last_round["assaf"] == 2
    assert state.starter == 2 and state.to_act() == (2,)


def test_equal_points_is_no_assaf() -> None:
    """yaniv 2.4.2: Assaf needs fewer points than the caller."""
    state = position([["AS", "6D"], ["4C", "3C"]], ["9D"])
    state.apply(0, "yaniv")
    assert state.totals == [0, 7]


# ----- 2.5 point system ---------------------------------------------------------------
HALVING = [
    # (total before, hand points, total after): exactly a multiple of 50 is halved
    (40, 10, 25),
    (90, 10, 50),
    (140, 10, 75),
    (41, 10, 51),
    (30, 19, 49),
]


@pytest.mark.parametrize(("before", "points", "after"), HALVING)
def test_exact_multiples_of_fifty_are_halved(before: int, points: int, after: int) -> None:
    """yaniv 2.5: a player who reaches exactly 50 or a multiple (100, 150, ...) is halved."""
    hand = {10: ["KC"], 19: ["KC", "9C"]}[points]
    state = position([["AS"], hand], ["9D"], options={"end_score": 200}, totals=[0, before])
    state.apply(0, "yaniv")
    assert state.totals[1] == after


def test_the_game_ends_past_100_and_fewest_points_wins() -> None:
    """yaniv 2.1: past 100 the game ends, the fewest points win (recommended variant)."""
    state = position([["AS"], ["KC", "KD"], ["9C"]], ["9D"], totals=[60, 85, 70])
    state.apply(0, "yaniv")
    assert state.is_terminal() and not state.capped()
    assert state.totals == [60, 105, 79]
    assert state.outcome().ranks == [1, 3, 2]


def test_end_score_200_option() -> None:
    state = position([["AS"], ["KC", "KD"]], ["9D"], options={"end_score": 200}, totals=[60, 85])
    state.apply(0, "yaniv")
    assert not state.is_terminal()


def test_elimination_variant_drops_players_until_one_is_left() -> None:
    """yaniv 2.1 variant: a player past 100 drops out; the others play on; the last one left wins."""
    state = position([["AS"], ["KC", "KD"], ["9C"]], ["9D"], options={"ending": "elimination"},
                     totals=[60, 85, 70])
    state.apply(0, "yaniv")
    assert not state.is_terminal()
    assert state.out_round == [None, 0, None]
    assert state.hands[1] == [] and state.to_act() == (0,)
    assert state.observation(2)["active"] == [True, False, True]
    # The next round: seat 2 goes past 100 too.
    state.hands = [["AS"], [], ["KC", "KD"]]
    state.totals = [60, 105, 95]
    state.phase = "discard"
    state._legal = {}
    state.apply(0, "yaniv")
    assert state.is_terminal()
    assert state.outcome().ranks == [1, 3, 2]


def test_ninety_rule_draw_a_wild_card() -> None:
    """yaniv 2.5 optional: at exactly 90 a player may draw a card: a ten-valued card takes the
    score to 70; any other card adds its face value."""
    state = position([["AS"], ["KC", "QD"]], ["9D"], options={"ninety_rule": True}, totals=[0, 70])
    state.apply(0, "yaniv")
    assert state.totals[1] == 90
    assert state.to_act() == (1,) and state.legal_actions(1) == ["draw_wild", "keep"]
    kept = state.clone()
    kept.apply(1, "keep")
    assert kept.totals[1] == 90 and kept.phase == "discard"
    state.apply(1, "draw_wild")
    assert state.last_round is not None
    card = state.last_round["wild_cards"]["1"]
    value = VALUE[card]
    assert state.totals[1] == (70 if value == 10 else 90 + value)


# ----- the contract -------------------------------------------------------------------
def test_illegal_actions_are_refused() -> None:
    state = position([["KD", "QC"], ["2C", "3C"]], ["4H", "5H", "6H"])
    with pytest.raises(IllegalAction):
        state.apply(0, "yaniv")  # 20 points
    state.apply(0, "discard KD")
    with pytest.raises(IllegalAction):
        state.apply(0, "take 5H")  # the middle of a run
    with pytest.raises(IllegalAction):
        state.apply(0, "take KD")  # one's own discard


def test_observation_hides_other_hands_but_shows_taken_cards() -> None:
    state = position([["KD", "QC"], ["2C", "3C", "4D"]], ["7H"])
    obs = state.observation(0)
    assert obs["hand"] == ["QC", "KD"] and obs["hand_value"] == 20
    assert obs["hand_sizes"] == [2, 3] and "2C" not in str(obs)


def test_heuristic_beats_random_two_players() -> None:
    """Measured 1.00 over 1000 matches (seeds 0-999)."""
    result = evaluate("yaniv", "heuristic", "random", 2, 60, first_seed=5000)
    assert result["win_rate"] >= 0.95


def test_resample_keeps_cards_seen_taken() -> None:
    """A card taken from the pile is public (yaniv 2.4.1): resampling keeps it in that hand,
    and forgets it once laid again."""
    state = position([["KD", "QC"], ["2C", "3C", "4D"]], ["6H"], deck=["9S", "TS", "JS", "QS"])
    state.apply(0, "discard KD")
    state.apply(0, "take 6H")
    for k in range(10):
        other = state.resample_hidden(1, random.Random(k))
        assert isinstance(other, YanivState)
        assert "6H" in other.hands[0] and len(other.hands[0]) == 2
        assert other.hands[1] == state.hands[1]
    state.apply(1, "discard 2C")
    state.apply(1, "draw deck")
    state.apply(0, "discard 6H")
    assert state.known[0] == []


# ----- resampling (determinization for search bots) ----------------------------------------
def _reshuffled_cards(trail: list[tuple[Any, int, str]], now: YanivState) -> tuple[Counter[str] | None, list[int]]:
    """From the public record of this round: the cards of the latest reshuffled deck (yaniv
    2.2, None if the deck has not been rebuilt) and how many cards each seat has drawn from
    the deck since."""
    states = [before for before, _, _ in trail] + [now]
    rebuilt: Counter[str] | None = None
    draws = [0] * now.num_players
    for (before, seat, action), after in zip(trail, states[1:], strict=True):
        if after.round_number != before.round_number:
            rebuilt, draws = None, [0] * now.num_players
            continue
        if before.phase != "draw":
            continue
        drawn = action == "draw deck"
        if len(after.deck) > len(before.deck) - drawn:
            rebuilt = Counter(before.buried + before.last_discard)
            if not drawn:
                rebuilt[action.split()[1]] -= 1
            draws = [0] * now.num_players
        elif drawn:
            draws[seat] += 1
    return rebuilt, draws


@pytest.mark.parametrize("options", [{}, {"decks": 2, "hand_size": 7}, {"ending": "elimination"}])
def test_resampled_worlds_agree_with_what_the_seat_saw(options: dict[str, Any]) -> None:
    """Every resampled world keeps what the seat has seen: its hand, the piles, the cards
    seen taken (yaniv 2.4.1) in their hands; after a reshuffle (yaniv 2.2) the deck holds only
    reshuffled cards, and with one pack a hand holds no more reshuffled cards unseen than it
    has drawn from the deck since."""
    rebuilds = 0
    for trail, state, seat, world in resampled_along_random_matches(GAME, 3, options, range(12)):
        assert isinstance(state, YanivState) and isinstance(world, YanivState)
        assert world.hands[seat] == state.hands[seat] and world.known == state.known
        assert (world.buried, world.last_discard, world.my_discard) == (
            state.buried, state.last_discard, state.my_discard)
        assert Counter(world.deck + [c for h in world.hands for c in h]) == Counter(
            state.deck + [c for h in state.hands for c in h])
        for s, hand in enumerate(world.hands):
            assert not Counter(world.known[s]) - Counter(hand)
        rebuilt, draws = _reshuffled_cards(trail, state)
        if rebuilt is None:
            continue
        rebuilds += 1
        assert not Counter(state.deck) - rebuilt  # the record tells the truth
        assert not Counter(world.deck) - rebuilt, "a card that was not reshuffled is in the deck"
        if options.get("decks", 1) == 1:
            for s, hand in enumerate(world.hands):
                unseen = Counter(hand) - Counter(world.known[s])
                if s != seat:
                    assert sum(unseen[c] for c in rebuilt) <= draws[s], (s, hand, draws)
    assert rebuilds > 10


def test_states_saved_without_rebuilt_decks_still_restore() -> None:
    state = GAME.new_state(3, 5)
    data = state.to_json()
    for key in ("rebuilds", "redrawn"):
        del data["state"][key]
    restored = GAME.state_from_json(data)
    assert restored.observation(0) == state.observation(0)
    assert restored.resample_hidden(0, random.Random(1)).observation(0) == state.observation(0)
