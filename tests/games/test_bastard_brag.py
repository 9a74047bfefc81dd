"""Scenario tests for Bastard Brag, each citing the section of
``rules/backpackers-playing-cards.txt`` (section 5) it checks. The rulebook's own example
comes first.

Positions are built with ``new_state`` and then by setting attributes directly: ``hands``,
``pack`` (top = end), ``pile`` (top = end), ``direction``, ``turn``, ``last_player``."""

from __future__ import annotations

from typing import Any

import pytest

from arena import games
from arena.games.bastard_brag.state import BastardBragState

GAME = games.get("bastard_brag")


def position(
    hands: list[list[str]],
    *,
    pile: list[str],
    direction: str = "up",
    pack: list[str] | None = None,
    turn: int = 0,
    last_player: int | None = None,
    **options: Any,
) -> BastardBragState:
    """A state with exactly these hands and piles; ``turn`` is to play."""
    state = GAME.new_state(len(hands), 1, options)
    assert isinstance(state, BastardBragState)
    state.hands = [list(h) for h in hands]
    state.pile = list(pile)
    state.direction = direction
    state.pack = pack if pack is not None else ["4C"] * 20
    state.turn = turn
    state.last_player = last_player
    return state


# ----- the rulebook's own example ----------------------------------------------------------


@pytest.mark.parametrize("eight", ["8H", "8D"])
def test_three_nines_on_a_red_eight_alternate_colours(eight: str) -> None:
    """5.3: "if a player wants to place three nines on a red 8, he must place ♠9-♥9-♣9, in
    exactly this order ... Thus ♥9-♠9 on 8 is not possible"."""
    state = position([["9S", "9H", "9C", "KD"], ["4D"] * 3], pile=[eight])
    legal = state.legal_actions(0)
    assert "play 9S 9H 9C" in legal
    assert "play 9C 9H 9S" in legal  # the two black nines are interchangeable
    assert "play 9H 9S" not in legal
    assert "play 9H" not in legal, "the first card must be the other colour"
    assert "play 9S 9C" not in legal, "two blacks in a row"
    state.apply(0, "play 9S 9H 9C")
    assert state.pile == [eight, "9S", "9H", "9C"] and state.turn == 1


# ----- 5.3 overbidding ---------------------------------------------------------------------

PLAYS = [
    # (hand, pile, direction, action, legal?)
    (["9S", "7C", "KD"], ["8H"], "up", "play 9S", True),  # higher, other colour
    (["9D", "7C", "KD"], ["8H"], "up", "play 9D", False),  # same colour
    (["8S", "7C", "KD"], ["8H"], "up", "play 8S", False),  # equal is not higher
    (["9S", "7C", "KD"], ["8H"], "up", "play 7C", False),  # lower while overbidding
    (["9S", "7C", "KD"], ["8H"], "down", "play 7C", True),  # 5.3 after an ace: underbid
    (["9S", "7C", "KD"], ["8H"], "down", "play 9S", False),
    (["AS", "7C", "KD"], ["KH"], "up", "play AS", True),
    (["2S", "7C", "KD"], ["3H"], "down", "play 2S", True),
    (["RJ", "7C", "KD"], ["AH"], "up", "play RJ", True),  # 5.3: a joker at any time
    (["BJ", "7C", "KD"], ["AS"], "down", "play BJ", True),
]


@pytest.mark.parametrize(("hand", "pile", "direction", "action", "legal"), PLAYS)
def test_what_may_be_played(
    hand: list[str], pile: list[str], direction: str, action: str, legal: bool
) -> None:
    state = position([hand, ["4D"] * 3], pile=pile, direction=direction)
    assert (action in state.legal_actions(0)) is legal


def test_an_ace_reverses_to_underbid() -> None:
    """5.3: "As soon as an ace is played ... the following players must now play cards of
    lower and lower face value"."""
    state = position([["AS", "5C"], ["KD", "4H"], ["QS", "3C"]], pile=["QH"])
    state.apply(0, "play AS")
    assert state.direction == "down"
    assert state.legal_actions(1) == ["pass", "play 4H", "play KD"]
    state.apply(1, "play KD")
    state.apply(2, "play 3C")
    assert state.direction == "down"


def test_a_two_reverses_back_to_overbid() -> None:
    """5.3: "As soon as a 2 is played, a new reversal takes place, so that from then on,
    cards have to be played of higher face value again"."""
    state = position([["2H", "5C"], ["KS", "4H"]], pile=["3S"], direction="down")
    state.apply(0, "play 2H")
    assert state.direction == "up"
    assert state.legal_actions(1) == ["play KS"]


