"""Scenario tests for Shithead, each citing the section of ``rules/backpackers-playing-cards.txt``
(section 1) or of ``rules/DATA.md`` (5.2 functional cards, 5.3 cutting in) it checks. The
rulebook's own examples come first.

Positions are built with ``new_state`` and then by setting attributes directly: ``hands``,
``face_up``, ``face_down`` (slots, ``None`` once played), ``pack`` (top = end), ``pile``
(top = end), ``turn`` and ``phase``."""

from __future__ import annotations

from typing import Any

import pytest

from arena import games
from arena.games import IllegalAction
from arena.games.shithead.state import ShitheadState

GAME = games.get("shithead")


def position(
    hands: list[list[str]],
    *,
    pile: list[str] | None = None,
    face_up: list[list[str]] | None = None,
    face_down: list[list[str | None]] | None = None,
    pack: list[str] | None = None,
    turn: int = 0,
    **options: Any,
) -> ShitheadState:
    """A state in the play phase with exactly these cards; ``turn`` is to play."""
    n = len(hands)
    state = GAME.new_state(n, 1, options)
    assert isinstance(state, ShitheadState)
    state.phase = "play"
    state.ready = [True] * n
    state.hands = [list(h) for h in hands]
    state.face_up = face_up if face_up is not None else [["AS", "AH", "AD"] for _ in range(n)]
    state.face_down = face_down if face_down is not None else [["KS", "KH", "KD"] for _ in range(n)]
    state.pack = pack if pack is not None else ["QS"] * 20
    state.pile = pile if pile is not None else []
    state.known = [[] for _ in range(n)]
    state.turn = turn
    state.opening = None
    return state


# ----- the rulebook's own examples -------------------------------------------------------


def test_nine_nine_three_nine_does_not_burn() -> None:
    """1.4.1.2: "9-9-3-9 ... although the 3 is considered invisible, here the fourth 9 does
    not result in burning the discard pile"."""
    state = position([["9S", "5C", "6C"], ["4D", "4H", "4S"]], pile=["9C", "9D", "3H"])
    state.apply(0, "play 9S")
    assert state.pile == ["9C", "9D", "3H", "9S"]
    assert state.burned == []
    assert state.turn == 1


def test_kings_in_hand_and_face_up_burn_in_one_go() -> None:
    """1.4.3.1: "A player's last cards are K-K and two of the face-up cards are K-K, all four
    may be played and thereby burning the discard pile in one go"."""
    state = position(
        [["KH", "KS"], ["4D", "4H", "4S"]],
        pile=["5C", "9D"],
        face_up=[["KC", "KD", "6H"], ["AS", "AH", "AD"]],
        pack=[],
    )
    legal = state.legal_actions(0)
    assert "play KH KS up KC KD" in legal
    assert "play KH KS up KC" in legal
    state.apply(0, "play KH KS up KC KD")
    assert state.pile == []
    assert state.burned == ["5C", "9D", "KH", "KS", "KC", "KD"]
    assert state.face_up[0] == ["6H"]
    assert state.turn == 0, "the burner opens the new pile"


def test_face_up_may_not_join_while_the_pack_lasts_or_hand_cards_remain() -> None:
    """1.4.3.1: only the *last* hand card(s), once the pack is empty, take face-up cards along."""
    up = [["KC", "KD", "6H"], ["AS", "AH", "AD"]]
    with_pack = position([["KH", "KS"], ["4D"]], face_up=up, pack=["2C"])
    assert not any("up" in a for a in with_pack.legal_actions(0))
    more_cards = position([["KH", "KS", "5S"], ["4D"]], face_up=up, pack=[])
    assert not any("up" in a for a in more_cards.legal_actions(0))


# ----- 1.3 preparation and the swap ------------------------------------------------------


def test_deal_is_three_down_three_up_three_in_hand() -> None:
    """1.3: three face down, three face up, three in hand; the rest is the draw pile."""
    state = GAME.new_state(4, 7)
    assert isinstance(state, ShitheadState)
    for seat in range(4):
        assert len(state.hands[seat]) == len(state.face_up[seat]) == state.down_count(seat) == 3
    assert len(state.pack) == 52 - 36
    assert state.to_act() == (0, 1, 2, 3), "every seat arranges its cards at once"


