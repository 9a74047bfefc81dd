"""A game's fixed encoding for learning: the observation tensor, block by block, and the
action space, a fixed ordered list of every action id the game can produce.

Each game has a module ``arena.games.<game>.encoding`` with one function,
``encoding(num_players, options) -> Encoding`` (options already resolved), built from the
blocks below. A block reads only the seat's observation (``State.observation(seat)``), never
the state: the tensor carries exactly what the seat may see.

Seats in a block are relative to the observer: entry 0 is the observer's own, entry 1 the next
seat in seat order, and so on, so that a policy learnt in one seat plays in any.

Example::

    >>> from arena import games
    >>> from arena.envs.encoding import load
    >>> enc = load("crazy_eights", 2)
    >>> state = games.get("crazy_eights").new_state(2, seed=7)
    >>> enc.encode(state.observation(0)).shape == (enc.size,)
    True
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from arena import games
from arena.errors import BadInput

Obs = dict[str, Any]
Fill = Callable[[Obs, "memoryview[float]", int], None]  # float32 items
# A game's tensor written straight from the state: ``write(state, seat, out)`` into a zeroed
# tensor, exactly what the blocks write from ``state.observation(seat)``.
Write = Callable[[games.State, int, "memoryview[float]"], None]


KNOWN_LEGAL = 4096  # sets of legal actions whose ids and mask an encoding keeps
SPARSE_LIST = 512  # tensors from this size on are listed by their nonzero entries (quicker from about here)


class NoEncoding(BadInput):
    """The game has no encoding module (``arena/games/<game>/encoding.py``)."""


class UnknownAction(BadInput):
    """A legal action id missing from the game's fixed action space: a gap in its encoding."""


@dataclass(frozen=True)
class Block:
    """One block of the tensor: ``size`` entries between ``low`` and ``high``; ``fill(obs,
    out, at)`` writes them from an observation into the (zeroed) tensor ``out`` from ``at`` on:
    the whole tensor and an offset, not a slice of it (a slice per block costs more than most
    blocks' own writing), as a ``memoryview`` of float32, whose items are set three times
    faster than a numpy array's one by one."""

    name: str
    size: int
    low: float
    high: float
    fill: Fill
    help: str


