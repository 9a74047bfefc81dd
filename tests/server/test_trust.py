"""The arena as a stranger or an attacker meets it: `arena serve` on the embedded default with
a real SQLite store, real bot processes over gRPC. Nothing that rebuilds hidden state leaves
before the deal is over; who may do what follows the table in docs/operations.md; every
count has a range."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc, rules_pb2, rules_pb2_grpc

from arena import games
from arena.store import db
from arena.store.models import Match, Tournament
from arena.web import background
from arena.web.app import create_app
from tests.helpers import ARENA, ROOT
from tests.support.grpc import ADMIN, GAME, bearer, register, wait_connected

match_t = Match.__table__


def code_of(call, *args, **kwargs) -> grpc.StatusCode:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.RpcError) as caught:
        result = call(*args, **kwargs)
        if hasattr(result, "__iter__") and not hasattr(result, "ListFields"):
            list(result)
    return caught.value.code()


def test_a_spy_learns_no_deal_from_any_read_path_while_it_is_played(arena, server, tmp_path: Path) -> None:
    """Every game, two rotations of one deal (duplicate format) played one after the other:
    while the spy plays the second, the first is over. Before the fix, GetMatch and `arena
    match show` handed out the seed, and the finished rotation's transcript replayed the deal;
    then the web face and the JSON API showed the finished rotation's results. The spy asks
    every reader: the Arena service, the command line, the web pages and the JSON API."""
    token = register(arena, "spy")
    web = background.start(create_app(os.environ["ARENA_DATABASE_URL"]))
    env = {**os.environ, "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": server.address, "PYTHONPATH": str(ROOT),
           "ARENA_WEB_URL": web.url}
    # Files, not pipes: the spy prints a lot, and a full pipe would stall it mid-match.
    out_file, err_file = (tmp_path / "spy.out").open("w"), (tmp_path / "spy.err").open("w")
    spy = subprocess.Popen([sys.executable, "-m", "tests.referee.spy_bot"], env=env, cwd=ROOT,
                           stdout=out_file, stderr=err_file, text=True)
    try:
        wait_connected(token)
        ref = arena.CreateTournament(arena_pb2.CreateTournamentRequest(
            name="spy cup", games=[arena_pb2.TournamentGame(game=g, table_sizes=[2]) for g in games.names()],
            bots=["spy", "house:random"], repetitions=1, rated=True, move_deadline_ms=20_000,
            time_bank_ms=60_000), metadata=ADMIN)
        updates = list(arena.FollowTournament(ref, timeout=400))
    finally:
        spy.terminate()
        spy.wait(timeout=30)
        web.stop()
        out_file.close()
        err_file.close()
    out, err = (tmp_path / "spy.out").read_text(), (tmp_path / "spy.err").read_text()
    assert updates[-1].status == "done", (updates[-1], err[-2000:])
    probes = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    with db.read() as connection:
        seeds = dict(connection.execute(sa.select(match_t.c.id, match_t.c.seed)
                                        .where(match_t.c.tournament_id == int(ref.tournament_id))).all())
        master, key = connection.execute(sa.select(Tournament.__table__.c.seed, Tournament.__table__.c.deal_key)).one()
    assert len(probes) == len(seeds) == 2 * len(games.names()), err[-2000:]
    assert {p["game"] for p in probes} == set(games.names())
    assert any(p["decisions_of_deal"] == 0 and "match show" not in p["text"] for p in probes)
    cli_probes = [p for p in probes if "sealed until its deal is over" in p["text"]]
    assert len(cli_probes) == len(games.names()), "the command line was asked during every game's second rotation"
    for probe in probes:
        live_seed = seeds[int(probe["match"])]
        assert str(live_seed) not in probe["text"], f"{probe['game']}: the live deal's seed was served"
        assert live_seed not in probe["seeds"]
        assert probe["decisions_of_deal"] == 0, f"{probe['game']}: a transcript of the live deal was served"
        assert probe["results_of_deal"] == 0, f"{probe['game']}: a finished twin's results were served"
        assert probe["analyses_of_deal"] == 0, f"{probe['game']}: a twin of the live deal was analysed"
        assert probe["web"]
        assert not probe["rebuilt"]
        assert str(master) not in probe["text"] and key not in probe["text"]
    # Once every deal is over, everything is there to replay the matches.
    detail = arena.GetMatch(arena_pb2.MatchRef(match_id=probes[0]["match"]))
    assert not detail.sealed and detail.seed == seeds[int(probes[0]["match"])] and detail.decisions


def test_unseeded_tournaments_and_challenges_draw_unpredictable_seeds(arena) -> None:
    request = arena_pb2.CreateTournamentRequest(games=[arena_pb2.TournamentGame(game=GAME, table_sizes=[2])],
                                                bots=["house:random", "house:heuristic"])
    first, second = (arena.CreateTournament(request, metadata=ADMIN) for _ in range(2))
    for ref in (first, second):
        arena.CancelTournament(ref, metadata=ADMIN)
    with db.read() as connection:
        rows = connection.execute(sa.select(Tournament.__table__.c.id, Tournament.__table__.c.seed)).all()
        deals = connection.execute(sa.select(match_t.c.tournament_id, match_t.c.seed)).all()
    assert all(seed != 0 for _, seed in rows)
    assert len({seed for _, seed in rows}) == 2
    by_tournament = {int(first.tournament_id): set(), int(second.tournament_id): set()}
    for tid, seed in deals:
        by_tournament[tid].add(seed)
    assert not by_tournament[int(first.tournament_id)] & by_tournament[int(second.tournament_id)]


def test_challenges_need_a_seated_bot_and_only_the_admin_picks_a_deal(arena, server) -> None:
    mine = register(arena, "challenger")
    register(arena, "bystander")
    anonymous = arena_pb2.ChallengeRequest(game=GAME, players=["challenger", "house:random"])
    assert code_of(arena.Challenge, anonymous) == grpc.StatusCode.UNAUTHENTICATED
    assert code_of(arena.Challenge, anonymous, metadata=bearer("not-a-token")) == grpc.StatusCode.UNAUTHENTICATED
    others = arena_pb2.ChallengeRequest(game=GAME, players=["bystander", "house:random"])
    assert code_of(arena.Challenge, others, metadata=bearer(mine)) == grpc.StatusCode.PERMISSION_DENIED
    seeded = arena_pb2.ChallengeRequest(game=GAME, players=["challenger", "house:random"], seed=42)
    assert code_of(arena.Challenge, seeded, metadata=bearer(mine)) == grpc.StatusCode.PERMISSION_DENIED
    # Allowed, but the challenger itself is not connected: refused at once.
    assert code_of(arena.Challenge, anonymous, metadata=bearer(mine)) == grpc.StatusCode.FAILED_PRECONDITION
    # The admin may seat anyone, with a chosen deal.
    ref = arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=["random", "heuristic"], seed=42),
                          metadata=ADMIN)
    with db.read() as connection:
        assert connection.execute(sa.select(match_t.c.seed).where(match_t.c.id == int(ref.match_id))).scalar_one() == 42


def test_house_names_are_reserved_and_spelled_one_way(arena) -> None:
    for name in ("heuristic-2", "random", "random-9", "house-bot", "House", "a:b"):
        assert code_of(arena.RegisterBot, arena_pb2.RegisterBotRequest(name=name)) == grpc.StatusCode.INVALID_ARGUMENT, name
    register(arena, "random_walker")  # not a house name: allowed
    for bots in (["house:heuristic", "house:random-2"], ["heuristic", "random-2"]):
        ref = arena.CreateTournament(arena_pb2.CreateTournamentRequest(
            games=[arena_pb2.TournamentGame(game=GAME, table_sizes=[2])], bots=bots), metadata=ADMIN)
        arena.CancelTournament(ref, metadata=ADMIN)
    with db.read() as connection:
        kinds = dict(connection.execute(sa.text("select name, kind from bot")).all())
    assert kinds["heuristic"] == kinds["random-2"] == "house"
    assert "house:heuristic" not in kinds
    unknown = arena_pb2.CreateTournamentRequest(games=[arena_pb2.TournamentGame(game=GAME)], bots=["random", "nobody"])
    assert code_of(arena.CreateTournament, unknown, metadata=ADMIN) == grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.parametrize("change, message", [
    ({"repetitions": 4294967295}, "repetitions"),
    ({"repetitions": 1001}, "repetitions"),
    ({"games": []}, "at least one game"),
    ({"move_deadline_ms": 1}, "move time"),
    ({"time_bank_ms": 4_000_000_000}, "time bank"),
    ({"bots": ["house:random"] * 2}, "distinct"),
    ({"bots": ["house:random"]}, "2-"),
    ({"name": "x" * 201}, "name"),
])
def test_tournament_requests_out_of_range_are_refused_before_anything_is_built(arena, change, message) -> None:
    fields = {"games": [arena_pb2.TournamentGame(game=GAME)], "bots": ["house:random", "house:heuristic"]} | change
    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as caught:
        arena.CreateTournament(arena_pb2.CreateTournamentRequest(**fields), metadata=ADMIN)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in caught.value.details()
    assert time.monotonic() - started < 5, "refused at once, not after building the schedule"
    with db.read() as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(Tournament.__table__)).scalar_one() == 0


def test_the_match_cap_holds(arena, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_MAX_TOURNAMENT_MATCHES", "50")
    request = arena_pb2.CreateTournamentRequest(games=[arena_pb2.TournamentGame(game=GAME, table_sizes=[2])],
                                                bots=["house:random", "house:heuristic"], repetitions=26)
    assert code_of(arena.CreateTournament, request, metadata=ADMIN) == grpc.StatusCode.INVALID_ARGUMENT
    request.repetitions = 25
    arena.CancelTournament(arena.CreateTournament(request, metadata=ADMIN), metadata=ADMIN)


def test_a_deeply_nested_state_is_an_invalid_argument(server) -> None:
    nested = "[" * 100_000 + "]" * 100_000
    with grpc.insecure_channel(server.address) as channel:
        rules = rules_pb2_grpc.RulesStub(channel)
        assert code_of(rules.LegalActions, rules_pb2.StateRequest(state_json=nested)) == grpc.StatusCode.INVALID_ARGUMENT
        assert code_of(rules.NewState, rules_pb2.NewStateRequest(game=GAME, num_players=2, options_json=nested)) \
            == grpc.StatusCode.INVALID_ARGUMENT
        arena = arena_pb2_grpc.ArenaStub(channel)
        request = arena_pb2.CreateTournamentRequest(
            games=[arena_pb2.TournamentGame(game=GAME, options_json=nested)], bots=["random", "heuristic"])
        assert code_of(arena.CreateTournament, request, metadata=ADMIN) == grpc.StatusCode.INVALID_ARGUMENT


def test_list_matches_keeps_to_its_tournament(arena) -> None:
    refs = [arena.CreateTournament(arena_pb2.CreateTournamentRequest(
        games=[arena_pb2.TournamentGame(game=GAME, table_sizes=[2])], bots=["house:random", "house:heuristic"]),
        metadata=ADMIN).tournament_id for _ in range(2)]
    for tid in refs:
        arena.CancelTournament(arena_pb2.TournamentRef(tournament_id=tid), metadata=ADMIN)
    with db.read() as connection:
        expected = {tid: {str(i) for i in connection.execute(
            sa.select(match_t.c.id).where(match_t.c.tournament_id == int(tid))).scalars()} for tid in refs}
    for tid in refs:
        listed = {m.match_id for m in arena.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=tid)).matches}
        assert listed == expected[tid]
    assert code_of(arena.ListMatches, arena_pb2.ListMatchesRequest(tournament_id="t-1")) == grpc.StatusCode.INVALID_ARGUMENT


def test_repeated_bad_tokens_from_one_peer_are_slowed_down(server, monkeypatch) -> None:
    with grpc.insecure_channel(server.address) as channel:
        arena = arena_pb2_grpc.ArenaStub(channel)
        limit = server.settings.auth_failures_per_minute
        for _ in range(limit):
            assert code_of(arena.CancelTournament, arena_pb2.TournamentRef(tournament_id="1"),
                           metadata=bearer("guess")) == grpc.StatusCode.UNAUTHENTICATED
        # Even the right token is refused from this peer for the rest of the minute ...
        assert code_of(arena.CancelTournament, arena_pb2.TournamentRef(tournament_id="1"),
                       metadata=ADMIN) == grpc.StatusCode.RESOURCE_EXHAUSTED
        # ... while anonymous reads still work.
        assert arena.ListGames(arena_pb2.ListGamesRequest()).games


def test_revoking_from_the_command_line_cuts_the_bot_off_and_forfeits_its_match(
        arena, server, monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena bot revoke` only writes the store; every gateway notices within a second, ends the
    bot's stream (revoked, then UNAUTHENTICATED) and the match in play forfeits at once, long
    before the grace period a disconnected bot would get."""
    monkeypatch.setenv("ARENA_GRACE_SECONDS", "120")
    token = register(arena, "turncoat")
    env = {**os.environ, "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": server.address, "PYTHONPATH": str(ROOT)}
    bot = subprocess.Popen([sys.executable, "-m", "tests.referee.rogue_bot", "paced"], env=env, cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_connected(token)
        ref = arena.CreateTournament(arena_pb2.CreateTournamentRequest(
            games=[arena_pb2.TournamentGame(game=GAME, table_sizes=[2])], bots=["turncoat", "house:random"],
            repetitions=3), metadata=ADMIN)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not _matches(ref.tournament_id, "running"):
            time.sleep(0.05)
        assert _matches(ref.tournament_id, "running"), "a match with the bot is being played"
        revoked_at = time.monotonic()
        done = subprocess.run([ARENA, "bot", "revoke", "turncoat"],
                              env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        output = bot.communicate(timeout=30)[0]
        cut_off = time.monotonic() - revoked_at
        updates = list(arena.FollowTournament(ref, timeout=60))
        finished = time.monotonic() - revoked_at
    finally:
        bot.kill()
    events = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    assert [e["kind"] for e in events[-2:]] == ["error", "closed"] and events[-1]["code"] == "UNAUTHENTICATED"
    assert cut_off < 10, cut_off
    assert updates[-1].status == "done" and finished < 30, (updates[-1], finished)
    with db.read() as connection:
        seats = connection.execute(sa.text(
            "select match_seat.forfeited from match_seat join bot on bot.id = match_seat.bot_id "
            "where bot.name = 'turncoat'")).scalars().all()
    # At 300 ms a move no match ends before the command line is done: every one forfeits.
    assert len(seats) == 6 and sum(seats) >= 5, seats


def _matches(tournament_id: str, status: str) -> int:
    with db.read() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(match_t).where(
            match_t.c.tournament_id == int(tournament_id), match_t.c.status == status)).scalar_one()


def test_registration_is_admin_only_when_closed_and_by_default_off_loopback(tmp_path: Path, monkeypatch) -> None:
    from arena.server.embedded import BackgroundServer
    from arena.server.settings import ServerSettings
    from arena.settings import load

    assert ServerSettings(address="127.0.0.1:50051").registration_open
    assert ServerSettings(address="localhost:50051").registration_open
    assert not ServerSettings(address="0.0.0.0:50051").registration_open
    assert not ServerSettings(address="[::]:50051").registration_open
    assert ServerSettings(address="0.0.0.0:50051", registration="open").registration_open
    assert not ServerSettings.from_settings(load({"ARENA_GRPC_ADDRESS": "10.1.2.3:50051"})).registration_open
    with pytest.raises(ValueError):
        ServerSettings.from_settings(load({"ARENA_REGISTRATION": "sometimes"}))

    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'closed.db'}")
    monkeypatch.delenv("ARENA_REDIS_URL", raising=False)
    closed = BackgroundServer(ServerSettings(address="127.0.0.1:0", admin_token="admin-secret", registration="admin"))
    try:
        with grpc.insecure_channel(closed.address) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            request = arena_pb2.RegisterBotRequest(name="newcomer")
            assert code_of(stub.RegisterBot, request) == grpc.StatusCode.PERMISSION_DENIED
            assert stub.RegisterBot(request, metadata=ADMIN).token
            token = stub.RegisterBot(arena_pb2.RegisterBotRequest(name="second"), metadata=ADMIN).token
            # A bot's token is not the admin's: it cannot register others either.
            assert code_of(stub.RegisterBot, arena_pb2.RegisterBotRequest(name="third"),
                           metadata=bearer(token)) == grpc.StatusCode.PERMISSION_DENIED
    finally:
        closed.stop()
        db.dispose_all()