def test_swap_is_bounded_and_secret_until_all_are_ready() -> None:
    """1.3: each player may exchange face-up cards with hand cards before play; the choices
    are simultaneous, so no seat sees another's until everyone is ready."""
    state = GAME.new_state(2, 3)
    assert isinstance(state, ShitheadState)
    dealt = sorted(state.face_up[0])
    for _ in range(3):
        swap = next(a for a in state.legal_actions(0) if a.startswith("swap"))
        state.apply(0, swap)
    assert state.legal_actions(0) == ["ready"], "three swaps reach any arrangement"
    assert state.observation(1)["face_up"][0] == dealt, "seat 1 still sees the dealt cards"
    state.apply(0, "ready")
    assert state.to_act() == (1,)
    state.apply(1, "ready")
    assert state.observation(1)["face_up"][0] == sorted(state.face_up[0])
    # Cards seen dealt face up that went into the hand are known to be there.
    assert sorted(state.known[0]) == sorted(set(dealt) - set(state.face_up[0]))


# ----- 1.4 opening -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hands", "opener", "rank"),
    [
        ([["9C", "KD", "AS"], ["4H", "4C", "JD"], ["4S", "5S", "6S"]], 1, "4"),  # a 4 opens; first seat
        ([["9C", "KD", "AS"], ["7H", "5C", "JD"], ["6S", "5S", "8S"]], 1, "5"),  # no 4: a 5
        ([["2C", "3D", "TS"], ["2H", "AS", "3C"], ["2S", "3S", "TH"]], 0, "T"),  # 2 and 3 come last
    ],
)
def test_the_lowest_card_opens(hands: list[list[str]], opener: int, rank: str) -> None:
    """1.4: "A player who has a 4 ... may put it in the middle ... If no one has a 4, a player
    with a 5 starts, etc." The opener leads that rank (one or more of them, 1.4.1.1)."""
    state = GAME.new_state(3, 1)
    assert isinstance(state, ShitheadState)
    state.hands = [list(h) for h in hands]
    for seat in range(3):
        state.apply(seat, "ready")
    assert state.to_act() == (opener,)
    legal = state.legal_actions(opener)
    assert legal and all(a.split()[1][0] == rank for a in legal)
    if rank == "4":
        assert "play 4C 4H" in legal


# ----- 1.4.1 discarding ------------------------------------------------------------------

PLAYS = [
    # (hand, pile, action, legal?)  1.4.1: same or higher face value
    (["8C", "9C", "QD"], ["9H"], "play 8C", False),
    (["8C", "9C", "QD"], ["9H"], "play 9C", True),
    (["8C", "9C", "QD"], ["9H"], "play QD", True),
    # 1.4.1.1: several cards only of one face value
    (["QC", "QD", "KD"], ["9H"], "play QC QD", True),
    (["QC", "QD", "KD"], ["9H"], "play QC KD", False),
    # DATA 5.2: 2 goes on anything and anything goes on it
    (["2C", "5C", "6D"], ["AH"], "play 2C", True),
    (["4C", "5C", "6D"], ["AH", "2H"], "play 4C", True),
    # DATA 5.2: 3 is invisible: beat the card under it
    (["3C", "5C", "6D"], ["AH"], "play 3C", True),
    (["4C", "5C", "KD"], ["9H", "3H"], "play 5C", False),
    (["4C", "5C", "KD"], ["9H", "3H"], "play KD", True),
    # DATA 5.2: after a 7 the next must play 7 or lower
    (["8C", "5C", "KD"], ["7H"], "play 8C", False),
    (["8C", "5C", "KD"], ["7H"], "play 5C", True),
    (["8C", "5C", "KD"], ["4H", "7H", "3S"], "play 5C", True),
    # DATA 5.2: 10 goes on anything but a 7
    (["TC", "5C", "6D"], ["AH"], "play TC", True),
    (["TC", "5C", "6D"], ["7H"], "play TC", False),
]


