"""A bot cannot steer another bot: `arena serve` on the embedded default with a real SQLite
store and real SDK bot processes. A challenge seats another bot only while it is connected
and its Hello's policy accepts the game and the challenger; a bot's challenge clock, rate and
number at once are bounded by the server's settings; and a challenge never holds a bot's
rated matches back, however slowly its challenger plays."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.server.embedded import BackgroundServer
from arena.server.settings import ServerSettings
from arena.store import db
from arena.store.models import Match
from tests.helpers import ROOT
from tests.support.grpc import ADMIN, GAME, bearer, register, start_bot, wait_connected

match_t = Match.__table__
OTHER_GAME = "durak"


@pytest.fixture
def server_settings() -> ServerSettings:
    """Room for a burst of eleven challenges at once; the rest as shipped."""
    return ServerSettings(address="127.0.0.1:0", admin_token="admin-secret", challenges_at_once=20)


def refusal(call, *args, **kwargs) -> grpc.RpcError:  # type: ignore[no-untyped-def]
    """The error ``call(*args, **kwargs)`` fails with."""
    with pytest.raises(grpc.RpcError) as caught:
        call(*args, **kwargs)
    return caught.value


def challenge_rows() -> int:
    with db.read() as connection:
        return int(connection.execute(sa.select(sa.func.count()).select_from(match_t)
                                      .where(match_t.c.tournament_id.is_(None))).scalar_one())


def status(arena: arena_pb2_grpc.ArenaStub, ref: arena_pb2.MatchRef) -> str:
    return str(arena.GetMatch(ref).summary.status)


def stop(process: subprocess.Popen) -> None:  # type: ignore[type-arg]
    process.terminate()
    process.communicate(timeout=30)


def connected(address: str, *tokens: str) -> list[subprocess.Popen]:  # type: ignore[type-arg]
    """Real SDK bots for ``tokens``, each connected before this returns: a challenge seats only
    connected bots, the challenger among them."""
    bots = [start_bot("arena_bot.examples.random_bot", address, token) for token in tokens]
    for token in tokens:
        wait_connected(token)
    return bots


class Staller:
    """A real SDK bot process that waits ``stall`` seconds before each decision; its output goes
    to a file, where ``wait_for_turn`` looks for the first turn of a match."""

    def __init__(self, address: str, token: str, stall: float, log: Path) -> None:
        self.log = log
        env = {**os.environ, "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": address, "PYTHONPATH": str(ROOT)}
        with log.open("w") as out:
            # Asked every decision: a match of its cannot end before its first stall is over
            # (with forced decisions applied for it, it might never be asked in a short match).
            self.process = subprocess.Popen([sys.executable, "-m", "tests.referee.stalling_bot", "--stall", str(stall),
                                             "--every-decision"],
                                            env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)

    def wait_for_turn(self, match_id: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while f"turn {match_id}\n" not in self.log.read_text():
            assert time.monotonic() < deadline and self.process.poll() is None, self.log.read_text()[-2000:]
            time.sleep(0.1)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def test_a_bot_is_seated_only_while_connected_and_with_its_consent(
        arena: arena_pb2_grpc.ArenaStub, server: BackgroundServer) -> None:
    """Before the fix, every one of these challenges was accepted and seated its bot."""
    alice, carol = register(arena, "alice"), register(arena, "carol")
    picky, shy = register(arena, "picky"), register(arena, "shy")

    def ask(token: str, game: str, *players: str) -> arena_pb2.MatchRef:
        return arena.Challenge(arena_pb2.ChallengeRequest(game=game, players=list(players)), metadata=bearer(token))

    def refused(token: str, game: str, *players: str) -> str:
        error = refusal(ask, token, game, *players)
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error.details()
        return str(error.details())

    assert refused(alice, GAME, "picky", "alice") == (
        "bot picky is not connected: a challenge seats only a connected bot that accepts it")
    assert refused(alice, GAME, "alice", "house:random") == (
        "bot alice is not connected: a challenge seats only a connected bot that accepts it")
    bots = connected(server.address, alice, carol) + [start_bot("arena_bot.examples.random_bot", server.address, shy),  # the default: declines
            start_bot("arena_bot.examples.random_bot", server.address, picky, "--accept-challenges",
                      "--challenge-games", GAME, "--challenge-from", "Carol")]
    try:
        wait_connected(shy)
        wait_connected(picky)
        assert refused(alice, GAME, "alice", "shy") == "bot shy does not accept challenges"
        assert refused(alice, GAME, "alice", "picky") == "bot picky does not accept challenges from alice"
        assert refused(carol, OTHER_GAME, "carol", "picky") == f"bot picky does not accept challenges for {OTHER_GAME}"
        assert refused(carol, GAME, "carol", "house:random", "shy") == "bot shy does not accept challenges"
        assert challenge_rows() == 0, "a refused challenge leaves no match behind"
        accepted = ask(carol, GAME, "picky", "carol")  # names compared case-insensitively
        assert accepted.match_id
        # The admin seats any bot, consent or not (docs/operations.md).
        seated = arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=["shy", "house:random"]),
                                 metadata=ADMIN)
        deadline = time.monotonic() + 60
        while status(arena, seated) in ("scheduled", "running") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert status(arena, seated) == "done"
    finally:
        for bot in bots:
            stop(bot)
    assert challenge_rows() == 2


def test_a_bots_challenge_clock_is_bounded_by_the_settings(arena: arena_pb2_grpc.ArenaStub,
                                                           server: BackgroundServer) -> None:
    """Before the fix a bot could hold its opponents for 600 s a move and a 3,600 s bank."""
    alice = register(arena, "alice")
    bots = connected(server.address, alice)

    def ask(move_ms: int, bank_ms: int, token: str = alice) -> arena_pb2.MatchRef:
        return arena.Challenge(arena_pb2.ChallengeRequest(
            game=GAME, players=["alice", "house:random"], move_deadline_ms=move_ms, time_bank_ms=bank_ms),
            metadata=bearer(token))

    too_slow = refusal(ask, 10_001, 30_000)
    assert too_slow.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "at most 10 s" in too_slow.details() and "ARENA_CHALLENGE_MOVE_SECONDS" in too_slow.details()
    too_rich = refusal(ask, 2_000, 60_001)
    assert too_rich.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "at most 60 s" in too_rich.details() and "ARENA_CHALLENGE_BANK_SECONDS" in too_rich.details()
    assert challenge_rows() == 0
    try:
        ask(10_000, 60_000)
        ask(600_000, 3_600_000, token="admin-secret")  # the admin has the tournaments' limits
    finally:
        for bot in bots:
            stop(bot)
    with db.read() as connection:
        clocks = connection.execute(sa.select(match_t.c.clock_move, match_t.c.clock_bank).order_by(match_t.c.id)).all()
    assert [tuple(c) for c in clocks] == [(10.0, 60.0), (600.0, 3600.0)]


def test_the_eleventh_challenge_in_a_burst_is_refused_with_a_retry_hint(arena: arena_pb2_grpc.ArenaStub,
                                                                      server: BackgroundServer) -> None:
    """Before the fix 100 challenges from one bot were accepted in half a second."""
    alice, bob = register(arena, "alice"), register(arena, "bob")
    bots = connected(server.address, alice, bob)
    try:
        burst(arena, alice, bob)
    finally:
        for bot in bots:
            stop(bot)


def burst(arena: arena_pb2_grpc.ArenaStub, alice: str, bob: str) -> None:
    request = arena_pb2.ChallengeRequest(game=GAME, players=["alice", "house:random"])
    accepted = [arena.Challenge(request, metadata=bearer(alice)) for _ in range(10)]
    assert len({ref.match_id for ref in accepted}) == 10
    for _ in range(3):
        error = refusal(arena.Challenge, request, metadata=bearer(alice))
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error.details().startswith("at most 10 challenges a minute: try again in ")
        assert 0 < int(error.details().rsplit(" ", 2)[1]) <= 60
    assert challenge_rows() == 10, "no refused challenge created a match"
    # Another bot has a budget of its own; the admin has none.
    assert arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=["bob", "house:random"]),
                           metadata=bearer(bob)).match_id
    assert arena.Challenge(request, metadata=ADMIN).match_id


@pytest.mark.parametrize("server_settings", [ServerSettings(address="127.0.0.1:0", admin_token="admin-secret",
                                                            challenges_at_once=2)])
def test_challenges_at_once_are_bounded_for_the_challenger_and_by_the_challenged(
        arena: arena_pb2_grpc.ArenaStub, server: BackgroundServer, tmp_path: Path) -> None:
    """Unfinished challenges: at most ARENA_CHALLENGES_AT_ONCE for the bot asking, at most
    its policy's max_at_once for a bot accepting."""
    alice, bob = register(arena, "alice"), register(arena, "bob")
    slow = Staller(server.address, alice, 8, tmp_path / "alice.log")
    sparring = start_bot("arena_bot.examples.random_bot", server.address, bob, "--accept-challenges", "--max-challenges", "1")
    try:
        wait_connected(alice)
        wait_connected(bob)

        def ask(*players: str) -> arena_pb2.MatchRef:
            return arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=list(players),
                                                              move_deadline_ms=10_000), metadata=bearer(alice))

        first = ask("alice", "bob")
        full = refusal(ask, "bob", "alice")
        assert full.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert full.details() == ("bot bob is seated in 1 unfinished challenges, the most it may be at once: "
                                  "try again when one is over")
        ask("alice", "house:random")
        mine = refusal(ask, "alice", "house:heuristic")
        assert mine.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert mine.details().startswith("bot alice is seated in 2 unfinished challenges")
        assert challenge_rows() == 2
        assert status(arena, first) in ("scheduled", "running")
    finally:
        slow.stop()
        stop(sparring)


