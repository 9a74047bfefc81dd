"""The tensors and masks the environment hands out (and OpenSpiel's tensor lists) equal, step by
step and for every seat, the plain encoding of the seat's observation
(``Encoding.encode(state.observation(seat))`` and ``Encoding.mask(state.legal_actions(seat))``),
whether a game writes its tensor straight from the state or not: over seeded random matches of
every game at every table size, and with each of its option sets at the smallest and largest."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from arena import games
from arena.envs.encoding import growing, kept, load
from arena.envs.pettingzoo import raw_env
from arena.games.testing import cases, snapshot

from .helpers import ENCODED


def _spread(name: str) -> list[tuple[int, dict[str, Any]]]:
    """Every table size of the default options, the smallest and largest of each option set
    (the writers' code paths are the tables' and the options'; the sizes between add time, not
    paths)."""
    found = cases(games.get(name))
    sizes: dict[str, list[int]] = {}
    for n, options in found:
        sizes.setdefault(repr(options), []).append(n)
    return [(n, options) for n, options in found
            if not options or n in (min(sizes[repr(options)]), max(sizes[repr(options)]))]


CASES = [pytest.param(name, n, options, id=f"{name}-{n}p-{options}") for name in ENCODED for n, options in _spread(name)]


def _check_every_seat(e: Any, state: games.State, where: str) -> None:
    """Every seat's view through the environment is the plain encoding of ``state``'s."""
    enc = e.encoding
    for agent, seat in e.seats.items():
        mine = e.observe(agent)
        plain = enc.encode(state.observation(seat))
        assert np.array_equal(mine["observation"], plain), \
            f"{where}, seat {seat}: blocks {_differing(enc, mine['observation'], plain)} differ"
        assert np.array_equal(enc.tensor(state, seat), plain)
        listed = enc.tensor_list(state, seat)  # OpenSpiel's
        assert listed == plain.tolist() and all(type(v) is float for v in listed)
        assert np.array_equal(mine["action_mask"], enc.mask(state.legal_actions(seat))), f"{where}, seat {seat}: mask"


def _differing(enc: Any, got: np.ndarray, want: np.ndarray) -> list[str]:
    return [b.name for b, at in zip(enc.blocks, enc.offsets, strict=True)
            if not np.array_equal(got[at:at + b.size], want[at:at + b.size])]


@pytest.mark.parametrize(("name", "n", "options"), CASES)
def test_every_tensor_and_mask_is_the_plain_encoding_of_the_observation(name: str, n: int,
                                                                        options: dict[str, Any]) -> None:
    game = games.get(name)
    e = raw_env(name, n, options)
    assert e.encoding is load(name, n, options)
    for seed in (0, 1) if not options and n == 2 else (0,):
        e.reset(seed=seed)
        state = game.new_state(n, seed, options)  # the same match, played alongside
        rng = random.Random(seed)
        step = 0
        while to_act := state.to_act():
            _check_every_seat(e, state, f"{name} {n}p {options} seed {seed} step {step}")
            seat = to_act[0]
            legal = state.legal_actions(seat)
            action = legal[rng.randrange(len(legal))]
            state.apply(seat, action)
            e.step(e.encoding.id_of(action, legal))
            step += 1
        _check_every_seat(e, state, f"{name} {n}p {options} seed {seed}, the end")
        assert snapshot(e.match) == snapshot(state)


def test_a_kept_part_is_written_again_when_its_value_changes_even_in_place() -> None:
    written: list[tuple[list[int], int]] = []

    def write(pile: list[int], seat: int, out: memoryview) -> None:
        written.append((list(pile), seat))
        for i in pile:
            out[i] = seat + 1

    part = kept(1, 4, write)

    def tensor(pile: list[int], seat: int) -> list[float]:
        out = np.zeros(5, np.float32)
        part(pile, seat, memoryview(out))
        return out.tolist()

    pile = [1]
    assert tensor(pile, 0) == tensor(pile, 0) == [0, 1, 0, 0, 0]
    assert len(written) == 1  # the second time, copied
    pile.append(3)  # the same list, changed
    assert tensor(pile, 0) == [0, 1, 0, 1, 0]
    assert tensor(pile, 1) == [0, 2, 0, 2, 0]  # each seat its own
    assert written == [([1], 0), ([1, 3], 0), ([1, 3], 1)]


def test_a_growing_pile_is_written_whole_again_unless_it_only_grew() -> None:
    where = {"2C": 0, "3C": 1, "4C": 2}
    pile_part = growing(1, where, copies=2)  # counts: a card of two packs may lie there twice

    def tensor(pile: list[str]) -> list[float]:
        out = np.zeros(5, np.float32)
        pile_part(pile, 0, memoryview(out))
        return out.tolist()

    pile = ["2C"]
    assert tensor(pile) == [0, 1, 0, 0, 0]
    pile += ["3C", "2C"]  # grown in place
    assert tensor(pile) == [0, 2, 1, 0, 0]
    assert tensor(pile) == [0, 2, 1, 0, 0]  # unchanged
    pile[0] = "4C"  # changed below its top
    assert tensor(pile) == [0, 1, 1, 1, 0]
    assert tensor(["3C"]) == [0, 0, 1, 0, 0]  # turned over into a new pile
