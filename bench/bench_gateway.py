"""The move round trip through the referee, against its floors, in one run.

1. gRPC floor (``bench/floor.py``): a bare ``grpc.aio`` server in a process of its own and a
   raw client process on one bidirectional stream on loopback; the server sends Ping, the
   client answers Pong at once. Its latency and its server CPU per round trip.
2. Redis floor: a message through one list and back through another (LPUSH, a blocked
   BLPOP wakes, LPUSH, BLPOP), the two hops a distributed move makes; skipped without Redis.
3. The move round trip as the match runner sees it (turn handed to the player until its
   action comes back; ``Decision.ms`` is only the bot's part of it, timed at the gateway), through the real gateway, mailbox and runner, with an
   SDK bot process (``arena_bot.examples.random_bot``) in one seat: embedded (``LocalMailbox``) and
   distributed (``RedisMailbox``).

Goals ("Live bots at scale"): embedded p50 <= 1.5 x gRPC (stretch 1.2 x); distributed p50 <=
1.3 x (gRPC + Redis) (stretch 1.1 x); the round robin with two SDK bots >= 0.8 x the matches/s of
the all-house one; the server's CPU per move (all but the bot: runner and gateway, and the
gateway's own process when apart; Redis not counted) <= 3 x the floor's CPU per round trip. On a
shared machine compare the ratios of one run, and the CPU per move, which scheduling noise moves
much less.

``python -m bench gateway``; the gateway apart is ``python -m bench.bench_gateway --gateway
REDIS_URL PREFIX``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena_bot.v1 import gateway_pb2_grpc

from arena.referee import Clock, HousePlayer, run_match
from arena.referee.gateway import BotIdentity, Gateway
from arena.referee.mailbox import LocalMailbox, Mailbox, RedisMailbox
from arena.referee.remote import MatchInfo, RemotePlayer
from arena.server.embedded import BackgroundServer
from arena.server.settings import ServerSettings

from .floor import CPU_GOAL, percentiles, verdict
from .floor import measure as measure_floor

ROOT = Path(__file__).resolve().parents[1]
REDIS_URL = os.environ.get("ARENA_BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")
PINGS = 3000  # round trips of the gRPC floor
REDIS_TRIPS = 3000
MOVES = 2000  # bot decisions per mailbox
WARMUP = 100  # first samples dropped: connection set-up, caches, lazy imports
GAME = "yaniv"  # long matches: many decisions per match set-up
TOKEN = "bench-token"
BOT = BotIdentity("bench-bot", "bench")


def ServerThread(extra: list[Any]) -> BackgroundServer:  # noqa: N802 - reads like the class it builds
    """A gateway server on its own loop thread: the runner never shares the gateway's loop."""
    return BackgroundServer(ServerSettings(address="127.0.0.1:0"), extra)


def child(args: list[str], token: str = "") -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARENA_BOT_TOKEN": token}
    return subprocess.Popen([sys.executable, *args], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


# ----- 2. Redis floor ------------------------------------------------------------------------

def redis_reachable() -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5).ping())
    except (redis.RedisError, OSError):
        return False


async def redis_trips() -> list[float]:
    """A there-and-back through two lists, between two connections, as runner and gateway."""
    import redis.asyncio as aioredis

    prefix = f"bench:{uuid.uuid4().hex}:"
    there, back = prefix + "there", prefix + "back"
    runner = aioredis.from_url(REDIS_URL)
    gateway = aioredis.from_url(REDIS_URL)

    async def echo() -> None:
        for _ in range(REDIS_TRIPS + WARMUP):
            _, value = await gateway.blpop([there], timeout=10)
            await gateway.lpush(back, value)

    echoing = asyncio.create_task(echo())
    samples = []
    payload = b"x" * 1500  # about one turn message
    for _ in range(REDIS_TRIPS + WARMUP):
        sent = time.perf_counter()
        await runner.lpush(there, payload)
        await runner.blpop([back], timeout=10)
        samples.append((time.perf_counter() - sent) * 1000)
    await echoing
    await runner.delete(there, back)
    await runner.aclose()
    await gateway.aclose()
    return samples[WARMUP:]


# ----- 3. The move round trip ----------------------------------------------------------------

async def _authenticate(token: str) -> BotIdentity | None:
    return BOT if token == TOKEN else None


def cpu_seconds(*pids: int) -> tuple[float, ...]:
    """CPU seconds used so far by this process (all its threads), then by each of ``pids``
    (from ``/proc``; NaN where there is none)."""
    used = [time.process_time()]
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            used.append((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))  # utime + stime
        except (OSError, ValueError, IndexError):
            used.append(float("nan"))
    return tuple(used)


# mailbox class -> ms of CPU per bot move: here (runner, and gateway on a thread), in the bot,
# in the gateway's own process (0 when on a thread)
CPU: dict[str, tuple[float, float, float]] = {}


