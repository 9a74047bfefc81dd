"""The Crazy 8s ``search``: it reads the other player's latest decisions from the public facts
alone, exactly (against the heuristic the true deal agrees with every one since its last draw,
and the heuristic's memory it keeps for the other seat is the other seat's own), its worlds
agree with them, and it stays deterministic for a seed."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from arena import games
from arena.games import house
from arena.games.crazy_eights import (
    CrazyEights,
    CrazyEightsHeuristic,
    CrazyEightsSearch,
    CrazyEightsState,
    searching,
)
from arena.games.crazy_eights.searching import glance
from arena.games.search import Budget

SMALL = Budget(iterations=4, depth=None)


def watched_match(seed: int, seat: int) -> Iterator[tuple[CrazyEightsSearch, CrazyEightsState, CrazyEightsHeuristic]]:
    """``search`` in ``seat`` against ``heuristic``: right after each of the search's
    decisions, the bot, the true state it decided on and the other seat's heuristic."""
    state = games.get("crazy_eights").new_state(2, seed)
    bot = CrazyEightsSearch("crazy_eights", seat, seed, SMALL)
    other = CrazyEightsHeuristic(1 - seat, seed)
    turn = 0
    while to_act := state.to_act():
        acting = to_act[0]
        sample = house.sampler(state, acting, seed, turn)
        player = bot if acting == seat else other
        truth = state.clone()
        action = house.decide(player, state.observation(acting), state.legal_actions(acting), sample)
        if acting == seat:
            yield bot, truth, other
        state.apply(acting, action)
        turn += 1


@pytest.mark.parametrize("seat", [0, 1])
def test_the_true_deal_agrees_with_every_decision_read(seat: int) -> None:
    """crazy_eights 4.2: the other player's latest decisions, replayed on the public facts
    with the hand the true deal gives it, are the heuristic's own choices. Where it drew in
    between, the cards it drew are taken back at random (the forced ones first), so the
    truth then agrees only mostly, and still far more often than a world dealt blind."""
    rng = random.Random(seat)
    exact = drew = truth_agrees = blind_agrees = 0
    for seed in range(12):
        for bot, truth, _ in watched_match(seed, seat):
            if not bot.window:
                continue
            window = bot.window
            since = [i for i, d in enumerate(window) if d.drawn]
            if any(d.drawn for d in window[-searching.READ:]):
                drew += 1
                truth_agrees += bot.mismatches(truth, 0, rng) == 0
                blind_agrees += bot.mismatches(truth.resample_hidden(seat, rng), 0, rng) == 0
            # Since its last draw, nothing is drawn at random: the truth agrees every time.
            bot.window = window[since[-1] + 1:] if since else window
            exact += bool(bot.window)
            assert bot.mismatches(truth, 99, rng) == 0
            bot.window = window
    assert exact > 50
    assert drew > 50
    assert truth_agrees > 2 * blind_agrees


@pytest.mark.parametrize("seat", [0, 1])
def test_the_other_seats_memory_is_kept_from_the_public_facts(seat: int) -> None:
    """What the other heuristic remembers (suits and ranks it saw this seat unable to follow,
    its last turn) is rebuilt exactly without its hand, the first turn of the deal included."""
    for seed in range(12):
        for bot, _, other in watched_match(seed, seat):
            shadow = bot.shadow
            assert (shadow._void_suits, shadow._void_ranks, shadow._last) == (
                other._void_suits, other._void_ranks, other._last)


def test_worlds_agree_with_what_was_read() -> None:
    """Worlds dealt blind mostly disagree with the decisions read; the search's worlds agree
    with them far more often."""
    blind = kept = total = 0
    rng = random.Random(3)
    for seed in range(6):
        for bot, truth, _ in watched_match(seed, 0):
            if not bot.window:
                continue
            sample = truth.resample_hidden(0, rng)
            for _ in range(4):
                total += 1
                blind += bot.mismatches(sample.resample_hidden(0, rng), 0, rng) == 0
                kept += bot.mismatches(bot.world(sample, rng), 0, rng) == 0  # type: ignore[arg-type]
    assert total > 40
    assert kept > blind
    assert kept >= 0.8 * total


def test_search_is_registered_and_deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(CrazyEights, "search_budget", {"iterations": 16, "depth": None})
    assert isinstance(house.house_bot("crazy_eights", "search", 0, 1), CrazyEightsSearch)
    first = house.play("crazy_eights", ["heuristic", "search"], seed=11)[1]
    assert first == house.play("crazy_eights", ["heuristic", "search"], seed=11)[1]
    assert first != house.play("crazy_eights", ["heuristic", "search"], seed=12)[1]


