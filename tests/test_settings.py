"""Every ``ARENA_*`` setting is validated once, when a command starts: a wrong value is one line
naming the variable, exit code 2, never a traceback; ``ARENA_CONFIG`` names a TOML file under
the environment; the table in docs/operations.md is the one the model generates."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from arena.server.settings import ServerSettings
from arena.settings import ArenaSettings, load, markdown
from tests.helpers import ARENA

OPERATIONS = Path(__file__).resolve().parents[1] / "docs" / "operations.md"


def arena(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    return subprocess.run([ARENA, *argv], env=clean | env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("variable, value, problem", [
    ("ARENA_BATCH_SIZE", "x", "ARENA_BATCH_SIZE: must be an integer (got 'x')"),
    ("ARENA_BATCH_SIZE", "0", "ARENA_BATCH_SIZE: must be at least 1 (got '0')"),
    ("ARENA_METRICS_PORT", "70000", "ARENA_METRICS_PORT: must be at most 65535 (got '70000')"),
    ("ARENA_ELO_K", "high", "ARENA_ELO_K: must be a number (got 'high')"),
    ("ARENA_REGISTRATION", "sometimes", "ARENA_REGISTRATION: must be open, admin or auto (got 'sometimes')"),
    ("ARENA_SEARCH_ROLLOUT", "greedy", "ARENA_SEARCH_ROLLOUT: must be heuristic or random (got 'greedy')"),
    ("ARENA_TLS_CERT", "cert.pem", "set both ARENA_TLS_CERT and ARENA_TLS_KEY, or neither"),
    ("ARENA_CONFIG", "/no/such/arena.toml", "ARENA_CONFIG: no such file '/no/such/arena.toml'"),
])
def test_a_wrong_value_is_one_line_naming_the_variable(variable: str, value: str, problem: str) -> None:
    done = arena("games", env={variable: value})
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [f"arena: {problem}"]


def test_empty_is_unset_and_good_values_run() -> None:
    done = arena("games", "--json", env={"ARENA_BATCH_SIZE": "", "ARENA_OUTAGE_SECONDS": "", "ARENA_ELO_K": "16"})
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_a_toml_file_sets_values_and_the_environment_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "arena.toml"
    config.write_text('batch_size = 40\nqueue = "from-file"\nregistration = "admin"\n')
    for name in list(os.environ):
        if name.startswith("ARENA_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ARENA_CONFIG", str(config))
    assert (load().batch_size, load().queue) == (40, "from-file")
    assert ServerSettings.from_settings(load()).registration == "admin"
    monkeypatch.setenv("ARENA_BATCH_SIZE", "7")
    assert (load().batch_size, load().queue) == (7, "from-file")
    assert load({"ARENA_CONFIG": str(config), "ARENA_QUEUE": "env"}).queue == "env"
    assert load({"ARENA_CONFIG": str(config)}).batch_size == 40


def test_a_wrong_value_in_the_toml_file_names_the_variable(tmp_path: Path) -> None:
    config = tmp_path / "arena.toml"
    config.write_text("max_streams = 0\n")
    done = arena("games", env={"ARENA_CONFIG": str(config)})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["arena: ARENA_MAX_STREAMS: must be at least 1 (got 0)"]
    assert arena("games", env={"ARENA_CONFIG": str(config), "ARENA_MAX_STREAMS": "4"}).returncode == 0


def test_a_file_that_is_not_toml_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "arena.toml"
    config.write_text("batch_size: 4\n")
    done = arena("games", env={"ARENA_CONFIG": str(config)})
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("arena: ARENA_CONFIG: ")


def test_the_file_reaches_modules_reading_a_variable_directly(tmp_path: Path) -> None:
    config = tmp_path / "arena.toml"
    config.write_text("max_tournament_matches = 3\n")
    done = arena("tournament", "create", "--game", "crazy_eights", "--bots", "random,heuristic", "--repetitions", "4",
                 env={"ARENA_CONFIG": str(config), "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}"})
    assert done.returncode == 2
    assert "ARENA_MAX_TOURNAMENT_MATCHES" in done.stderr


def test_defaults_are_the_documented_ones_and_a_mapping_is_read_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", "from-the-process")
    monkeypatch.setenv("ARENA_BATCH_SIZE", "3")
    model = load({})
    assert (model.batch_size, model.visibility_timeout, model.task_time_limit, model.max_attempts) == (16, 3600, 1800, 5)
    # A server built in code (a test, the demo) reads without a rate limit and runs no ladder
    # unless it asks; every other default is the documented one.
    assert ServerSettings.from_settings(load({})) == ServerSettings(read_rate="20/second;600/minute", ladder=True)
    assert ServerSettings().read_rate == "" and not ServerSettings().ladder


def test_the_operations_table_is_the_generated_one() -> None:
    text = OPERATIONS.read_text()
    start, end = "<!-- settings:start -->\n", "<!-- settings:end -->"
    assert text.count(start) == 1 and text.count(end) == 1
    documented = text.split(start, 1)[1].split(end, 1)[0]
    assert documented == markdown(), "regenerate it: python -m arena.settings --markdown"
    for name in ArenaSettings.model_fields:
        assert f"`ARENA_{name.upper()}`" in documented


def test_a_process_handed_settings_reads_them_not_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.games.search import default_budget
    from arena.settings import using

    monkeypatch.setenv("ARENA_SEARCH_ITERATIONS", "5")
    assert (default_budget("durak").iterations, default_budget("durak").ms) == (5, None)
    with using(load().but(search_ms=10)) as handed:
        monkeypatch.setenv("ARENA_SEARCH_ITERATIONS", "6")  # too late for this process's settings
        assert load() is handed
        assert (default_budget("durak").iterations, default_budget("durak").ms) == (5, 10.0)
    assert default_budget("durak").iterations == 6
    with pytest.raises(ValueError, match="metrics_port"):
        load().but(metrics_port=70000)
