"""The command line as people use it: tables, colour only on a terminal (and never with
``NO_COLOR``), ``--json`` for scripts, shell completion made from the parser, an example in every
command's help that the real parser accepts."""

from __future__ import annotations

import json
import os
import pty
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from arena import games
from arena.cli import EXAMPLES, build_parser, commands, examples_for, main, print_error
from arena.cli.leaderboard_cmd import print_leaderboard
from arena.cli.progress import ProgressBar
from tests.helpers import ARENA
from tests.support.platform import fast_games

ESCAPE = "\x1b["
COLOUR = re.compile(r"\x1b\[[0-9;]*(3[0-7]|9[0-7]|38;)")  # a foreground colour, not bold


def run(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def command_words() -> list[tuple[str, ...]]:
    return [words for words, _ in commands(build_parser())]


@pytest.mark.parametrize("words", command_words(), ids=" ".join)
def test_every_command_has_an_example_in_its_help(capsys, words):
    with pytest.raises(SystemExit) as done:
        main([*words, "--help"])
    assert done.value.code == 0
    help_text = capsys.readouterr().out
    assert re.search(r"^examples?:$", help_text, re.M), help_text
    for example in examples_for(words):
        assert f"  {example}\n" in help_text  # kept on its own line, not re-wrapped


@pytest.mark.parametrize("example", [e for found in EXAMPLES.values() for e in found])
def test_every_example_parses_with_the_real_parser(example):
    argv = shlex.split(example)
    assert argv[0] == "arena"
    args = build_parser().parse_args(argv[1:])
    assert callable(args.func)


def test_examples_stand_under_the_command_they_show():
    known = {" ".join(words) for words in command_words()}
    for key, found in EXAMPLES.items():
        assert key in known, f"examples for a command that does not exist: {key}"
        for example in found:
            assert shlex.split(example)[1:1 + len(key.split())] == key.split(), example


def every_command_name() -> set[str]:
    return {words[-1] for words in command_words()}


def test_the_bash_completion_names_every_command_and_bash_accepts_it(capsys, tmp_path):
    script = run(capsys, "completion", "bash")
    for name in every_command_name():
        assert re.search(rf"\b{re.escape(name)}\b", script), name
    path = tmp_path / "arena.bash"
    path.write_text(script)
    assert subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True).returncode == 0


