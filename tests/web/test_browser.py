"""The pages in a real headless Chromium (Debian's ``chromium`` and ``chromium-driver``)
against a real uvicorn server over a store filled by real tournaments: every page type
loads without a console error, the replay viewer steps by keys and buttons, a seat's view
shows its own hand and nothing private of the others, progress updates live, phone-width
pages do not overflow, leaderboards work without JavaScript. Screenshots are saved in each
test's temporary folder."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from arena.store import db
from arena.store.queries import match_t

from .browsing import NO_BROWSER, api, start_browser
from .helpers import GAMES, frames

selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[dev]')")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

pytestmark = NO_BROWSER


def done_match(store, server, game: str, players: int = 2) -> int:
    found = api(server, "/api/v1/tournaments/" + str(store.done_tournament))["games"][game]["deal_groups"]
    return next(m["id"] for d in found for m in d["matches"] if len(m["seats"]) == players)


def test_every_page_type_loads_cleanly(page, store, server):
    durak = done_match(store, server, "durak")
    checks = {
        "home": ("/", "#games .game-card"),
        "game": ("/games/durak", ".doc table"),
        "leaderboard": ("/games/durak/leaderboard", "table.leaderboard svg.interval"),
        "bot": ("/bots/heuristic", "svg.chart path.line"),
        "bot-faults": ("/bots/flaky", "table.faults .code.illegal"),
        "tournaments": ("/tournaments", "table.tournaments"),
        "tournament": (f"/tournaments/{store.done_tournament}", "table.crosstable td.plus"),
        "tournament-live": (f"/tournaments/{store.live_tournament}", "#tournament-live[data-live]"),
        "match-running": (f"/matches/{store.running_match}", "#match-live[data-live]"),
        "match-withheld": (f"/matches/{store.withheld_match}", ".note"),
        "match": (f"/matches/{durak}", "#table .card"),
        "status": ("/status", ".figures .figure"),
        "ladder": ("/ladder", "main h1 + p.meta"),
        "api": ("/api", "table.params"),
    }
    for name, (path, css) in checks.items():
        page.visit(path)
        page.wait(lambda d, css=css: d.find_elements(By.CSS_SELECTOR, css))
        assert page.find(css).is_displayed(), name
        page.shot(name)
        page.no_console_errors()
    # A running match's page names its players and status, and offers no viewer or seed.
    page.visit(f"/matches/{store.running_match}")
    text = page.find("main").text
    assert "running" in text and "seed" not in text and not page.all("#viewer")


def test_replay_viewer_steps_by_keys_and_buttons(page, store, server):
    match_id = done_match(store, server, "durak")
    data = api(server, f"/api/v1/matches/{match_id}/replay", view="all")
    total = len(data["decisions"])
    page.visit(f"/matches/{match_id}")
    position = lambda: int(page.find("#decision").get_attribute("data-pos"))  # noqa: E731
    page.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#decision[data-pos='0']"))
    body = page.find("body")
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)
    assert position() == 3
    turn, seat, action, _ms, code = data["decisions"][2]
    shown = page.find("#decision").text
    assert f"Decision 3 of {total}" in shown and action in shown and code in shown
    assert page.find("#decisions li.current").get_attribute("id") == "d3"
    page.find("[data-act=prev]").click()
    assert position() == 2
    page.find("[data-act=next]").click()
    page.find("[data-act=next]").click()
    assert position() == 4
    body.send_keys(Keys.END)
    assert position() == total and "Final:" in page.find("#decision").text
    body.send_keys(Keys.HOME)
    assert position() == 0
    page.find("[data-act=last]").click()
    assert position() == total
    page.find("[data-act=first]").click()
    jump = page.find("#jump")
    jump.clear()
    jump.send_keys("7", Keys.ENTER)
    page.wait(lambda d: position() == 7)
    page.find("#decisions li:nth-child(5) button").click()
    assert position() == 5
    page.find("[data-act=play]").click()
    page.wait(lambda d: position() >= 7)
    page.find("[data-act=play]").click()  # pause
    paused = position()
    assert page.find("[data-act=play]").get_attribute("aria-pressed") == "false"
    page.driver.execute_script("return new Promise(r => setTimeout(r, 1300))")
    assert position() == paused
    page.shot("viewer-durak")


def test_a_seat_sees_its_own_hand_and_nothing_private_of_the_others(page, store, server):
    match_id = done_match(store, server, "durak")
    everything = frames(api(server, f"/api/v1/matches/{match_id}/replay", view="all"))
    seat0 = frames(api(server, f"/api/v1/matches/{match_id}/replay", view="0"))
    page.visit(f"/matches/{match_id}#d4")
    page.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#viewer[data-view='all'] #decision[data-pos='4']"))
    shown_hands = page.all("[data-field=hands] .seat-row")
    assert len(shown_hands) == 2
    for seat, row in enumerate(shown_hands):
        assert [c.get_attribute("data-card") for c in row.find_elements(By.CSS_SELECTOR, ".card")] == \
            everything[4]["hands"][seat]
    page.shot("view-all")
    Select(page.find("#view")).select_by_value("0")
    page.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#viewer[data-view='0'] #decision[data-pos='4']"))
    for step in (4, 9):
        if step != 4:
            page.find("#jump").clear()
            page.find("#jump").send_keys(str(step), Keys.ENTER)
            page.wait(lambda d, s=step: d.find_element(By.CSS_SELECTOR, "#decision").get_attribute("data-pos") == str(s))
        hand = [c.get_attribute("data-card") for c in page.all("[data-field=hand] .card")]
        assert hand == seat0[step]["hand"] and sorted(hand) == sorted(everything[step]["hands"][0])
        assert not page.all("[data-field=hands]") and not page.all("[data-field=stock]")
        shown = {c.get_attribute("data-card") for c in page.all("#state .card")}
        visible_to_seat0 = set(_cards(seat0[step]))
        private_of_seat1 = set(everything[step]["hands"][1]) - visible_to_seat0
        assert private_of_seat1 and not shown & private_of_seat1
        assert shown == visible_to_seat0
    page.shot("view-seat0")


def _cards(value) -> list[str]:
    """Every standard card named anywhere in an observation."""
    if isinstance(value, str):
        return [value] if len(value) == 2 and value[0] in "23456789TJQKA" and value[1] in "CDHS" else []
    if isinstance(value, dict):
        return [c for v in value.values() for c in _cards(v)]
    if isinstance(value, list):
        return [c for v in value for c in _cards(v)]
    return []


def test_the_trekking_map_shows_every_traveller(page, store, server):
    from arena.games.trekking_the_world.data import LOCATION_NAME

    match_id = done_match(store, server, "trekking_the_world", 3)
    data = frames(api(server, f"/api/v1/matches/{match_id}/replay", view="all"))
    page.visit(f"/matches/{match_id}#d6")
    page.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#decision[data-pos='6'] ~ .viewer-body svg.map .traveller"))
    travellers = page.all("svg.map .traveller")
    assert len(travellers) == 3
    for token in travellers:
        seat = int(token.get_attribute("data-seat"))
        place = data[6]["positions"][seat]
        assert token.find_element(By.CSS_SELECTOR, "title").get_attribute("textContent").endswith(LOCATION_NAME[place])
    assert len(page.all("svg.map .place")) >= 30
    page.shot("viewer-trekking")


def test_tournament_progress_updates_without_reloading(page, store, server):
    from arena.tournaments import create_tournament
    from arena.tournaments.play import play_and_record

    with db.transaction(store.url) as c:
        tid = create_tournament(c, ["crazy_eights"], ["random", "random-2"], [2], 2, seed=13, name="live")
        ids = list(c.execute(sa.select(match_t.c.id).where(match_t.c.tournament_id == tid)).scalars())
    page.visit(f"/tournaments/{tid}")
    assert "0 of 4 matches" in page.find("#tournament-live").text
    page.driver.execute_script("window.stillTheSamePage = true")
    worker = threading.Thread(target=play_and_record, args=(ids, store.url))
    worker.start()
    worker.join(60)
    page.wait(lambda d: "4 of 4 matches" in d.find_element(By.CSS_SELECTOR, "#tournament-live").text, timeout=20)
    assert page.driver.execute_script("return window.stillTheSamePage === true")
    assert page.find("#tournament-live").get_attribute("data-live") is None  # done: no more polling
    assert len(page.all("#tournament-live table.standings tbody tr")) == 2
    page.shot("tournament-live-done")


@pytest.mark.parametrize("path", ["/", "/games/trekking_the_world/leaderboard", "tournament", "match", "/status",
                                  "/ladder"])
def test_phone_width_pages_do_not_overflow(page, store, server, path):
    if path == "tournament":
        path = f"/tournaments/{store.done_tournament}"
    elif path == "match":
        path = f"/matches/{done_match(store, server, 'durak')}"
    page.driver.set_window_size(390, 844)
    page.visit(path)
    if "/matches/" in path:
        page.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#state .field"))
    width = page.driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1] + 1, width
    page.shot("phone" + path.replace("/", "-"))


def test_leaderboards_and_standings_work_without_javascript(server, store, tmp_path):
    driver = start_browser(javascript=False)
    try:
        driver.get(f"{server.url}/games/{GAMES[0]}/leaderboard")
        rows = lambda: [r.find_element(By.CSS_SELECTOR, "a.bot").text  # noqa: E731
                        for r in driver.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")]
        by_elo = rows()
        driver.find_element(By.LINK_TEXT, "bot").click()
        assert rows() == sorted(by_elo) and "sort=bot" in driver.current_url
        driver.find_element(By.PARTIAL_LINK_TEXT, "bot").click()
        assert rows() == sorted(by_elo, reverse=True)
        driver.save_screenshot(str(tmp_path / "leaderboard-nojs.png"))
        driver.get(f"{server.url}/tournaments/{store.done_tournament}")
        assert len(driver.find_elements(By.CSS_SELECTOR, "table.standings")) == len(GAMES)
        assert driver.find_elements(By.CSS_SELECTOR, "noscript") is not None
    finally:
        driver.quit()
