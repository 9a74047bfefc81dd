"""The bot page keeps rated results (tournaments, which move the ratings) apart from unrated
ones (challenges and practice), and every listing and transcript numbers decisions from 1."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from arena.cli import main
from arena.web.app import create_app
from tests.support.platform import fast_games


def test_the_bot_page_shows_rated_and_unrated_results_apart(embedded, capsys) -> None:
    game = fast_games(1)[0]
    base = ["tournament", "create", "--game", game, "--bots", "random,random-2", "--sizes", "2", "--run"]
    assert main([*base, "--seed", "3"]) == 0
    assert main([*base, "--seed", "4", "--unrated", "--repetitions", "2"]) == 0
    with TestClient(create_app(embedded, read_rate="")) as web:
        met = {o["rated"]: o["met"] for o in web.get("/api/v1/bots/random").json()["opponents"]}
        page = web.get("/bots/random").text
    assert met == {True: 2, False: 4}
    rated, unrated = page.index("Rated results against each opponent"), page.index("Unrated results against")
    assert rated < unrated < page.index("Recent matches")
    assert page.count('<span class="tag">unrated</span>') == 4, "each unrated match is marked in the listing"


def test_match_show_numbers_decisions_from_one_as_the_replay_does(embedded, capsys) -> None:
    game = fast_games(1)[0]
    assert main(["tournament", "create", "--game", game, "--bots", "random,random-2", "--sizes", "2", "--run"]) == 0
    capsys.readouterr()
    assert main(["match", "show", "1"]) == 0
    numbered = re.findall(r"^\s+(\d+)  turn (\d+)\s+seat", capsys.readouterr().out, re.M)
    assert numbered[0] == ("1", "0")
    assert all(int(number) == int(turn) + 1 for number, turn in numbered)