def move_trips(mailbox: Mailbox, gateway_apart: bool = False) -> list[float]:
    """Matches against an SDK bot process until ``MOVES`` of its decisions are timed. With
    ``gateway_apart`` (a ``RedisMailbox`` only) the gateway runs in a process of its own, as
    deployed (the referee in a worker, the gateway in ``arena serve``), not on a thread of
    this one, where it shares the interpreter lock with the runner."""
    if gateway_apart:
        assert isinstance(mailbox, RedisMailbox)
        apart = subprocess.Popen([sys.executable, "-m", "bench.bench_gateway", "--gateway", REDIS_URL, mailbox.prefix],
                                 env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE)
        address = apart.stdout.readline().decode().strip() if apart.stdout else ""
        stop = lambda: (apart.terminate(), apart.wait(10))  # noqa: E731
        others = [apart.pid]
    else:
        server = ServerThread([(gateway_pb2_grpc.add_BotGatewayServicer_to_server, Gateway(mailbox, _authenticate),
                                "arena.v1.BotGateway")])
        address, stop, others = server.address, server.stop, []
    bot = child(["-m", "arena_bot.examples.random_bot", "--address", address], token=TOKEN)
    samples: list[float] = []
    try:
        samples, before, after = asyncio.run(_connect_and_play(mailbox, bot, others))
        used = [(b - a) * 1000 / len(samples) for a, b in zip(before, after, strict=True)]
        CPU[type(mailbox).__name__ + (" apart" if gateway_apart else "")] = (used[0], used[1], sum(used[2:]))
    finally:
        bot.terminate()
        bot.wait(10)
        stop()
    return samples[WARMUP:WARMUP + MOVES]


async def _connect_and_play(mailbox: Mailbox, bot: subprocess.Popen[bytes],
                            others: list[int]) -> tuple[list[float], Any, Any]:
    """Once the bot is connected, the timed moves and the CPU used before and after them, here,
    in the bot and in ``others`` (the bot's start-up is not a move's). One loop: the Redis mailbox keeps a client per loop."""
    deadline = time.monotonic() + 30
    while await mailbox.holder(BOT.bot_id) is None:
        if time.monotonic() > deadline or bot.poll() is not None:
            raise RuntimeError("the SDK bot never connected")
        await asyncio.sleep(0.05)
    before = cpu_seconds(bot.pid, *others)
    samples = await _play_until(mailbox, MOVES + WARMUP)
    return samples, before, cpu_seconds(bot.pid, *others)


def serve_gateway(url: str, prefix: str) -> None:
    """The gateway alone in this process, on the Redis mailbox ``prefix``; prints its address
    and serves until stdin closes."""
    gateway = Gateway(RedisMailbox(url, prefix=prefix), _authenticate)
    server = ServerThread([(gateway_pb2_grpc.add_BotGatewayServicer_to_server, gateway, "arena.v1.BotGateway")])
    print(server.address, flush=True)
    sys.stdin.read()
    server.stop()


class RoundTrips(RemotePlayer):
    """The bench bot's seat, keeping each move's round trip in ms as the runner sees it."""

    trips: list[float] = []  # one list for the whole run

    async def act(self, turn: Any) -> Any:
        start = time.perf_counter()
        try:
            return await super().act(turn)
        finally:
            self.trips.append((time.perf_counter() - start) * 1000)


async def _play_until(mailbox: Mailbox, wanted: int) -> list[float]:
    """Matches until ``wanted`` decisions of the bot are timed."""
    RoundTrips.trips = samples = []
    seed = 0
    while len(samples) < wanted:
        seed += 1
        match_id = f"bench-{uuid.uuid4().hex[:8]}"
        info = MatchInfo(match_id, GAME, {}, 0, 2, ["bench", "house"], 2000, 30_000)
        players = [RoundTrips(mailbox, BOT.bot_id, info), HousePlayer(GAME, "random", 1, seed)]
        result = await run_match(GAME, players, seed, clock=Clock(), match_id=match_id)
        if set(result.codes()) - {"ok", "forced"}:  # forced: the seat's one legal action, applied unasked
            raise RuntimeError(f"the bench bot misbehaved: {result.codes()}")
    return samples


