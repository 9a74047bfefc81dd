"""A game declares itself once, on its ``Game`` class: the registry finds every game package
and nothing else, and the house bots and the search's budget come from the class."""

from __future__ import annotations

import pkgutil
from pathlib import Path
from typing import Any, ClassVar

import pytest

import arena.games
from arena import games
from arena.games import HouseBot, house, registry, search, testing
from arena.games.bastard_brag import BastardBrag
from arena.games.search import Budget, SearchBot
from arena.settings import load


def test_every_game_package_is_a_game_and_no_helper_module_is() -> None:
    here = [str(Path(arena.games.__file__).parent)]
    helpers = sorted(m.name for m in pkgutil.iter_modules(here) if not m.ispkg)
    assert {"base", "cards", "hidden", "house", "registry", "schema", "search", "testing"} <= set(helpers)
    assert games.names() == registry.game_packages()
    assert not set(helpers) & set(games.names())


@pytest.mark.parametrize("name", games.names())
def test_a_game_is_registered_under_the_name_its_class_declares(name: str) -> None:
    game = games.get(name)
    assert game.name == name and type(game).__module__.startswith(f"arena.games.{name}.")
    assert game.heuristic is not None and game.heuristic.__name__ == f"{type(game).__name__}Heuristic"
    assert isinstance(house.house_bot(name, "heuristic", 0, 1), game.heuristic)
    assert isinstance(house.house_bot(name, "search", 0, 1), game.search or SearchBot)
    assert type(house.house_bot(name, "search", 0, 1)) is (game.search or SearchBot)
    assert games.bot_names(name) == ["heuristic", "random", "search"]


def test_the_search_takes_its_guide_and_budget_from_the_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(BastardBrag, "search_budget", {"iterations": 3, "depth": 5})
    bot = house.house_bot("bastard_brag", "search", 1, 2)
    assert isinstance(bot, SearchBot)
    assert bot.budget == Budget(iterations=3, depth=5).with_settings(load())
    assert isinstance(bot.guide, BastardBrag.heuristic)


def test_register_bot_adds_a_bot_and_leaves_the_declared_ones_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    class Stubborn(HouseBot):
        def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
            return legal_actions[-1]

    monkeypatch.setattr(house, "_extra", {})
    games.register_bot("durak", "stubborn", Stubborn)
    assert "stubborn" in games.bot_names("durak") and "stubborn" not in games.bot_names("yaniv")
    assert isinstance(games.house_bot("durak", "stubborn", 0, 1), Stubborn)
    for declared in ("random", "heuristic", "search"):
        with pytest.raises(ValueError, match="declared by its Game class"):
            games.register_bot("durak", declared, Stubborn)


def test_another_game_of_a_known_name_is_refused() -> None:
    class Impostor(BastardBrag):
        pass

    with pytest.raises(ValueError, match="two games named 'bastard_brag'"):
        games.register(Impostor())
    assert type(games.get("bastard_brag")) is BastardBrag


def test_check_game_passes_a_game_and_names_what_a_broken_one_declares() -> None:
    testing.check_game(games.get("bastard_brag"), seeds=(1,))

    class Misbudgeted(BastardBrag):
        search_budget: ClassVar[dict[str, Any]] = {"iteration": 8}

    with pytest.raises(AssertionError, match=r"no Budget fields \['iteration'\]"):
        testing.check_declarations(Misbudgeted())
    assert search.default_budget("bastard_brag") == Budget(**BastardBrag.search_budget).with_settings(load())