def test_a_joker_resets_to_overbidding() -> None:
    """5.3: after a joker "the following player can play any" card, and bidding goes up."""
    state = position([["RJ", "5C"], ["KD", "4H", "9H"]], pile=["3H"], direction="down")
    state.apply(0, "play RJ")
    assert state.direction == "up"
    assert {"play KD", "play 4H", "play 9H"} <= set(state.legal_actions(1))


@pytest.mark.parametrize(
    ("joker", "top", "legal"),
    [("RJ", "8S", True), ("RJ", "8H", False), ("BJ", "8H", True), ("BJ", "8S", False)],
)
def test_coloured_jokers_option(joker: str, top: str, legal: bool) -> None:
    """5.3 alternative: the red joker only on a black card, the black joker only on a red one."""
    state = position([[joker, "5C"], ["4D"] * 3], pile=[top], coloured_jokers=True)
    assert (f"play {joker}" in state.legal_actions(0)) is legal
    plain = position([[joker, "5C"], ["4D"] * 3], pile=[top])
    assert f"play {joker}" in plain.legal_actions(0)


# ----- 5.3 passing -------------------------------------------------------------------------


def test_unable_to_play_pass_and_draw() -> None:
    """5.3: "If a player is unable to play, he must pass and draw a card"."""
    state = position([["5C", "6S"], ["4D"] * 3, ["4H"] * 3], pile=["KH"], pack=["JC", "QC"])
    assert state.legal_actions(0) == ["pass"]
    state.apply(0, "pass")
    assert state.hands[0] == ["5C", "6S", "QC"] and state.turn == 1 and state.pack == ["JC"]


def test_voluntary_pass_is_denied_to_the_next_player() -> None:
    """5.3: "A player may also pass even if he could actually play (and draw). In the latter
    case, voluntary passing is denied to the next player"."""
    state = position([["AS", "5C"], ["KS", "4D"], ["KC", "4H"]], pile=["QH"])
    assert "pass" in state.legal_actions(0)
    state.apply(0, "pass")
    assert state.legal_actions(1) == ["play KS"], "seat 1 can play, so it must"
    state.apply(1, "play KS")
    assert state.pass_denied is False


def test_no_voluntary_pass_with_two_players_left() -> None:
    """5.3: "Even if there are only 2 players left, voluntary passing is no longer permitted"."""
    state = position([["AS", "5C"], ["KS", "4D"], ["KC", "4H"]], pile=["QH"])
    state.out = [2]
    assert state.legal_actions(0) == ["play AS"]


# ----- 5.4 the bastard rule -----------------------------------------------------------------


def test_bastard_rule_draws_one_card_per_other_player() -> None:
    """5.4: a card all others pass on, which its player cannot follow either: the interrupter
    draws one card for each player in the round but himself (eliminated ones too)."""
    # Only black cards: no one can go under the black ace.
    state = position(
        [["KC", "QC"], ["4S", "5S"], ["6S", "7S"], []],
        pile=["7H", "AS"],
        pack=["JC"] * 10,
        turn=1,
        last_player=0,
    )
    state.direction = "down"
    state.out = [3]
    state.apply(1, "pass")
    state.apply(2, "pass")
    assert state.legal_actions(0) == ["pass"]
    state.apply(0, "pass")
    assert len(state.hands[0]) == 2 + 3, "three others in a round of four"
    assert state.open_lead and state.turn == 1


def test_bastard_rule_gifts_when_the_pack_is_empty() -> None:
    """5.4: "Should the draw pile be depleted, each player holding cards gives one card to the
    interrupter ... as many players (to his left) give him a card"."""
    state = position([["KC"], ["4D", "5D"], ["4H", "7H"]], pile=["AS"], pack=["JC"], turn=0, last_player=0)
    state.direction = "down"
    state.apply(0, "pass")
    assert state.hands[0] == ["KC", "JC"], "the last card of the pack first"
    assert state.phase == "gift" and state.to_act() == (1,)
    assert state.legal_actions(1) == ["give 4D", "give 5D"]
    state.apply(1, "give 5D")
    assert state.hands[0] == ["KC", "JC", "5D"]
    assert state.phase == "play" and state.open_lead and state.turn == 1


