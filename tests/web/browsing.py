"""The browser the web tests drive: Debian's headless ``chromium`` through ``chromium-driver``
(selenium), and a ``Page`` that visits, waits, saves screenshots and fails on console errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest

selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[dev]')")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = next(filter(None, map(shutil.which, ["chromium", "chromium-browser"])), None)
DRIVER = shutil.which("chromedriver") or next(
    (p for p in ["/usr/lib/chromium/chromedriver", "/usr/bin/chromedriver"] if Path(p).exists()), None)
NO_BROWSER = pytest.mark.skipif(CHROMIUM is None or DRIVER is None,
                                reason="chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")


def start_browser(javascript: bool = True) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service(DRIVER), options=options)


class Page:
    """Drives the browser for one test: visits paths, saves screenshots, and fails on any
    console error (a script error, a failed request)."""

    def __init__(self, driver: webdriver.Chrome, base: str, folder: Path) -> None:
        self.driver, self.base, self.folder = driver, base, folder
        driver.set_window_size(1280, 900)
        driver.get_log("browser")  # start clean

    def visit(self, path: str) -> None:
        self.driver.get("about:blank")  # a new load even when only the #fragment differs
        self.driver.get(self.base + path)
        self.wait(lambda d: d.execute_script("return document.readyState") == "complete")

    def wait(self, condition, timeout: float = 15.0):
        return WebDriverWait(self.driver, timeout).until(condition)

    def find(self, css: str):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css: str):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def shot(self, name: str) -> Path:
        path = self.folder / f"{name}.png"
        assert self.driver.save_screenshot(str(path))
        return path

    def no_console_errors(self) -> None:
        errors = [e for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors


def api(server, path: str, **params):
    response = httpx.get(server.url + path, params=params, timeout=30)
    response.raise_for_status()
    return response.json()