def test_huge_names_get_a_clear_error_not_a_dropped_stream(arena) -> None:
    huge = "x" * 100_000
    for call, request in [
        (arena.CreateTournament, arena_pb2.CreateTournamentRequest(
            games=[arena_pb2.TournamentGame(game=GAME)], bots=["random", huge])),
        (arena.CreateTournament, arena_pb2.CreateTournamentRequest(
            games=[arena_pb2.TournamentGame(game=huge)], bots=["random", "heuristic"])),
        (arena.GetMatch, arena_pb2.MatchRef(match_id=huge)),
        (arena.CancelTournament, arena_pb2.TournamentRef(tournament_id=huge)),
    ]:
        code = code_of(call, request, metadata=ADMIN)
        assert code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND), code


def test_revocation_reaches_every_gateway(shared_redis: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two `arena serve` gateways on one Redis and one store: a token revoked straight in the
    store (no RPC at all) ends the streams on both within seconds."""
    import uuid

    from arena.referee import external
    from arena.server.embedded import BackgroundServer
    from arena.server.settings import ServerSettings
    from arena.store import bot_tokens

    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'arena.db'}")
    monkeypatch.setenv("ARENA_REDIS_URL", shared_redis)
    monkeypatch.setenv("ARENA_MAILBOX_PREFIX", f"test:{uuid.uuid4().hex}:")
    external.forget()
    gateways = [BackgroundServer(ServerSettings(address="127.0.0.1:0", admin_token="admin-secret")) for _ in range(2)]
    bots = []
    try:
        with db.transaction() as connection:
            tokens = [bot_tokens.register(connection, f"far-{i}").token for i in range(2)]
        for token, gateway in zip(tokens, gateways, strict=True):
            env = {**os.environ, "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": gateway.address, "PYTHONPATH": str(ROOT)}
            bots.append(subprocess.Popen([sys.executable, "-m", "tests.referee.rogue_bot", "good"], env=env, cwd=ROOT,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        for token in tokens:
            wait_connected(token)
        started = time.monotonic()
        with db.transaction() as connection:
            for i in range(2):
                bot_tokens.revoke(connection, f"far-{i}")
        outputs = [bot.communicate(timeout=30)[0] for bot in bots]
        elapsed = time.monotonic() - started
    finally:
        for bot in bots:
            bot.kill()
        for gateway in gateways:
            gateway.stop()
        external.forget()
        db.dispose_all()
    for output in outputs:
        events = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
        assert [e["kind"] for e in events[-2:]] == ["error", "closed"], events[-3:]
        assert events[-1]["code"] == "UNAUTHENTICATED"
    assert elapsed < 10, elapsed
