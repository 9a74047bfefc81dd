"""What one more match in flight costs a live worker's runner: memory and threads at two loads.

A live worker's desk (``workers.live.LiveDesk``) is given external-bot matches of Crazy 8s on a
Redis of its own; the bots are answered in this same process, through the same Redis mailbox,
a second after each turn, so every match stays in play while the process is measured. The
process's RSS and threads are read once ``BENCH_DESK_LOW`` matches are in play (imports,
pools and connections warmed by then) and again at ``BENCH_DESK_HIGH``: the difference over
the matches added is what a match in flight costs, without the process's fixed costs that the
load bench's peak RSS divided by its matches also counts. Goal: at most 50 kB a match, and
threads that do not follow the matches (at most the desk's store threads, which start
on first use, between the readings). Baseline of the same run: the same desk with paced
house bots (no mailbox), whose matches hold only their state and players.

``python -m bench desk`` (``BENCH_DESK_LOW`` 100, ``BENCH_DESK_HIGH`` 1000; each load runs in a
fresh process)
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_KB = 50.0
BOTS = 40
ANSWER_AFTER = 1.0  # seconds a bot takes to answer: matches stay in play while measured
SETTLE = 4.0  # seconds after the hand-over before a reading


def rss_kb() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))


def child(kind: str, low: int, high: int, redis_url: str) -> dict[str, float]:
    """In a fresh process: hand ``low`` matches to a desk, read, add up to ``high``, read."""
    os.environ.update({"ARENA_DATABASE_URL": f"sqlite:///{tempfile.mkdtemp()}/arena.db",
                       "ARENA_MAX_MATCHES_PER_BOT": "10000", "ARENA_REDIS_URL": redis_url,
                       "ARENA_MAILBOX_PREFIX": f"bench:desk:{os.getpid()}:"})
    from arena.referee import external
    from arena.store import db
    from arena.store.bot_tokens import register
    from arena.store.queries import ensure_house_bot
    from arena.tournaments import create_tournament, pending_match_ids
    from workers import live

    url = os.environ["ARENA_DATABASE_URL"]
    db.engine(url)
    names = [f"{kind}-{i}" for i in range(BOTS)]
    with db.transaction(url) as connection:
        bots = [register(connection, name).bot_id if kind == "external"
                else ensure_house_bot(connection, name, "random", think=ANSWER_AFTER) for name in names]
        # A round robin played as often as it takes to have ``high`` matches.
        rounds = -(-high // (BOTS * (BOTS - 1)))
        tid = create_tournament(connection, ["crazy_eights"], names, sizes=[2], repetitions=rounds, seed=1)
    with db.transaction(url) as connection:
        ids = pending_match_ids(connection, tid)[:high]
    desk = live.LiveDesk(high)
    if kind == "external":
        box = external.mailbox()

        async def bot(bot_id: str) -> None:
            await box.claim(bot_id, "bench")
            while True:
                message = await box.collect(bot_id, 1.0)
                if message is None:
                    await box.claim(bot_id, "bench")  # the gateway's heartbeat
                elif message.get("kind") == "turn":
                    asyncio.ensure_future(answer(message))

        async def answer(turn: dict) -> None:
            await asyncio.sleep(ANSWER_AFTER)
            await box.post_move(turn["match_id"], turn["turn_id"],
                                {"action": turn["legal_actions"][0], "latency_ms": 1.0},
                                reply_to=turn.get("reply_to", ""))

        for bot_id in bots:
            asyncio.run_coroutine_threadsafe(bot(str(bot_id)), desk.loop.loop)

    def load(count: int) -> tuple[int, int, int]:
        for match_id in ids[:count]:
            if match_id not in handed:
                desk.hand_over([match_id])
                handed.add(match_id)
        time.sleep(SETTLE)
        return rss_kb(), threading.active_count(), desk.in_play()

    handed: set[int] = set()
    rss_low, threads_low, in_play_low = load(low)
    rss_high, threads_high, in_play_high = load(high)
    return {"kb_per_match": (rss_high - rss_low) / max(1, in_play_high - in_play_low),
            "in_play": [in_play_low, in_play_high], "threads": [threads_low, threads_high],
            "rss_mb": [rss_low / 1024, rss_high / 1024]}


def measure(kind: str, low: int, high: int, redis_url: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-m", "bench.bench_desk", kind, str(low), str(high), redis_url],
                          cwd=ROOT, env=dict(os.environ) | {"PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"bench desk {kind}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from tests.support import services

    low, high = int(os.environ.get("BENCH_DESK_LOW", "100")), int(os.environ.get("BENCH_DESK_HIGH", "1000"))
    with tempfile.TemporaryDirectory() as directory, services.private_redis(Path(directory), 10_000) as redis_url:
        house = measure("house", low, high, redis_url)
        remote = measure("external", low, high, redis_url)
    for name, figures in (("paced house bots (baseline)", house), ("external bots, Redis mailbox", remote)):
        print(f"{name:30} {figures['kb_per_match']:6.1f} kB per match in flight "
              f"({figures['in_play'][0]} -> {figures['in_play'][1]} in play, RSS {figures['rss_mb'][0]:.0f} -> "
              f"{figures['rss_mb'][1]:.0f} MB), threads {figures['threads'][0]} -> {figures['threads'][1]}",
              flush=True)
    ratio = remote["kb_per_match"] / house["kb_per_match"] if house["kb_per_match"] > 0 else float("inf")
    from workers import live

    # Store threads start on first use, as matches end: they may come between the readings.
    steady = remote["threads"][1] - remote["threads"][0] <= live.STORE_THREADS
    met = remote["kb_per_match"] <= GOAL_KB and steady
    print(f"an external match costs {ratio:.1f}x a house one; goal: <= {GOAL_KB:.0f} kB a match in flight and "
          f"threads that do not follow the matches: {'met' if met else 'MISSED'}")


if __name__ == "__main__":
    if len(sys.argv) == 5:
        kind, low, high, redis_url = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
        print(json.dumps(child(kind, low, high, redis_url)), flush=True)
        os._exit(0)  # the matches in play are not waited for
    main()
