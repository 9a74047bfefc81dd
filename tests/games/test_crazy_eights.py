"""Crazy 8s scenarios: Backpacker's Playing Cards section 4 and DATA.md 5.4 (functional cards).

Positions are built by dealing a match with ``new_state`` and then setting the hands, the
piles and the turn directly."""

from __future__ import annotations

from typing import Any

import pytest

from arena import games
from arena.games import IllegalAction
from arena.games.crazy_eights.state import CrazyEightsState
from arena.games.house import evaluate, house_bot

GAME = games.get("crazy_eights")


def position(
    hands: list[list[str]],
    top: str,
    draw_pile: list[str] | None = None,
    options: dict[str, Any] | None = None,
    **attrs: Any,
) -> CrazyEightsState:
    """A match of ``len(hands)`` seats with these hands, ``top`` on the discard pile, seat 0
    to act. ``draw_pile`` lists the cards from the bottom; its end is drawn first."""
    state = GAME.new_state(len(hands), 1, options)
    assert isinstance(state, CrazyEightsState)
    state.hands = [list(h) for h in hands]
    state.discard = [top]
    state.draw_pile = list(draw_pile if draw_pile is not None else ["2C", "3C", "4C", "5C"])
    state.current = 0
    for key, value in attrs.items():
        setattr(state, key, value)
    state._legal = {}
    return state


# ----- 4.2 preparation -------------------------------------------------------------------
@pytest.mark.parametrize(("players", "cards_each"), [(2, 7), (3, 5), (6, 5)])
def test_deal_five_cards_seven_with_two_players(players: int, cards_each: int) -> None:
    """crazy_eights 4.2: 5 cards each (2 players: 7); the next card opens the discard pile."""
    state = GAME.new_state(players, 3)
    assert isinstance(state, CrazyEightsState)
    assert [len(h) for h in state.hands] == [cards_each] * players
    assert len(state.discard) == 1
    assert len(state.draw_pile) == 52 - players * cards_each - 1
    assert state.to_act() == (0,)  # the player left of the dealer starts


def test_player_counts_and_second_pack() -> None:
    """crazy_eights 4.1: 2-6 players with one pack, more with a second one."""
    assert list(GAME.player_counts(GAME.resolve_options({}))) == [2, 3, 4, 5, 6]
    assert 10 in GAME.player_counts(GAME.resolve_options({"decks": 2}))
    state = GAME.new_state(8, 1, {"decks": 2})
    assert isinstance(state, CrazyEightsState)
    assert len(state.draw_pile) == 104 - 8 * 5 - 1


# ----- 4.2.1 discarding ------------------------------------------------------------------
MATCHING = [
    # (hand, top, legal actions)
    (["7C", "2H", "KS"], "7H", ["play 2H", "play 7C"]),
    (["KS", "QD"], "7H", ["draw"]),
    (["KS", "8D"], "7H", ["play 8D suit=C", "play 8D suit=D", "play 8D suit=H", "play 8D suit=S"]),
    (["TH", "TC"], "TS", ["play TC", "play TH"]),
]


@pytest.mark.parametrize(("hand", "top", "legal"), MATCHING)
def test_same_rank_or_suit_or_an_eight(hand: list[str], top: str, legal: list[str]) -> None:
    """crazy_eights 4.2.1: same face value or suit as the top card; an 8 can always be played."""
    state = position([hand, ["5C", "6C"]], top)
    assert state.legal_actions(0) == legal


def test_the_wish_binds_only_the_next_player() -> None:
    """crazy_eights 4.2.1: the 8's wish binds (only) the next player; the player after that
    plays according to the normal rule again."""
    state = position([["8D", "3C"], ["9S", "3D", "KH"], ["9D", "KD", "4H"]], "3H")
    state.apply(0, "play 8D suit=S")
    assert state.wish == "S"
    assert state.legal_actions(1) == ["play 9S"]  # not 3D: the wished suit, not the 8's suit
    state.apply(1, "play 9S")
    assert state.wish is None
    assert state.legal_actions(2) == ["play 9D"]  # matches the 9 again, spades no longer wished


def test_an_eight_may_answer_an_eight_with_another_wish() -> None:
    """crazy_eights 4.2.1: the next player may lay an eight himself and wish another suit."""
    state = position([["8D", "3C"], ["8C", "3D"], ["KH", "4H"]], "3H")
    state.apply(0, "play 8D suit=S")
    assert "play 8C suit=H" in state.legal_actions(1)
    state.apply(1, "play 8C suit=H")
    assert state.legal_actions(2) == ["play 4H", "play KH"]


