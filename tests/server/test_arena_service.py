"""The whole server as `arena serve` runs it (gateway, Arena and Rules services) on the
embedded default with a real SQLite store: register a bot over gRPC, run it as a real SDK
process, play a rated tournament and a challenge, see it on the leaderboard; admin calls,
hashed tokens and revocation."""

from __future__ import annotations

import hashlib
import json
import time

import grpc
import pytest
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc, gateway_pb2, gateway_pb2_grpc

from arena import games
from arena.server.embedded import BackgroundServer
from arena.store import db
from tests.support.grpc import ADMIN, GAME, bearer, playing, register, start_bot, wait_connected


def test_registration_keeps_only_a_hash_and_names_are_unique(arena: arena_pb2_grpc.ArenaStub) -> None:
    reply = arena.RegisterBot(arena_pb2.RegisterBotRequest(name="ada", owner="tests"))
    assert len(reply.token) >= 40
    with db.transaction() as connection:
        stored = connection.execute(sa.text("select token_hash from bot_token")).scalars().all()
        dumped = "\n".join(str(r) for r in connection.execute(sa.text("select * from bot_token")).all())
    assert stored == [hashlib.sha256(reply.token.encode()).hexdigest()]
    assert reply.token not in dumped
    for name, code in [("ada", grpc.StatusCode.ALREADY_EXISTS), ("no spaces", grpc.StatusCode.INVALID_ARGUMENT),
                       ("house:x", grpc.StatusCode.INVALID_ARGUMENT), ("", grpc.StatusCode.INVALID_ARGUMENT)]:
        with pytest.raises(grpc.RpcError) as caught:
            arena.RegisterBot(arena_pb2.RegisterBotRequest(name=name))
        assert caught.value.code() == code


def test_admin_calls_need_the_admin_token(arena: arena_pb2_grpc.ArenaStub) -> None:
    request = arena_pb2.CreateTournamentRequest(games=[arena_pb2.TournamentGame(game=GAME)], bots=["random", "heuristic"])
    bot = (("authorization", f"Bearer {register(arena, 'plain-bot')}"),)
    for metadata, code in [(None, grpc.StatusCode.PERMISSION_DENIED), (bot, grpc.StatusCode.PERMISSION_DENIED),
                           ((("authorization", "Bearer wrong"),), grpc.StatusCode.UNAUTHENTICATED)]:
        with pytest.raises(grpc.RpcError) as caught:
            arena.CreateTournament(request, metadata=metadata)
        assert caught.value.code() == code
        with pytest.raises(grpc.RpcError) as caught:
            arena.RevokeBot(arena_pb2.RevokeBotRequest(name="x"), metadata=metadata)
        assert caught.value.code() == code


def test_list_games_shows_every_game_with_options(arena: arena_pb2_grpc.ArenaStub) -> None:
    listed = {g.name: g for g in arena.ListGames(arena_pb2.ListGamesRequest()).games}
    assert set(listed) == set(games.names())
    for name, info in listed.items():
        assert {o.name for o in info.options} == set(games.get(name).options)
        assert "random" in info.house_bots


def test_a_registered_bot_plays_a_rated_tournament_and_reaches_the_leaderboard(
        arena: arena_pb2_grpc.ArenaStub, server: BackgroundServer) -> None:
    token = register(arena, "wire-bot")
    bot = start_bot("bots.house_bot", server.address, token)
    try:
        wait_connected(token)
        ref = arena.CreateTournament(arena_pb2.CreateTournamentRequest(
            name="wire cup", games=[arena_pb2.TournamentGame(game=GAME, table_sizes=[2])],
            bots=["wire-bot", "random", "heuristic"], repetitions=1, rated=True, seed=5), metadata=ADMIN)
        updates = list(arena.FollowTournament(ref, timeout=240))
    finally:
        bot.terminate()
        bot.communicate(timeout=10)
    assert updates[-1].status == "done", updates[-1]
    assert updates[-1].progress[0].done == updates[-1].progress[0].total > 0
    board = arena.GetLeaderboard(arena_pb2.LeaderboardRequest(game=GAME))
    row = {r.bot: r for r in board.rows}["wire-bot"]
    assert row.matches > 0 and row.elo_low < row.elo < row.elo_high
    matches = arena.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=ref.tournament_id, bot="wire-bot")).matches
    assert matches and all("wire-bot" in m.players for m in matches)
    detail = arena.GetMatch(arena_pb2.MatchRef(match_id=matches[0].match_id))
    assert detail.decisions and {d.code for d in detail.decisions} - {"forced"} == {"ok"}


