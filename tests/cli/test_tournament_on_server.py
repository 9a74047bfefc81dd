"""`arena tournament create --run` and external bots: played in the command-line process
(embedded) no external bot can be connected, so the command refuses, naming them, before it
writes anything; `--address` sends the tournament to the running server, where a real SDK bot
process is connected, and follows it there to its end."""

from __future__ import annotations

import json

import pytest
from arena_bot.v1 import arena_pb2_grpc

from arena.cli import main
from arena.server.embedded import BackgroundServer
from tests.support.grpc import GAME, playing, register


def test_an_embedded_run_refuses_external_bots_before_writing_anything(embedded, capsys) -> None:
    """Before, both matches were played here, forfeited by the absent bot, and `done` was
    printed with exit code 0."""
    assert main(["bot", "register", "my-bot"]) == 0
    capsys.readouterr()
    code = main(["tournament", "create", "--game", GAME, "--bots", "My-Bot,heuristic", "--unrated", "--run"])
    error = capsys.readouterr().err.strip()
    assert code == 2 and len(error.splitlines()) == 1, error
    assert error.startswith("arena: external bots my-bot cannot be connected to this command"), error
    assert "--address HOST:PORT" in error and "ARENA_ADMIN_TOKEN" in error
    assert main(["tournament", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [], "nothing was written"
    # House bots alone still play here, as before.
    assert main(["tournament", "create", "--game", GAME, "--bots", "heuristic,random", "--unrated", "--run"]) == 0


def test_address_sends_the_tournament_to_the_server_and_follows_it_to_the_end(
        arena: arena_pb2_grpc.ArenaStub, server: BackgroundServer, capsys: pytest.CaptureFixture[str]) -> None:
    token = register(arena, "wire-bot")
    with playing("arena_bot.examples.random_bot", server.address, token):
        code = main(["tournament", "create", "--game", GAME, "--bots", "wire-bot,heuristic", "--unrated", "--run",
                     "--address", server.address, "--token", "admin-secret", "--seed", "5", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    status = json.loads(out)
    assert status["status"] == "done" and status["failures"] == [] and not status["rated"]
    assert status["games"][GAME]["done"] == status["games"][GAME]["total"] == 2
    assert f"tournament {status['id']} created on {server.address}" in err


def test_a_server_tournament_needs_the_admin_token(server: BackgroundServer, capsys, monkeypatch) -> None:
    monkeypatch.delenv("ARENA_ADMIN_TOKEN", raising=False)
    argv = ["tournament", "create", "--game", GAME, "--bots", "heuristic,random", "--run", "--address", server.address]
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == (
        "arena: a tournament on a server needs the admin token (--token or ARENA_ADMIN_TOKEN)")
    assert main([*argv, "--token", "not-the-admin"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith(f"arena: {server.address}: ") and len(error.splitlines()) == 1, error
    assert main(argv[:-2] + ["--token", "admin-secret"]) == 2  # a token, but no server to send it to
    assert capsys.readouterr().err.strip() == (
        "arena: --token, --tls and --ca are for a server: give its --address HOST:PORT too")