def test_a_challenge_never_delays_the_seated_bots_rated_matches(
        arena: arena_pb2_grpc.ArenaStub, server: BackgroundServer, tmp_path: Path) -> None:
    """Bob plays one match at a time and accepts challenges; Alice challenges him and takes 8 s
    a move. Before the fix the challenge took Bob's only slot, and his rated matches waited
    for it to end (or forfeited when he left)."""
    alice, bob = register(arena, "alice"), register(arena, "bob")
    slow = Staller(server.address, alice, 8, tmp_path / "alice.log")
    sparring = start_bot("arena_bot.examples.random_bot", server.address, bob, "--max-matches", "1", "--accept-challenges")
    try:
        wait_connected(alice)
        wait_connected(bob)
        ref = arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=["bob", "alice"],
                                                         move_deadline_ms=10_000, time_bank_ms=60_000),
                              metadata=bearer(alice))
        slow.wait_for_turn(ref.match_id)  # both seats are in: the match has begun
        cup = arena.CreateTournament(arena_pb2.CreateTournamentRequest(
            name="rated", games=[arena_pb2.TournamentGame(game=GAME, table_sizes=[2])],
            bots=["bob", "house:random"], repetitions=1, rated=True), metadata=ADMIN)
        final = list(arena.FollowTournament(cup, timeout=120))[-1]
        still = status(arena, ref)
        rated = arena.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=cup.tournament_id)).matches
    finally:
        slow.stop()
        stop(sparring)
    assert final.status == "done", final
    assert still == "running", "the challenge was still being played"
    assert len(rated) == 2
    for summary in rated:
        detail = arena.GetMatch(arena_pb2.MatchRef(match_id=summary.match_id))
        seat = list(summary.players).index("bob")
        assert summary.status == "done" and detail.decisions
        assert {d.code for d in detail.decisions if d.seat == seat} - {"forced"} == {"ok"}, "bob played every move himself"