class Encoding:
    """A game's tensor layout and action space at one player count and options."""

    def __init__(self, game: str, num_players: int, blocks: Sequence[Block], actions: Iterable[str],
                 beyond: Callable[[str], bool] | None = None, beyond_help: str = "", overflow: int = 32,
                 direct: Callable[[Encoding], Write] | None = None) -> None:
        self.game = game
        self.num_players = num_players
        self.blocks = tuple(blocks)
        listed = tuple(actions)
        self.index = {action: i for i, action in enumerate(listed)}
        if len(self.index) != len(listed):
            raise ValueError(f"{game}: the action space lists an action twice")
        # Legal actions too many to list (combinations without bound): those ``beyond`` tells
        # take the ``overflow`` slots after the listed ones, in the sorted order of the legal
        # actions of the decision at hand: slot k is the k-th of them (``action``).
        self.beyond = beyond
        self.beyond_help = beyond_help
        self.listed = len(listed)
        slots = tuple(f"<beyond {k}>" for k in range(overflow)) if beyond is not None else ()
        self.actions: tuple[str, ...] = listed + slots
        self.offsets: list[int] = []
        self.size = 0
        for block in self.blocks:
            self.offsets.append(self.size)
            self.size += block.size
        self.starts = {block.name: start for block, start in zip(self.blocks, self.offsets, strict=True)}
        none = [np.zeros(0, np.float32)]
        self.low = np.concatenate([np.full(b.size, b.low, np.float32) for b in self.blocks] or none)
        self.high = np.concatenate([np.full(b.size, b.high, np.float32) for b in self.blocks] or none)
        self._fills = [(b.fill, start) for b, start in zip(self.blocks, self.offsets, strict=True)]
        self._known: dict[tuple[str, ...], tuple[list[int], np.ndarray]] = {}
        # Building a seat's observation costs as much as a decision of the engine, more than
        # the blocks' writing: a game may write its tensor straight from the state instead
        # (``direct(encoding) -> write``), reading only what the observation shows.
        self._write = direct(self) if direct is not None else None

    def tensor(self, state: games.State, seat: int) -> np.ndarray:
        """``seat``'s tensor of ``state``: ``encode(state.observation(seat))``, written straight
        from the state where the game has a direct writer (the same values, the observation's
        dict never built)."""
        write = self._write
        if write is None:
            return self.encode(state.observation(seat))
        out = np.zeros(self.size, np.float32)
        write(state, seat, cast("memoryview[float]", memoryview(out)))  # type: ignore[arg-type]
        return out

    def encode(self, obs: Obs) -> np.ndarray:
        """The observation tensor (float32, ``size`` entries) of one seat's observation."""
        out = np.zeros(self.size, np.float32)
        items = cast("memoryview[float]", memoryview(out))  # type: ignore[arg-type]  # numpy arrays are buffers
        for fill, at in self._fills:
            fill(obs, items, at)
        return out

    def tensor_list(self, state: games.State, seat: int) -> list[float]:
        """``tensor(state, seat)`` as a list of floats (OpenSpiel's Python API hands out lists).
        A tensor is mostly zeros and, in a large one, a float made per entry costs more than
        the tensor's writing: the zeros then share one float, only the other entries are made."""
        tensor = self.tensor(state, seat)
        if self.size < SPARSE_LIST:
            return cast("list[float]", tensor.tolist())
        found = np.flatnonzero(tensor.view(np.uint32))  # by their bits: a -0.0 is kept too
        listed = [0.0] * self.size
        for i, value in zip(found.tolist(), tensor[found].tolist(), strict=True):
            listed[i] = value
        return listed

    def mask(self, legal: Iterable[str]) -> np.ndarray:
        """The 0/1 (int8) action mask of the legal action ids (a new array)."""
        return self.ids_and_mask(tuple(legal))[1].copy()

    def ids_and_mask(self, legal: tuple[str, ...]) -> tuple[list[int], np.ndarray]:
        """The ids and the mask of these legal actions, made once: a game's decisions offer
        the same few sets of legal actions again and again. Callers copy what they hand out."""
        known = self._known.get(legal)
        if known is None:
            ids = self.ids(legal)
            mask = np.zeros(len(self.actions), np.int8)
            mask[ids] = 1
            if len(self._known) >= KNOWN_LEGAL:
                self._known.clear()  # a bound on memory; the common sets come back soon
            known = self._known[legal] = (ids, mask)
        return known

    def ids(self, legal: Iterable[str]) -> list[int]:
        """The ids of the legal action ids, ascending: the ones of ``mask``."""
        index = self.index
        found: list[int] = []
        slot = self.listed
        for action in legal:  # sorted, as legal_actions gives them: the overflow slots' order
            i = index.get(action)
            if i is None:
                if self.beyond is None or not self.beyond(action):
                    raise UnknownAction(f"{self.game}: legal action {action!r} is not in the action space")
                if slot == len(self.actions):
                    continue  # more than the slots hold: the first ones stay reachable
                i = slot
                slot += 1
            found.append(i)
        found.sort()
        return found

    def action(self, i: int, legal: Sequence[str]) -> str:
        """The action string of id ``i`` for a decision with these (sorted) legal actions."""
        if i < self.listed:
            return self.actions[i]
        over = [a for a in legal if a not in self.index]
        k = i - self.listed
        return over[k] if k < len(over) else self.actions[i]

    def id_of(self, action: str, legal: Sequence[str]) -> int:
        """The id of ``action`` at a decision with these (sorted) legal actions."""
        i = self.index.get(action)
        if i is None:
            i = self.listed + [a for a in legal if a not in self.index].index(action)
        return i

    def table(self) -> str:
        """The layout as a Markdown table (offset, size, block, what it holds): the game's
        docs page carries it."""
        rows = ["| offset | size | block | holds |", "|---:|---:|---|---|"]
        for block, start in zip(self.blocks, self.offsets, strict=True):
            rows.append(f"| {start} | {block.size} | `{block.name}` | {block.help} |")
        rows.append(f"| | **{self.size}** | | the whole observation tensor |")
        return "\n".join(rows)