def test_a_wished_player_who_cannot_follow_draws_and_the_wish_ends() -> None:
    """crazy_eights 4.2.1 and 4.2: no card of the wished suit means drawing; then the wish is over."""
    state = position([["8D", "3C"], ["KH", "4H"], ["9D", "4C"]], "3H", draw_pile=["JC"])
    state.apply(0, "play 8D suit=S")
    assert state.legal_actions(1) == ["draw"]
    state.apply(1, "draw")
    assert state.hands[1][-1] == "JC"
    assert state.to_act() == (2,) and state.wish is None
    assert state.legal_actions(2) == ["play 9D"]


# ----- 4.2 drawing and the empty draw pile ---------------------------------------------
def test_unable_to_play_draws_one_and_the_turn_passes() -> None:
    """crazy_eights 4.2: if no card can be discarded, one is taken from the draw pile."""
    state = position([["KS", "QD"], ["5C", "6C"]], "7H", draw_pile=["2C", "7C"])
    state.apply(0, "draw")
    assert sorted(state.hands[0]) == ["7C", "KS", "QD"]
    assert state.to_act() == (1,)  # without Fastplay the drawn 7C waits


def test_fastplay_the_drawn_card_may_be_played_at_once() -> None:
    """crazy_eights 4.3 Fastplay: the drawn card may be played at once if the rules allow."""
    state = position([["KS", "QD"], ["5C", "6C"]], "7H", draw_pile=["2C", "7C"], options={"fastplay": True})
    state.apply(0, "draw")
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == ["pass", "play 7C"]
    state.apply(0, "play 7C")
    assert state.discard[-1] == "7C" and state.to_act() == (1,)


def test_fastplay_an_unplayable_drawn_card_ends_the_turn() -> None:
    """crazy_eights 4.3: Fastplay only when the drawn card can be played."""
    state = position([["KS", "QD"], ["5C", "6C"]], "7H", draw_pile=["2C", "JD"], options={"fastplay": True})
    state.apply(0, "draw")
    assert state.to_act() == (1,)


def test_empty_draw_pile_play_continues_without_drawing() -> None:
    """crazy_eights 4.2: once the draw pile is depleted, play continues without drawing."""
    state = position([["KS", "QD"], ["5C", "6C"]], "7H", draw_pile=[])
    state.discard = ["2D", "9H", "7H"]
    assert state.legal_actions(0) == ["pass"]
    state.apply(0, "pass")
    assert state.to_act() == (1,) and len(state.hands[0]) == 2


def test_empty_draw_pile_reshuffle_option() -> None:
    """crazy_eights 4.2 alternative: the discard pile but its top card becomes the draw pile."""
    state = position([["KS", "QD"], ["5C", "6C"]], "7H", draw_pile=[], options={"reshuffle": True})
    state.discard = ["2D", "9H", "7H"]
    assert state.legal_actions(0) == ["draw"]
    state.apply(0, "draw")
    assert state.discard == ["7H"]
    assert len(state.hands[0]) == 3 and len(state.draw_pile) == 1
    assert sorted([state.hands[0][-1], *state.draw_pile]) == ["2D", "9H"]


def test_blocked_hand_ends_and_fewest_points_wins() -> None:
    """Blocked game (docs/games/crazy_eights.md): nothing to play nor draw for every seat in
    turn ends the hand; each seat is charged its own cards, fewest points ranks first."""
    state = position([["KS", "QD"], ["5C", "6C"], ["2D"]], "7H", draw_pile=[])
    for seat in (0, 1):
        state.apply(seat, "pass")
        assert not state.is_terminal()
    state.apply(2, "pass")
    assert state.is_terminal() and not state.capped()
    assert state.outcome().scores == [-20.0, -11.0, -2.0]
    assert state.outcome().ranks == [3, 2, 1]


def test_a_pass_under_a_wish_does_not_count_towards_a_block() -> None:
    """crazy_eights 4.2.1: the wished player may be unable to follow while others still can."""
    state = position([["KS", "QD"], ["5C", "6C"]], "7H", draw_pile=[], wish="C")
    state.apply(0, "pass")
    assert state.passes == 0


