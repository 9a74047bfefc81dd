"""The Durak heuristic house bot: its choices in a few positions, and its strength."""

from __future__ import annotations

from typing import Any

from arena.games.durak.bots import DurakHeuristic
from arena.games.house import evaluate


def observation(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "seat": 0, "num_players": 2, "to_act": [0], "phase": "lead", "pack": 36,
        "hand": [], "trump": "H", "trump_card": "9H", "trump_card_in_stock": True,
        "hidden_bottom_card": False, "stock_count": 12, "hand_counts": [6, 6],
        "known_cards": [[], []], "discards": [], "table": [], "attacker": 0, "defender": 1,
        "direction": 1, "taking": False, "room": 6, "attack_cap": 6, "bout": 2,
        "throw_in_order": [], "dealer": 1, "redeals": 0, "shown_trump": None, "teams": None,
        "losers": [],
    }
    base.update(fields)
    return base


def test_leads_its_lowest_plain_rank_with_every_copy() -> None:
    # durak 3.5 tactics: cheap cards first, trumps held back.
    bot = DurakHeuristic(0, 1)
    obs = observation(hand=["6H", "8C", "8S", "7D", "AS"])
    legal = ["attack 6H", "attack 7D", "attack 8C", "attack 8C 8S", "attack 8S", "attack AS"]
    assert bot.act(obs, legal) == "attack 8C 8S"


def test_defends_with_the_cheapest_card_and_spares_trumps() -> None:
    bot = DurakHeuristic(1, 1)
    obs = observation(seat=1, phase="defend", hand=["9C", "KC", "7H"], table=[{"attack": "8C", "defence": None}])
    legal = ["defend 8C 7H", "defend 8C 9C", "defend 8C KC", "take"]
    assert bot.act(obs, legal) == "defend 8C 9C"


def test_takes_a_low_card_rather_than_spend_a_high_trump_early() -> None:
    bot = DurakHeuristic(1, 1)
    obs = observation(seat=1, phase="defend", hand=["9C", "KH"], table=[{"attack": "7S", "defence": None}])
    assert bot.act(obs, ["defend 7S KH", "take"]) == "take"


def test_endgame_leads_what_the_defender_cannot_beat() -> None:
    # Card counting: stock empty, every unseen card is in the defender's hand.
    seen = [r + s for s in "CDHS" for r in "6789TJQKA"]
    theirs = ["6C", "7C"]
    mine = ["AS", "8D"]
    discards = [c for c in seen if c not in theirs + mine]
    bot = DurakHeuristic(0, 1)
    obs = observation(
        hand=mine, discards=discards, stock_count=0, trump_card_in_stock=False,
        hand_counts=[2, 2],
    )
    # 8D is cheaper, but only AS cannot be beaten by 6C/7C... neither can 8D: both safe;
    # then the cheaper lead wins.
    assert bot.act(obs, ["attack 8D", "attack AS"]) == "attack 8D"
    obs["hand"], obs["discards"] = ["AS", "6D"], [c for c in seen if c not in ["7D", "KC", "AS", "6D"]]
    # 6D falls to 7D; the ace of spades cannot be beaten.
    assert bot.act(obs, ["attack 6D", "attack AS"]) == "attack AS"


def test_waits_while_the_defence_is_under_way_until_the_stock_is_gone() -> None:
    # durak 3.5 tactics: "wait to see which card the defender plays"; beating a card leaves
    # the room as it was, so waiting costs nothing while the stock lasts.
    bot = DurakHeuristic(0, 1)
    table = [{"attack": "7C", "defence": "9C"}, {"attack": "7D", "defence": None}]
    obs = observation(phase="defend", to_act=[0, 1], hand=["7S", "9D", "KS"], table=table)
    legal = ["attack 7S", "attack 9D", "done"]
    assert bot.act(obs, legal) == "done"
    endgame = observation(phase="defend", to_act=[0, 1], hand=["7S", "9D", "KS"], table=table,
                          stock_count=0, trump_card_in_stock=False)
    assert bot.act(endgame, legal) != "done"


def test_heuristic_beats_random_two_players() -> None:
    # Measured over 2000 matches (seeds 0-1999): 93.8 % (96.5 % when throw-ins had to wait
    # until every card was beaten: random attackers now press during the defence too).
    result = evaluate("durak", "heuristic", "random", 2, 200, first_seed=5000)
    assert result["win_rate"] >= 0.91


def test_heuristic_is_rarely_the_durak_at_three() -> None:
    # Measured over 1000 matches (seeds 0-999): mean rank 1.026 (the Durak ranks 3, everyone
    # else 1).
    result = evaluate("durak", "heuristic", "random", 3, 90, first_seed=7000)
    assert result["mean_rank"] <= 1.12
