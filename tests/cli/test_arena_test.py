"""``arena test A B`` on the embedded store: paired groups played by the arena's own machinery
until the sequential test decides, its report for people and for scripts, and bad input."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

from arena.cli import main
from arena.store import db
from arena.store.models import Match, Tournament

GAME = "crazy_eights"  # quick to play


def run_json(capsys, *argv: str) -> dict:
    assert main(["test", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_heuristic_against_random_accepts_h1_quickly(embedded, capsys):
    # The heuristic is about 100 normalized Elo above random here: against H1 at 30 the test
    # decides within a few hundred groups, and the cap is far from its expected length.
    report = run_json(capsys, "random", "heuristic", "--game", GAME, "--elo1", "30", "--max-groups", "600")
    assert report["verdict"] == "H1" and report["llr"] >= report["upper"] == pytest.approx(2.944, abs=1e-3)
    assert report["base"] == "random" and report["candidate"] == "heuristic"
    assert 0 < report["groups"] <= 600 and report["matches"] == 2 * report["groups"]
    assert report["elo_low"] < report["elo"] < report["elo_high"] and report["elo"] > 0
    game = report["per_game"][GAME]
    assert game["groups"] == report["groups"] and game["pairing_gain"] > 0
    # Every match is one of the test's unrated tournament, each deal played in both seatings.
    with db.read() as connection:
        tournament = connection.execute(sa.select(Tournament.__table__)).one()
        seeds = connection.execute(sa.select(Match.__table__.c.seed, sa.func.count()).group_by(
            Match.__table__.c.seed)).all()
    assert not tournament.rated and tournament.spec["test"]["candidate"] == "heuristic"
    assert {count for _, count in seeds} == {2} and len(seeds) == report["groups"]


def test_a_bot_against_itself_does_not_accept_h1(embedded, capsys):
    assert main(["test", "random", "random", "--game", GAME, "--max-groups", "40"]) == 0
    out = capsys.readouterr().out
    assert "test: random-2 (B) against random (A)" in out
    assert "verdict: H1" not in out and ("undecided at the cap of 40 groups" in out or "H0 accepted" in out)
    assert "Elo difference: " in out and "groups: 40 (80 matches, 0 dropped)" in out
    assert f"  {GAME}: 40 groups" in out


def test_more_players_seat_a_and_b_in_turn_against_the_same_field(embedded, capsys):
    report = run_json(capsys, "random", "heuristic", "--game", GAME, "--players", "3",
                      "--field", "random", "--max-groups", "8")
    assert report["field"] == ["random-2", "random-3"] and report["players"] == 3
    assert report["groups"] == 8 and report["matches"] == 8 * 6
    with db.read() as connection:
        seatings = connection.execute(sa.select(Match.__table__.c.seating)).scalars().all()
    assert len(seatings) == 48 and all(len(set(s)) == 3 for s in seatings)


@pytest.mark.parametrize("argv, gist", [
    (["random", "nobody", "--game", GAME], "'nobody' is not a house bot"),
    (["random", "heuristic", "--game", "nope"], "unknown game 'nope'"),
    (["random", "heuristic", "--game", GAME, "--elo0", "5", "--elo1", "5"], "--elo0/--elo1"),
    (["random", "heuristic", "--game", GAME, "--max-groups", "0"], "--max-groups 0"),
    (["random", "heuristic", "--game", GAME, "--players", "9"], "--players 9"),
])
def test_bad_input_is_one_line_and_exit_2(embedded, capsys, argv, gist):
    assert main(["test", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and gist in err and err.startswith("arena: ")


def test_on_a_server_a_bot_tests_its_two_versions(arena, server, capsys):
    """`--address`: the server plays the test where the versions are connected; the command
    prints the same report (here --json) and refuses another author's token in one line."""
    from arena_bot.v1 import arena_pb2

    from tests.support.grpc import bearer, playing, register

    first = register(arena, "walker")
    second = arena.RegisterVersion(arena_pb2.RegisterVersionRequest(), metadata=bearer(first)).token
    stranger = register(arena, "stranger")
    argv = ["test", "walker@1", "walker@2", "--game", "durak", "--elo1", "50", "--max-groups", "200",
            "--address", server.address]
    with playing("arena_bot.examples.random_bot", server.address, first), \
            playing("bots.house_bot", server.address, second):
        assert main([*argv, f"--token={stranger}"]) != 0
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"arena: {server.address}: walker is not a version of this bot"), err
        report = run_json(capsys, *argv[1:], f"--token={second}")
    assert report["verdict"] == "H1" and report["llr"] >= report["upper"]
    assert report["base"] == "walker" and report["candidate"] == "walker-v2" and report["address"] == server.address
    assert 0 < report["groups"] <= 200 and report["per_game"]["durak"]["groups"] == report["groups"]
    with db.read() as connection:
        tournament = connection.execute(sa.select(Tournament.__table__)).one()
    assert tournament.kind == "test" and not tournament.rated


def test_server_options_need_an_address(embedded, capsys):
    assert main(["test", "random", "heuristic", "--game", GAME, "--token", "x"]) == 2
    assert "give its --address HOST:PORT too" in capsys.readouterr().err
    assert main(["test", "walker@1", "walker@2", "--game", GAME]) == 2
    assert "tested on the server where it is connected (--address HOST:PORT)" in capsys.readouterr().err
