"""The bare gRPC floor the live path is measured against: a ``grpc.aio`` server with nothing
but the BotGateway stream method (a trivial servicer, no arena code), in a process of its own,
driven by a client in another.

- Echo: the server sends a Ping, the client answers a Pong at once, ``trips`` times on one
  stream (the shape of a move: the server writes, the bot answers); the server times each round
  trip and counts its own CPU (``time.process_time``: every thread, gRPC's included) over them.
- Idle streams: a client opens ``streams`` bidirectional streams, ``STREAMS_PER_CHANNEL`` to a
  connection as the SDK's fleet does, and holds them; the server's RSS growth over them, per
  stream, is what a connected bot costs a server that does nothing else.

``bench gateway`` and ``bench load`` measure it in their own run and print their figures as
ratios to it. Alone: ``python -m bench.floor [TRIPS [STREAMS]]``.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from arena_bot.aio import STREAMS_PER_CHANNEL
from arena_bot.v1 import gateway_pb2, gateway_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
WARMUP = 100  # first round trips dropped: connection set-up, caches, lazy imports
ECHO = "bench-echo"  # the Hello.client of the echo stream; any other holds an idle stream
CPU_GOAL = 3.0  # server CPU per external move <= 3 x the floor's per round trip
MEMORY_GOAL = 2.0  # a connected bot's memory in the gateways <= 2 x an idle stream's in the floor


def percentiles(samples: Sequence[float]) -> tuple[float, float]:
    """(p50, p99) of ``samples``, nearest rank; NaN of none."""
    if not samples:
        return float("nan"), float("nan")
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return pick(0.50), pick(0.99)


def status_field(pid: int, field: str) -> int:
    """An integer field of /proc/PID/status (VmRSS in kB, Threads); 0 when the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def verdict(ratio: float, goal: float) -> str:
    return "met" if ratio <= goal else "MISSED"


@dataclass
class Floor:
    samples: list[float]  # ms per echo round trip, as the server times it
    cpu_ms: float  # the server process's CPU per round trip
    streams: int  # idle streams held (0: not measured)
    stream_kb: float  # the server's RSS growth per idle stream (NaN when not measured)

    def describe(self) -> str:
        p50, p99 = percentiles(self.samples)
        line = (f"{'gRPC bare bidi echo (floor)':<34} p50 {p50:7.3f} ms   p99 {p99:7.3f} ms   n={len(self.samples)}\n"
                f"{'':<34} server CPU per round trip: {self.cpu_ms:.3f} ms")
        if self.streams:
            line += f"\n{'':<34} server RSS per idle stream: {self.stream_kb:.1f} kB ({self.streams} streams)"
        return line


# ----- the bare server (its own process) ---------------------------------------------------

class Echo(gateway_pb2_grpc.BotGatewayServicer):
    """The echo stream pings ``trips`` times and prints its timings as one JSON line; any
    other stream gets one Ping (it is connected) and is held until the client ends it."""

    def __init__(self, trips: int) -> None:
        self.trips = trips

    async def Connect(self, request_iterator: Any, context: Any) -> Any:
        incoming = request_iterator.__aiter__()
        hello = await incoming.__anext__()
        if hello.hello.client != ECHO:
            yield gateway_pb2.RefereeMessage(ping=gateway_pb2.Ping(nonce=0))
            async for _ in incoming:
                pass
            return
        samples, cpu = [], 0.0
        for nonce in range(WARMUP + self.trips):
            if nonce == WARMUP:
                cpu = time.process_time()
            sent = time.perf_counter()
            yield gateway_pb2.RefereeMessage(ping=gateway_pb2.Ping(nonce=nonce))
            reply = await incoming.__anext__()
            samples.append((time.perf_counter() - sent) * 1000)
            assert reply.pong.nonce == nonce
        cpu = time.process_time() - cpu
        print(json.dumps({"samples": samples[WARMUP:], "cpu_s": cpu}), flush=True)


