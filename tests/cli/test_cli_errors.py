"""The command line under bad input and broken surroundings: one line on stderr, exit code 2,
nothing half-made, and read-only commands never create or migrate a schema. Each runs the real
`arena` command in a subprocess, as a user would."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ARENA
from tests.support.platform import arena, one_line_error

GAME = "crazy_eights"


@pytest.fixture
def sqlite_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    return env | {"ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}"}


@pytest.mark.parametrize("argv", [
    ["tournament", "status", "1"], ["leaderboard", GAME], ["match", "show", "1"], ["ratings", "recompute", "--check"],
])
def test_read_only_commands_never_make_a_schema(sqlite_env: dict[str, str], tmp_path: Path, argv: list[str]) -> None:
    assert "arena db upgrade" in one_line_error(arena(*argv, env=sqlite_env))
    assert not (tmp_path / "arena.db").exists(), "a reader created the database"
    sqlite3.connect(tmp_path / "arena.db").close()  # an empty file: still not migrated by a reader
    assert "arena db upgrade" in one_line_error(arena(*argv, env=sqlite_env))
    tables = sqlite3.connect(tmp_path / "arena.db").execute("select name from sqlite_master").fetchall()
    assert tables == []


@pytest.mark.parametrize("url, gist", [
    ("nonsense://", "database"),
    ("postgresql://nobody@127.0.0.1:1/none", "database"),
])
def test_a_bad_database_url_is_one_line(sqlite_env: dict[str, str], url: str, gist: str) -> None:
    line = one_line_error(arena("tournament", "create", "--game", GAME, "--bots", "random,heuristic",
                                env=sqlite_env | {"ARENA_DATABASE_URL": url}))
    assert gist in line


def test_a_corrupt_sqlite_file_is_one_line(sqlite_env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "arena.db").write_bytes(b"this is not a database" * 100)
    one_line_error(arena("leaderboard", GAME, env=sqlite_env))
    one_line_error(arena("tournament", "create", "--game", GAME, "--bots", "random,heuristic", env=sqlite_env))


def test_an_unreachable_broker_leaves_no_tournament_behind(sqlite_env: dict[str, str]) -> None:
    env = sqlite_env | {"ARENA_REDIS_URL": "redis://127.0.0.1:1/0"}
    assert "Redis" in one_line_error(arena("tournament", "create", "--game", GAME, "--bots", "random,heuristic",
                                           "--run", env=env))
    assert arena("db", "upgrade", env=sqlite_env).returncode == 0
    listed = arena("tournament", "status", "1", env=sqlite_env)
    assert "no tournament 1" in one_line_error(listed)


@pytest.mark.parametrize("flags, gist", [
    (["--repetitions", "0"], "repetitions"),
    (["--repetitions", "-3"], "repetitions"),
    (["--repetitions", "100000000"], "repetitions"),
    (["--move-time", "-1"], "move time"),
    (["--time-bank", "-1"], "time bank"),
    (["--bots", "random,nobody"], "no bot named 'nobody'"),
])
def test_out_of_range_tournaments_are_refused_and_nothing_is_written(sqlite_env: dict[str, str], tmp_path: Path,
                                                                    flags: list[str], gist: str) -> None:
    assert arena("db", "upgrade", env=sqlite_env).returncode == 0
    argv = ["tournament", "create", "--game", GAME, "--bots", "random,heuristic", *flags]
    assert gist in one_line_error(arena(*argv, env=sqlite_env))
    count = sqlite3.connect(tmp_path / "arena.db").execute("select count(*) from tournament").fetchone()[0]
    assert count == 0


def test_a_closed_pipe_is_not_a_traceback(sqlite_env: dict[str, str]) -> None:
    done = subprocess.run(f"'{ARENA}' games | head -1", shell=True, env=sqlite_env, capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.count("\n") == 1
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


# A command whose code has a bug: the module's ``run`` is replaced before the parser is built
# (``register`` sets ``func`` from it then), in a fresh interpreter, and ``arena games`` runs it.
BUGGY_COMMAND = """
import sys
from arena import cli
from arena.cli import games_cmd

def run(args):
    return {{}}["no such key"] if {kind!r} == "KeyError" else int("not a number")

games_cmd.run = run
sys.exit(cli.main(["games"]))
"""


@pytest.mark.parametrize("kind", ["KeyError", "ValueError"])
def test_a_bug_shows_its_traceback_not_one_line(sqlite_env: dict[str, str], kind: str) -> None:
    done = subprocess.run([sys.executable, "-c", BUGGY_COMMAND.format(kind=kind)], env=sqlite_env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "Traceback" in done.stderr and f"{kind}:" in done.stderr, done.stderr
    assert "arena: " not in done.stderr


@pytest.mark.parametrize("argv, gist", [
    (["games", "nosuchgame"], "unknown game 'nosuchgame'"),
    (["play", "nosuchgame"], "unknown game 'nosuchgame'"),
    (["play", GAME, "--bots", "nobody"], "no house bot 'nobody'"),
    (["play", GAME, "--players", "99"], "99 players not allowed"),
    (["play", GAME, "--option", "nosuch=1"], "unknown options ['nosuch']"),
    (["play", GAME, "--option", "nosuch"], "expected NAME=VALUE"),
    (["tournament", "create", "--game", GAME, "--sizes", "2,x"], "--sizes 2,x"),
    (["tournament", "create", "--game", GAME, "--option", "nodot"], "expected GAME.NAME=VALUE"),
    (["web", "--address", "nowhere"], "--address: 'nowhere' is not HOST:PORT"),
    (["bot", "register", "house-x"], "is reserved for house bots"),
    (["worker"], "arena worker needs ARENA_REDIS_URL"),
])
def test_bad_input_is_one_line(sqlite_env: dict[str, str], argv: list[str], gist: str) -> None:
    assert arena("db", "upgrade", env=sqlite_env).returncode == 0
    assert gist in one_line_error(arena(*argv, env=sqlite_env))


def test_a_bad_web_address_for_serve_is_one_line(sqlite_env: dict[str, str]) -> None:
    done = arena("serve", "--web", "nowhere", env=sqlite_env)  # the store is made (and logged) first
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "arena: --web: 'nowhere' is not HOST:PORT", done.stderr
