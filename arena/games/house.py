"""House bots: in-process players that see exactly what an external bot sees.

A house bot is built per match and seat with ``(seat, seed)`` and answers
``act(observation, legal_actions) -> action``. It must never look at the state: only the
observation dict and the legal action ids, the same as a bot connected over gRPC.

A bot with ``wants_sample = True`` is also handed, as ``act(..., sample=state)``, what an
external bot gets when it asks for a sample state: ``resample_hidden`` of the true state for
its seat, a full state it cannot tell from the truth. ``decide`` is the one place that does so.

A game's house bots come from its ``Game`` class: ``random`` for every game; ``heuristic``
where the class names one (``Game.heuristic``); ``search`` for every game, the class's own
searcher (``Game.search``) or else the generic one (``arena.games.search.SearchBot``).
``register_bot`` adds more under other names.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from typing import Any

from arena.errors import UnknownBot

from .base import HouseBot, State
from .registry import get
from .search import SearchBot
from .steps import step_in_process

HouseBotFactory = Callable[[int, int], HouseBot]

# The house bots given by ``register_bot``, besides those each game's class declares.
_extra: dict[str, dict[str, HouseBotFactory]] = {}
DECLARED = ("random", "heuristic", "search")


class RandomBot(HouseBot):
    """Uniformly random among the legal actions: the baseline every game is measured against."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        return self.random.choice(legal_actions)


def decide(
    bot: HouseBot,
    observation: dict[str, Any],
    legal_actions: list[str],
    sample: Callable[[], State] | None = None,
) -> str:
    """Ask ``bot`` for its action. ``sample`` builds a state the bot's seat cannot tell from
    the true one; it is called only for bots that want one, as building it costs more than a
    whole decision of most bots."""
    if bot.wants_sample and sample is not None:
        return bot.act(observation, legal_actions, sample=sample())  # type: ignore[call-arg]
    return bot.act(observation, legal_actions)


def sample_rng(seed: int, turn: int) -> random.Random:
    """The random stream that deals the hidden information of the sample handed to the seat
    on decision ``turn`` of a match played with ``seed``. Whoever hands out that sample (the
    match runner's ``Turn.sample``, ``sampler``, a bench bot's own world) draws it from here,
    so a bot gets the same sample wherever it plays the match."""
    return random.Random(f"sample:{seed}:{turn}")


def sampler(state: State, seat: int, seed: int, turn: int) -> Callable[[], State]:
    """What ``decide`` hands a searching bot on decision ``turn`` of a match played with
    ``seed``: the same sample the match runner sends (``Turn.sample``)."""
    return lambda: state.resample_hidden(seat, sample_rng(seed, turn))


def register_bot(game: str, name: str, factory: HouseBotFactory) -> None:
    """Make ``factory`` (called with ``(seat, seed)``) available as house bot ``name`` for
    ``game``. ``random``, ``heuristic`` and ``search`` come from the game's class alone."""
    if name in DECLARED:
        raise ValueError(f"house bot {name!r} of {game} is declared by its Game class, not registered")
    _extra.setdefault(game, {})[name] = factory


def house_bots(game: str) -> dict[str, HouseBotFactory]:
    """Every house bot of ``game`` by name, each a factory called with ``(seat, seed)``."""
    found = get(game)
    declared: dict[str, HouseBotFactory] = {"random": RandomBot}
    if found.heuristic is not None:
        declared["heuristic"] = found.heuristic
    declared["search"] = functools.partial(found.search or SearchBot, found.name)
    return declared | _extra.get(found.name, {})


def bot_names(game: str) -> list[str]:
    """House bots available for ``game`` (``random`` and ``search`` always)."""
    return sorted(house_bots(game))


def house_bot(game: str, name: str, seat: int, seed: int) -> HouseBot:
    """A fresh house bot ``name`` for one seat of one match of ``game``."""
    factories = house_bots(game)
    try:
        factory = factories[name]
    except KeyError:
        raise UnknownBot(f"no house bot {name!r} for {game}; have {sorted(factories)}") from None
    return factory(seat, seed)


def play(
    game: str,
    bots: list[str],
    seed: int,
    options: dict[str, Any] | None = None,
) -> tuple[Any, list[tuple[int, str]]]:
    """Play one match of house bots in-process, synchronously: ``(final state, actions)``.

    ``bots[seat]`` names the house bot in each seat (see ``play_bots``)."""
    state = get(game).new_state(len(bots), seed, options)
    players = [house_bot(game, name, seat, seed) for seat, name in enumerate(bots)]
    return state, play_bots(state, players, seed)


def play_bots(
    state: State,
    bots: Sequence[HouseBot],
    seed: int,
    sample: Callable[[State, int, int, int], Callable[[], State]] = sampler,
) -> list[tuple[int, str]]:
    """Play ``state``, dealt with ``seed``, to its end in-process with ``bots[seat]`` deciding
    for each seat, through the one match loop (``arena.games.steps.step_in_process``):
    no clock, an illegal action raises. Returns the ``(seat, action)`` applied.

    When several seats decide at once, each is asked in seat order: no seat sees another's
    choice before deciding. ``sample(state, seat, seed, turn)`` builds what a searching bot
    is handed (``sampler``: what the runner sends)."""
    def ask(turn: int, seat: int) -> str:
        return decide(bots[seat], state.observation(seat), state.legal_actions(seat), sample(state, seat, seed, turn))

    return [(d.seat, d.action) for d in step_in_process(state, ask)]


def evaluate(
    game: str,
    bot: str,
    opponent: str,
    num_players: int,
    matches: int,
    options: dict[str, Any] | None = None,
    first_seed: int = 0,
) -> dict[str, float]:
    """``bot`` in one seat against ``opponent`` in every other seat, the bot's seat rotating.

    Returns ``win_rate`` (rank 1 alone counts 1, a shared first place 1/k) and
    ``mean_rank`` of ``bot`` over ``matches`` seeded matches."""
    wins = 0.0
    rank_sum = 0
    for i in range(matches):
        seat = i % num_players
        bots = [opponent] * num_players
        bots[seat] = bot
        state, _ = play(game, bots, first_seed + i, options)
        ranks = state.outcome().ranks
        rank_sum += ranks[seat]
        if ranks[seat] == 1:
            wins += 1 / ranks.count(1)
    return {"win_rate": wins / matches, "mean_rank": rank_sum / matches, "matches": float(matches)}