@pytest.mark.parametrize(("hand", "pile", "action", "legal"), PLAYS)
def test_what_may_be_played(hand: list[str], pile: list[str], action: str, legal: bool) -> None:
    state = position([hand, ["4D", "4H", "4S"]], pile=pile)
    assert (action in state.legal_actions(0)) is legal


def test_options_switch_functional_cards_off() -> None:
    """DATA 5.2: every functional card is a toggle."""
    assert "play 2C" not in position([["2C"], ["4D"]], pile=["AH"], two_reset=False).legal_actions(0)
    assert "play 8C" in position([["8C"], ["4D"]], pile=["7H"], seven_lower=False).legal_actions(0)
    assert "play TC" in position(
        [["TC"], ["4D"]], pile=["7H"], ten_on_seven=True, seven_lower=False
    ).legal_actions(0)


def test_four_of_a_kind_burns_and_the_burner_leads() -> None:
    """1.4.1.2: the last card of a sequence 9-9-9 then 9 burns the pile; the burner may open a
    new pile with a card of his choice."""
    state = position([["9S", "5C", "6C"], ["4D", "4H", "4S"]], pile=["4C", "9C", "9D", "9H"])
    state.apply(0, "play 9S")
    assert state.pile == [] and len(state.burned) == 5
    assert state.turn == 0
    assert "play 5C" in state.legal_actions(0)


def test_ten_burns_and_the_same_player_plays_again() -> None:
    """DATA 5.2 (1.4.1.2 burner leads): a 10 burns the pile."""
    state = position([["TS", "5C", "6C"], ["4D", "4H", "4S"]], pile=["KC", "AD"])
    state.apply(0, "play TS")
    assert state.pile == [] and state.burned == ["KC", "AD", "TS"] and state.turn == 0


def test_eights_skip_one_player_each() -> None:
    """DATA 5.2: each 8 skips one player."""
    hands = [["8S", "8C", "6C"], ["4D"] * 3, ["4H"] * 3, ["4C"] * 3]
    one = position(hands, pile=["5H"])
    one.apply(0, "play 8C")
    assert one.turn == 2
    two = position(hands, pile=["5H"])
    two.apply(0, "play 8C 8S")
    assert two.turn == 3


def test_no_card_fits_so_the_pile_is_picked_up() -> None:
    """1.4.1.3: with no equal or higher card and no functional card the pile is picked up and
    the turn passes; everyone now knows those cards are in that hand."""
    state = position([["4S", "5C", "6C"], ["4D", "4H", "4S"]], pile=["8H", "KD"])
    assert state.legal_actions(0) == ["take"]
    state.apply(0, "take")
    assert sorted(state.hands[0]) == sorted(["4S", "5C", "6C", "8H", "KD"])
    assert state.pile == [] and state.turn == 1
    assert state.observation(1)["known_in_hand"][0] == ["8H", "KD"]


def test_draw_back_up_to_three() -> None:
    """1.4.2: after playing, draw back up to three cards while the pack lasts."""
    state = position([["9S", "9C", "6C"], ["4D", "4H", "4S"]], pile=["5H"], pack=["2C", "3C", "JC"])
    state.apply(0, "play 9C 9S")
    assert sorted(state.hands[0]) == ["3C", "6C", "JC"]
    assert state.pack == ["2C"]
    many = position([["9S", "5C", "6C", "7C", "KC"], ["4D"]], pile=["5H"], pack=["2C"])
    many.apply(0, "play 9S")
    assert len(many.hands[0]) == 4 and many.pack == ["2C"], "3 or more cards: no draw"


# ----- 1.4.3 the closing phase -------------------------------------------------------------


def test_face_up_after_the_hand_then_face_down_blind() -> None:
    """1.4.3.1-2: hand first, then the face-up cards (same ranks together), then face down
    without looking."""
    state = position([[], ["4D", "4H", "4S"]], face_up=[["QC", "QD", "5H"], ["AS"]], pile=["9H"], pack=[])
    assert state.legal_actions(0) == ["play up QC", "play up QC QD", "play up QD"]
    state.face_up[0] = []
    state._legal = {}  # the position was edited by hand
    assert state.legal_actions(0) == ["play down 1", "play down 2", "play down 3"]


