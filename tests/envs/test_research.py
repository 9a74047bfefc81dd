"""docs/research.md's examples, as a reader runs them: learn a Crazy 8s policy through the
environment, then play it as an SDK bot with ``arena play``; OpenSpiel's ISMCTS on Durak."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

PAGE = Path(__file__).resolve().parents[2] / "docs" / "research.md"
ARENA = Path(sys.executable).with_name("arena")


def _blocks() -> dict[str, str]:
    """The page's Python blocks by the file name of their first line's comment."""
    found = re.findall(r"```python\n# (\S+\.py)\n(.*?)```", PAGE.read_text(), re.S)
    return {name: code for name, code in found}


def test_the_example_learns_and_its_bot_plays_on_the_arena(tmp_path: Path) -> None:
    blocks = _blocks()
    assert set(blocks) == {"learn_crazy_eights.py", "value_bot.py", "ismcts_durak.py"}
    for name in ("learn_crazy_eights.py", "value_bot.py"):
        (tmp_path / name).write_text(blocks[name])
    learnt = subprocess.run([sys.executable, "learn_crazy_eights.py"], cwd=tmp_path, capture_output=True,
                            text=True, check=True, timeout=300)
    random_play, policy = map(float, re.findall(r"([+-]\d\.\d\d)", learnt.stdout))
    assert policy > random_play, learnt.stdout  # the page's claim: learning beats random play
    assert (tmp_path / "crazy_eights_values.npy").exists()
    played = subprocess.run([str(ARENA), "play", "crazy_eights", "--bot", "value_bot.py:ValueBot",
                             "--bots", "random", "--seed", "3", "--json"],
                            cwd=tmp_path, capture_output=True, text=True, check=True, timeout=120)
    seats = json.loads(played.stdout)["seats"]
    assert [s["bot"] for s in seats] == ["ValueBot (--bot)", "random"]
    assert sorted(s["rank"] for s in seats) in ([1, 2], [1, 1])  # the match was played to its end


@pytest.mark.skipif(importlib.util.find_spec("pyspiel") is None,
                    reason="OpenSpiel is not installed (the rl extra installs it on Linux x86_64)")
def test_the_ismcts_example_prints_what_the_page_says(tmp_path: Path) -> None:
    (tmp_path / "ismcts_durak.py").write_text(_blocks()["ismcts_durak.py"])
    ran = subprocess.run([sys.executable, "ismcts_durak.py"], cwd=tmp_path, capture_output=True, text=True,
                         check=True, timeout=300)
    printed = ran.stdout.strip()
    assert printed.startswith("ISMCTS won ")
    assert f"It prints `{printed}`" in PAGE.read_text()


ROOT = PAGE.parents[1]
WHERE_OPENSPIEL_INSTALLS = {"platform_system": "Linux", "platform_machine": "x86_64"}
ELSEWHERE = [{"platform_system": "Darwin", "platform_machine": "arm64"},
             {"platform_system": "Windows", "platform_machine": "AMD64"},
             {"platform_system": "Linux", "platform_machine": "aarch64"}]


def test_every_extra_asks_for_openspiel_only_where_its_wheel_installs() -> None:
    """``pip install arena[rl]`` and ``arena[bench]`` work on any platform: OpenSpiel (and
    Shimmy, which needs it) come only on Linux x86_64, in every extra that names them."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    named = {}
    for extra, requirements in extras.items():
        for text in requirements:
            req = Requirement(text)
            if req.name in ("open-spiel", "shimmy"):
                named[f"{extra}: {req.name}"] = req.marker
    assert {"rl: open-spiel", "rl: shimmy", "bench: open-spiel"} <= set(named)
    for where, marker in named.items():
        assert marker is not None, f"{where} has no platform marker"
        assert marker.evaluate(WHERE_OPENSPIEL_INSTALLS), where
        assert not any(marker.evaluate(platform) for platform in ELSEWHERE), where
