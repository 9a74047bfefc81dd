"""The ladder under the load test's crowd: B connected bots and no tournament at all.

The same processes as ``bench load`` (fleets of asyncio SDK bots on two ``arena serve``
gateways, one private Redis, a scratch PostgreSQL, one ``arena worker --live`` and one prefork
``arena worker``), but nobody schedules anything: the ladder pairs whoever is connected. For
``BENCH_LADDER_SECONDS`` after every bot connected it samples, each second, the share of
connected bots playing a ladder match (holding one of their slots in the mailbox: the match has
begun for them, not merely been claimed), and reads the
ladder's own counters from the leading gateway's /metrics: matches scheduled and the CPU its
passes took. Reports the mean share (and the share in the last half, once the ladder has
filled up), the time until every bot had played a rated match, matches per second, and the
ladder's CPU per scheduled match against the server's CPU per external move (both in the
same run), so the ladder's cost reads as a fraction of the play it arranges.

Sizes: ``BENCH_LADDER_BOTS`` (500), ``BENCH_LADDER_FLEETS`` (4), ``BENCH_LADDER_SECONDS`` (60),
``BENCH_LADDER_PER_BOT`` (matches at once each bot asks for, 2), ``BENCH_LADDER_GAMES``
(crazy_eights,bastard_brag: short games); ``BENCH_LOAD_QUICK=1`` or ``BENCH_LADDER_QUICK=1``:
60 bots for 20 s.

``python -m bench ladder``
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from .bench_load import ARENA, ROOT, Processes, _bench_platform, _services, cpu_seconds, own_redis, register


class Sizes:
    def __init__(self) -> None:
        quick = "1" in (os.environ.get("BENCH_LOAD_QUICK"), os.environ.get("BENCH_LADDER_QUICK"))
        get = lambda name, full, small: int(os.environ.get(name, small if quick else full))  # noqa: E731
        self.bots = get("BENCH_LADDER_BOTS", 500, 60)
        self.fleets = max(2, get("BENCH_LADDER_FLEETS", 4, 2))
        self.seconds = get("BENCH_LADDER_SECONDS", 60, 20)
        self.per_bot = get("BENCH_LADDER_PER_BOT", 2, 2)
        self.games = os.environ.get("BENCH_LADDER_GAMES", "crazy_eights,bastard_brag")


def metric(port: int, name: str) -> float:
    """The sum of a counter's samples on a /metrics page (0 when absent)."""
    import httpx

    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(name) and not line.startswith("#") and "_created" not in line.split(" ")[0])


def playing_now(client: Any, prefix: str, bot_ids: list[int]) -> int:
    """How many of ``bot_ids`` are playing a match now: holding a slot in the mailbox (the
    match has begun for them), not merely claimed and waiting."""
    pipe = client.pipeline(transaction=False)
    for bot_id in bot_ids:
        pipe.zcard(f"{prefix}live:{bot_id}")
    return sum(1 for n in pipe.execute() if n)


def in_play(url: str) -> tuple[set[int], int]:
    """(bots seated in a running ladder match, ladder matches done)."""
    import sqlalchemy as sa

    from arena.store import db

    with db.read(url) as connection:
        rows = connection.execute(sa.text(
            "SELECT m.seating, m.status FROM match m JOIN tournament t ON t.id = m.tournament_id "
            "WHERE t.kind = 'ladder' AND m.status IN ('running', 'done')")).all()
    playing = {bot for seating, status in rows if status == "running" for bot in seating}
    return playing, sum(1 for _, status in rows if status == "done")


def rated_bots(url: str) -> int:
    import sqlalchemy as sa

    from arena.store import db

    with db.read(url) as connection:
        return int(connection.execute(sa.text(
            "SELECT count(DISTINCT r.bot_id) FROM rating r JOIN bot b ON b.id = r.bot_id "
            "WHERE b.kind = 'external' AND r.matches > 0")).scalar_one())