def test_a_blind_card_that_does_not_fit_is_picked_up_with_the_pile() -> None:
    """1.4.3.2: "otherwise the discard pile has to be picked up (including the card that
    wasn't a lucky match)"; 1.4.3.2 (bis): those cards are played before the next blind one."""
    state = position(
        [[], ["4D", "4H", "4S"]],
        face_up=[[], ["AS"]],
        face_down=[["5C", None, "KS"], ["KH"]],
        pile=["9H"],
        pack=[],
    )
    state.apply(0, "play down 1")
    assert sorted(state.hands[0]) == ["5C", "9H"] and state.pile == [] and state.turn == 1
    assert state.face_down[0] == [None, None, "KS"]
    state.turn = 0
    state._legal = {}
    assert all(not a.startswith("play down") for a in state.legal_actions(0))


def test_a_blind_card_that_fits_is_played() -> None:
    """1.4.3.2: "if the card is a good match, lucky"."""
    state = position(
        [[], ["4D", "4H", "4S"]], face_up=[[], ["AS"]], face_down=[["KC", "5C"], ["KH"]], pile=["9H"], pack=[]
    )
    state.apply(0, "play down 1")
    assert state.pile == ["9H", "KC"] and state.turn == 1


def test_the_last_player_holding_cards_is_the_shithead() -> None:
    """1.1.2: the last player to hold cards loses: the worst score."""
    state = position(
        [["KC"], ["4D"], ["5D"]],
        face_up=[[], ["AS"], ["AC"]],
        face_down=[[], ["KH"], ["KD"]],
        pile=["9H"],
        pack=[],
    )
    state.out = [1]
    state.apply(0, "play KC")
    assert state.is_terminal()
    outcome = state.outcome()
    assert outcome.ranks == [2, 1, 3]


# ----- DATA 5.3 cutting in -----------------------------------------------------------------


def test_cut_in_window_asks_everyone_and_leaks_nothing() -> None:
    """DATA 5.3: out-of-turn play is a decision of every other seat; the window opens after
    every play so it tells no one who holds the rank."""
    state = position(
        [["9S", "5C", "6C"], ["9D", "4H", "4S"], ["JD", "JH", "JS"]], pile=["5H"], cutting_in=True
    )
    state.apply(0, "play 9S")
    assert state.to_act() == (1, 2)
    assert state.legal_actions(1) == ["cut 9D", "pass"]
    assert state.legal_actions(2) == ["pass"]
    seen = state.observation(2)
    assert "cut_choice" not in seen and seen["cut_window"] == {"rank": "9", "played_by": 0}
    state.apply(1, "cut 9D")
    assert state.observation(2) == {**seen, "to_act": [2]}, "a choice stays secret until all chose"
    state.apply(2, "pass")
    assert state.pile == ["5H", "9S", "9D"]
    assert state.turn == 2, "play continues from the player who cut in"


def test_a_cut_in_that_completes_four_burns() -> None:
    """DATA 5.3: a cut-in completing four of a kind burns and the cutter plays again."""
    state = position(
        [["9S", "5C", "6C"], ["9D", "4H", "4S"], ["JD", "JH", "JS"]], pile=["9H", "9C"], cutting_in=True
    )
    state.apply(0, "play 9S")
    state.apply(1, "cut 9D")
    state.apply(2, "pass")
    assert state.pile == [] and state.turn == 1 and state.to_act() == (1,)


def test_no_window_when_the_public_facts_rule_a_cut_in_out() -> None:
    """DATA 5.3: only seats that may hold the rank are asked: all four 9s in sight, or a
    seat down to face-up cards without one, get no window."""
    state = position(
        [["9S", "5C", "6C"], ["4D", "4H", "4S"], ["JD", "JH", "JS"]],
        pile=["9H", "5H", "9C"],
        face_up=[["AS"], ["9D"], ["AC"]],
        cutting_in=True,
    )
    state.apply(0, "play 9S")
    # The last 9 lies face up in front of seat 1, under its hand: no window, seat 1 just plays.
    assert state.cut_rank is None and state.to_act() == (1,)
    assert state.legal_actions(1) == ["take"]
    up = position(
        [["9S", "5C"], [], ["JD"]],
        face_up=[["AS"], ["QD", "9D"], ["AC"]],
        pile=["5H"],
        pack=[],
        cutting_in=True,
    )
    up.apply(0, "play 9S")
    assert up.to_act() == (1, 2)
    assert up.legal_actions(1) == ["cut up 9D", "pass"]


