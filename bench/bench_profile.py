"""Where one external move's CPU goes, stage by stage, in each server process.

The distributed move round trip of ``bench gateway`` (a runner here, the gateway in a process
of its own, one SDK bot process, the Redis mailbox), twice: once plain, for each process's CPU
per move (from ``/proc``), and once under ``cProfile`` with a per-thread CPU clock on each
process's event-loop thread, for how that CPU divides. Each function's own time is put in a
stage by the module it belongs to; a stage's share of the profile, times the plain run's CPU
per move, is its microseconds of CPU per move. The profiler's own cost falls on every Python
call alike, so shares of the C parts (gRPC's core, the JSON and protobuf codecs) are
understated and those of many small Python calls overstated: read the table as where to look,
not to the microsecond. Work outside the loop thread (gRPC's own threads, the runner's desk
listener when apart) shows in the process total but not in the stages: the ``rest`` line.

Baseline of the same run: the gRPC floor's server CPU per round trip (``bench/floor.py``).

``python -m bench profile`` (Redis as for ``bench gateway``: ``ARENA_BENCH_REDIS_URL``)
"""

from __future__ import annotations

import asyncio
import cProfile
import os
import pstats
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict

from arena.referee.mailbox import RedisMailbox

from . import bench_gateway as gw
from .floor import measure as measure_floor

MOVES = 1000

# (stage, what marks it: a fragment of the file's path, or of a built-in's name), first match wins.
STAGES: list[tuple[str, tuple[str, ...]]] = [
    ("game rules (legal actions, apply, observation)", ("/arena/games/",)),
    ("house bot in the other seat", ("/arena/bots/", "players.py")),
    ("JSON encode / decode", ("/json/", "_json")),
    ("Redis client and its socket", ("/redis/", "socket", "_ssl", "hiredis")),
    ("mailbox", ("/arena/referee/mailbox.py",)),
    ("gRPC and protobuf", ("grpc", "google/protobuf", "/arena_bot/", "/arena/v1/")),
    ("wire: mailbox dicts <-> protobuf", ("/arena/referee/wire.py",)),
    ("gateway: checks, clocks, bookkeeping", ("/arena/referee/gateway.py", "/arena/referee/stalls.py")),
    ("referee: match loop, clock, transcript, remote seat", ("/arena/referee/", "/arena/clock.py")),
    ("asyncio event loop", ("/asyncio/", "selectors.py", "epoll", "select.", "_asyncio", "_heapq")),
    # Callbacks the loop runs whose own work is in C: gRPC's core (the gateway's streams).
    ("callbacks the loop runs (C: gRPC's core)", ("_contextvars.Context",)),
    ("metrics (Prometheus client)", ("prometheus_client",)),
]


def stage_of(filename: str, function: str) -> str:
    where = function if filename == "~" else filename
    for stage, marks in STAGES:
        if any(mark in where for mark in marks):
            return stage
    return "other Python"


def by_stage(stats_file: str) -> dict[str, float]:
    """Seconds of profiled CPU per stage (each function's own time). A built-in's time goes to
    the stages of the Python functions that called it, in proportion (``isinstance`` is the
    Redis client's when it calls it), except where its name marks a stage of its own."""
    stats = pstats.Stats(stats_file).stats  # type: ignore[attr-defined]
    seconds: dict[str, float] = defaultdict(float)
    for (filename, _, function), (_, _, own, _, callers) in stats.items():
        stage = stage_of(filename, function)
        if filename != "~" or stage != "other Python" or not callers:
            seconds[stage] += own
            continue
        spent = {caller: timing[2] for caller, timing in callers.items()}
        total = sum(spent.values()) or 1.0
        for (caller_file, _, caller_function), part in spent.items():
            seconds[stage_of(caller_file, caller_function)] += own * part / total
    return seconds


def loop_turns(stats_file: str) -> float:
    """Turns of the event loop (``_run_once``) in the profile: each wakes, polls, runs callbacks."""
    stats = pstats.Stats(stats_file).stats  # type: ignore[attr-defined]
    return sum(timing[1] for (filename, _, function), timing in stats.items()
               if function == "_run_once" and filename.endswith("base_events.py"))