async def serve(trips: int) -> None:
    """Prints the address, then serves until stdin closes."""
    server = grpc.aio.server()
    gateway_pb2_grpc.add_BotGatewayServicer_to_server(Echo(trips), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"127.0.0.1:{port}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop(0)


# ----- the clients (another process) -------------------------------------------------------

async def echo_client(address: str) -> None:
    """Hello, then a Pong for every Ping, nothing else."""
    outbox: asyncio.Queue[gateway_pb2.BotMessage | None] = asyncio.Queue()

    async def messages() -> Any:
        yield gateway_pb2.BotMessage(hello=gateway_pb2.Hello(client=ECHO))
        while (message := await outbox.get()) is not None:
            yield message

    async with grpc.aio.insecure_channel(address) as channel:
        call = gateway_pb2_grpc.BotGatewayStub(channel).Connect(messages())
        async for message in call:
            await outbox.put(gateway_pb2.BotMessage(pong=gateway_pb2.Pong(nonce=message.ping.nonce)))
        await outbox.put(None)


async def idle_client(address: str, streams: int) -> None:
    """``streams`` idle streams, ``STREAMS_PER_CHANNEL`` to a connection; prints ``ready`` once
    the server has answered each, and holds them until stdin closes."""
    hold = asyncio.Event()

    async def messages() -> Any:
        yield gateway_pb2.BotMessage(hello=gateway_pb2.Hello(client="bench-idle"))
        await hold.wait()

    # Each channel its own subchannel pool, else gRPC puts them all on one connection.
    channels = [grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(-(-streams // STREAMS_PER_CHANNEL))]
    calls = [gateway_pb2_grpc.BotGatewayStub(channels[n // STREAMS_PER_CHANNEL]).Connect(messages())
             for n in range(streams)]
    for call in calls:
        await call.read()
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    hold.set()
    for call in calls:
        call.cancel()
    for channel in channels:
        await channel.close()


# ----- the measurement (the bench's process) -----------------------------------------------

def _spawn(*args: str, stdin: int | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "bench.floor", *args], cwd=ROOT, stdin=stdin,
                            stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})


def measure(trips: int = 3000, streams: int = 0, timeout: float = 300) -> Floor:
    """The floor: ``trips`` echo round trips, then (``streams`` > 0) that many idle streams.
    Every process it starts is gone when it returns; ``RuntimeError`` if one stalls."""
    server = _spawn("--serve", str(trips), stdin=subprocess.PIPE)
    children = [server]

    def stalled() -> None:
        for child in children:
            child.kill()

    watchdog = threading.Timer(timeout, stalled)
    watchdog.start()
    assert server.stdout is not None and server.stdin is not None
    try:
        address = server.stdout.readline().decode().strip()
        if not address:
            raise RuntimeError("the floor's server did not start")
        children.append(echo := _spawn("--echo", address))
        line = server.stdout.readline()
        echo.wait(30)
        if not line:
            raise RuntimeError(f"the floor's echo stalled (not done within {timeout:.0f} s)")
        result = json.loads(line)
        stream_kb = math.nan
        if streams:
            time.sleep(0.5)  # whatever the echo's end frees, freed
            before = status_field(server.pid, "VmRSS")
            children.append(idle := _spawn("--idle", address, str(streams), stdin=subprocess.PIPE))
            assert idle.stdout is not None and idle.stdin is not None
            if idle.stdout.readline().strip() != b"ready":
                raise RuntimeError(f"the floor's {streams} idle streams did not all connect")
            time.sleep(1.0)
            stream_kb = (status_field(server.pid, "VmRSS") - before) / streams
            idle.stdin.close()
            idle.wait(30)
        return Floor(result["samples"], 1000 * result["cpu_s"] / len(result["samples"]), streams, stream_kb)
    finally:
        watchdog.cancel()
        for child in reversed(children):
            if child.stdin is not None and not child.stdin.closed:
                child.stdin.close()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(5)
            if child.stdout is not None:
                child.stdout.close()


def main(argv: list[str]) -> None:
    if argv[:1] == ["--serve"]:
        asyncio.run(serve(int(argv[1])))
    elif argv[:1] == ["--echo"]:
        asyncio.run(echo_client(argv[1]))
    elif argv[:1] == ["--idle"]:
        asyncio.run(idle_client(argv[1], int(argv[2])))
    else:
        trips, streams = (int(a) for a in [*argv, "3000", "500"][:2])
        print(measure(trips, streams).describe())


if __name__ == "__main__":
    main(sys.argv[1:])