# ----- 4.2 winning and penalty points -------------------------------------------------
def test_first_to_discard_all_wins_and_others_score_penalty_points() -> None:
    """crazy_eights 4.2: penalty points equal the card value; J, Q, K, A count 10."""
    state = position([["7C"], ["AS", "KD", "8H", "3C"], ["9D", "JD"]], "7H")
    state.apply(0, "play 7C")
    assert state.is_terminal()
    assert state.last_hand == {"winner": 0, "points": [0, 31, 19], "blocked": False}
    assert state.outcome().scores == [0.0, -31.0, -19.0]
    assert state.outcome().ranks == [1, 3, 2]


def test_target_score_deals_another_hand_and_moves_the_dealer() -> None:
    """crazy_eights 4.2: played with points, hands go on until the target score."""
    state = position([["7C"], ["AS", "KD"]], "7H", options={"target_score": 50})
    state.apply(0, "play 7C")
    assert not state.is_terminal()
    assert state.totals == [0, 20] and state.hand_number == 1
    assert state.dealer == 0 and state.to_act() == (1,)  # left of the new dealer starts
    assert [len(h) for h in state.hands] == [7, 7]
    state.totals = [48, 10]
    state.hands = [["2C", "3C"], ["7H"]]
    state.discard = ["7D"]
    state._legal = {}
    state.apply(1, "play 7H")
    assert state.is_terminal() and state.outcome().ranks == [2, 1]


# ----- DATA 5.4 functional cards -------------------------------------------------------
def test_draw_two_stacks_and_the_loser_draws_and_misses_the_turn() -> None:
    """DATA 5.4: a 2 makes the next player draw 2 and miss the turn unless they play a 2;
    then the next draws 4."""
    state = position(
        [["2H", "5D"], ["2C", "KD"], ["KS", "9C", "4D"]], "7H", draw_pile=["AC", "AD", "AH", "AS", "3S"]
    )
    state.apply(0, "play 2H")
    assert state.legal_actions(1) == ["draw 2", "play 2C"]  # KD would match, but not now
    state.apply(1, "play 2C")
    assert state.legal_actions(2) == ["draw 4"]
    state.apply(2, "draw 4")
    assert len(state.hands[2]) == 7
    assert state.to_act() == (0,) and state.penalty == 0
    assert state.legal_actions(0) == ["draw"]  # the 5D neither matches the 2C nor is a two


def test_queen_skips_the_next_player() -> None:
    """DATA 5.4: a queen makes the next player miss the turn."""
    state = position([["QH", "5D"], ["QC", "KD"], ["KS", "9H"]], "7H")
    state.apply(0, "play QH")
    assert state.to_act() == (2,)


@pytest.mark.parametrize(("players", "next_seat"), [(3, 2), (2, 0)])
def test_ace_reverses_and_with_two_players_plays_again(players: int, next_seat: int) -> None:
    """DATA 5.4: an ace reverses the direction (2 players: the same player plays again)."""
    hands = [["AH", "5D"], ["KC", "KD"], ["KS", "9H"]][:players]
    state = position(hands, "7H")
    state.apply(0, "play AH")
    assert state.to_act() == (next_seat,)


def test_functional_cards_can_be_switched_off() -> None:
    """crazy_eights 4.2.2: the functional cards are not always used."""
    off = {"draw_two": False, "queen_skip": False, "ace_reverse": False}
    state = position([["2H", "5D"], ["QC", "KD"], ["KS", "9H"]], "7H", options=off)
    state.apply(0, "play 2H")
    assert state.to_act() == (1,) and state.penalty == 0
    assert state.legal_actions(1) == ["draw"]


def test_queen_of_spades_draw_five_option() -> None:
    """DATA 5.4 (optional): the queen of spades makes the next player draw five."""
    pile = ["2C", "3C", "4C", "5C", "6C", "7C"]
    state = position([["QS", "5D"], ["KC", "KD"], ["KS", "9H"]], "7S", draw_pile=pile,
                     options={"queen_of_spades": True})
    state.apply(0, "play QS")
    assert len(state.hands[1]) == 7
    assert state.to_act() == (2,)


def test_black_jack_draw_five_cancelled_by_a_red_jack() -> None:
    """DATA 5.4 (optional): a black jack: the next draws five, unless a red jack cancels it."""
    state = position([["JC", "5D"], ["JH", "KD"], ["KS", "9H"]], "7C", options={"black_jack": True})
    state.apply(0, "play JC")
    assert state.legal_actions(1) == ["draw 5", "play JH"]
    state.apply(1, "play JH")
    assert state.penalty == 0 and state.to_act() == (2,)
    assert state.legal_actions(2) == ["play 9H"]