def report(name: str, samples: Sequence[float], floor: float | None = None, floor_name: str = "",
           goal: float = 1.0, stretch: float = 1.0, cpu: tuple[float, float, float] | None = None,
           floor_cpu: float = float("nan")) -> float:
    p50, p99 = percentiles(samples)
    line = f"{name:<34} p50 {p50:7.3f} ms   p99 {p99:7.3f} ms   n={len(samples)}"
    if floor is not None:
        ratio = p50 / floor
        judged = "stretch met" if ratio <= stretch else verdict(ratio, goal)
        line += (f"\n{'':<34} p50 / ({floor_name}) = {ratio:.2f} (goal <= {goal:.2f}, stretch <= {stretch:.2f}):"
                 f" {judged}")
    if cpu is not None:
        here, bot, apart = cpu
        where = (f"{here:.3f} ms here (runner), {apart:.3f} ms in the gateway's process" if apart
                 else f"{here:.3f} ms here (runner + gateway)")
        server = here + apart
        line += (f"\n{'':<34} CPU per move: {where}, {bot:.3f} ms in the bot"
                 f"\n{'':<34} server CPU per move / floor CPU per round trip = {server:.3f} / {floor_cpu:.3f} ="
                 f" {server / floor_cpu:.2f} (goal <= {CPU_GOAL:.2f}): {verdict(server / floor_cpu, CPU_GOAL)}")
    print(line, flush=True)
    return p50


def tournament_rates(repetitions: int = 3) -> tuple[float, float]:
    """Matches/s of one Crazy 8s round robin (two house bots and two SDK bot processes over
    the gateway, embedded) against the same round robin of four house bots, same run."""
    import os
    import tempfile
    import time

    from arena.cli.demo_wire import token_for
    from arena.referee import external
    from arena.server.embedded import BackgroundServer
    from arena.store import db
    from arena.store.statuses import MatchStatus
    from arena.tournaments import create_tournament
    from workers.follow import run_tournament

    saved = {k: os.environ.get(k) for k in ("ARENA_DATABASE_URL", "ARENA_REDIS_URL")}
    rates = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ARENA_DATABASE_URL"] = f"sqlite:///{tmp}/bench.db"
        os.environ.pop("ARENA_REDIS_URL", None)
        external.forget()
        server = BackgroundServer(ServerSettings(address="127.0.0.1:0"))
        bots = []
        try:
            ids = []
            for name in ("bench-wire-1", "bench-wire-2"):
                bot_id, token = token_for(name)
                ids.append(bot_id)
                bots.append(subprocess.Popen(
                    [sys.executable, "-m", "arena_bot.examples.random_bot", "--address", server.address, "--max-matches", "8"],
                    env={**os.environ, "ARENA_BOT_TOKEN": token}, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL))
            assert external.wait_connected(ids, 60), "the SDK bots did not connect"
            for lineup in (["random", "random-2", "random-3", "random-4"],
                           ["bench-wire-1", "bench-wire-2", "random", "random-2"]):
                with db.transaction() as connection:
                    tid = create_tournament(connection, ["crazy_eights"], lineup, [2], repetitions, 5, rated=True)
                started = time.perf_counter()
                status = run_tournament(tid, wait=True)
                matches = sum(g[MatchStatus.DONE] for g in status["games"].values())
                rates.append(matches / (time.perf_counter() - started))
        finally:
            for bot in bots:
                bot.terminate()
                bot.wait(10)
            server.stop()
            db.dispose_all()
            external.forget()
            for key, value in saved.items():
                if value is not None:
                    os.environ[key] = value
    return rates[0], rates[1]


def main() -> None:
    house, wire = tournament_rates()
    print(f"tournament, 4 house bots (baseline)     {house:8.1f} matches/s")
    print(f"tournament, 2 SDK bots + 2 house bots   {wire:8.1f} matches/s  = {wire / house:.2f}x the baseline "
          f"(goal >= 0.80: {'met' if wire / house >= 0.8 else 'MISSED'}; embedded; every decision of an SDK bot "
          "crosses the gateway)")
    floor = measure_floor(PINGS)
    print(floor.describe(), flush=True)
    grpc_p50 = percentiles(floor.samples)[0]
    redis_p50 = None
    if redis_reachable():
        redis_p50 = report("Redis list there-and-back (floor)", asyncio.run(redis_trips()))
    else:
        print(f"Redis floor and distributed round trip skipped: no Redis at {REDIS_URL}")
    report("move RT embedded (LocalMailbox)", move_trips(LocalMailbox()), grpc_p50, "gRPC", 1.5, 1.2,
           CPU.get("LocalMailbox"), floor.cpu_ms)
    if redis_p50 is not None:
        mailbox = RedisMailbox(REDIS_URL, prefix=f"bench:{uuid.uuid4().hex}:")
        report("move RT distributed (RedisMailbox)", move_trips(mailbox), grpc_p50 + redis_p50, "gRPC + Redis",
               1.3, 1.1, CPU.get("RedisMailbox"), floor.cpu_ms)
        mailbox = RedisMailbox(REDIS_URL, prefix=f"bench:{uuid.uuid4().hex}:")
        report("move RT distributed, gateway apart", move_trips(mailbox, gateway_apart=True),
               grpc_p50 + redis_p50, "gRPC + Redis", 1.3, 1.1, CPU.get("RedisMailbox apart"), floor.cpu_ms)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--gateway":
        serve_gateway(sys.argv[2], sys.argv[3])
    else:
        main()