@functools.cache
def _load(game: str, num_players: int, options: str) -> Encoding:
    try:
        module = importlib.import_module(f"arena.games.{game}.encoding")
    except ModuleNotFoundError as error:
        if not error.name or not f"arena.games.{game}.encoding".startswith(error.name):
            raise
        raise NoEncoding(f"{game}: no encoding for learning yet (arena/games/{game}/encoding.py)") from None
    made: Encoding = module.encoding(num_players, json.loads(options))
    return made


def load(game: str, num_players: int, options: dict[str, Any] | None = None) -> Encoding:
    """The encoding of ``game`` at ``num_players`` under ``options`` (defaults filled in; bad
    options or player counts raise ``BadOptions``). Built once and kept."""
    rules = games.get(game)
    resolved = rules.resolve_options(options)
    rules.new_state(num_players, 0, resolved)  # a bad player count raises here, clearly
    return _load(game, num_players, json.dumps(resolved, sort_keys=True))


# ----- blocks -------------------------------------------------------------------------------
def positions(deck: Iterable[Hashable]) -> dict[Any, int]:
    """Each distinct card of ``deck`` (card ids, or numbers where a game numbers its cards) and
    its place, in the deck's order."""
    return {card: i for i, card in enumerate(dict.fromkeys(deck))}


def cards(name: str, deck: Sequence[Hashable], get: Callable[[Obs], Iterable[Hashable] | None], help: str,
          high: int | None = None) -> Block:
    """How many of each card of ``deck`` (in its order) the cards ``get`` reads hold: a
    one-hot card set with one pack, counts with more (at most ``high``: the copies of a card
    in ``deck`` unless given)."""
    where = positions(deck)
    copies = high if high is not None else max(deck.count(card) for card in where)

    def fill(obs: Obs, out: memoryview[float], at: int) -> None:
        for card in get(obs) or ():
            out[at + where[card]] += 1

    def fill_set(obs: Obs, out: memoryview[float], at: int) -> None:  # at most one: setting is cheaper than adding
        for card in get(obs) or ():
            out[at + where[card]] = 1

    return Block(name, len(where), 0, copies, fill_set if copies == 1 else fill, help)


def mark(out: memoryview[float], at: int, where: dict[Any, int], held: Iterable[Hashable], copies: int) -> None:
    """What a ``cards`` block of a deck with ``copies`` of its most copied card writes for
    ``held`` (a game's direct writer uses it as its blocks do): a count per card with more
    than one pack, a one-hot set with one."""
    if copies == 1:
        for c in held:
            out[at + where[c]] = 1
    else:
        for c in held:
            out[at + where[c]] += 1


Part = Callable[[Any, int, "memoryview[float]"], None]


def kept(start: int, end: int, write: Part, copy_of: Callable[[Any], Any] = copy.deepcopy) -> Part:
    """``write(value, seat, out)`` of a part of the tensor, ``start`` to ``end``, that follows
    from ``value`` and the seat alone, for a direct writer: written once while ``value`` stays
    equal to the copy kept of it (``copy_of(value)``: a deep copy unless a shallower one
    does), then copied. A part that changes seldom (a discard pile between bouts, the
    previous round's showdown) costs a comparison and a copy instead of its writing."""
    last: dict[int, tuple[Any, memoryview[float]]] = {}

    def write_kept(value: Any, seat: int, out: memoryview[float]) -> None:
        got = last.get(seat)
        if got is not None and got[0] == value:
            out[start:end] = got[1]
            return
        write(value, seat, out)
        last[seat] = (copy_of(value), memoryview(out[start:end].tobytes()).cast("f"))

    return write_kept


def growing(start: int, where: dict[Any, int], copies: int) -> Part:
    """``write(pile, seat, out)`` of a ``cards`` block from ``start`` (cards of ``where``, as
    ``mark`` writes them) of a pile that mostly grows at its end, a discard pile, for a direct
    writer: while the pile starts with the cards written last time, their part is copied and
    only the cards laid since are written."""
    end = start + len(where)
    last: dict[int, tuple[list[Any], memoryview[float]]] = {}

    def write(pile: Sequence[Any], seat: int, out: memoryview[float]) -> None:
        got = last.get(seat)
        if got is not None and pile[:len(got[0])] == got[0]:
            out[start:end] = got[1]
            if len(pile) == len(got[0]):
                return
            mark(out, start, where, pile[len(got[0]):], copies)
        else:
            mark(out, start, where, pile, copies)
        last[seat] = (list(pile), memoryview(out[start:end].tobytes()).cast("f"))

    return write


