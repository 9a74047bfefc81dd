"""Scenario tests for Durak, each citing the rulebook passage it checks
(backpackers-playing-cards, section 3). Positions are built by dealing a game and then
setting the state's attributes directly."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena import games
from arena.games import IllegalAction
from arena.games.durak.cards import VALUE, beats, pack
from arena.games.durak.state import DurakState
from arena.games.testing import resampled_along_random_matches

GAME = games.get("durak")


def position(
    hands: list[list[str]],
    *,
    trump: str = "H",
    stock: list[str] | None = None,
    attacker: int = 0,
    defender: int | None = None,
    attacks: list[str] | None = None,
    defences: list[str | None] | None = None,
    phase: str = "lead",
    options: dict[str, Any] | None = None,
    **extra: Any,
) -> DurakState:
    """A game in the middle of a bout: ``hands`` dealt, ``stock`` (last = top) left.

    Unless ``options`` say otherwise the attackers add cards only once everything is beaten
    (``throw_in_timing="after"``), so that every step is one seat's decision; the tests of
    throw-ins during the defence ask for the default."""
    options = {"throw_in_timing": "after", **(options or {})}
    state = GAME.new_state(len(hands), 0, options)
    assert isinstance(state, DurakState)
    state.hands = [list(h) for h in hands]
    state.known = [[] for _ in hands]
    state.stock = list(stock or [])
    state.trump = trump
    state.trump_card = state.stock[0] if state.stock else "6" + trump
    state.hidden_bottom = False
    state.attacker = attacker
    state.defender = (attacker + 1) % len(hands) if defender is None else defender
    state.attacks = list(attacks or [])
    state.defences = list(defences) if defences is not None else [None] * len(state.attacks)
    state.phase = phase
    state.bout = 2
    for name, value in extra.items():
        setattr(state, name, value)
    state._legal = {}
    return state


def play(state: DurakState, *moves: tuple[int, str]) -> DurakState:
    for seat, action in moves:
        assert state.to_act() == (seat,), f"{action}: to act is {state.to_act()}"
        state.apply(seat, action)
    return state


# ----- durak 4.2 Preparation ---------------------------------------------------------------


@pytest.mark.parametrize(("n", "pack", "hand", "stock"), [(2, 36, 6, 24), (4, 36, 6, 12), (5, 52, 9, 7)])
def test_deal_six_each_and_the_trump_card_is_drawn_last(n: int, pack: int, hand: int, stock: int) -> None:
    # durak 4.2 Preparation; 3.7 Playing with 52 cards: nine each.
    state = GAME.new_state(n, 3, {"pack": pack})
    assert [len(h) for h in state.hands] == [hand] * n
    assert len(state.stock) == stock
    assert state.stock[0] == state.trump_card and state.trump == state.trump_card[1]
    obs = state.observation(0)
    assert obs["trump_card_in_stock"] and obs["stock_count"] == stock


def test_six_players_the_dealer_keeps_the_shown_trump_card() -> None:
    # durak 4.2: with 6 players no draw pile remains; the last card is shown and the dealer keeps it.
    state = GAME.new_state(6, 5)
    assert state.stock == []
    assert state.trump_card in state.hands[state.dealer]
    assert state.observation(0)["known_cards"][state.dealer] == [state.trump_card]


@pytest.mark.parametrize(
    ("hand", "legal"),
    [
        (["6S", "7S", "9S", "JS", "AS", "7C"], ["keep", "redeal"]),  # five spades, no trump
        (["6S", "7S", "9S", "JS", "AS", "7H"], ["keep"]),  # five spades but a trump
        (["6S", "7S", "9S", "JS", "7C", "8C"], ["keep"]),  # only four of a suit
        (["6S", "7S", "9S", "JS", "AS", "KS"], ["keep", "redeal"]),  # six of one suit
    ],
)
def test_five_of_a_suit_without_trump_may_insist_on_a_redeal(hand: list[str], legal: list[str]) -> None:
    # durak 4.2: five or more cards of one suit and none a trump: reshuffle and deal.
    state = GAME.new_state(2, 1)
    state.trump = "H"
    state.hands[0] = hand
    state._legal = {}
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == legal


def test_a_redeal_deals_again_and_everyone_is_asked_again() -> None:
    state = GAME.new_state(3, 1)
    state.trump = "H"
    state.hands[1] = ["6S", "7S", "9S", "JS", "AS", "7C"]
    before = [list(h) for h in state.hands]
    play(state, (0, "keep"), (1, "redeal"))
    assert state.redeals == 1 and state.phase == "redeal" and state.to_act() == (0,)
    assert state.hands != before
    play(state, (0, "keep"), (1, "keep"), (2, "keep"))
    assert state.phase == "lead"


# ----- durak 3.4.1 Start of play -----------------------------------------------------------


@pytest.mark.parametrize(
    ("hands", "starter", "defender"),
    [
        ([["7H", "AS"], ["8H", "6C"], ["KH", "6D"]], 0, 1),
        ([["AS", "KS"], ["9H", "6C"], ["7H", "6D"]], 2, 0),
        ([["AS", "KS"], ["9C", "6C"], ["7S", "6D"]], 0, 1),  # no trump anywhere: dealer's left
    ],
)
def test_the_lowest_trump_starts(hands: list[list[str]], starter: int, defender: int) -> None:
    # durak 3.4.1: in the first game the player with the lowest trump attacks his left neighbour.
    state = GAME.new_state(3, 1)
    state.hands, state.trump = hands, "H"
    state._first_bout()
    assert (state.attacker, state.defender) == (starter, defender)
    shown = state.observation(1)["shown_trump"]
    if shown is not None:
        assert shown in state.observation(1)["known_cards"][starter]


@pytest.mark.parametrize(
    ("later", "n", "attacker", "defender"),
    [("durak_deals", 4, 1, 2), ("durak_attacked", 4, 3, 0), ("durak_attacked", 2, 1, 0)],
)
def test_later_games_start_from_the_previous_durak(later: str, n: int, attacker: int, defender: int) -> None:
    # durak 3.4.1: the Durak (seat 0) deals and his left neighbour begins; (alternative:
    # the Durak is attacked first).
    state = GAME.new_state(n, 2, {"later_game": later, "redeal": False})
    assert state.dealer == 0
    assert (state.attacker, state.defender) == (attacker, defender)


# ----- durak 3.4.2 Attack -------------------------------------------------------------------


def test_attack_with_one_or_more_cards_of_one_rank() -> None:
    # durak 3.4.2: one or more cards of the same value.
    state = position([["7C", "7D", "9S"], ["6C", "8C", "TD", "QS", "KS", "AS"]])
    assert state.legal_actions(0) == ["attack 7C", "attack 7C 7D", "attack 7D", "attack 9S"]


@pytest.mark.parametrize(
    ("defender_hand", "options", "bout", "biggest"),
    [
        (["6C", "8C"], {}, 2, 2),  # no more cards than the defender holds
        (["6C", "8C", "TD", "QS", "KS", "AS", "9D", "JD"], {}, 2, 4),  # only four sevens
        (["6C", "8C", "TD", "QS", "KS", "AS"], {"attack_limits": "5/6"}, 1, 4),
    ],
)
def test_the_attack_limit(defender_hand: list[str], options: dict[str, Any], bout: int, biggest: int) -> None:
    # durak 3.4.2: as many cards as the defender holds, up to 6 (alternative: 5 in the first attack).
    state = position([["7C", "7D", "7S", "7H"], defender_hand], trump="D", options=options, bout=bout)
    sizes = [len(a.split()) - 1 for a in state.legal_actions(0)]
    assert max(sizes) == biggest


@pytest.mark.parametrize(("limits", "bout", "cap"), [("standard", 1, 6), ("5/6", 1, 5), ("5/6", 2, 6), ("5/7", 3, 7)])
def test_attack_caps_per_bout(limits: str, bout: int, cap: int) -> None:
    # durak 3.4.2 (alternative: at most 5 in the first attack and 6 or 7 later).
    state = position([["7C"], ["6C"]], options={"attack_limits": limits}, bout=bout)
    assert state.attack_cap() == cap


def test_fifty_two_cards_allow_nine() -> None:
    # durak 3.7 Playing with 52 cards: attacked with up to 9 cards; 6 players do not fit.
    state = position([["7C"], ["6C"]], options={"pack": 52})
    assert state.attack_cap() == 9
    assert list(GAME.player_counts({"pack": 52})) == [2, 3, 4, 5]
    assert list(GAME.player_counts({"teams": True})) == [4, 6]


# ----- durak 3.4.3 Defence -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "attack", "ok"),
    [
        ("KC", "7C", True),  # higher, same suit
        ("6C", "7C", False),  # lower, same suit
        ("6H", "AC", True),  # any trump on a plain card
        ("AS", "7C", False),  # another plain suit
        ("7H", "9H", False),  # a trump only falls to a higher trump
        ("TH", "9H", True),
    ],
)
def test_which_card_beats_which(card: str, attack: str, ok: bool) -> None:
    # durak 3.4.3 Defence, trumps are hearts.
    assert beats(card, attack, "H") is ok


def test_defender_beats_each_card_or_takes() -> None:
    # durak 3.4.3: he may take even when he could beat the cards.
    state = position(
        [["9S"], ["8C", "KC", "6H", "AS"]], attacks=["7C"], phase="defend"
    )
    assert state.legal_actions(1) == ["defend 7C 6H", "defend 7C 8C", "defend 7C KC", "take"]


# ----- throw-ins, done and the end of a bout --------------------------------------------------


def test_two_players_full_bout_with_done() -> None:
    # durak 3.4.2/3.4.3: after a repelled attack the attacker may add ranks already on the
    # table; when he says done the cards leave the game and the defender attacks next.
    state = position(
        [["7C", "7D", "KS", "AD"], ["8C", "KC", "6H", "9S", "QD", "TD"]],
        stock=["AH", "6S", "6D", "6C"],
    )
    play(state, (0, "attack 7C"), (1, "defend 7C 8C"))
    assert state.legal_actions(0) == ["attack 7D", "done"]  # sevens and eights only
    play(state, (0, "attack 7D"), (1, "defend 7D TD"), (0, "done"))
    assert state.observation(0)["discards"] == ["7C", "7D", "8C", "TD"]
    assert (state.attacker, state.defender, state.phase) == (1, 0, "lead")
    # durak 3.6: the attacker draws to six first, then the defender.
    assert sorted(state.hands[0]) == sorted(["KS", "AD", "6C", "6D", "6S", "AH"])
    assert len(state.hands[1]) == 4 and state.stock == []
    assert "AH" in state.known[0]  # the face-up trump card was seen going into seat 0's hand


@pytest.mark.parametrize(
    ("throw_ins", "n", "asked"),
    [
        ("neighbour", 3, [0, 2]),
        ("neighbour", 4, [0, 2]),  # seat 3 sits too far away
        ("clockwise", 4, [0, 2, 3]),
    ],
)
def test_who_may_throw_in(throw_ins: str, n: int, asked: list[int]) -> None:
    # durak 3.4.2: the player to the defender's left joins in (alternative: every other
    # player, clockwise). Each is asked in turn and must say done explicitly.
    hands = [["7C", "7D"], ["8C", "QC", "9S", "TS", "JS", "AS"]] + [["7S", "KD"]] * (n - 2)
    state = position(hands, options={"throw_ins": throw_ins})
    play(state, (0, "attack 7C"), (1, "defend 7C 8C"))
    seen = []
    while state.phase == "throw_in":
        seat = state.to_act()[0]
        seen.append(seat)
        state.apply(seat, "done")
    assert seen == asked


def test_any_order_asks_every_other_player_once() -> None:
    # durak 3.4.2 (alternative: other players add cards "wildly"): a seeded random order.
    hands = [["7C", "7D"], ["8C", "QC", "9S", "TS", "JS", "AS"], ["7S"], ["KD"], ["9D"]]
    state = position(hands, options={"throw_ins": "any"})
    play(state, (0, "attack 7C"), (1, "defend 7C 8C"))
    assert sorted(state.window) == [0, 2, 3, 4]


def test_the_neighbour_throws_in_and_the_defender_takes_with_throw_ins_after() -> None:
    # durak 3.4.3: the defender takes; the attackers may still add cards of the ranks on the
    # table, no more than he could have had to beat; then he picks everything up.
    state = position(
        [["7C", "KS", "AS", "9D"], ["8C", "6D", "9C"], ["7S", "8D", "QD"]],
        trump="H",
    )
    play(state, (0, "attack 7C"), (1, "defend 7C 8C"), (0, "done"))
    assert state.legal_actions(2) == ["attack 7S", "attack 8D", "done"]
    play(state, (2, "attack 7S"))
    assert state.legal_actions(1) == ["take"]  # nothing beats the 7S
    play(state, (1, "take"))
    assert state.legal_actions(0) == ["done"]
    play(state, (0, "done"))
    # Two cards in hand, one unbeaten card on the table: room for one more only.
    assert state.legal_actions(2) == ["attack 8D", "done"]
    play(state, (2, "attack 8D"))
    assert state.phase == "lead"
    assert sorted(state.hands[1]) == sorted(["6D", "9C", "7C", "8C", "7S", "8D"])
    obs = state.observation(0)
    assert obs["known_cards"][1] == ["7C", "7S", "8C", "8D"]
    # durak 3.3: the taker may not attack; the next player attacks his left neighbour.
    assert (state.attacker, state.defender) == (2, 0)


def test_the_neighbour_joins_in_while_the_defence_is_under_way() -> None:
    # durak 3.4.2: "The attacker places one or more cards of the same value ... in front of
    # the defender, who must then defend himself ... More than 2 players: The player to the
    # left of the defender may now enter the battle by placing further cards face-up in front
    # of the defender. The defender may only place cards with the same face value as those
    # already on the table by now." The attackers decide together with every step of the
    # defence, and nobody sees another's choice before all have chosen.
    assert GAME.options["throw_in_timing"].default == "during"
    state = position(
        [["7C", "7D", "KS"], ["8C", "8D", "QC", "9S", "TS", "AS"], ["7S", "8H", "QD"]],
        options={"throw_in_timing": "during"},
    )
    state.apply(0, "attack 7C 7D")
    assert state.to_act() == (0, 1, 2)
    assert state.legal_actions(2) == ["attack 7S", "done"]
    assert state.legal_actions(0) == ["done"]
    table = state.observation(0)["table"]
    state.apply(1, "defend 7C 8C")
    state.apply(2, "attack 7S")
    assert state.to_act() == (0,)
    assert state.observation(0)["table"] == table and state.observation(0)["hand_counts"] == [1, 6, 3]
    state.apply(0, "done")
    assert state.observation(0)["table"] == [
        {"attack": "7C", "defence": "8C"}, {"attack": "7D", "defence": None}, {"attack": "7S", "defence": None},
    ]
    # The eight the defender laid is on the table by now: the neighbour may add an eight.
    assert state.to_act() == (0, 1, 2) and state.legal_actions(2) == ["attack 8H", "done"]
    for seat, action in ((2, "attack 8H"), (0, "done"), (1, "defend 7D 8D")):
        state.apply(seat, action)
    assert state.attacks == ["7C", "7D", "7S", "8H"] and state.defences == ["8C", "8D", None, None]
    for seat, action in ((1, "take"), (2, "done"), (0, "done")):
        state.apply(seat, action)
    # durak 3.4.3: after the take the attackers are asked once more, then he picks up.
    play(state, (0, "done"), (2, "done"))
    assert sorted(state.hands[1]) == sorted(["QC", "9S", "TS", "AS", "7C", "7D", "7S", "8H", "8C", "8D"])
    assert (state.attacker, state.defender) == (2, 0)


def test_throw_ins_of_one_step_land_in_throw_in_order_while_they_fit() -> None:
    # durak 3.4.2: "The attackers may only use as many cards for the attack as the defender
    # holds". Two attackers adding at the same moment: the one asked first (clockwise from
    # the main attacker) lands, the other's cards stay in his hand.
    hands = [["7C", "KS"], ["8C", "QC"], ["7S", "AD"], ["7H", "AC"]]
    state = position(hands, options={"throw_in_timing": "during", "throw_ins": "clockwise"})
    state.apply(0, "attack 7C")
    assert state.to_act() == (0, 1, 2, 3)
    for seat, action in ((3, "attack 7H"), (2, "attack 7S"), (1, "take"), (0, "done")):
        state.apply(seat, action)
    # Two unbeaten cards against two in hand: no room left, he picks them up at once.
    assert sorted(state.hands[1]) == ["7C", "7S", "8C", "QC"]
    assert sorted(state.hands[3]) == ["7H", "AC"]


def test_unseen_choices_of_a_step_are_chosen_anew_in_a_resample() -> None:
    state = position(
        [["7C", "7D", "KS"], ["8C", "8D", "QC", "9S", "TS", "AS"], ["7S", "8H", "QD"]],
        stock=["AH", "6S", "6D", "6C"], options={"throw_in_timing": "during"},
    )
    state.apply(0, "attack 7C 7D")
    state.apply(1, "defend 7C 8C")
    state.apply(2, "attack 7S")
    choices = set()
    for k in range(30):
        world = state.resample_hidden(0, random.Random(k))
        assert isinstance(world, DurakState)
        assert world.to_act() == (0,) and world.pending[0] is None
        # Hidden choices, but each one its seat could have made with its resampled hand.
        assert world.pending[1] in world._legal_actions(1) and world.pending[2] in world._legal_actions(2)
        choices.add((world.pending[1], world.pending[2]))
        world.apply(0, "done")
    assert len(choices) > 1


def test_two_players_the_attacker_attacks_again_after_a_take() -> None:
    # durak 3.4.3: with 2 players the previous attacker attacks once more.
    state = position([["7C", "KS"], ["8S", "6D"]], stock=["9C", "9D", "9S", "9H", "TC", "TD"])
    play(state, (0, "attack 7C"), (1, "take"), (0, "done"))
    assert (state.attacker, state.defender) == (0, 1)


# ----- durak 3.6 Follow up and finish --------------------------------------------------------


def test_rulebook_draw_order_main_attacker_clockwise_defender_last() -> None:
    # durak 3.6: the main attacker draws first, then clockwise, and finally the defender,
    # each up to six cards; a player with more than six does not draw.
    hands = [
        ["7C", "AS", "AD", "KS", "KD"],  # main attacker, 5 cards
        ["8C", "QS", "JS", "TS", "9S", "6S"],  # defender
        ["7D", "QD", "JD", "TD"],  # neighbour, will throw in
        ["6C", "8D", "9D", "TC", "JC", "QC", "KC"],  # seven cards: no draw
    ]
    stock = ["AH", "AC", "KH", "QH", "JH", "TH", "9H", "8H"]  # 8H is on top
    state = position(hands, stock=stock)
    assert state.draw_order() == [0, 2, 3, 1]
    play(state, (0, "attack 7C"), (1, "defend 7C 8C"), (0, "done"), (2, "attack 7D"))
    play(state, (1, "take"), (0, "done"), (2, "done"))
    assert sorted(state.hands[0]) == sorted(["AS", "AD", "KS", "KD", "8H", "9H"])
    assert sorted(state.hands[2]) == sorted(["QD", "JD", "TD", "TH", "JH", "QH"])
    assert len(state.hands[3]) == 7
    assert len(state.hands[1]) == 5 + 3  # took three cards, does not draw
    assert state.stock == ["AH", "AC", "KH"]


def test_the_last_one_holding_cards_is_the_durak() -> None:
    # durak 3.6: with the stock gone, whoever is the last to have cards left loses.
    state = position([["7C"], ["8C", "KS"]])
    play(state, (0, "attack 7C"), (1, "defend 7C 8C"))
    assert state.is_terminal()
    assert state.outcome().scores == [1.0, 0.0]
    assert state.observation(0)["losers"] == [1]


def test_rulebook_drawn_game_last_defence_with_last_cards() -> None:
    # durak 3.6: if the last player repels the last attack with his last cards, it is a draw.
    state = position([["7C"], ["8C"]])
    play(state, (0, "attack 7C"), (1, "defend 7C 8C"))
    assert state.is_terminal()
    assert state.outcome().ranks == [1, 1]


def test_three_players_the_game_goes_on_without_those_who_are_out() -> None:
    # durak 3.6: players without cards drop out; the others play on.
    state = position([["7C"], ["8C", "KS"], ["9D", "9S"]])
    play(state, (0, "attack 7C"), (1, "defend 7C 8C"), (2, "done"))
    assert not state.is_terminal()
    assert (state.attacker, state.defender) == (1, 2)
    play(state, (1, "attack KS"), (2, "take"))
    assert state.is_terminal() and state.outcome().scores == [1.0, 1.0, 0.0]


# ----- durak 3.7 Variations -------------------------------------------------------------------


def test_shoving_passes_the_attack_on() -> None:
    # durak 3.7 Shoving: the defender lays a card of the same value; the next player must
    # defend against all; a trump may not be shoved.
    opts = {"shoving": "on"}
    hands = [["7C", "KS"], ["7D", "7H", "AS", "QS"], ["9C", "9D", "9S", "TD", "JD", "QD"]]
    state = position(hands, attacks=["7C"], phase="defend", attacker=0, options=opts)
    legal = state.legal_actions(1)
    assert "shove 7D" in legal and "shove 7H" not in legal and "shove 7D 7H" not in legal
    play(state, (1, "shove 7D"))
    assert (state.attacker, state.defender, state.to_act()) == (1, 2, (2,))
    assert state.attacks == ["7C", "7D"]
    assert "defend 7C 9C" in state.legal_actions(2)


def test_shoving_needs_room_in_the_next_hand_and_as_many_cards_in_match_mode() -> None:
    # durak 3.7 Shoving (alternative: as many cards as the attacker laid).
    hands = [["7C", "7S", "KS"], ["7D", "AS", "QS"], ["9C", "TD", "JD"]]
    match = position(hands, attacks=["7C", "7S"], phase="defend", options={"shoving": "match"})
    assert not [a for a in match.legal_actions(1) if a.startswith("shove")]  # needs two sevens
    small = position(hands, attacks=["7C", "7S"], phase="defend", options={"shoving": "on"})
    small.hands[2] = ["9C", "TD"]
    small._legal = {}
    assert not [a for a in small.legal_actions(1) if a.startswith("shove")]  # 3 cards > 2 in hand


def test_a_shover_may_reverse_the_direction() -> None:
    # durak 3.7 Shoving: a player who shoves may also choose the direction of play.
    opts = {"shoving": "on", "shove_direction": True}
    hands = [["7C", "KS"], ["7D", "AS"], ["9C", "TD"], ["9S", "JD"]]
    state = position(hands, attacks=["7C"], phase="defend", options=opts)
    assert {"shove 7D", "shove 7D reverse"} <= set(state.legal_actions(1))
    play(state, (1, "shove 7D reverse"))
    assert (state.attacker, state.defender, state.direction) == (1, 0, -1)


def test_trump_change_when_the_last_card_is_drawn() -> None:
    # durak 3.7 Trump change: the face-down card under the trump card names the new trump.
    state = position([["7C", "KS"], ["8C", "6D"]], stock=["QS", "AH", "TD"], trump="H")
    state.trump_card, state.hidden_bottom = "AH", True
    assert state.observation(1)["hidden_bottom_card"]
    play(state, (0, "attack 7C"), (1, "defend 7C 8C"), (0, "done"))
    assert state.trump == "S"
    # Seat 0 draws first and takes the whole stock: both cards were seen.
    assert state.observation(1)["known_cards"][0] == ["QS", "AH"]


def test_fresh_deal_with_trump_change_hides_a_card_under_the_trump_card() -> None:
    state = GAME.new_state(2, 4, {"trump_change": True})
    assert state.stock[1] == state.trump_card and state.hidden_bottom


def test_team_mates_support_but_do_not_attack_each_other() -> None:
    # durak 3.7 Team game: the attacker's team mates may support him; no help in defence.
    hands = [["7C", "KS"], ["8C", "QS", "JS"], ["7D", "9S"], ["7S", "7H"]]
    state = position(hands, options={"teams": True}, teams=[0, 1, 0, 1])
    play(state, (0, "attack 7C"), (1, "defend 7C 8C"), (0, "done"))
    assert state.to_act() == (2,)  # the partner across the table, never seat 3
    play(state, (2, "done"))
    assert (state.attacker, state.defender) == (1, 2)


def test_a_team_left_holding_cards_loses_together() -> None:
    hands = [["7C"], ["8C", "QS"], [], ["AS"]]
    state = position(hands, options={"teams": True}, teams=[0, 1, 0, 1])
    play(state, (0, "attack 7C"), (1, "defend 7C 8C"))
    assert state.is_terminal()
    assert state.outcome().scores == [1.0, 0.0, 1.0, 0.0]


# ----- observation and hidden information ------------------------------------------------------


def test_observation_hides_other_hands_and_resample_keeps_known_cards() -> None:
    state = position(
        [["7C", "KS", "9D"], ["8S", "6D", "JC"]],
        stock=["AH", "6S", "6C", "TC"],
    )
    state.known[1] = ["JC"]
    obs = state.observation(0)
    assert obs["hand"] == ["7C", "9D", "KS"] and obs["hand_counts"] == [3, 3]
    assert "8S" not in str(obs)
    changed = False
    for k in range(10):
        twin = state.resample_hidden(0, random.Random(k))
        assert "JC" in twin.hands[1] and twin.stock[0] == "AH"
        assert twin.observation(0) == obs
        changed = changed or twin.hands[1] != state.hands[1]
    assert changed


def _stock_draws(trail: list[tuple[Any, int, str]], now: DurakState) -> list[int]:
    """From the public record: how many cards each seat has drawn from the stock since the
    last deal (durak 3.6)."""
    draws = [0] * now.num_players
    states = [before for before, _, _ in trail] + [now]
    for (before, _, _), after in zip(trail, states[1:], strict=True):
        if after.redeals != before.redeals:
            draws = [0] * now.num_players
            continue
        for card in set(before.stock) - set(after.stock):
            draws[next(s for s, hand in enumerate(after.hands) if card in hand)] += 1
    return draws


def _barred_from_the_deal(obs: dict[str, Any], options: dict[str, Any]) -> set[str]:
    """durak 3.4.1: "the player with the lowest trump starts", so no hand was dealt a lower
    trump than the one shown; if nobody could show one, no hand was dealt a trump at all."""
    if obs["phase"] == "redeal" or options.get("later_game", "no") != "no":
        return set()
    trump = obs["trump_card"][1]
    shown = obs["shown_trump"]
    floor = VALUE[shown[0]] if shown else 99
    return {c for c in pack(obs["pack"]) if c[1] == trump and VALUE[c[0]] < floor}


@pytest.mark.parametrize(
    ("n", "options"),
    [(2, {}), (3, {"redeal": False}), (4, {"pack": 52, "throw_ins": "clockwise"}),
     (5, {"shoving": "on", "trump_change": True}), (4, {"teams": True, "later_game": "durak_deals"})],
)
def test_resampled_worlds_agree_with_what_the_seat_saw(n: int, options: dict[str, Any]) -> None:
    """Every resampled world keeps what the seat has seen: its hand, the table, the discards,
    the face-up trump card in its place, the cards known to be in each hand; and it deals
    no hand, among the cards nobody has seen, more trumps below the one shown at the start
    than that hand has drawn from the stock since."""
    constrained = 0
    for trail, state, seat, world in resampled_along_random_matches(GAME, n, options, range(10)):
        assert isinstance(state, DurakState) and isinstance(world, DurakState)
        assert world.hands[seat] == state.hands[seat] and world.known == state.known
        assert (world.attacks, world.defences, world.discards) == (state.attacks, state.defences, state.discards)
        assert len(world.stock) == len(state.stock)
        assert [c == state.trump_card for c in world.stock] == [c == state.trump_card for c in state.stock]
        everything = [c for h in world.hands for c in h] + world.stock
        assert sorted(everything) == sorted([c for h in state.hands for c in h] + state.stock)
        barred = _barred_from_the_deal(state.observation(seat), options)
        draws = _stock_draws(trail, state)
        for s, hand in enumerate(world.hands):
            assert set(world.known[s]) <= set(hand)
            unseen = set(hand) - set(world.known[s])
            if s != seat and barred:
                constrained += 1
                assert len(unseen & barred) <= draws[s], (s, sorted(unseen & barred), draws)
    assert constrained or options.get("later_game", "no") != "no"


def test_illegal_actions_are_refused() -> None:
    state = position([["7C", "KS"], ["8C", "6D"]])
    with pytest.raises(IllegalAction):
        state.apply(0, "attack 7C KS")  # two ranks in one attack
    with pytest.raises(IllegalAction):
        state.apply(1, "take")  # not his turn
