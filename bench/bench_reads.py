"""Anonymous readers against a connected bot's moves, on ``arena serve --web`` as operators run it.

A real ``arena serve --web`` process (embedded, SQLite, default read limits) over a store of
20,000 recorded matches (two tournaments of 10,000) and one real match of more than 1,000
decisions with its transcript (``bench_web``'s synthetic store). An SDK bot process
(``arena_bot.examples.random_bot``) is connected and plays challenges against a house bot, one at a time;
its move round trip is the match runner's own measure (``Decision.ms``: turn handed to the
bot's stream until its move is back), read from the recorded transcripts.

Idle and loaded phases alternate ``ROUNDS`` times:

1. Idle: nobody reads; the bot plays ``MOVES`` decisions.
2. Loaded: 8 anonymous clients, each from its own loopback address (127.0.0.2-9, so each has
   its own ``ARENA_WEB_READ_RATE``), read replays (every view of the long match) and pages
   (home, tournament pages of 10,000 matches, bot, match, status, listings) as fast as they
   are allowed: on 429 they wait the ``Retry-After`` they are told. The bot plays as many
   decisions again.

Goal (expensive anonymous reads): the loaded p99 at most 1.5x the idle p99.
``python -m bench reads``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc
import httpx
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.store import db
from arena.store.queries import transcript_t
from arena.store.statuses import MatchStatus

from . import bench_web
from .bench_gateway import percentiles

ROOT = Path(__file__).resolve().parents[1]
MATCHES = 20_000
MOVES = 500  # bot decisions per phase
ROUNDS = 3  # idle and loaded phases alternate, so that the machine's drift falls on both
READERS = 8
GAME = "crazy_eights"
ADMIN = "bench-admin-token-" + "x" * 32
GOAL = 1.5


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(check, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except (OSError, httpx.HTTPError, grpc.RpcError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not happen within {timeout:.0f} s")


class Reader(threading.Thread):
    """One anonymous client from its own address, reading round the ``paths`` as fast as it
    is allowed."""

    def __init__(self, number: int, base: str, paths: list[str], stop: threading.Event) -> None:
        super().__init__(name=f"reader-{number}", daemon=True)
        self.client = httpx.Client(base_url=base, timeout=60,
                                   transport=httpx.HTTPTransport(local_address=f"127.0.0.{2 + number}"))
        self.paths = paths[number % len(paths):] + paths[:number % len(paths)]
        self.stop = stop
        self.served = self.refused = 0

    def run(self) -> None:
        turn = 0
        while not self.stop.is_set():
            response = self.client.get(self.paths[turn % len(self.paths)])
            turn += 1
            if response.status_code == 429:
                self.refused += 1
                self.stop.wait(float(response.headers.get("retry-after", "1")))
            else:
                response.raise_for_status()
                self.served += 1
        self.client.close()


def play(arena: arena_pb2_grpc.ArenaStub, bot: str, url: str, moves: int) -> list[float]:
    """Challenges of ``bot`` against a house bot, one after another, until it has made
    ``moves`` decisions: their round trips in ms."""
    samples: list[float] = []
    admin = (("authorization", f"Bearer {ADMIN}"),)
    while len(samples) < moves:
        ref = arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=[bot, "house:random"]),
                              metadata=admin, timeout=60)
        deadline = time.monotonic() + 300
        while arena.GetMatch(ref, metadata=admin, timeout=60).summary.status in MatchStatus.PENDING:
            if time.monotonic() > deadline:
                raise RuntimeError(f"challenge {ref.match_id} never finished")
            time.sleep(0.1)
        with db.read(url) as c:
            data = c.execute(sa.select(transcript_t.c.data)
                             .where(transcript_t.c.match_id == int(ref.match_id))).scalar_one()
        samples += [row[3] for row in data["decisions"] if row[1] == 0 and row[4] == "ok"]
    return samples


def main() -> None:
    source, info = bench_web.store(MATCHES)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "arena.db"
        shutil.copy(source.removeprefix("sqlite:///"), path)
        url = f"sqlite:///{path}"
        grpc_port, web_port = free_port(), free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
        env.update(ARENA_DATABASE_URL=url, ARENA_ADMIN_TOKEN=ADMIN, PYTHONPATH=str(ROOT))
        server = subprocess.Popen([str(Path(sys.executable).with_name("arena")), "serve", "--address", f"127.0.0.1:{grpc_port}",
                                   "--metrics-port", "0", "--web", f"127.0.0.1:{web_port}"],
                                  env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        bot = None
        base = f"http://127.0.0.1:{web_port}"
        try:
            wait_for(lambda: httpx.get(base + "/api/v1/games", timeout=5).status_code == 200, "the web face")
            with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
                arena = arena_pb2_grpc.ArenaStub(channel)
                wait_for(lambda: arena.ListGames(arena_pb2.ListGamesRequest(), timeout=5).games, "the server")
                token = arena.RegisterBot(arena_pb2.RegisterBotRequest(name="bench-reads-bot"), timeout=30).token
                bot = subprocess.Popen([sys.executable, "-m", "arena_bot.examples.random_bot", "--address", f"127.0.0.1:{grpc_port}"],
                                       env={**env, "ARENA_BOT_TOKEN": token}, cwd=ROOT,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                play(arena, "bench-reads-bot", url, 1)  # connected, and every lazy import done
                replay = info["replay_match"]
                paths = [f"/api/v1/matches/{replay}/replay?view={v}" for v in ("all", "0", "1", "2")] + [
                    f"/matches/{replay}", "/", "/tournaments/1", "/tournaments/2?page=3", "/bots/bot-004",
                    "/api/v1/bots/bot-005", "/status", "/api/v1/matches?limit=200", "/api/v1/tournaments/1",
                    f"/matches/{MATCHES // 2}", "/games/yaniv/leaderboard"]
                idle: list[float] = []
                loaded: list[float] = []
                readers: list[Reader] = []
                seconds = 0.0
                for _ in range(ROUNDS):
                    idle += play(arena, "bench-reads-bot", url, MOVES)
                    stop = threading.Event()
                    group = [Reader(n, base, paths, stop) for n in range(READERS)]
                    for reader in group:
                        reader.start()
                    started = time.monotonic()
                    loaded += play(arena, "bench-reads-bot", url, MOVES)
                    seconds += time.monotonic() - started
                    stop.set()
                    for reader in group:
                        reader.join(120)
                    readers += group
        finally:
            for process in (bot, server):
                if process is not None:
                    process.terminate()
                    process.wait(30)
            db.dispose_all()
    served, refused = sum(r.served for r in readers), sum(r.refused for r in readers)
    idle_p50, idle_p99 = percentiles(idle)
    loaded_p50, loaded_p99 = percentiles(loaded)
    ratio = loaded_p99 / idle_p99
    print(f"arena serve --web, embedded SQLite store of {MATCHES:,} matches; an SDK bot plays {GAME} against "
          f"house:random; move round trip (Decision.ms)")
    print(f"  idle                          p50 {idle_p50:7.3f} ms   p99 {idle_p99:7.3f} ms   n={len(idle)}")
    print(f"  {READERS} readers                     p50 {loaded_p50:7.3f} ms   p99 {loaded_p99:7.3f} ms   "
          f"n={len(loaded)}")
    print(f"  readers: {served} requests served ({served / seconds:.0f}/s), {refused} refused with 429, "
          f"over {seconds:.0f} s (replays of a {info['decisions']}-decision match, pages of 10,000-match "
          "tournaments, bot, status and listings)")
    print(f"  loaded p99 / idle p99 = {ratio:.2f} (goal <= {GOAL}: {'met' if ratio <= GOAL else 'MISSED'})")


if __name__ == "__main__":
    main()