def card(name: str, deck: Sequence[Hashable], get: Callable[[Obs], Hashable | None], help: str) -> Block:
    """One-hot of one card of ``deck`` (all zero when ``get`` reads none)."""
    where = positions(deck)

    def fill(obs: Obs, out: memoryview[float], at: int) -> None:
        got = get(obs)
        if got is not None:
            out[at + where[got]] = 1

    return Block(name, len(where), 0, 1, fill, help)


def number(name: str, get: Callable[[Obs], float], help: str, high: float, low: float = 0) -> Block:
    """One number as it is (clipped to ``[low, high]`` so the tensor stays in its space)."""

    def fill(obs: Obs, out: memoryview[float], at: int) -> None:
        value = get(obs)
        if value:  # a zero is written already
            out[at] = low if value < low else high if value > high else value

    _holds_zero(name, low, high)
    return Block(name, 1, low, high, fill, help)


def _holds_zero(name: str, low: float, high: float) -> None:
    """Blocks leave a zero unwritten (the tensor starts zeroed), so their range must hold it."""
    if not low <= 0 <= high:
        raise ValueError(f"{name}: the range [{low}, {high}] must hold 0")


def flag(name: str, get: Callable[[Obs], Any], help: str) -> Block:
    """1 when ``get`` reads something true, else 0."""

    def fill(obs: Obs, out: memoryview[float], at: int) -> None:
        if get(obs):
            out[at] = 1

    return Block(name, 1, 0, 1, fill, help)


def choice(name: str, values: Sequence[Any], get: Callable[[Obs], Any], help: str) -> Block:
    """One-hot of a value among ``values`` (all zero for a value not among them, e.g. None)."""
    where = {value: i for i, value in enumerate(values)}

    def fill(obs: Obs, out: memoryview[float], at: int) -> None:
        i = where.get(get(obs))
        if i is not None:
            out[at + i] = 1

    return Block(name, len(values), 0, 1, fill, help)


def per_seat(name: str, num_players: int, get: Callable[[Obs], Sequence[float]], help: str,
             high: float, low: float = 0) -> Block:
    """One number per seat, the observer's first (clipped to ``[low, high]``)."""

    def fill(obs: Obs, out: memoryview[float], at: int) -> None:
        values = get(obs)
        me = obs["seat"]
        # The observer's value first: the seats from it to the last, then those before it.
        at -= me
        for seat, value in enumerate(values):
            if value:  # a zero is written already (the tensor starts zeroed; 0 lies in every range)
                out[at + seat if seat >= me else at + seat + num_players] = \
                    low if value < low else high if value > high else value

    _holds_zero(name, low, high)
    return Block(name, num_players, low, high, fill, help)


def seat(name: str, num_players: int, get: Callable[[Obs], int | None], help: str) -> Block:
    """One-hot of a seat, relative to the observer (all zero for None or -1)."""

    def fill(obs: Obs, out: memoryview[float], at: int) -> None:
        got = get(obs)
        if got is not None and got >= 0:
            out[at + (got - obs["seat"]) % num_players] = 1

    return Block(name, num_players, 0, 1, fill, help)


def seats_choice(name: str, num_players: int, values: Sequence[Any],
                 get: Callable[[Obs], Sequence[Any]], help: str) -> Block:
    """Per seat, one-hot of its value among ``values`` (``num_players`` groups of
    ``len(values)``), the observer's first."""
    where = {value: i for i, value in enumerate(values)}
    width = len(values)

    def fill(obs: Obs, out: memoryview[float], at: int) -> None:
        me = obs["seat"]
        for s, value in enumerate(get(obs)):
            i = where.get(value)
            if i is not None:
                out[at + ((s - me) % num_players) * width + i] = 1

    return Block(name, num_players * width, 0, 1, fill, help)


