"""The conformance suite: every registered game, every legal player count, the default options
and each game's ``test_option_sets``, over several seeds. There is no exclusion list. The
checks are ``arena.games.testing``'s, the ones ``check_game`` runs; here one test a check and
a case, so a failure names both."""

from __future__ import annotations

from typing import Any

import pytest

from arena import games
from arena.games import testing
from arena.games.testing import SEEDS


def _cases() -> list[Any]:
    cases = []
    for name in games.names():
        game = games.get(name)
        for n, options in testing.cases(game):
            index = [{}, *game.test_option_sets].index(options)
            cases.append(pytest.param(name, n, options, id=f"{name}-{n}p-opts{index}"))
    return cases


CASES = _cases()


@pytest.mark.parametrize("name", games.names())
def test_player_counts_tell_the_truth(name: str) -> None:
    testing.check_player_counts(games.get(name), SEEDS[0])


@pytest.mark.parametrize("name", games.names())
def test_the_class_declares_buildable_house_bots(name: str) -> None:
    testing.check_declarations(games.get(name))


@pytest.mark.parametrize(("name", "n", "options"), CASES)
def test_random_matches_end_by_the_rules(name: str, n: int, options: dict[str, Any]) -> None:
    testing.check_random_matches(games.get(name), n, options, SEEDS)


@pytest.mark.parametrize(("name", "n", "options"), CASES)
def test_illegal_actions_raise_and_change_nothing(name: str, n: int, options: dict[str, Any]) -> None:
    testing.check_illegal_actions(games.get(name), n, options, SEEDS[0])


@pytest.mark.parametrize(("name", "n", "options"), CASES)
def test_same_seed_and_actions_same_match(name: str, n: int, options: dict[str, Any]) -> None:
    testing.check_replay(games.get(name), n, options, SEEDS[1])


@pytest.mark.parametrize(("name", "n", "options"), CASES)
def test_clone_and_json_round_trip(name: str, n: int, options: dict[str, Any]) -> None:
    testing.check_round_trip(games.get(name), n, options, SEEDS[2])


@pytest.mark.parametrize(("name", "n", "options"), CASES)
def test_observation_leaks_nothing(name: str, n: int, options: dict[str, Any]) -> None:
    testing.check_no_leaks(games.get(name), n, options, SEEDS[0])


def test_the_games_are_found_whole_by_threads_that_ask_at_once():
    """A live worker's threads claim matches at once in a fresh process: each must find every
    game, not the part of the registry another thread was still importing."""
    import subprocess
    import sys

    script = (
        "import sys, threading\n"
        "sys.setswitchinterval(1e-6)\n"
        "from arena import games\n"
        "barrier, missing = threading.Barrier(8), []\n"
        "def look():\n"
        "    barrier.wait()\n"
        "    try:\n"
        "        games.get('yaniv')\n"
        "    except KeyError as error:\n"
        "        missing.append(error)\n"
        "threads = [threading.Thread(target=look) for _ in range(8)]\n"
        "[t.start() for t in threads]\n"
        "[t.join() for t in threads]\n"
        "print(len(missing))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"
