"""Every game's replay drawn as its table, in a real headless Chromium against a real server:
one real match of each game (three house bots), loaded in the all-cards view and in each
seat's view. The seats, their hands' faces (or backs) and the middle of the table are those
the game's drawing gives; a seat's view shows no card private to another seat; keys step the
table; no console error; phone width does not overflow. Screenshots go to the test's folder,
and to ``$REPLAY_SHOTS`` when set (``REPLAY_SHOTS=docs/img/replays`` refreshes the docs')."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
import sqlalchemy as sa

from arena import games
from arena.store import db
from arena.store.queries import match_t

from .browsing import NO_BROWSER, Page, api
from .helpers import frames

selenium = pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

pytestmark = NO_BROWSER
PLAYERS = 3
# Bookkeeping fields of the raw state that must stay off the table.
BOOKKEEPING = ("window pos", "asked", "attacker -1", "dealt hidden", "past version")


@pytest.fixture(scope="module")
def one_of_each(store) -> dict[str, int]:
    """One finished three-seat match of every game, played and recorded by the arena."""
    from arena.tournaments import create_tournament
    from arena.tournaments.play import play_and_record

    names = games.names()
    with db.transaction(store.url) as c:
        tid = create_tournament(c, names, ["heuristic", "random", "random-2"], [PLAYERS], 1, seed=31,
                                name="every game's table", rated=False)
        rows = c.execute(sa.select(match_t.c.id, match_t.c.game).where(match_t.c.tournament_id == tid)
                         .order_by(match_t.c.id)).all()
    play_and_record([match_id for match_id, _ in rows], store.url)  # every seating: the deals are open
    chosen: dict[str, int] = {}
    for match_id, game in rows:
        chosen.setdefault(game, match_id)
    return chosen


def _expanded(data: dict) -> list[dict]:
    return frames({"frames": data["tables"]})


def _faces(data: dict, table: dict, seat: int | None) -> list[str]:
    """The card names (``data-card``) of one seat's areas, or of the middle for None."""
    areas = table["areas"] if seat is None else next(s for s in table["seats"] if s["seat"] == seat)["areas"]
    return [(f.get("code") or f.get("id")) for a in areas for f in (data["faces"][i] for i in a["cards"])]


def _hand(data: dict, table: dict, seat: int) -> list[str]:
    areas = next(s for s in table["seats"] if s["seat"] == seat)["areas"]
    return [(f.get("code") or f.get("id")) for a in areas if a["name"] == "hand"
            for f in (data["faces"][i] for i in a["cards"])]


def _shown(page: Page, css: str) -> list[str]:
    return [c.get_attribute("data-card") for c in page.all(css) if c.get_attribute("data-card")]


def _goto(page: Page, step: int) -> None:
    page.find("#jump").clear()
    page.find("#jump").send_keys(str(step), Keys.ENTER)
    page.wait(lambda d: d.find_element(By.CSS_SELECTOR, "#decision").get_attribute("data-pos") == str(step))


