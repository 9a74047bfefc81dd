"""House bots: in-process players that see exactly what an external bot sees.

A house bot is built per match and seat with ``(seat, seed)`` and answers
``act(observation, legal_actions) -> action``. It must never look at the state: only the
observation dict and the legal action ids, the same as a bot connected over gRPC.

A bot with ``wants_sample = True`` is also handed, as ``act(..., sample=state)``, what an
external bot gets when it asks for a sample state: ``resample_hidden`` of the true state for
its seat, a full state it cannot tell from the truth. ``decide`` is the one place that does so.

``random`` and ``search`` (``arena.games.search``) exist for every game; each game registers
its own ``heuristic``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from arena.errors import UnknownBot

if TYPE_CHECKING:
    from .base import State

HouseBotFactory = Callable[[int, int], "HouseBot"]

_bots: dict[str, dict[str, HouseBotFactory]] = {}


class HouseBot:
    """Base class for house bots: keeps the seat and a seeded random stream."""

    # True for bots that search: they get a sample state (see ``decide``).
    wants_sample: ClassVar[bool] = False

    def __init__(self, seat: int, seed: int) -> None:
        self.seat = seat
        self.random = random.Random(f"bot:{seat}:{seed}")

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        """Choose one of ``legal_actions`` for this seat's ``observation``."""
        raise NotImplementedError


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


def sampler(state: State, seat: int, seed: int, turn: int) -> Callable[[], State]:
    """What ``decide`` hands a searching bot on decision ``turn`` of a match played with
    ``seed``: the same sample the match runner would send (``Turn.sample``)."""
    return lambda: state.resample_hidden(seat, random.Random(f"sample:{seed}:{turn}"))


def register_bot(game: str, name: str, factory: HouseBotFactory) -> None:
    """Make ``factory`` available as house bot ``name`` for ``game``."""
    _bots.setdefault(game, {})[name] = factory


def bot_names(game: str) -> list[str]:
    """House bots available for ``game`` (``random`` always)."""
    from . import get

    get(game)  # loads the game, which registers its bots
    return sorted({"random", *_bots.get(game, {})})


def house_bot(game: str, name: str, seat: int, seed: int) -> HouseBot:
    """A fresh house bot ``name`` for one seat of one match of ``game``."""
    from . import get

    get(game)
    if name == "random":
        return RandomBot(seat, seed)
    try:
        factory = _bots[game][name]
    except KeyError:
        raise UnknownBot(f"no house bot {name!r} for {game}; have {bot_names(game)}") from None
    return factory(seat, seed)


def play(
    game: str,
    bots: list[str],
    seed: int,
    options: dict[str, Any] | None = None,
) -> tuple[Any, list[tuple[int, str]]]:
    """Play one match of house bots in-process, synchronously: ``(final state, actions)``.

    ``bots[seat]`` names the house bot in each seat. When several seats decide at once,
    each is asked in seat order: no seat sees another's choice before deciding."""
    from . import get

    state = get(game).new_state(len(bots), seed, options)
    players = [house_bot(game, name, seat, seed) for seat, name in enumerate(bots)]
    actions: list[tuple[int, str]] = []
    while to_act := state.to_act():
        seat = to_act[0]
        sample = sampler(state, seat, seed, len(actions))
        action = decide(players[seat], state.observation(seat), state.legal_actions(seat), sample)
        state.apply(seat, action)
        actions.append((seat, action))
    return state, actions


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