def test_a_challenge_plays_unrated_or_is_refused_at_once_when_a_bot_is_away(
        arena: arena_pb2_grpc.ArenaStub, server: BackgroundServer) -> None:
    """A seat that is not connected, the challenger's own included, is refused at once and
    named, with nothing written; before, the match was scheduled and aborted after the grace
    period."""
    absent = register(arena, "absent-bot")
    away = [(ADMIN, ["absent-bot", "house:random"]), (bearer(absent), ["absent-bot", "house:random"])]
    for metadata, players in away:
        with pytest.raises(grpc.RpcError) as refused:
            arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=players), metadata=metadata, timeout=5)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert refused.value.details().startswith("bot absent-bot is not connected"), refused.value.details()
    assert not arena.ListMatches(arena_pb2.ListMatchesRequest()).matches, "a refused challenge writes nothing"

    token = register(arena, "present-bot")
    bot = start_bot("arena_bot.examples.random_bot", server.address, token)
    try:
        wait_connected(token)
        ref = arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=["house:heuristic", "present-bot"]),
                              metadata=(("authorization", f"Bearer {token}"),))
        deadline = time.monotonic() + 60
        while arena.GetMatch(ref).summary.status != "done" and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        bot.terminate()
        bot.communicate(timeout=10)
    detail = arena.GetMatch(ref)
    assert detail.summary.status == "done" and sorted(detail.summary.ranks)[0] == 1
    assert not arena.GetLeaderboard(arena_pb2.LeaderboardRequest(game=GAME)).rows


def test_a_revoked_token_is_cut_off_at_once_and_refused_after(arena: arena_pb2_grpc.ArenaStub, server: BackgroundServer) -> None:
    token = register(arena, "doomed")
    bot = start_bot("tests.referee.rogue_bot", server.address, token, "good")
    wait_connected(token)
    assert arena.RevokeBot(arena_pb2.RevokeBotRequest(name="doomed"), metadata=ADMIN).revoked
    output = bot.communicate(timeout=30)[0].decode()
    assert '"kind": "error"' in output, "the live stream is told and closed"
    with grpc.insecure_channel(server.address) as channel:
        stub = gateway_pb2_grpc.BotGatewayStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            list(stub.Connect(iter([gateway_pb2.BotMessage(hello=gateway_pb2.Hello())]),
                              metadata=(("authorization", f"Bearer {token}"),)))
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_match_detail_and_challenge_json_carry_each_seats_strikes_and_forfeit(
        arena: arena_pb2_grpc.ArenaStub, server: BackgroundServer, capsys: pytest.CaptureFixture[str]) -> None:
    """A bot that answers every turn with an illegal action forfeits on its third strike: the
    detail and `arena challenge --json` say so by seat, beside ranks and scores."""
    from arena.cli import main

    token = register(arena, "rogue")
    with playing("tests.referee.rogue_bot", server.address, token, "illegal"):
        # A challenge's deal is random: one may end before the bot is asked a third time.
        for _ in range(4):
            code = main(["challenge", GAME, "rogue", "house:random", "--address", server.address,
                         "--token", token, "--json"])
            out, err = capsys.readouterr()
            assert code == 0, err
            result = json.loads(out)
            if result["seats"][0]["forfeited"]:
                break
            asked = [d for d in arena.GetMatch(arena_pb2.MatchRef(match_id=str(result["match"]))).decisions
                     if d.seat == 0 and d.code != "forced"]
            assert len(asked) < 3 and result["seats"][0]["strikes"] == len(asked), "every answer a strike"
    assert [(s["bot"], s["strikes"], s["forfeited"]) for s in result["seats"]] == [("rogue", 3, True), ("random", 0, False)]
    detail = arena.GetMatch(arena_pb2.MatchRef(match_id=str(result["match"])))
    assert [(s.seat, s.bot, s.strikes, s.forfeited, s.rank) for s in detail.seats] == [
        (0, "rogue", 3, True, 2), (1, "random", 0, False, 1)]
    assert [s.score for s in detail.seats] == list(detail.scores)