def test_no_cut_in_while_playing_blind() -> None:
    """DATA 5.3: a cut-in is not allowed while a player is playing face-down cards."""
    state = position(
        [["9S", "5C", "6C"], [], ["JD"]], face_up=[["AS"], [], ["AC"]], pile=["5H"], pack=[], cutting_in=True
    )
    state.apply(0, "play 9S")
    assert state.to_act() == (2,)


# ----- options and the contract -------------------------------------------------------------


def test_second_deck_is_for_more_players() -> None:
    """1.1: more players with an additional pack."""
    assert list(GAME.player_counts({})) == [2, 3, 4, 5]
    assert list(GAME.player_counts({"decks": 2})) == [6, 7, 8, 9, 10]
    state = GAME.new_state(8, 1, {"decks": 2})
    assert isinstance(state, ShitheadState)
    assert len(state.pack) == 104 - 72


def test_illegal_action_changes_nothing() -> None:
    state = position([["9S", "5C", "6C"], ["4D", "4H", "4S"]], pile=["8H"])
    with pytest.raises(IllegalAction):
        state.apply(0, "play 5C")
    assert state.hands[0] == ["9S", "5C", "6C"]


# ----- what a seat can tell of the other hands (for search) ---------------------------------


def unknown_part(state: ShitheadState, seat: int) -> list[str]:
    """``seat``'s hand without the cards everyone knows are in it."""
    rest = list(state.hands[seat])
    for card in state.known[seat]:
        rest.remove(card)
    return rest


def test_a_world_dealt_for_search_keeps_what_a_forced_take_showed() -> None:
    """1.4.1.3: a player who cannot play "must pick up the whole pile": the take shows the
    table that none of the cards it held fitted the pile. Until it plays or draws again, the
    worlds ``resample_hidden`` deals give it no unknown card of a rank that fitted."""
    import random

    from arena.games import cards
    from arena.games.shithead.rules import can_play

    checked = 0
    for seed in range(40):
        state = GAME.new_state(2, seed)
        assert isinstance(state, ShitheadState)
        pick = random.Random(seed)
        fitted: tuple[int, set[str]] | None = None
        while not state.is_terminal():
            seat = state.to_act()[0]
            if fitted is not None and seat != fitted[0] and state.phase == "play":
                taker, ranks = fitted
                assert not ranks.intersection(c[0] for c in unknown_part(state, taker))  # the truth
                for world in range(6):
                    dealt = state.resample_hidden(seat, random.Random(world))
                    assert isinstance(dealt, ShitheadState)
                    assert sorted(dealt.hands[seat]) == sorted(state.hands[seat])
                    assert len(dealt.hands[taker]) == len(state.hands[taker])
                    assert not ranks.intersection(c[0] for c in unknown_part(dealt, taker)), (seed, dealt.hands[taker])
                    checked += 1
            legal = state.legal_actions(seat)
            if legal == ["take"] and state.source(seat) == "hand":
                fitted = (seat, {r for r in cards.RANKS if can_play(r, state.pile, state.options)})
            elif fitted is not None and seat == fitted[0]:
                fitted = None  # it plays (and draws) again: its hand has changed
            state.apply(seat, pick.choice(legal))
    assert checked >= 100


@pytest.mark.parametrize("players", [2, 3, 5])
def test_what_everyone_knows_of_a_hand_adds_up_to_its_unknown_part(players: int) -> None:
    import random

    for seed in range(5):
        state = GAME.new_state(players, seed)
        assert isinstance(state, ShitheadState)
        pick = random.Random(seed)
        while not state.is_terminal():
            if state.phase == "play":
                for seat in range(players):
                    assert sum(g[0] for g in state.groups[seat]) == len(unknown_part(state, seat))
            seat = state.to_act()[0]
            state.apply(seat, pick.choice(state.legal_actions(seat)))
