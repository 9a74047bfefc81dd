"""Every ``ARENA_*`` setting is validated once, when a command starts: a wrong value is one line
naming the variable, exit code 2, never a traceback; ``ARENA_CONFIG`` names a TOML file under
the environment; the table in docs/operations.md is the one the model generates."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.server.settings import ServerSettings
from arena.settings import ArenaSettings, load, markdown

ARENA = str(Path(sys.executable).with_name("arena"))
OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


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
    # A server built in code (a test, the demo) reads without a rate limit unless it asks;
    # every other default is the documented one.
    assert ServerSettings.from_settings(load({})) == ServerSettings(read_rate="20/second;600/minute")
    assert ServerSettings().read_rate == ""


def test_the_operations_table_is_the_generated_one() -> None:
    text = OPERATIONS.read_text()
    start, end = "<!-- settings:start -->\n", "<!-- settings:end -->"
    assert text.count(start) == 1 and text.count(end) == 1
    documented = text.split(start, 1)[1].split(end, 1)[0]
    assert documented == markdown(), "regenerate it: python -m arena.settings --markdown"
    for name in ArenaSettings.model_fields:
        assert f"`ARENA_{name.upper()}`" in documented


# Modules that may read an ``ARENA_*`` variable themselves, and why: clients of a server, whose
# variables (the bot SDK's) are not the server's settings. Everything else is handed the model.
CLIENT_READS = {
    ("arena/cli/serve_cmd.py", "ARENA_ADDRESS"): "`arena challenge` is a client of the server",
    ("arena/cli/serve_cmd.py", "ARENA_BOT_TOKEN"): "`arena challenge` is a client of the server",
    ("arena/server/challenge.py", "ARENA_TLS"): "the client channel of `arena challenge`",
    ("arena/server/challenge.py", "ARENA_TLS_CA"): "the client channel of `arena challenge`",
    ("bots/search_bot.py", "ARENA_ADDRESS"): "an example bot, a client of the server",
    ("bots/search_bot.py", "ARENA_RULES_ADDRESS"): "an example bot, a client of the server",
}
# Variables of other libraries that the arena sets for them before they start.
FOREIGN_WRITES = {
    ("arena/cli/worker_cmd.py", "PROMETHEUS_MULTIPROC_DIR"): "prometheus_client's multiprocess mode",
    ("arena/cli/serve_cmd.py", "GRPC_VERBOSITY"): "gRPC core's logging",
}
SOURCE_ROOT = Path(__file__).resolve().parents[2]


def environment_uses(path: Path) -> list[tuple[int, str, str | None]]:
    """Where the module at ``path`` reads or writes the process's environment: (line, ``read``
    or ``write``, the variable's name, None when it is not a constant)."""
    import ast

    tree = ast.parse(path.read_text(), str(path))
    constants = {target.id: node.value.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                 and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                 for target in node.targets if isinstance(target, ast.Name)}

    def name_of(key: ast.AST | None) -> str | None:
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
        return constants.get(key.id) if isinstance(key, ast.Name) else None

    def is_os_environ(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "environ" \
            and isinstance(node.value, ast.Name) and node.value.id == "os"

    # ``environ`` imported from os, and any other name given to it (``env = os.environ``).
    aliases = {"environ"} | {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
                             and is_os_environ(node.value) for target in node.targets if isinstance(target, ast.Name)}

    def is_environ(node: ast.AST) -> bool:
        return is_os_environ(node) or (isinstance(node, ast.Name) and node.id in aliases)

    found: list[tuple[int, str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and is_environ(node.value):
            kind = "read" if isinstance(node.ctx, ast.Load) else "write"
            found.append((node.lineno, kind, name_of(node.slice)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, owner = node.func.attr, node.func.value
            key = node.args[0] if node.args else None
            if is_environ(owner) and method in ("get", "__getitem__", "__contains__"):
                found.append((node.lineno, "read", name_of(key)))
            elif is_environ(owner) and method in ("setdefault", "update", "pop", "popitem", "clear", "__setitem__"):
                found.append((node.lineno, "write", name_of(key)))
            elif isinstance(owner, ast.Name) and owner.id == "os" and method in ("getenv", "putenv", "unsetenv"):
                found.append((node.lineno, "read" if method == "getenv" else "write", name_of(key)))
        elif isinstance(node, ast.Compare) and any(is_environ(c) for c in node.comparators):
            found.append((node.lineno, "read", name_of(node.left)))
    return sorted(found, key=lambda use: use[0])


def environment_problems(root: Path) -> list[str]:
    """Every read of an ``ARENA_*`` variable and every write of the environment under ``root``'s
    ``arena``, ``workers`` and ``bots``, but in ``arena/settings.py`` and the allowed ones."""
    problems = []
    for path in sorted(p for folder in ("arena", "workers", "bots") for p in (root / folder).rglob("*.py")):
        module = path.relative_to(root).as_posix()
        if module == "arena/settings.py":
            continue
        for line, kind, name in environment_uses(path):
            if kind == "read" and (name is None or name.startswith("ARENA_")) and (module, name) not in CLIENT_READS:
                problems.append(f"{module}:{line} reads {name or 'a variable'} (take it from arena.settings)")
            if kind == "write" and (module, name) not in FOREIGN_WRITES:
                problems.append(f"{module}:{line} writes {name or 'the environment'} (pass the value instead)")
    return problems


def test_only_the_settings_read_arena_variables_and_nothing_writes_the_environment() -> None:
    assert environment_problems(SOURCE_ROOT) == []


def test_the_environment_check_sees_reads_and_writes(tmp_path: Path) -> None:
    (tmp_path / "arena").mkdir()
    (tmp_path / "arena" / "sly.py").write_text(
        "import os\nfrom os import environ\nNAME = 'ARENA_QUEUE'\n"
        "a = os.environ.get(NAME)\nb = os.getenv('ARENA_DB_POOL')\nc = environ['ARENA_ELO_K']\n"
        "d = 'ARENA_X' in os.environ\ne = os.environ.get('HOME')\nos.environ['ARENA_Y'] = '1'\n"
        "os.environ.setdefault('OTHER', '2')\nenv = os.environ\nf = env.get('ARENA_WEB_ADDRESS')\n")
    assert environment_problems(tmp_path) == [
        "arena/sly.py:4 reads ARENA_QUEUE (take it from arena.settings)",
        "arena/sly.py:5 reads ARENA_DB_POOL (take it from arena.settings)",
        "arena/sly.py:6 reads ARENA_ELO_K (take it from arena.settings)",
        "arena/sly.py:7 reads ARENA_X (take it from arena.settings)",
        "arena/sly.py:9 writes ARENA_Y (pass the value instead)",
        "arena/sly.py:10 writes OTHER (pass the value instead)",
        "arena/sly.py:12 reads ARENA_WEB_ADDRESS (take it from arena.settings)",
    ]


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