@pytest.mark.parametrize("game", games.names())
def test_every_view_of_every_game_is_its_table(page, server, one_of_each, game):
    match_id = one_of_each[game]
    everything = api(server, f"/api/v1/matches/{match_id}/replay", view="all")
    tables = _expanded(everything)
    step = len(everything["decisions"]) // 3  # mid-match: cards on the table
    page.visit(f"/matches/{match_id}#d{step}")
    page.wait(lambda d: d.find_elements(By.CSS_SELECTOR, f"#decision[data-pos='{step}']"))
    page.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#table .seat")) == PLAYERS)
    for seat in range(PLAYERS):
        names = page.find(f"#table .seat[data-seat='{seat}'] .seat-name").text
        assert everything["seats"][seat] in names
        assert _shown(page, f"#table .seat[data-seat='{seat}'] .card") == _faces(everything, tables[step], seat)
    assert _shown(page, "#table .felt .card") == _faces(everything, tables[step], None)
    to_play = everything["decisions"][step][1]
    assert page.find("#table .seat.turn").get_attribute("data-seat") == str(to_play)
    text = page.find("#table").text
    assert not [word for word in BOOKKEEPING if word in text]
    assert not page.find("#raw").get_attribute("open") and page.all("#raw #state .field")
    named = [c for c in page.all("#table .card.named")]
    assert all(c.get_attribute("title") for c in named)  # every game card says what it is on hover
    page.shot(f"{game}-all")
    shots = os.environ.get("REPLAY_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        shutil.copy(page.shot(game), Path(shots) / f"{game}.png")
    body = page.find("body")
    body.send_keys(Keys.ARROW_RIGHT)
    page.wait(lambda d: d.find_element(By.CSS_SELECTOR, "#decision").get_attribute("data-pos") == str(step + 1))
    assert _shown(page, "#table .felt .card") == _faces(everything, tables[step + 1], None)
    body.send_keys(Keys.ARROW_LEFT)
    page.wait(lambda d: d.find_element(By.CSS_SELECTOR, "#decision").get_attribute("data-pos") == str(step))

    for view in range(PLAYERS):
        mine = api(server, f"/api/v1/matches/{match_id}/replay", view=str(view))
        seen = _expanded(mine)
        Select(page.find("#view")).select_by_value(str(view))
        page.wait(lambda d, v=view: d.find_elements(By.CSS_SELECTOR, f"#viewer[data-view='{v}'] #table .seat"))
        _goto(page, step)
        shown = _shown(page, "#table .card")
        assert sorted(_shown(page, f"#table .seat[data-seat='{view}'] [data-area=hand] .card")) == \
            sorted(_hand(everything, tables[step], view))
        for other in set(range(PLAYERS)) - {view}:
            assert not _shown(page, f"#table .seat[data-seat='{other}'] [data-area=hand] .card")
            # A game may hold several copies of a card (two Wildlife events in Backpacker), so the
            # check counts copies: no card of the other's hand is shown more often than the
            # view's own table holds it face up.
            public = Counter(_faces(mine, seen[step], None))
            for s in range(PLAYERS):
                public.update(_faces(mine, seen[step], s))
            on_page = Counter(shown)
            leaked = {c for c in _hand(everything, tables[step], other) if on_page[c] > public[c]}
            assert not leaked, (other, leaked)
        page.no_console_errors()
    page.shot(f"{game}-seat{PLAYERS - 1}")


@pytest.mark.parametrize("game", ["durak", "backpacker", "trekking_the_world", "card_trip_europe"])
def test_a_table_fits_a_phone(page, one_of_each, game):
    page.driver.set_window_size(390, 844)
    page.visit(f"/matches/{one_of_each[game]}#d5")
    page.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#table .seat"))
    width = page.driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1] + 1, width
    page.shot(f"phone-{game}")


def test_the_trekking_map_draws_the_last_move(page, server, one_of_each):
    match_id = one_of_each["trekking_the_world"]
    data = api(server, f"/api/v1/matches/{match_id}/replay", view="all")
    states = frames(data)
    def travelled(k: int) -> list[int]:  # the seats that went from one place to another (not placed)
        return [s for s in range(PLAYERS)
                if states[k - 1]["positions"][s] and states[k]["positions"][s] != states[k - 1]["positions"][s]]

    moved = next(k for k in range(1, len(states)) if travelled(k))
    page.visit(f"/matches/{match_id}#d{moved}")
    page.wait(lambda d: d.find_elements(By.CSS_SELECTOR, f"#decision[data-pos='{moved}'] ~ .viewer-body svg.map"))
    routes = page.all("svg.map .last-route")
    assert sorted(int(r.get_attribute("data-seat")) for r in routes) == travelled(moved)
    page.find("body").send_keys(Keys.HOME)
    page.wait(lambda d: d.find_element(By.CSS_SELECTOR, "#decision").get_attribute("data-pos") == "0")
    assert not page.all("svg.map .last-route")
    assert page.all("#table .seat [data-area=suitcase]")
