"""``--json`` on the commands that act, and ``arena tournament list``: each runs the real
command line on a SQLite store, its stdout must be one JSON document (whatever a person reads
along the way goes to stderr), and the values are checked against the store and against the
other commands that report the same thing."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
import sqlalchemy as sa

from arena.cli import main
from arena.store import bot_tokens, db
from tests.support.platform import arena, fast_games, one_line_error


def run_json(capsys, *argv: str, code: int = 0) -> tuple[object, str]:
    """``arena ARGV --json`` in this process: the parsed stdout and what went to stderr."""
    assert main([*argv, "--json"]) == code
    out, err = capsys.readouterr()
    return json.loads(out), err


def sqlite_file(url: str) -> str:
    return url.removeprefix("sqlite:///")


def test_create_run_status_and_list_agree(embedded, capsys):
    game = fast_games(1)[0]
    made, err = run_json(capsys, "tournament", "create", "--game", game, "--bots", "random,random-2,random-3",
                         "--sizes", "2", "--seed", "3", "--name", "json one")
    assert f"tournament {made['id']}: 6 matches over {game}" in err  # the person's line, off stdout
    assert made["matches"] == 6 and made["status"] == "running" and made["failures"] == []
    assert made["games"] == {game: {"done": 0, "total": 6, "failed": 0, "cancelled": 0}}

    ran, _ = run_json(capsys, "tournament", "run", str(made["id"]))
    assert ran["id"] == made["id"] and ran["status"] == "done"
    assert ran["games"][game]["done"] == 6
    status, _ = run_json(capsys, "tournament", "status", str(made["id"]))
    assert status == ran

    # --run waits for the end and prints the same document as status, with the match count.
    second, _ = run_json(capsys, "tournament", "create", "--game", game, "--bots", "random,random-2",
                         "--sizes", "2", "--seed", "4", "--unrated", "--run")
    assert second["id"] == made["id"] + 1 and second["status"] == "done" and second["matches"] == 2
    assert second["games"][game] == {"done": 2, "total": 2, "failed": 0, "cancelled": 0}
    assert {k: v for k, v in second.items() if k != "matches"} == run_json(
        capsys, "tournament", "status", str(second["id"]))[0]

    listed, _ = run_json(capsys, "tournament", "list")
    assert [t["id"] for t in listed] == [second["id"], made["id"]]  # newest first
    first = listed[1]
    assert first["name"] == "json one" and first["games"] == [game] and first["status"] == "done"
    assert (first["done"], first["total"], first["failed"]) == (6, 6, 0)
    assert first["rated"] and not listed[0]["rated"]
    assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d", first["created_at"])


def poison(url: str, match_id: int, options: object) -> None:
    """Options the rules refuse when the match starts: the match fails, the others play."""
    with sqlite3.connect(sqlite_file(url)) as connection:
        connection.execute("update match set options = ? where id = ?", (json.dumps(options), match_id))


def test_run_lists_failures_and_retry_failed_plays_them(embedded, capsys):
    game = fast_games(1)[0]
    made, _ = run_json(capsys, "tournament", "create", "--game", game, "--bots", "random,random-2",
                       "--sizes", "2", "--seed", "8")
    with db.read() as connection:
        first_match = connection.execute(sa.text("select min(id) from match")).scalar_one()
    poison(embedded, first_match, {"no_such_option": 1})

    ran, _ = run_json(capsys, "tournament", "run", str(made["id"]), code=1)  # ended with a failure
    assert ran["games"][game] == {"done": 1, "total": 2, "failed": 1, "cancelled": 0}
    assert [f["match"] for f in ran["failures"]] == [first_match]
    assert "no_such_option" in ran["failures"][0]["error"]
    listed, _ = run_json(capsys, "tournament", "list")
    assert (listed[0]["failed"], listed[0]["done"], listed[0]["total"]) == (1, 2, 2)

    poison(embedded, first_match, {})
    retried, err = run_json(capsys, "tournament", "retry-failed", str(made["id"]))
    assert "1 failed matches scheduled again" in err
    assert retried["rescheduled"] == [first_match]
    assert retried["failures"] == [] and retried["games"][game]["done"] == 2 and retried["status"] == "done"
    assert run_json(capsys, "tournament", "list")[0][0]["failed"] == 0


def test_cancel_says_how_many_and_list_filters_by_status(embedded, capsys):
    game = fast_games(1)[0]
    ids = [run_json(capsys, "tournament", "create", "--game", game, "--bots", "random,random-2", "--sizes", "2",
                    "--seed", str(seed))[0]["id"] for seed in range(5)]
    cancelled, _ = run_json(capsys, "tournament", "cancel", str(ids[1]))
    assert cancelled["id"] == ids[1] and cancelled["cancelled"] == 2 and cancelled["status"] == "cancelled"
    assert cancelled["games"][game]["cancelled"] == 2
    run_json(capsys, "tournament", "run", str(ids[3]))

    def listed(*flags: str) -> list[int]:
        return [t["id"] for t in run_json(capsys, "tournament", "list", *flags)[0]]

    assert listed() == ids[::-1]
    assert listed("--status", "cancelled") == [ids[1]]
    assert listed("--status", "done") == [ids[3]]
    assert listed("--status", "running") == [ids[4], ids[2], ids[0]]
    assert listed("--limit", "2") == [ids[4], ids[3]]
    assert listed("--status", "running", "--limit", "1") == [ids[4]]
    assert listed("--limit", "1000") == ids[::-1]


def test_the_list_is_a_table_without_json(embedded, capsys):
    game = fast_games(1)[0]
    assert main(["db", "upgrade"]) == 0
    capsys.readouterr()
    assert main(["tournament", "list"]) == 0
    assert capsys.readouterr().out == "no tournaments\n"
    assert run_json(capsys, "tournament", "list")[0] == []
    run_json(capsys, "tournament", "create", "--game", game, "--bots", "random,random-2", "--sizes", "2",
             "--name", "table one")
    assert main(["tournament", "list"]) == 0
    header, rule, row = capsys.readouterr().out.splitlines()
    assert header.split() == ["id", "name", "games", "status", "matches", "failed", "created"]
    assert re.match(rf"\s*1\s+table one\s+{game}\s+running\s+0/2\s+0\s+\d{{4}}-", row), row


@pytest.mark.parametrize("limit", ["0", "1001", "-5", "ten", "2.5"])
def test_a_bad_limit_is_one_line_and_exit_code_2(sqlite_url, limit):
    env = {"ARENA_DATABASE_URL": sqlite_url}
    line = one_line_error(arena("tournament", "list", "--limit", limit, "--json", env=env))
    assert "--limit" in line and "1 to 1000" in line
    assert arena("tournament", "list", "--limit", limit, env=env).stdout == ""


def test_list_never_makes_a_schema(sqlite_url):
    assert "arena db upgrade" in one_line_error(arena("tournament", "list", env={"ARENA_DATABASE_URL": sqlite_url}))


def test_db_current_says_whether_the_schema_is_the_newest(sqlite_url, monkeypatch, capsys):
    monkeypatch.setenv("ARENA_DATABASE_URL", sqlite_url)
    before, _ = run_json(capsys, "db", "current", code=1)
    assert before["revision"] is None and before["up_to_date"] is False and before["head"]
    assert main(["db", "upgrade"]) == 0
    capsys.readouterr()
    after, _ = run_json(capsys, "db", "current")
    assert after == {"database": sqlite_url, "revision": before["head"], "head": before["head"], "up_to_date": True}


def test_ratings_recompute_reports_what_differs_and_what_changed(embedded, capsys):
    game = fast_games(1)[0]
    run_json(capsys, "tournament", "create", "--game", game, "--bots", "random,random-2,random-3", "--sizes", "2",
             "--seed", "5", "--run")
    same, _ = run_json(capsys, "ratings", "recompute", "--check")
    assert same == {"check": True, "replayed": 3, "same": True, "differ": []}
    board = {r["bot"]: r["elo"] for r in run_json(capsys, "leaderboard", game)[0]["rows"]}
    with sqlite3.connect(sqlite_file(embedded)) as connection:
        connection.execute("update rating set elo = 1 where bot_id = (select id from bot where name = 'random-2')")

    differ, _ = run_json(capsys, "ratings", "recompute", "--check", code=1)
    assert differ["same"] is False
    assert differ["differ"] == [{"bot": "random-2", "game": game, "stored": 1.0, "replayed": board["random-2"]}]
    rebuilt, _ = run_json(capsys, "ratings", "recompute")
    assert rebuilt == {"check": False, "rebuilt": 3,
                       "changed": [{"bot": "random-2", "game": game, "before": 1.0, "after": board["random-2"]}]}
    assert run_json(capsys, "ratings", "recompute")[0]["changed"] == []
    assert run_json(capsys, "ratings", "recompute", "--check")[0]["same"] is True


def test_play_json_is_the_outcome_the_text_shows(capsys):
    game = fast_games(1)[0]
    assert main(["play", game, "--players", "2", "--seed", "11"]) == 0
    text = capsys.readouterr().out
    played, moves = run_json(capsys, "play", game, "--players", "2", "--seed", "11")
    assert played["game"] == game and played["seed"] == 11 and played["players"] == 2
    # The moves went to stderr, the same lines the text shows on stdout.
    assert moves.splitlines() == text.splitlines()[: len(moves.splitlines())]
    assert played["moves"] == len(re.findall(r"^\s*\d+\s+seat \d+: ", text, re.M)) > 0
    for seat in played["seats"]:
        assert f"seat {seat['seat']} ({seat['bot']}): rank {seat['rank']}, score {seat['score']:g}" in text
    assert played["winners"] == [s["seat"] for s in played["seats"] if s["rank"] == 1] != []
    assert [s["bot"] for s in played["seats"]] == ["heuristic", "random"]
    quiet, err = run_json(capsys, "play", game, "--players", "2", "--seed", "11", "--quiet")
    assert quiet == played and not re.search(r"^\s*\d+\s+seat \d+: ", err, re.M)


def test_bot_register_gives_a_working_token_and_revoke_says_whether_it_found_one(embedded, capsys):
    made, _ = run_json(capsys, "bot", "register", "json-bot", "--owner", "me@example.org")
    assert made["name"] == "json-bot" and made["owner"] == "me@example.org" and made["token"]
    with db.read() as connection:
        assert bot_tokens.authenticate(connection, made["token"]) == (made["id"], "json-bot")
    assert run_json(capsys, "bot", "revoke", "json-bot")[0] == {"name": "json-bot", "revoked": True}
    with db.read() as connection:
        assert bot_tokens.authenticate(connection, made["token"]) is None
    assert run_json(capsys, "bot", "revoke", "nobody", code=1)[0] == {"name": "nobody", "revoked": False}


def test_leaderboard_head_to_head_adds_up_to_the_matches(embedded, capsys):
    game = fast_games(1)[0]
    run_json(capsys, "tournament", "create", "--game", game, "--bots", "heuristic,random,random-2",
             "--sizes", "2", "--repetitions", "3", "--seed", "8", "--run")
    board, _ = run_json(capsys, "leaderboard", game, "--head-to-head")
    meetings = board["head_to_head"]
    assert len(meetings) == 6  # three bots, every pair both ways round
    for row in board["rows"]:
        mine = [m for m in meetings if m["bot"] == row["bot"]]
        assert sum(m["wins"] + m["draws"] + m["losses"] for m in mine) == row["matches"]  # two seats a match
        assert sum(m["wins"] for m in mine) + sum(m["draws"] for m in mine) / 2 == pytest.approx(
            row["win_rate"] * row["matches"])
    assert main(["leaderboard", game, "--head-to-head"]) == 0
    text = capsys.readouterr().out
    assert "head to head (won-drawn-lost)" in text
    first = meetings[0]
    assert re.search(rf"{first['wins']}-{first['draws']}-{first['losses']}", text)