# ----- 4.3 "Last card!" ---------------------------------------------------------------
def test_last_card_must_be_called_or_two_cards_are_drawn() -> None:
    """crazy_eights 4.3: a player left with one card must call "Last card!" or draw 2."""
    opts = {"last_card": True}
    state = position([["7C", "KD"], ["5S", "6S"]], "7H", options=opts)
    assert state.legal_actions(0) == ["play 7C", "play 7C last_card"]
    called = state.clone()
    called.apply(0, "play 7C last_card")
    assert called.hands[0] == ["KD"] and called.last_card[0]
    state.apply(0, "play 7C")
    assert len(state.hands[0]) == 3 and not state.last_card[0]


# ----- the contract -------------------------------------------------------------------
def test_illegal_play_is_refused() -> None:
    state = position([["KS", "7C"], ["5S", "6S"]], "7H")
    with pytest.raises(IllegalAction):
        state.apply(0, "play KS")
    with pytest.raises(IllegalAction):
        state.apply(0, "draw")  # drawing is only for a player who cannot play


def test_observation_shows_own_hand_and_counts_only() -> None:
    state = position([["KS", "7C"], ["5S", "6S", "9S"]], "7H")
    obs = state.observation(0)
    assert obs["hand"] == ["7C", "KS"] and obs["hand_sizes"] == [2, 3]
    assert obs["top_card"] == "7H" and obs["draw_pile"] == 4
    assert "5S" not in str(obs)


def test_heuristic_beats_random_two_players() -> None:
    """Measured 0.67 over 1000 matches (seeds 0-999, seats alternating; 0.60 before the bot
    chained its extra turns and counted the cards); these 300 give 0.69. A single hand of
    Crazy 8s is still much of it the deal, so 0.62 is the bar: the old bot, at 0.59 here,
    fails it."""
    result = evaluate("crazy_eights", "heuristic", "random", 2, 300, first_seed=0)
    assert result["win_rate"] >= 0.62


def heuristic_choice(state: CrazyEightsState, seat: int = 0) -> str:
    bot = house_bot("crazy_eights", "heuristic", seat, 1)
    return bot.act(state.observation(seat), state.legal_actions(seat))


CHAINS = [
    # (hand, top, the heuristic's play)
    # QH, then QS on the queen, then 5S on the spade: three cards shed in one turn.
    (["QH", "QS", "5S", "9C"], "9H", "play QH"),
    # Nothing follows QH: the queen's extra turn would be spent drawing a card.
    (["QH", "9C", "3S", "KD"], "9H", "play 9C"),
    # AS, then AD on the ace, then 7D: three cards, where 9C would shed one.
    (["AS", "AD", "7D", "9C"], "9S", "play AS"),
]


@pytest.mark.parametrize(("hand", "top", "expected"), CHAINS)
def test_heuristic_chains_the_cards_that_give_another_turn(hand: list[str], top: str, expected: str) -> None:
    """DATA 5.4: "Skip: the next player misses their turn", "Reverse direction of play
    (with 2 players: the same player plays again)", a 2: "the next player draws 2 cards and
    misses their turn". With two players each gives the same player another turn."""
    state = position([hand, ["4D", "5D", "7D", "9D", "JD"]], top)
    assert heuristic_choice(state) == expected


def test_heuristic_plays_to_the_suit_the_other_player_was_seen_to_lack() -> None:
    """crazy_eights 4.2: "Each player can either discard a card, or, if this is not possible
    within rules 'Discarding', a card must be taken from the draw pile." The other player
    drew on a club: it had no club, no card of that rank and no eight. Hearts are nearly all
    gone, so without that knowledge a heart is the safer top card; with it, the club."""
    seen = ["AH", "2H", "3H", "4H", "7H", "9H", "TH", "JH", "QH", "KH", "5D", "5S", "6D", "6S"]
    state = position([["5C", "6C", "5H", "6H", "KD"], ["2D", "3D", "7D", "9D", "KS"]], "4C",
                     draw_pile=["2C", "3S"])
    state.discard = [*seen, "4C"]
    bot = house_bot("crazy_eights", "heuristic", 0, 1)
    first = bot.act(state.observation(0), state.legal_actions(0))
    assert first in ("play 5C", "play 6C")
    state.apply(0, first)
    assert state.legal_actions(1) == ["draw"]
    state.apply(1, "draw")
    club = "6C" if first == "play 5C" else "5C"
    heart = first[5] + "H"
    assert sorted(state.legal_actions(0)) == sorted([f"play {club}", f"play {heart}"])
    assert heuristic_choice(state) == f"play {heart}"  # a fresh bot has not seen the draw
    assert bot.act(state.observation(0), state.legal_actions(0)) == f"play {club}"