@pytest.mark.parametrize("options", [{"fastplay": True, "reshuffle": True, "last_card": True},
                                     {"target_score": 50}, {"decks": 2}])
def test_search_plays_other_options_and_tables(options: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    """Where it does not read the other player (Fastplay, reshuffles, two packs, more
    players) it is the plain search; over several hands it reads each hand afresh."""
    monkeypatch.setattr(CrazyEights, "search_budget", {"iterations": 4, "depth": None})
    for players in (["search", "heuristic"], ["heuristic", "search", "random"]):
        state, _ = house.play("crazy_eights", players, seed=4, options=options)
        assert state.is_terminal()


def test_the_playouts_glance_is_the_observation_to_the_heuristic() -> None:
    """The playouts hand the heuristic a lighter observation: it decides and remembers exactly
    as on the full one, decision by decision, over whole matches."""
    for seed in range(20):
        state = games.get("crazy_eights").new_state(2, seed)
        full = [CrazyEightsHeuristic(seat, seed) for seat in range(2)]
        light = [CrazyEightsHeuristic(seat, seed) for seat in range(2)]
        while to_act := state.to_act():
            seat = to_act[0]
            legal = state.legal_actions(seat)
            action = full[seat].act(state.observation(seat), legal)
            assert light[seat].act(glance(state, seat, len(legal) > 1), legal) == action
            assert (light[seat]._void_suits, light[seat]._void_ranks, light[seat]._last) == (
                full[seat]._void_suits, full[seat]._void_ranks, full[seat]._last)
            state.apply(seat, action)


def test_a_decision_without_a_sample_starts_the_reading_afresh() -> None:
    """A bot handed no sample decides by the heuristic and reads on from its next sample."""
    seed = 5
    state = games.get("crazy_eights").new_state(2, seed)
    bot = CrazyEightsSearch("crazy_eights", 0, seed, SMALL)
    other = CrazyEightsHeuristic(1, seed)
    turn = 0
    while to_act := state.to_act():
        seat = to_act[0]
        legal = state.legal_actions(seat)
        if seat == 0:
            sample = house.sampler(state, seat, seed, turn) if turn % 3 else None
            action = house.decide(bot, state.observation(seat), legal, sample)
            if sample is None:
                assert bot.window == []
        else:
            action = other.act(state.observation(seat), legal)
        assert action in legal
        state.apply(seat, action)
        turn += 1


def test_halving_overrules_the_heuristic_on_fresh_worlds_only() -> None:
    """A rival that looked best on the first round's worlds, where it was picked from four,
    and merely equal on the last round's, does not overrule the heuristic's choice; one
    better on the last round's does. The budget is never overspent."""
    (truth, seat), = positions_with_choices(seed=3)
    actions = ["g", "a", "b", "c"]

    def scripted(last_round: dict[str, float]) -> tuple[str, int]:
        bot = CrazyEightsSearch("crazy_eights", seat, 1, Budget(iterations=64, depth=None, halving=True))
        calls = {"n": 0}

        def playout(world: games.State, action: str, seed: int) -> float:
            calls["n"] += 1
            first_round = calls["n"] <= 4 * 8  # 64 playouts, 2 rounds: 8 worlds of 4, 16 of 2
            noise = (calls["n"] % 7) / 100
            if first_round:
                return (1.0 if action == "a" else 0.0) + noise
            return last_round[action] + noise

        bot.playout = playout  # type: ignore[method-assign]
        bot.world = lambda sample, rng: sample  # type: ignore[method-assign]
        return bot.halving(truth, actions, "g", random.Random(0)), calls["n"]

    assert scripted({"g": 0.5, "a": 0.5}) == ("g", 64)
    assert scripted({"g": 0.2, "a": 0.8}) == ("a", 64)


def positions_with_choices(seed: int) -> list[tuple[CrazyEightsState, int]]:
    """The first position of a heuristic match where the seat to act has a choice."""
    state = games.get("crazy_eights").new_state(2, seed)
    bots = [CrazyEightsHeuristic(seat, seed) for seat in range(2)]
    while to_act := state.to_act():
        seat = to_act[0]
        legal = state.legal_actions(seat)
        if len(legal) > 1:
            return [(state, seat)]
        state.apply(seat, bots[seat].act(state.observation(seat), legal))
    raise AssertionError("no choice in the whole match")
