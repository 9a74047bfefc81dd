"""The ``search`` house bot: registered for every game, deterministic for a seed, legal in a
whole match of every game, blind to the true state (it decides from the sample it is handed
and the observation alone), and stronger than random play."""

from __future__ import annotations

import random

import pytest

from arena import games
from arena.games import house, search
from arena.games.search import Budget, SearchBot
from arena.referee import HousePlayer, play_match

TINY = {"iterations": 2, "depth": 6, "candidates": 3}
# Yaniv's playouts run to the next scoring event, as its default budget has them do.
TINY_BUDGETS = {"yaniv": {"iterations": 2, "depth": 30, "candidates": 3, "until_scored": True}}


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every game's ``search`` at a budget that plays a whole match in moments."""
    for name in games.names():
        monkeypatch.setattr(type(games.get(name)), "search_budget", TINY_BUDGETS.get(name, TINY))


@pytest.mark.parametrize("game", games.names())
def test_search_plays_a_whole_match_of_every_game(game: str, tiny: None) -> None:
    assert "search" in games.bot_names(game)
    state, actions = house.play(game, ["search", "heuristic"], seed=5)  # play() raises on illegal
    assert state.is_terminal()
    assert any(seat == 0 for seat, _ in actions)


@pytest.mark.parametrize("game", ["durak", "crazy_eights", "shithead"])
def test_search_is_deterministic_for_a_seed(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(type(games.get(game)), "search_budget", {"iterations": 12, "depth": 10})
    first = house.play(game, ["search", "random"], seed=11)[1]
    again = house.play(game, ["search", "random"], seed=11)[1]
    other = house.play(game, ["search", "random"], seed=12)[1]
    assert first == again
    assert first != other


def test_the_runner_hands_house_bots_the_same_sample_as_play(tiny: None) -> None:
    """Through the referee (``HousePlayer`` and ``Turn.sample``) the bot gets the very
    sample ``house.play`` gives it, so both play the same match, every decision in time."""
    seed = 21
    players = [HousePlayer("durak", "search", 0, seed), HousePlayer("durak", "random", 1, seed)]
    result = play_match("durak", players, seed)
    assert set(result.codes()) - {"forced"} == {"ok"}, result.codes()
    _, actions = house.play("durak", ["search", "random"], seed)
    assert [(d.seat, d.action) for d in result.decisions] == actions


def positions(game: str, seed: int, count: int) -> list[tuple[games.State, int]]:
    """Mid-match states of ``game`` (heuristic play) where the seat to act has a choice."""
    state = games.get(game).new_state(2, seed)
    bots = [house.house_bot(game, "heuristic", seat, seed) for seat in range(2)]
    found = []
    while (to_act := state.to_act()) and len(found) < count:
        seat = to_act[0]
        legal = state.legal_actions(seat)
        if len(legal) > 1 and state.moves % 3 == 0:
            found.append((state.clone(), seat))
        state.apply(seat, bots[seat].act(state.observation(seat), legal))
    return found


def fresh_decision(game: str, seat: int, seen: games.State, handed: games.State, budget: Budget) -> str:
    """The decision of a new search bot shown ``seen``'s observation and handed ``handed``."""
    bot = SearchBot(game, seat, seed=7, budget=budget)
    return bot.act(seen.observation(seat), seen.legal_actions(seat), sample=handed.clone())


@pytest.mark.parametrize("game", ["durak", "crazy_eights"])
def test_search_decides_from_the_sample_and_the_observation_alone(game: str) -> None:
    """Hand the bot a sample whose hidden cards differ from the truth: it decides as it would
    in a match where that sample were the truth. A second sample may change its mind, so the
    sample is what it searches."""
    budget = Budget(iterations=24, depth=12)
    swayed = 0
    # Several deals: in most positions a small search is sure of its move whatever the sample,
    # so one deal alone may never show the sample mattering.
    found = [position for seed in range(3, 9) for position in positions(game, seed=seed, count=8)]
    for index, (truth, seat) in enumerate(found):
        rng = random.Random(index)
        sample = truth.resample_hidden(seat, rng)
        other = truth.resample_hidden(seat, rng)
        assert sample.to_json()["state"] != truth.to_json()["state"]
        assert sample.observation(seat) == truth.observation(seat)
        legal = truth.legal_actions(seat)
        chosen = fresh_decision(game, seat, truth, sample, budget)
        assert chosen in legal
        assert chosen == fresh_decision(game, seat, sample, sample, budget)
        swayed += chosen != fresh_decision(game, seat, truth, other, budget)
    assert swayed > 0, "the decision never depended on the sample"


def test_the_wall_clock_cap_stops_after_the_first_world() -> None:
    (truth, seat), = positions("durak", seed=4, count=1)
    bot = SearchBot("durak", seat, 1, budget=Budget(iterations=1000, depth=4, ms=1e-6))
    legal = truth.legal_actions(seat)
    bot.act(truth.observation(seat), legal, sample=truth.resample_hidden(seat, random.Random(0)))
    assert bot.playouts == min(len(legal), bot.budget.candidates)


def test_search_beats_random(monkeypatch: pytest.MonkeyPatch) -> None:
    """Durak at 12 playouts a decision, ten fixed deals, seats alternating. The heuristic
    alone wins about 90 % against random, so 8 of 10 leaves a wide margin; random play
    would win 8 of 10 by luck with probability 0.055."""
    monkeypatch.setattr(type(games.get("durak")), "search_budget", {"iterations": 12, "depth": 24})
    wins = 0
    for seed in range(200, 210):
        seat = seed % 2
        bots = ["search", "random"] if seat == 0 else ["random", "search"]
        ranks = house.play("durak", bots, seed)[0].outcome().ranks
        wins += ranks[seat] < ranks[1 - seat]
    assert wins >= 8, f"search won {wins} of 10 against random"


@pytest.mark.parametrize(("better", "base", "departs"), [
    ([1.0, 1.0, 1.0], [0.0, 0.0, 0.0], True),  # the same gain in every world
    ([1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], False),  # as often worse as better
    ([0.6, 0.5, 0.7, 0.4], [0.5, 0.5, 0.5, 0.5], False),  # a gain inside the noise
    ([1.0], [0.0], False),  # one world says nothing of the noise
])
def test_the_search_leaves_the_heuristic_only_for_a_gain_beyond_the_noise(
        better: list[float], base: list[float], departs: bool) -> None:
    assert search.significant(better, base) is departs


def test_halving_spends_the_budget_on_the_contenders() -> None:
    """Sequential halving: no more playouts than the budget allows (one world a round at
    least), the same decision for the same seed, and the heuristic's choice kept unless a
    rival beats it by more than the noise."""
    budget = Budget(iterations=16, depth=30, until_scored=True, halving=True, scale=15.0, min_worlds=4)
    found = [p for p in positions("yaniv", seed=3, count=12) if len(p[0].legal_actions(p[1])) > 2]
    assert found
    for index, (truth, seat) in enumerate(found[:4]):
        legal = truth.legal_actions(seat)
        sample = truth.resample_hidden(seat, random.Random(index))
        bot = SearchBot("yaniv", seat, seed=index, budget=budget)
        chosen = bot.act(truth.observation(seat), legal, sample=sample.clone())
        assert chosen in legal
        candidates = min(len(legal), budget.candidates)
        rounds = max(1, (candidates - 1).bit_length())
        assert bot.playouts <= max(budget.iterations, candidates * rounds) + candidates
        again = SearchBot("yaniv", seat, seed=index, budget=budget)
        assert again.act(truth.observation(seat), legal, sample=sample.clone()) == chosen


def test_chances_score_an_unfinished_match_by_the_margin() -> None:
    """``scale``: mid-match, a logistic of the score margin (a level match is an even
    chance); a finished match is scored by the standings as ever."""
    state = games.get("yaniv").new_state(2, 1)
    assert search.chances(state, 0, 15.0) == pytest.approx(0.5)
    finished, _ = house.play("yaniv", ["heuristic", "random"], seed=1)
    assert search.chances(finished, 0, 15.0) == search.standing(finished, 0)