def run(sizes: Sizes) -> None:
    from arena.referee import external
    from arena.store import db

    services = _services()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {sizes.bots} bots in {sizes.fleets} "
          f"fleets on 2 gateways, {sizes.per_bot} matches at once each, games {sizes.games}, no tournament, "
          f"{sizes.seconds} s", flush=True)
    with contextlib.ExitStack() as stack:
        directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="arena-bench-ladder-")))
        redis = stack.enter_context(own_redis(directory, maxclients=10_000))
        pg = stack.enter_context(_bench_platform().scratch_postgres())
        queue = f"arena-ladder-{uuid.uuid4().hex[:8]}"
        env = dict(os.environ) | {
            "PYTHONPATH": str(ROOT), "ARENA_DATABASE_URL": pg, "ARENA_REDIS_URL": redis, "ARENA_QUEUE": queue,
            "ARENA_LIVE_QUEUE": f"{queue}.live", "ARENA_MAILBOX_PREFIX": f"ladder:{uuid.uuid4().hex[:8]}:",
            "ARENA_METRICS_PORT": "0", "ARENA_LADDER": "1", "ARENA_MAX_MATCHES_PER_BOT": str(sizes.per_bot),
        }
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        saved = dict(os.environ)
        stack.callback(lambda: (os.environ.clear(), os.environ.update(saved)))
        os.environ.update({k: env[k] for k in ("ARENA_DATABASE_URL", "ARENA_REDIS_URL", "ARENA_QUEUE",
                                                "ARENA_LIVE_QUEUE", "ARENA_MAILBOX_PREFIX")})
        db.engine(pg)
        processes = Processes(directory, env)
        stack.callback(processes.stop)
        addresses = [f"127.0.0.1:{services.free_port()}" for _ in range(2)]
        metric_ports = [services.free_port() for _ in range(2)]
        gateways = [processes.start(f"serve{n}", [ARENA, "serve"], {"ARENA_GRPC_ADDRESS": a,
                                                                     "ARENA_GATEWAY_METRICS_PORT": str(m)})
                    for n, (a, m) in enumerate(zip(addresses, metric_ports, strict=True))]
        bots = register(addresses, sizes.bots)
        live = processes.start("live", [ARENA, "worker", "--live", "--concurrency", str(sizes.bots * sizes.per_bot)])
        house = processes.start("worker", [ARENA, "worker", "--concurrency", "1"])
        cpu0 = {p.pid: cpu_seconds(p.pid) for p in [*gateways, live, house]}
        started = time.perf_counter()
        for k in range(sizes.fleets):
            gateway = k % 2
            mine = [b for b in bots if b[0] == gateway][k // 2::(sizes.fleets + 1 - gateway) // 2]
            file = directory / f"tokens{k}"
            file.write_text("".join(f"{name} {token}\n" for _, name, token in mine))
            file.chmod(0o600)
            processes.start(f"fleet{k}", [sys.executable, "-m", "bots.fleet", "--tokens-file", str(file),
                                          "--address", addresses[gateway], "--max-matches", str(sizes.per_bot),
                                          "--seed", str(100 * k), "--games", sizes.games])
        import sqlalchemy as sa

        with db.read(pg) as connection:
            ids = {name: i for i, name in connection.execute(sa.text("SELECT id, name FROM bot")).all()}
        bot_ids = [ids[name] for _, name, _ in bots]
        try:
            while not external.wait_connected(bot_ids, timeout=0.5):
                processes.check()
                if time.perf_counter() - started > 300:
                    raise TimeoutError("the bots did not connect in 300 s")
        finally:
            external.forget()
        connected = time.perf_counter()
        print(f"connected {len(bots)} bots in {connected - started:.1f} s", flush=True)
        import redis as redis_client

        client = redis_client.Redis.from_url(redis)
        stack.callback(client.close)
        shares, everyone_rated = [], None
        _, done0 = in_play(pg)
        while time.perf_counter() - connected < sizes.seconds:
            time.sleep(1.0)
            processes.check()
            shares.append(playing_now(client, env["ARENA_MAILBOX_PREFIX"], bot_ids) / len(bot_ids))
            if everyone_rated is None and rated_bots(pg) >= len(bot_ids):
                everyone_rated = time.perf_counter() - connected
        elapsed = time.perf_counter() - connected
        _, done = in_play(pg)
        scheduled = sum(metric(port, "arena_ladder_scheduled_matches_total") for port in metric_ports)
        ladder_cpu = sum(metric(port, "arena_ladder_cpu_seconds_total") for port in metric_ports)
        spent = {name: cpu_seconds(p.pid) - cpu0[p.pid] for name, p in
                 (("gateway 1", gateways[0]), ("gateway 2", gateways[1]), ("live worker", live), ("house worker", house))}
        server_cpu = spent["gateway 1"] + spent["gateway 2"] + spent["live worker"]
        moves = external_moves(pg)
        half = shares[len(shares) // 2:]
        print(f"share of connected bots playing a ladder match (holding a slot): mean {sum(shares) / len(shares):.0%}, "
              f"second half {sum(half) / len(half):.0%} (each asks for {sizes.per_bot} at once)")
        print(f"every bot rated after {everyone_rated:.1f} s" if everyone_rated is not None
              else f"not every bot rated after {elapsed:.0f} s: {rated_bots(pg)} of {len(bot_ids)}")
        print(f"{done - done0} ladder matches played in {elapsed:.0f} s ({(done - done0) / elapsed:.1f}/s), "
              f"{scheduled:.0f} scheduled")
        print("CPU seconds: " + ", ".join(f"{name} {seconds:.1f}" for name, seconds in spent.items())
              + f"; the ladder's own {ladder_cpu:.1f}")
        if scheduled and moves:
            per_match_ms = 1000 * ladder_cpu / scheduled
            per_move_ms = 1000 * server_cpu / moves
            print(f"ladder CPU per scheduled match {per_match_ms:.2f} ms = {per_match_ms / per_move_ms:.2f}x the "
                  f"server's CPU per external move ({per_move_ms:.2f} ms, {moves} moves, same run)")


def external_moves(url: str) -> int:
    """Moves of external bots in the finished ladder matches (forced decisions are applied
    unasked: not moves)."""
    import sqlalchemy as sa

    from arena.store import db

    with db.read(url) as connection:
        external = set(connection.execute(sa.text("SELECT id FROM bot WHERE kind = 'external'")).scalars())
        rows = connection.execute(sa.text(
            "SELECT m.seating, tr.data FROM transcript tr JOIN match m ON m.id = tr.match_id "
            "JOIN tournament t ON t.id = m.tournament_id WHERE t.kind = 'ladder'")).all()
    return sum(1 for seating, data in rows for _turn, seat, _action, _ms, code in data["decisions"]
               if seating[seat] in external and code != "forced")


def main() -> None:
    run(Sizes())