def profiled_runner(mailbox: RedisMailbox, profile_to: str) -> None:
    """``bench gateway``'s moves, under the profiler on this loop's thread."""
    profiler = cProfile.Profile(time.thread_time)

    async def play() -> None:
        while await mailbox.holder(gw.BOT.bot_id) is None:
            await asyncio.sleep(0.05)
        await gw._play_until(mailbox, gw.WARMUP)  # connections, caches and imports first
        profiler.enable()
        await gw._play_until(mailbox, MOVES)
        profiler.disable()

    asyncio.run(play())
    profiler.dump_stats(profile_to)


def serve_profiled_gateway(url: str, prefix: str, profile_to: str) -> None:
    """The gateway apart (``bench_gateway.serve_gateway``), its loop thread under the profiler
    from the first line on stdin until stdin closes."""
    from arena_bot.v1 import gateway_pb2_grpc

    from arena.referee.gateway import Gateway

    gateway = Gateway(RedisMailbox(url, prefix=prefix), gw._authenticate)
    server = gw.ServerThread([(gateway_pb2_grpc.add_BotGatewayServicer_to_server, gateway, "arena.v1.BotGateway")])
    print(server.address, flush=True)
    profiler = cProfile.Profile(time.thread_time)
    sys.stdin.readline()
    server.loop.call_soon_threadsafe(profiler.enable)
    sys.stdin.read()
    server.call(_disable(profiler))
    profiler.dump_stats(profile_to)
    server.stop()


async def _disable(profiler: cProfile.Profile) -> None:
    profiler.disable()


def profiled_moves(directory: str) -> tuple[str, str]:
    """The moves with both loops profiled; returns the two profiles' files."""
    prefix = f"bench:{uuid.uuid4().hex}:"
    mailbox = RedisMailbox(gw.REDIS_URL, prefix=prefix)
    runner_file, gateway_file = f"{directory}/runner.prof", f"{directory}/gateway.prof"
    apart = subprocess.Popen([sys.executable, "-m", "bench.bench_profile", "--gateway", gw.REDIS_URL, prefix,
                              gateway_file], env={**os.environ, "PYTHONPATH": str(gw.ROOT)}, cwd=gw.ROOT,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert apart.stdin is not None and apart.stdout is not None
    address = apart.stdout.readline().decode().strip()
    bot = gw.child(["-m", "arena_bot.examples.random_bot", "--address", address], token=gw.TOKEN)
    try:
        apart.stdin.write(b"go\n")
        apart.stdin.flush()
        profiled_runner(mailbox, runner_file)
    finally:
        bot.terminate()
        bot.wait(10)
        apart.stdin.close()
        apart.wait(60)
    return runner_file, gateway_file


def table(process: str, cpu_ms: float, profile: str, floor_ms: float) -> None:
    """Each stage's share of the profile applied to the process's CPU per move."""
    seconds = by_stage(profile)
    total = sum(seconds.values())
    print(f"{process}: {cpu_ms * 1000:.0f} us of CPU per move = {cpu_ms / floor_ms:.1f}x the floor's round trip; "
          f"{loop_turns(profile) / MOVES:.0f} turns of its event loop per move")
    for stage, spent in sorted(seconds.items(), key=lambda item: -item[1]):
        share = spent / total if total else 0.0
        if share >= 0.005:
            print(f"  {stage:<52} {share * cpu_ms * 1000:7.0f} us  {share:5.1%}")


def main() -> None:
    if not gw.redis_reachable():
        print(f"skipped: no Redis at {gw.REDIS_URL}")
        return
    floor = measure_floor(gw.PINGS)
    print(floor.describe(), flush=True)
    mailbox = RedisMailbox(gw.REDIS_URL, prefix=f"bench:{uuid.uuid4().hex}:")
    gw.move_trips(mailbox, gateway_apart=True)  # plain: each process's CPU per move
    runner_ms, _, gateway_ms = gw.CPU["RedisMailbox apart"]
    with tempfile.TemporaryDirectory() as directory:
        runner_file, gateway_file = profiled_moves(os.environ.get("BENCH_PROFILE_DIR", directory))
        print(f"one external move, distributed ({gw.GAME}, an SDK random bot; the runner also plays the house "
              "seat's moves)")
        table("runner (a live worker's part)", runner_ms, runner_file, floor.cpu_ms)
        table("gateway (arena serve's part)", gateway_ms, gateway_file, floor.cpu_ms)
    print(f"server CPU per move {1000 * (runner_ms + gateway_ms):.0f} us = "
          f"{(runner_ms + gateway_ms) / floor.cpu_ms:.1f}x the floor's {1000 * floor.cpu_ms:.0f} us per round trip")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--gateway":
        serve_profiled_gateway(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        main()
