"""One test per way a bot can misbehave, each over a real gateway with a real bot process, on
the in-process mailbox and on the Redis one: the defined outcome happens, the match still
completes, nothing else is disturbed."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from typing import Any

import grpc
import pytest
from arena_bot.v1 import gateway_pb2, gateway_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.referee import Clock, HousePlayer, run_match
from arena.referee.mailbox import Mailbox
from tests.helpers import wait_until
from tests.support.grpc import (
    GAME,
    ServerThread,
    ended,
    finish,
    live_matches,
    move_results,
    remote,
    run_with,
    start_bot,
    wait_online,
)

# The whole suite runs on each mailbox: in-process, and Redis (as between machines).
pytestmark = pytest.mark.parametrize("gateway", ["local", "redis"], indirect=True)

FAST = Clock(move=0.3, bank=0.3, strikes=3)
LONG_GAME = "durak"  # random matches of about a hundred decisions


def play(mailbox: Mailbox, clock: Clock = FAST, match_id: str = "m", grace: float = 1.0,
         bot_id: str = "1", game: str = GAME) -> Any:
    return run_with(mailbox, lambda box: run_match(
        game, [remote(box, bot_id, match_id, 0, grace=grace, game=game), HousePlayer(game, "random", 1, 3)], 3,
        clock=clock, match_id=match_id))


def rogue(server: ServerThread, mailbox: Mailbox, mode: str, token: str = "tok-alice",
          bot_id: str = "1") -> subprocess.Popen[bytes]:
    bot = start_bot("tests.referee.rogue_bot", server.address, token, mode)
    wait_online(mailbox, bot_id)
    return bot


def seat0_codes(result: Any) -> list[str]:
    """The codes of the decisions seat 0 was asked for (forced ones are never asked)."""
    return [d.code for d in result.decisions if d.seat == 0 and d.code != "forced"]


def assert_forfeited_after_three(result: Any, code: str) -> None:
    codes = seat0_codes(result)
    assert codes[:3] == [code] * 3, codes
    assert set(codes[3:]) <= {"forfeited"}
    assert result.forfeited[0] and result.ranks[0] == 2 and result.ranks[1] == 1


def test_a_bot_past_its_deadline_times_out_and_forfeits(gateway: tuple[ServerThread, Mailbox]) -> None:
    server, mailbox = gateway
    bot = rogue(server, mailbox, "slow")
    result = play(mailbox)
    events = finish(bot, lambda got: len(move_results(got)) >= 3, "three move results")
    assert_forfeited_after_three(result, "timeout")
    assert move_results(events)[:3] == ["TIMEOUT"] * 3


def test_a_late_reply_is_discarded_never_applied_later(gateway: tuple[ServerThread, Mailbox]) -> None:
    server, mailbox = gateway
    bot = rogue(server, mailbox, "late")
    result = play(mailbox)
    events = finish(bot, lambda got: "LATE" in move_results(got), "a late answer's result")
    assert "ok" not in seat0_codes(result)
    assert "LATE" in move_results(events)


@pytest.mark.parametrize(("mode", "code"), [("illegal", "illegal"), ("malformed", "malformed")])
def test_bad_moves_strike_three_times_then_forfeit(gateway: tuple[ServerThread, Mailbox],
                                                   mode: str, code: str) -> None:
    server, mailbox = gateway
    bot = rogue(server, mailbox, mode)
    result = play(mailbox, Clock(move=2, bank=2, strikes=3))
    events = finish(bot, ended, "the match's end")
    assert_forfeited_after_three(result, code)
    assert move_results(events)[:3] == [code.upper()] * 3
    # MatchEnded says so, and names the game and seat (a bot back after a forfeit never saw
    # the match start on its new stream).
    endings = [e for e in events if e["kind"] == "match_ended"]
    assert endings and endings[-1]["forfeited"] is True
    assert endings[-1]["game"] == GAME and endings[-1]["seat"] == 0 and endings[-1]["players"] == ["alice", "house"]


def test_an_oversized_message_closes_the_stream_and_the_bot_forfeits(gateway: tuple[ServerThread, Mailbox]) -> None:
    server, mailbox = gateway
    bot = rogue(server, mailbox, "oversized")
    result = play(mailbox, Clock(move=5, bank=5), grace=0.5)
    events = finish(bot, lambda got: any(e["kind"] == "closed" for e in got), "the stream's end")
    assert {"kind": "closed", "code": "RESOURCE_EXHAUSTED"} in events
    assert seat0_codes(result)[0] == "disconnected" and result.forfeited[0]


@pytest.mark.parametrize("mode", ["wrong_match", "wrong_turn", "replay"])
def test_moves_for_the_wrong_match_or_turn_or_replayed_are_rejected(
        gateway: tuple[ServerThread, Mailbox], mode: str) -> None:
    server, mailbox = gateway
    bot = rogue(server, mailbox, mode)
    result = play(mailbox, Clock(move=2, bank=2))
    events = finish(bot, ended, "the match's end")
    assert set(seat0_codes(result)) == {"ok"}, "the right moves still count"
    assert "REJECTED" in move_results(events)


def test_a_move_replayed_after_its_result_is_rejected_not_late(gateway: tuple[ServerThread, Mailbox]) -> None:
    """docs/protocol.md: an answer to a turn already answered is REJECTED as a replay, also once
    its result is in (LATE is for turns the referee decided without the bot)."""
    server, mailbox = gateway
    bot = rogue(server, mailbox, "replay_after")
    result = play(mailbox, Clock(move=2, bank=2))
    codes = move_results(finish(bot, ended, "the match's end"))
    assert set(seat0_codes(result)) == {"ok"}
    ok = codes.count("OK")
    assert ok > 1
    assert codes.count("REJECTED") >= ok - 1
    assert "LATE" not in codes


@pytest.mark.parametrize("implied", [False, True])
def test_ok_results_are_left_out_for_a_bot_that_asks_and_every_other_result_still_comes(
        gateway: tuple[ServerThread, Mailbox], implied: bool) -> None:
    """docs/protocol.md, section 6: with ``Hello.ok_implied`` a move applied as sent gets no
    MoveResult (its next turn says as much), while an illegal one is still told; without it,
    every turn the bot answered gets its result."""
    server, mailbox = gateway
    bot = rogue(server, mailbox, "illegal_once,ok_implied" if implied else "illegal_once")
    result = play(mailbox, Clock(move=2, bank=2))
    events = finish(bot, ended, "the match's end")
    codes = seat0_codes(result)
    assert codes[0] == "illegal" and len(codes) > 2 and set(codes[1:]) == {"ok"}, codes
    turns = {(e["match"], e["turn"]) for e in events if e["kind"] == "turn"}
    assert len(turns) == len(codes), "every decision it was asked for reached it"
    expected = ["ILLEGAL"] + ([] if implied else ["OK"] * (len(codes) - 1))
    assert move_results(events) == expected


def test_a_replaced_stream_is_told_and_ends_with_aborted(gateway: tuple[ServerThread, Mailbox]) -> None:
    """gateway.proto: a final GatewayError ends the stream with a gRPC status too."""
    server, mailbox = gateway
    first = rogue(server, mailbox, "good")
    second = start_bot("tests.referee.rogue_bot", server.address, "tok-alice", "good")
    try:
        output = first.communicate(timeout=30)[0].decode()
    finally:
        second.terminate()
        second.communicate(timeout=10)
    events = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    assert [e["kind"] for e in events[-2:]] == ["error", "closed"], events[-3:]
    assert events[-1]["code"] == "ABORTED"


def test_moves_by_index_are_accepted(gateway: tuple[ServerThread, Mailbox]) -> None:
    server, mailbox = gateway
    bot = rogue(server, mailbox, "index")
    result = play(mailbox, Clock(move=2, bank=2))
    finish(bot)
    assert set(seat0_codes(result)) == {"ok"}
    assert all(d.action for d in result.decisions)


def test_another_bots_token_cannot_act_for_a_seat(gateway: tuple[ServerThread, Mailbox]) -> None:
    server, mailbox = gateway
    alice = rogue(server, mailbox, "slow")
    holder: dict[str, Any] = {}
    runner = threading.Thread(target=lambda: holder.setdefault("r", play(mailbox, match_id="target")))
    runner.start()
    wait_until(lambda: live_matches(mailbox, "1") == 1, 20, 0.02, "alice's match to start")
    bob = rogue(server, mailbox, "hijack:target", token="tok-bob", bot_id="2")
    runner.join(60)
    events = finish(bob, move_results, "a result of bob's moves")
    finish(alice)
    assert "ok" not in seat0_codes(holder["r"]), "bob's moves were applied to alice's seat"
    assert set(move_results(events)) == {"REJECTED"}


@pytest.mark.parametrize("token", [None, "", "tok-unknown"])
def test_missing_or_wrong_tokens_are_unauthenticated(gateway: tuple[ServerThread, Mailbox],
                                                      token: str | None) -> None:
    server, _ = gateway
    with grpc.insecure_channel(server.address) as channel:
        stub = gateway_pb2_grpc.BotGatewayStub(channel)
        metadata = None if token is None else (("authorization", f"Bearer {token}"),)
        hello = iter([gateway_pb2.BotMessage(hello=gateway_pb2.Hello())])
        with pytest.raises(grpc.RpcError) as caught:
            list(stub.Connect(hello, metadata=metadata))
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_a_bot_killed_mid_match_forfeits_after_the_grace_period(gateway: tuple[ServerThread, Mailbox]) -> None:
    server, mailbox = gateway
    bot = rogue(server, mailbox, "die_after_3")
    result = play(mailbox, Clock(move=5, bank=5), grace=0.5)
    bot.wait(10)
    codes = seat0_codes(result)
    assert codes[:2] == ["ok", "ok"] and "disconnected" in codes
    assert result.forfeited[0] and result.ranks[0] == 2


def test_a_bot_that_reconnects_within_grace_gets_its_turn_again(gateway: tuple[ServerThread, Mailbox]) -> None:
    server, mailbox = gateway
    first = rogue(server, mailbox, "die_after_3")
    holder: dict[str, Any] = {}
    runner = threading.Thread(target=lambda: holder.setdefault(
        "r", play(mailbox, Clock(move=10, bank=10), grace=10)))
    runner.start()
    first.wait(20)
    second = start_bot("tests.referee.rogue_bot", server.address, "tok-alice", "good")
    runner.join(60)
    finish(second)
    codes = seat0_codes(holder["r"])
    assert set(codes) - {"forced"} == {"ok"}, codes
    assert not holder["r"].forfeited[0]


def test_a_bot_that_never_shows_up_forfeits(gateway: tuple[ServerThread, Mailbox]) -> None:
    _, mailbox = gateway
    result = play(mailbox, Clock(move=5, bank=5), grace=0.3, bot_id="absent")
    assert seat0_codes(result)[0] == "disconnected"
    assert result.forfeited[0] and result.ranks == [2, 1]


def test_a_flood_of_streams_leaves_one_live_and_the_server_healthy(gateway: tuple[ServerThread, Mailbox]) -> None:
    """Twelve processes connect with one token at once: each newer stream replaces the
    older, exactly one stays, and it plays normally."""
    server, mailbox = gateway
    bots = [start_bot("tests.referee.rogue_bot", server.address, "tok-alice", "good") for _ in range(12)]
    wait_until(lambda: sum(b.poll() is not None for b in bots) >= len(bots) - 1, 90,
               what="every stream but one to be replaced")
    gone = [b for b in bots if b.poll() is not None]
    assert len(gone) == len(bots) - 1, "every stream but the newest is closed"
    for bot in gone:
        assert {"kind": "error"} in finish(bot), "a replaced stream is told why"
    result = play(mailbox, Clock(move=2, bank=2))
    for bot in bots:
        finish(bot)
    assert set(seat0_codes(result)) == {"ok"}
    with grpc.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert health.status == health_pb2.HealthCheckResponse.SERVING


@pytest.mark.parametrize("granted", [1, 2])
def test_a_bot_plays_no_more_matches_at_once_than_it_asked_for(gateway: tuple[ServerThread, Mailbox],
                                                                granted: int) -> None:
    server, mailbox = gateway
    bot = start_bot("arena_bot.examples.random_bot", server.address, "tok-alice", "--max-matches", str(granted))
    wait_online(mailbox, "1")
    most = 0
    results: dict[str, Any] = {}
    runners = [threading.Thread(target=lambda m=m: results.setdefault(m, play(mailbox, Clock(move=5, bank=5),
                                                                           match_id=m, grace=10)))
               for m in ("a", "b")]
    for runner in runners:
        runner.start()
    # Sampling how many matches the bot is in while they play is the measurement itself.
    while any(r.is_alive() for r in runners):
        most = max(most, live_matches(mailbox, "1"))
        time.sleep(0.001)
    finish(bot)
    assert most == granted
    assert all(set(seat0_codes(r)) == {"ok"} for r in results.values())


def test_waiting_for_a_match_slot_does_not_cost_the_bot_its_clock(gateway: tuple[ServerThread, Mailbox]) -> None:
    """A bot that plays one match at a time: the second match waits for the first to end
    before its clock starts, so a wait far longer than the clock costs no strike."""
    server, mailbox = gateway
    bot = rogue(server, mailbox, "one_at_a_time")
    # A tight clock, with a bank for a loaded machine's slow moves, and a game of many moves:
    # a match lasts longer than the clock's move and bank together.
    tight = Clock(move=0.12, bank=0.5)
    results: dict[str, Any] = {}
    runners = [threading.Thread(target=lambda m=m: results.setdefault(
        m, play(mailbox, tight, match_id=m, grace=10, game=LONG_GAME))) for m in ("first", "second")]
    for runner in runners:
        runner.start()
    for runner in runners:
        runner.join(120)
    finish(bot)
    # The later match waited while the earlier one played (its duration counts from the start
    # of its clock): longer than a whole move and bank.
    assert min(r.duration for r in results.values()) > tight.move + tight.bank
    for result in results.values():
        assert set(seat0_codes(result)) <= {"ok", "forced"}, sorted(set(seat0_codes(result)))


def test_a_good_move_is_answered_by_the_gateway_and_the_runner_sends_nothing_more(
        gateway: tuple[ServerThread, Mailbox]) -> None:
    """A legal move in time: the gateway tells the bot OK at once (the action applied, the time
    charged, the strikes so far) and settles the turn with the move; the runner applies it and
    sends no result of its own. A bad move is still judged and answered by the runner."""
    server, mailbox = gateway
    bot = rogue(server, mailbox, "illegal_once")
    settled: list[Any] = []  # the results the runner delivered itself

    async def watched(box: Mailbox) -> Any:
        runner_settle = box.settle

        async def settle(bot_id: str, match_id: str, turn_id: int, result: Any = None) -> None:
            settled.append(result)
            await runner_settle(bot_id, match_id, turn_id, result)

        box.settle = settle  # type: ignore[method-assign]
        players = [remote(box, "1", "m", 0), HousePlayer(GAME, "random", 1, 3)]
        return await run_match(GAME, players, 3, clock=Clock(move=2, bank=2), match_id="m")

    result = run_with(mailbox, watched)
    events = finish(bot, ended, "the match's end")
    mine = [d for d in result.decisions if d.seat == 0 and d.code != "forced"]
    results = [e for e in events if e.get("kind") == "move_result"]
    answers = {e["turn"]: e for e in results}
    assert [d.code for d in mine][:1] == ["illegal"] and {d.code for d in mine[1:]} == {"ok"}
    assert sorted(e["turn"] for e in results) == [d.turn for d in mine], "one result per turn asked, no second"
    for decision in mine[1:]:
        answer = answers[decision.turn]
        assert (answer["code"], answer["applied"], answer["strikes"]) == ("OK", decision.action, 1)
        assert answer["latency_ms"] == int(decision.ms)
    assert answers[mine[0].turn]["code"] == "ILLEGAL"
    assert [r["code"] for r in settled if r is not None] == ["ILLEGAL"], "the runner answered the bad move only"
    assert run_with(mailbox, lambda box: box.pending_turns("1")) == [], "no turn left pending"