def test_inlined_contract_path_agrees_with_the_base_class() -> None:
    """The state's faster to_act / legal_actions / apply must behave as ``arena.games.State``."""
    import random

    from arena.games import State

    for seed in range(40):
        state = GAME.new_state(2 + seed % 5, seed, {"fastplay": seed % 2 == 0, "last_card": True})
        rng = random.Random(seed)
        while not state.is_terminal():
            assert state.to_act() == State.to_act(state)
            assert state.is_terminal() == State.is_terminal(state)
            for seat in range(state.num_players):
                fresh = state.clone()
                assert state.legal_actions(seat) == State.legal_actions(fresh, seat)
            seat = state.to_act()[0]
            with pytest.raises(IllegalAction):
                state.apply(seat, "play ZZ")
            with pytest.raises(IllegalAction):
                state.apply((seat + 1) % state.num_players, state.legal_actions(seat)[0])
            legal = state.legal_actions(seat)
            state.apply(seat, legal[rng.randrange(len(legal))])
        assert state.to_act() == () and state.legal_actions(0) == []


def test_resample_keeps_a_fastplay_card_playable() -> None:
    """A Fastplay decision shows the others that the drawn card can be played."""
    import random

    state = position([["KS", "QD"], ["5C", "6C"]], "7H", draw_pile=["2C", "3D", "JS", "7C"],
                     options={"fastplay": True})
    state.apply(0, "draw")
    assert state.phase == "drawn"
    for k in range(20):
        other = state.resample_hidden(1, random.Random(k))
        assert isinstance(other, CrazyEightsState)
        assert other.drawn is not None and other._playable(other.drawn)
        assert other.hands[0][-1] == other.drawn and len(other.hands[0]) == 3



def _shown(card: str, top: str) -> bool:
    """Whether ``card`` could have been played on ``top`` (no wish): suit, rank or an eight."""
    return card[0] == "8" or card[0] == top[0] or card[1] == top[1]


def test_resample_keeps_the_void_a_forced_draw_revealed() -> None:
    """crazy_eights 4.2: a player draws only when unable to play, so at that moment none of
    their cards followed the top card; only the card drawn since may."""
    import random

    state = position([["KS", "QD", "4C"], ["5C", "6C", "2D", "TH"]], "7H",
                     draw_pile=["2C", "3D", "JS", "7C", "AH", "8D", "7S", "9H"])
    state.apply(0, "draw")  # seat 0 holds no heart, no 7 and no eight; it draws 9H
    state.apply(1, "play TH")
    assert state.current == 0
    for k in range(60):
        other = state.resample_hidden(1, random.Random(k))
        assert isinstance(other, CrazyEightsState)
        assert len(other.hands[0]) == 4
        # Three of its four cards were held when it drew: at most the drawn one follows 7H.
        assert sum(_shown(c, "7H") for c in other.hands[0]) <= 1, other.hands[0]


def test_resample_void_counts_only_the_cards_still_held() -> None:
    """The void binds the cards held at the forced draw: playing the drawn card (which may
    follow) leaves them all bound; playing one of them leaves one fewer."""
    import random

    state = position([["KS", "QD", "4C"], ["5C", "6C", "9S", "TH", "TS"]], "7H",
                     draw_pile=["2C", "3D", "JS", "7C", "AH", "8D", "7S", "9H"])
    state.apply(0, "draw")  # three cards shown not to follow 7H; 9H drawn
    state.apply(1, "play TH")
    state.apply(0, "play 9H")  # the drawn card
    state.apply(1, "play 9S")
    state.apply(0, "play KS")  # one of the three
    state.apply(1, "play TS")
    assert state.current == 0 and len(state.hands[0]) == 2
    for k in range(60):
        other = state.resample_hidden(1, random.Random(k))
        assert isinstance(other, CrazyEightsState)
        assert not any(_shown(c, "7H") for c in other.hands[0]), other.hands[0]