def complete_in_bash(script: Path, *words: str) -> list[str]:
    """What bash offers after ``words`` (the last one being typed), with the generated script."""
    line = " ".join(shlex.quote(w) for w in words)
    probe = (f"source {shlex.quote(str(script))}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
             f"_shtab_arena; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completes_commands_sub_commands_options_and_game_names(capsys, tmp_path):
    path = tmp_path / "arena.bash"
    path.write_text(run(capsys, "completion", "bash"))
    assert complete_in_bash(path, "arena", "leader") == ["leaderboard"]
    assert {"create", "run", "status", "cancel"} <= set(complete_in_bash(path, "arena", "tournament", ""))
    assert "--json" in complete_in_bash(path, "arena", "leaderboard", "--")
    game = games.names()[0]
    assert game in complete_in_bash(path, "arena", "leaderboard", game[:3])


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_name_every_command(capsys, tmp_path, shell):
    script = run(capsys, "completion", shell)
    for name in every_command_name():
        assert name in script, name
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed to check the script's syntax")
    path = tmp_path / f"arena.{shell}"
    path.write_text(script)
    checked = subprocess.run([shell, "-n", str(path)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_games_is_a_table_and_its_json_is_unchanged(capsys):
    listing = run(capsys, "games")
    assert ESCAPE not in listing
    header, rule, *rows = listing.splitlines()
    assert header.split()[:3] == ["game", "title", "players"] and set(rule) == {"─"}
    for name in games.names():
        assert any(row.startswith(f"{name} ") for row in rows), name
    assert all(line == line.rstrip() for line in listing.splitlines())
    game = fast_games(1)[0]
    one = run(capsys, "games", game)
    for option, spec in games.get(game).describe()["options"].items():
        assert f"{option}={json.dumps(spec['default'])}" in one
    described = json.loads(run(capsys, "games", "--json"))
    assert [g["name"] for g in described] == games.names()


def test_leaderboard_as_a_table_and_as_json(embedded, capsys):
    game = fast_games(1)[0]
    run(capsys, "tournament", "create", "--game", game, "--bots", "random,random-2,random-3", "--sizes", "2",
        "--seed", "5", "--run")
    board = run(capsys, "leaderboard", game)
    assert ESCAPE not in board
    assert board.startswith(f"{game}\n")
    data = json.loads(run(capsys, "leaderboard", game, "--json"))
    assert data["game"] == game
    assert [r["rank"] for r in data["rows"]] == [1, 2, 3]
    assert {r["bot"] for r in data["rows"]} == {"random", "random-2", "random-3"}
    assert sum(r["matches"] for r in data["rows"]) == 12  # 6 two-player matches, two seats each
    for row in data["rows"]:
        assert row["low"] <= row["elo"] <= row["high"]
        assert re.match(r"\d{4}-\d\d-\d\dT", row["last_played"])
        line = next(li for li in board.splitlines() if re.match(rf"{row['rank']}\s+{row['bot']}\s", li))
        assert f"{row['elo']:.0f}" in line and f"{row['win_rate']:.1%}" in line
    assert json.loads(run(capsys, "leaderboard", game, "--json", "--limit", "1"))["rows"][0]["rank"] == 1


def test_an_empty_leaderboard_says_so(capsys):
    print_leaderboard("durak", [])
    assert capsys.readouterr().out == "durak\n  no rated matches yet\n"


def test_the_progress_bar_is_silent_off_a_terminal_unless_forced(capsys):
    quiet = ProgressBar("tournament 3")
    for done in range(4):
        quiet(done, 3)
    quiet.close()
    assert capsys.readouterr() == ("", "")
    forced = ProgressBar("tournament 3", force=True)
    for done in range(4):
        forced(done, 3)
    assert not forced.drawn
    forced.close()
    out, err = capsys.readouterr()
    assert out == "" and ESCAPE not in err
    assert len(err.splitlines()) == 1 and re.match(r"tournament 3 .* 3/3 ", err), err


def test_an_error_is_one_line_however_long(capsys):
    print_error("x" * 500 + " [bold]not markup[/bold]")
    err = capsys.readouterr().err
    assert err == "arena: " + "x" * 500 + " [bold]not markup[/bold]\n"


def on_a_terminal(*argv: str, env: dict[str, str]) -> str:
    """Run ``arena`` with stdout and stderr on a pseudo-terminal; what it wrote there."""
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([ARENA, *argv], stdin=subprocess.DEVNULL, stdout=follower, stderr=follower,
                              env=env, timeout=120)
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal has no writer left
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    assert done.returncode == 2
    return b"".join(chunks).decode()


@pytest.fixture
def plain_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")}
    return env | {"TERM": "xterm-256color", "COLUMNS": "100"}


def test_colour_on_a_terminal_and_none_with_no_color(plain_env):
    assert COLOUR.search(on_a_terminal("games", "no-such-game", env=plain_env))
    assert not COLOUR.search(on_a_terminal("games", "no-such-game", env=plain_env | {"NO_COLOR": "1"}))


def test_no_escape_codes_in_a_pipe_or_a_file(plain_env, tmp_path):
    listing = subprocess.run([ARENA, "games"], env=plain_env, capture_output=True, text=True, timeout=120)
    assert listing.returncode == 0 and listing.stdout and ESCAPE not in listing.stdout
    error = subprocess.run([ARENA, "games", "no-such-game"], env=plain_env, capture_output=True, text=True,
                           timeout=120)
    assert error.stderr.startswith("arena: unknown game") and ESCAPE not in error.stderr


def test_the_top_help_describes_the_arena_in_whole_sentences(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = capsys.readouterr().out
    description = help_text.split("\n\n")[1]  # after the usage line, before the commands
    assert description.rstrip().endswith("."), description
    assert build_parser().description in " ".join(description.split())  # wrapped, never cut