def test_voluntary_pass_is_not_for_the_player_facing_his_own_card() -> None:
    """5.4: after everyone passed, the player of the top card "must also pass" to be the
    interrupter: if he can follow, he plays."""
    state = position([["KH", "AD"], ["4D", "5D"], ["4H", "7H"]], pile=["QS"], turn=0, last_player=0)
    assert state.legal_actions(0) == ["play AD", "play KH"]


# ----- end ---------------------------------------------------------------------------------


def test_players_go_out_and_the_last_holding_cards_is_the_bastard() -> None:
    """5.3: players who play all their cards are out; the last holding cards is the bastard."""
    state = position([["KC"], ["4D", "5D"], ["9H"]], pile=["QH"])
    state.out = [2]
    state.hands[2] = []
    state.apply(0, "play KC")
    assert state.is_terminal()
    assert state.outcome().ranks == [2, 3, 1]


def test_second_pack_above_six_players() -> None:
    """5.2: 54 cards with two jokers; two packs shuffled together above six players."""
    six = GAME.new_state(6, 1)
    seven = GAME.new_state(7, 1)
    assert isinstance(six, BastardBragState) and isinstance(seven, BastardBragState)
    assert len(six.pack) + len(six.pile) + 42 == 54
    assert len(seven.pack) + len(seven.pile) + 49 == 108


# ----- what a seat can tell of the other hands (for search) ---------------------------------


def test_a_world_dealt_for_search_keeps_what_a_forced_pass_showed() -> None:
    """5.3: "If a player is unable to play, he must pass and draw a card", and with two
    players nobody passes at will: the other player learns that none of the passer's cards
    follows the top card, only the one it drew after may. The worlds ``resample_hidden``
    deals must keep to that."""
    import random

    checked = 0
    for seed in range(30):
        state = GAME.new_state(2, seed)
        assert isinstance(state, BastardBragState)
        pick = random.Random(seed)
        while not state.is_terminal():
            seat = state.to_act()[0]
            other = 1 - seat
            last = state.last_action
            if (state.phase == "play" and last and last["seat"] == other and last["action"] == "pass"
                    and state.last_player == seat and not state.free()):
                follows = set(state.followers())
                assert sum(c in follows for c in state.hands[other]) <= 1  # the truth
                for world in range(8):
                    dealt = state.resample_hidden(seat, random.Random(world))
                    assert isinstance(dealt, BastardBragState)
                    assert sorted(dealt.hands[seat]) == sorted(state.hands[seat])
                    assert len(dealt.hands[other]) == len(state.hands[other])
                    assert sum(c in follows for c in dealt.hands[other]) <= 1, (seed, dealt.hands[other])
                    checked += 1
            state.apply(seat, pick.choice(state.legal_actions(seat)))
    assert checked >= 200


@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_what_everyone_knows_of_a_hand_adds_up_to_the_hand(players: int) -> None:
    """The groups behind ``resample_hidden`` follow every draw, play, pass and gift (5.3,
    5.4), and every world dealt keeps each hand's size and the pile."""
    import random

    for seed in range(6):
        state = GAME.new_state(players, seed)
        assert isinstance(state, BastardBragState)
        pick = random.Random(seed)
        while not state.is_terminal():
            for seat in range(players):
                assert sum(g[0] for g in state.groups[seat]) == len(state.hands[seat])
            seat = state.to_act()[0]
            world = state.resample_hidden(seat, pick)
            assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
            assert world.pile == state.pile
            assert sorted(c for h in world.hands for c in h) + sorted(world.pack) != [] and sorted(
                [c for h in world.hands for c in h] + world.pack) == sorted([c for h in state.hands for c in h] + state.pack)
            state.apply(seat, pick.choice(state.legal_actions(seat)))


@pytest.mark.parametrize("coloured", [False, True])
def test_a_follower_is_a_card_that_could_be_played_alone(coloured: bool) -> None:
    """What a forced pass rules out is exactly what the rules would let the passer play:
    for every card, ``follows`` agrees with the legal actions of a hand of that card alone."""
    import random

    from arena.games import cards

    for seed in range(6):
        state = GAME.new_state(2, seed, {"coloured_jokers": coloured})
        assert isinstance(state, BastardBragState)
        pick = random.Random(seed)
        while not state.is_terminal():
            seat = state.to_act()[0]
            if state.phase == "play":
                for card in cards.deck(jokers=2):
                    alone = state.clone()
                    assert isinstance(alone, BastardBragState)
                    alone.hands[seat] = [card]
                    assert alone.follows(card) == (f"play {card}" in alone.plays(seat)), (card, state.pile[-1])
            state.apply(seat, pick.choice(state.legal_actions(seat)))