def test_every_server_sees_a_bots_policy_and_a_challengers_budget(
        shared_redis: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two `arena serve` on one Redis and one store: Bob connects to the first, Alice asks the
    second. The policy is read from beside Bob's presence in Redis, and Alice's challenges
    are counted there too, whichever server she asks."""
    import threading
    import uuid

    from arena.referee import external

    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'arena.db'}")
    monkeypatch.setenv("ARENA_REDIS_URL", shared_redis)
    monkeypatch.setenv("ARENA_MAILBOX_PREFIX", f"test:{uuid.uuid4().hex}:")
    monkeypatch.setenv("ARENA_GRACE_SECONDS", "1.5")
    external.forget()
    servers = [BackgroundServer(ServerSettings(address="127.0.0.1:0", admin_token="admin-secret",
                                               challenges_at_once=20)) for _ in range(2)]
    bob, bots = None, []
    try:
        with grpc.insecure_channel(servers[0].address) as first, grpc.insecure_channel(servers[1].address) as second:
            near, far = arena_pb2_grpc.ArenaStub(first), arena_pb2_grpc.ArenaStub(second)
            alice, bob_token = register(near, "alice"), register(near, "bob")
            bob = start_bot("arena_bot.examples.random_bot", servers[0].address, bob_token, "--accept-challenges",
                            "--challenge-games", GAME, "--max-challenges", "5")
            wait_connected(bob_token)
            bots = connected(servers[1].address, alice)

            def ask(stub: arena_pb2_grpc.ArenaStub, game: str, *players: str) -> arena_pb2.MatchRef:
                return stub.Challenge(arena_pb2.ChallengeRequest(game=game, players=list(players)),
                                      metadata=bearer(alice))

            declined = refusal(ask, far, OTHER_GAME, "alice", "bob")
            assert declined.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert declined.details() == f"bot bob does not accept challenges for {OTHER_GAME}"
            accepted = [ask(far, GAME, "alice", "bob")]
            accepted += [ask(stub, GAME, "alice", "house:random") for stub in (near, far) for _ in range(4)]
            # Alice's tenth of the minute: the refused one counted too, on the far server.
            burst = refusal(ask, near, GAME, "alice", "house:random")
            assert burst.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, burst.details()
            assert "try again in" in burst.details()
            assert len(accepted) == 9 and challenge_rows() == 9
    finally:
        for process in [p for p in (bob, *bots) if p is not None]:
            stop(process)
        for server in servers:
            server.stop()
        for thread in threading.enumerate():
            if thread.name.startswith("challenge-"):
                thread.join(60)
        external.forget()
        db.dispose_all()


def test_a_policy_too_large_to_keep_ends_the_stream(arena: arena_pb2_grpc.ArenaStub,
                                                     server: BackgroundServer) -> None:
    """The policy is read on every challenge that names the bot: it stays small."""
    from arena_bot.v1 import gateway_pb2, gateway_pb2_grpc

    token = register(arena, "chatty")
    policy = gateway_pb2.ChallengePolicy(accept=True, from_bots=[f"bot-{n}" for n in range(1001)])
    hello = gateway_pb2.BotMessage(hello=gateway_pb2.Hello(client="tests", challenges=policy))
    with grpc.insecure_channel(server.address) as channel:
        stream = gateway_pb2_grpc.BotGatewayStub(channel).Connect(iter([hello]), metadata=bearer(token), timeout=30)
        error = refusal(list, stream)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details() == "challenges.from_bots: at most 1000 names of at most 200 characters"