def multisets(cards: Sequence[str], most: int | None = None) -> list[tuple[str, ...]]:
    """Every non-empty choice of cards among ``cards`` (a card listed twice may be chosen
    twice), of at most ``most`` cards, each sorted: the card groups of action ids."""
    counts: dict[str, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    out: list[tuple[str, ...]] = [()]
    for c in sorted(counts):
        out = [chosen + (c,) * k for chosen in out for k in range(counts[c] + 1)]
    found = [tuple(sorted(chosen)) for chosen in out if chosen and (most is None or len(chosen) <= most)]
    return sorted(found, key=lambda chosen: (len(chosen), chosen))


def seats_cards(name: str, num_players: int, deck: Sequence[Hashable],
                get: Callable[[Obs], Sequence[Iterable[Hashable]]], help: str) -> Block:
    """A card set per seat (``num_players`` blocks of ``deck``'s cards), the observer's first."""
    where = positions(deck)
    width = len(where)
    copies = max(deck.count(card) for card in where)

    def fill(obs: Obs, out: memoryview[float], at: int) -> None:
        me = obs["seat"]
        for s, held in enumerate(get(obs)):
            base = at + ((s - me) % num_players) * width
            for c in held:
                out[base + where[c]] += 1

    def fill_set(obs: Obs, out: memoryview[float], at: int) -> None:  # at most one: setting is cheaper than adding
        me = obs["seat"]
        for s, held in enumerate(get(obs)):
            base = at + ((s - me) % num_players) * width
            for c in held:
                out[base + where[c]] = 1

    return Block(name, num_players * width, 0, copies, fill_set if copies == 1 else fill, help)


# ----- the docs -----------------------------------------------------------------------------
LISTED = 120  # action spaces up to this size are listed whole in the docs; larger ones in part


def section(game: str) -> str:
    """The "Encoding for learning" section of ``docs/games/<game>.md``, made from the game's
    encoding: ``python -m arena.envs.encoding GAME`` prints it, ``... GAME --write`` puts it
    in the page (in place of the old one, or at the end)."""
    rules = games.get(game)
    module = importlib.import_module(f"arena.games.{game}.encoding")
    counts = rules.player_counts(rules.resolve_options({}))
    encs = {n: load(game, n) for n in counts}
    two = encs[counts.start]
    sizes = ", ".join(f"{n} players: {e.size}" for n, e in encs.items())
    spaces = ", ".join(f"{n} players: {len(e.actions)}" for n, e in encs.items())
    lines = [
        "## Encoding for learning",
        "",
        f"`arena.envs.pettingzoo.env(\"{game}\", num_players, options)` is a PettingZoo environment of this "
        "game (see `docs/research.md`); its encoding is `arena/games/"
        f"{game}/encoding.py`. Each agent observes a float32 tensor made from its own observation "
        "only, seats relative to it (0: itself, 1: the next seat, ...), and a 0/1 mask over a fixed "
        "action space. The layout at "
        f"{counts.start} players, default options:",
        "",
        two.table(),
        "",
        f"Tensor sizes with the default options: {sizes}.",
        "",
        f"The action space has {len(two.actions)} actions at {counts.start} players with the default "
        f"options ({spaces}). {' '.join((module.actions.__doc__ or '').split())}",
        "",
        *([f"Too many to list: {two.beyond_help}. They take the {len(two.actions) - two.listed} "
           f"overflow ids from {two.listed} on, in the sorted order of the legal actions of the decision at "
           "hand (`<beyond k>`: the k-th of them).", ""] if two.beyond else []),
        "Action id → action:",
        "",
        "```",
    ]
    ids = list(enumerate(two.actions))
    if len(ids) <= LISTED:
        lines += [f"{i:>4} {a}" for i, a in ids]
    else:
        lines += [f"{i:>4} {a}" for i, a in ids[:40]] + ["   ..."] + [f"{i:>4} {a}" for i, a in ids[-10:]]
    lines.append("```")
    return "\n".join(lines) + "\n"


def write_section(game: str, page: Path) -> None:
    """Put the game's section in its docs page, in place of the old one or at the end."""
    text = page.read_text()
    new = section(game)
    start = text.find("## Encoding for learning")
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + new
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start] + new + ("" if end < 0 else text[end:])
    page.write_text(text)


if __name__ == "__main__":
    import sys

    if "--write" in sys.argv:
        write_section(sys.argv[1], Path(__file__).resolve().parents[2] / "docs" / "games" / f"{sys.argv[1]}.md")
    else:
        print(section(sys.argv[1]), end="")
