"""Load test of live bots at scale ("Live bots at scale"): real processes, one private Redis.

K fleet processes (``python -m bots.fleet``, asyncio SDK) host B random bots in all, half on
each of two ``arena serve`` gateways; one ``arena worker --live`` plays the external matches
(many at once on one event loop), one prefork ``arena worker`` the house-bot batches. The
schedule is one small tournament per pair of bots (one bot of each gateway: every match
crosses gateways) over one to three short games in rotation (crazy_eights, bastard_brag,
card_trip_europe: 40-60 moves), both seatings, ``BENCH_LOAD_REPETITIONS`` times, as many pairs
and games as make ``BENCH_LOAD_MATCHES`` external matches, plus one house-bot tournament, all
sent at once: how many are in flight is then bounded by the live worker's concurrency
(``BENCH_LOAD_CONCURRENCY``) and the matches one bot plays at once (``BENCH_LOAD_PER_BOT``).

Reports matches/s and moves/s, the move round trip under load (``Decision.ms`` of every external decision
in the stored transcripts: turn sent until the move is back, as the referee measures it), the
memory (VmRSS) of the fleets per bot, of the gateways per connected bot and of the live worker
per match in flight, the peak of matches in flight (match rows 'running', and matches whose
seats both hold a slot in the mailbox: really playing), Redis clients and live worker threads,
Redis commands and CPU (live worker, gateways, fleets) per move, matches delivered more than
once, and strikes, timeouts and forfeits (WARNING lines: bots answer at once, so any is the
platform's; the bench itself does not fail on a loaded machine).

Against the floor (``bench/floor.py``), measured first in the same run: a bare ``grpc.aio``
server echoing on one stream, and holding as many idle streams as there are bots. Printed as
ratios, with a line per goal: the server's CPU per external move (live worker + gateways) <= 3 x
the floor's CPU per round trip; the gateways' memory per connected bot (their RSS growth from
before any bot connected to all connected and idle) <= 2 x the floor's per idle stream. And
Redis's commands per external move (every process's, from its commandstats) <= 4. With 1,000
external matches sent at once, >= 72 matches/s; with 150, a move p99 <= 50 ms (the defaults run
both sizes, one after the other).

Sizes: ``BENCH_LOAD_BOTS`` (500), ``BENCH_LOAD_MATCHES`` (external matches, 1000: the target in
flight), ``BENCH_LOAD_CONCURRENCY`` (the live worker's, default the matches),
``BENCH_LOAD_FLEETS`` (4), ``BENCH_LOAD_PER_BOT`` (8), ``BENCH_LOAD_REPETITIONS`` (1),
``BENCH_LOAD_MOVE_TIME`` (seconds, 60; time bank twice that), ``BENCH_LOAD_FLOOR_TRIPS`` (the
floor's echo round trips, 3000), ``BENCH_LOAD_QUICK=1`` (60 bots, 150 matches, 1000 round trips).
Never uses the shared Redis: always a redis-server of its own.

``python -m bench load``
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .floor import CPU_GOAL, MEMORY_GOAL, Floor, percentiles, status_field, verdict
from .floor import measure as measure_floor

REDIS_GOAL = 4.0  # Redis commands per external move, every process's together
# Matches/s with 1,000 external matches sent at once: four times the 18.0 measured on a quiet
# 2-core machine when the goal was set.
THROUGHPUT_GOAL = 72.0
P99_GOAL_MS, P99_AT = 50.0, 150  # the move p99 under load with this many matches sent

ROOT = Path(__file__).resolve().parents[1]
ARENA = str(ROOT / ".venv/bin/arena")
GAMES = ["crazy_eights", "bastard_brag", "card_trip_europe"]
HOUSE = ["random", "random-2", "random-3", "random-4"]


def _services():
    sys.path.insert(0, str(ROOT))
    from tests.support import services

    return services


# --- processes -----------------------------------------------------------------------------


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants (a prefork worker's children, a launcher's exec)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{current}/task").iterdir():
                with contextlib.suppress(OSError):
                    todo += [int(c) for c in (task / "children").read_text().split()]
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU of the process tree of ``pid`` so far, seconds."""
    total = 0
    for p in tree(pid):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    """Resident memory of the process tree of ``pid``, MB."""
    return sum(status_field(p, "VmRSS") for p in tree(pid)) / 1024


class Processes:
    """Subprocesses in sessions of their own, logs in one directory; all killed by ``stop``."""

    def __init__(self, directory: Path, env: dict[str, str]) -> None:
        self.directory, self.env = directory, env
        self.running: dict[str, subprocess.Popen] = {}

    def start(self, name: str, argv: list[str], extra: dict[str, str] | None = None) -> subprocess.Popen:
        log = (self.directory / f"{name}.log").open("ab")
        process = subprocess.Popen(argv, cwd=ROOT, env=self.env | (extra or {}), stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.running[name] = process
        return process

    def check(self) -> None:
        for name, process in self.running.items():
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited with {process.returncode}; its log: {self.log(name)}")

    def log(self, name: str) -> Path:
        return self.directory / f"{name}.log"

    def stop(self) -> None:
        for process in self.running.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, 15)
        deadline = time.monotonic() + 20
        for process in self.running.values():
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, 9)
                process.wait(5)


@contextlib.contextmanager
def own_redis(directory: Path, maxclients: int) -> Iterator[str]:
    """A redis-server of our own (never the shared one), with room for every blocked client."""
    with _services().private_redis(directory, maxclients) as url:
        yield url


# --- the load ------------------------------------------------------------------------------


class Sizes:
    def __init__(self) -> None:
        quick = os.environ.get("BENCH_LOAD_QUICK") == "1"
        get = lambda name, full, small: int(os.environ.get(name, small if quick else full))  # noqa: E731
        self.bots = get("BENCH_LOAD_BOTS", 500, 60)
        self.bots -= self.bots % 2
        self.matches = get("BENCH_LOAD_MATCHES", 1000, 150)
        self.live = get("BENCH_LOAD_CONCURRENCY", self.matches, self.matches)
        self.fleets = max(2, get("BENCH_LOAD_FLEETS", 4, 2))
        self.per_bot = get("BENCH_LOAD_PER_BOT", 8, 8)
        self.repetitions = get("BENCH_LOAD_REPETITIONS", 1, 1)
        self.move_time = float(os.environ.get("BENCH_LOAD_MOVE_TIME", "60"))
        self.floor_trips = get("BENCH_LOAD_FLOOR_TRIPS", 3000, 1000)


def register(addresses: list[str], count: int) -> list[tuple[int, str, str]]:
    """``count`` bots registered over gRPC, alternately on each gateway (one store):
    (gateway index, name, token)."""
    import grpc
    from arena_bot.v1 import arena_pb2, arena_pb2_grpc

    run = uuid.uuid4().hex[:6]
    bots = []
    for n, address in enumerate(addresses):
        with grpc.insecure_channel(address) as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
            stub = arena_pb2_grpc.ArenaStub(channel)
            for i in range(n, count, len(addresses)):
                name = f"load-{run}-{i}"
                bots.append((n, name, stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name)).token))
    return bots


def wait(condition: Any, timeout: float, what: str, processes: Processes, poll: float = 0.5) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline or any(p.poll() is not None for p in processes.running.values()):
            for name in processes.running:  # the logs go with the run's directory: their ends now
                lines = processes.log(name).read_text(errors="replace").splitlines()
                print(f"--- {name} (exit {processes.running[name].poll()}), last lines:", *lines[-8:], sep="\n")
            processes.check()
            raise TimeoutError(f"{what}: not after {timeout:.0f} s")
        time.sleep(poll)


def plan(pairs: int, matches: int, repetitions: int) -> tuple[int, int]:
    """(games per pair, pairs that play): the fewest games that give each pair its share of
    ``matches`` (2 seatings x repetitions per game), then as few pairs as reach ``matches``."""
    per_game = 2 * repetitions
    games = min(len(GAMES), max(1, -(-matches // (per_game * pairs))))
    return games, min(pairs, max(1, -(-matches // (per_game * games))))


def schedule(url: str, names: list[list[str]], sizes: Sizes) -> tuple[list[int], list[int]]:
    """One tournament per pair (a bot of each gateway) over a few of the games in rotation,
    enough for ``sizes.matches`` external matches, and one of house bots; all their match
    ids, and the tournament ids."""
    from arena.store import db
    from arena.tournaments import create_tournament, pending_match_ids

    pairs = list(zip(names[0], names[1], strict=False))
    games, playing = plan(len(pairs), sizes.matches, sizes.repetitions)
    tournaments = []
    with db.transaction(url) as connection:
        for n, pair in enumerate(pairs[:playing]):
            chosen = [GAMES[(n + j) % len(GAMES)] for j in range(games)]
            tournaments.append(create_tournament(connection, chosen, list(pair), sizes=[2],
                                                 repetitions=sizes.repetitions, seed=1000 + n,
                                                 move_time=sizes.move_time, time_bank=2 * sizes.move_time))
        tournaments.append(create_tournament(connection, GAMES, HOUSE, sizes=[2], repetitions=2, seed=7))
    ids: list[int] = []
    with db.read(url) as connection:
        for tid in tournaments:
            ids += pending_match_ids(connection, tid)
    return ids, tournaments


class Sampler(threading.Thread):
    """Samples matches in flight, memory, threads and Redis clients every ``every`` seconds."""

    def __init__(self, url: str, redis_url: str, prefix: str, pids: dict[str, list[int]], every: float = 1.0):
        super().__init__(daemon=True, name="bench-load-sampler")
        import redis

        self.url, self.prefix, self.pids, self.every = url, prefix, pids, every
        self.redis = redis.Redis.from_url(redis_url, decode_responses=True)
        self.samples: list[dict[str, float]] = []
        # The commands this sampler sent Redis by name: taken off the run's count, which is
        # the arena's own (500 bots' slots looked at each second would add half a command a move).
        self.sent: Counter[str] = Counter()
        self.halt = threading.Event()
        self.error: BaseException | None = None

    def sample(self) -> dict[str, float]:
        import sqlalchemy as sa

        from arena.store import db
        from arena.store.statuses import MatchStatus

        with db.read(self.url) as connection:
            counts = dict(connection.execute(sa.text("SELECT status, count(*) FROM match GROUP BY status")).all())
        seats, cursor = 0, None
        while cursor != 0:
            cursor, keys = self.redis.scan(cursor or 0, match=f"{self.prefix}live:*", count=1000)
            self.sent["scan"] += 1
            for key in keys:
                seats += self.redis.zcard(key)
                self.sent["zcard"] += 1
        self.sent["info"] += 1
        row: dict[str, float] = {"t": time.monotonic(),
                                 **{s: counts.get(s, 0) for s in (MatchStatus.RUNNING, MatchStatus.DONE,
                                                                  MatchStatus.FAILED)},
                                 "playing": seats / 2,
                                 "redis_clients": int(self.redis.info("clients")["connected_clients"])}
        for role, pids in self.pids.items():
            row[f"rss_{role}"] = sum(rss_mb(p) for p in pids)
        row["live_threads"] = sum(status_field(p, "Threads") for p in self.pids["live"])
        return row

    def run(self) -> None:
        while not self.halt.is_set():
            try:
                self.samples.append(self.sample())
            except Exception as error:  # noqa: BLE001 - reported after the run, sampling goes on
                self.error = error
            self.halt.wait(self.every)

    def peak(self, key: str) -> dict[str, float]:
        return max(self.samples, key=lambda s: s[key]) if self.samples else {}


def outcomes(url: str, ids: list[int]) -> dict[str, Any]:
    """Decision times of external seats, strike and forfeit counts, unfinished matches."""
    import sqlalchemy as sa

    from arena.store import db

    times: list[float] = []
    codes: dict[str, int] = {}
    with db.read(url) as connection:
        house = set(connection.execute(sa.text("SELECT id FROM bot WHERE kind = 'house'")).scalars())
        for chunk in range(0, len(ids), 500):
            rows = connection.execute(sa.text(
                "SELECT m.seating, t.data FROM transcript t JOIN match m ON m.id = t.match_id "
                "WHERE t.match_id = ANY(:ids)"), {"ids": ids[chunk:chunk + 500]}).all()
            for seating, data in rows:
                for _turn, seat, _action, ms, code in data["decisions"]:
                    if seating[seat] in house or code == "forced":  # forced: applied unasked, no move
                        continue
                    codes[code] = codes.get(code, 0) + 1
                    if code == "ok":
                        times.append(ms)
        seats = connection.execute(sa.text(
            "SELECT coalesce(sum(strikes), 0), count(*) FILTER (WHERE forfeited) FROM match_seat "
            "WHERE match_id = ANY(:ids)"), {"ids": ids}).one()
        states = dict(connection.execute(sa.text(
            "SELECT status, count(*) FROM match WHERE id = ANY(:ids) GROUP BY status"), {"ids": ids}).all())
        again = connection.execute(sa.text(
            "SELECT count(*) FROM match WHERE id = ANY(:ids) AND attempts > 1"), {"ids": ids}).scalar_one()
        errors = list(connection.execute(sa.text(
            "SELECT error FROM match WHERE id = ANY(:ids) AND error IS NOT NULL LIMIT 3"), {"ids": ids}).scalars())
    return {"times": times, "codes": codes, "strikes": seats[0], "forfeits": seats[1], "states": states,
            "errors": errors, "again": again}


def finished(url: str, ids: list[int]) -> bool:
    import sqlalchemy as sa

    from arena.store import db
    from arena.store.statuses import MatchStatus

    with db.read(url) as connection:
        return not connection.execute(sa.text(
            "SELECT count(*) FROM match WHERE id = ANY(:ids) AND status = ANY(:pending)"),
            {"ids": ids, "pending": list(MatchStatus.PENDING)}).scalar_one()


def run(sizes: Sizes) -> None:
    from arena.store import db

    services = _services()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {sizes.bots} bots in {sizes.fleets} "
          f"fleet processes, 2 gateways, live worker concurrency {sizes.live}, {sizes.per_bot} matches per bot at "
          f"once, move time {sizes.move_time:g} s", flush=True)
    floor = measure_floor(sizes.floor_trips, sizes.bots)
    print(floor.describe(), flush=True)
    with contextlib.ExitStack() as stack:
        directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="arena-bench-load-")))
        redis = stack.enter_context(own_redis(directory, maxclients=max(10_000, 4 * (sizes.live + sizes.bots))))
        pg = stack.enter_context(_bench_platform().scratch_postgres())
        queue = f"arena-load-{uuid.uuid4().hex[:8]}"
        env = dict(os.environ) | {
            "PYTHONPATH": str(ROOT), "ARENA_DATABASE_URL": pg, "ARENA_REDIS_URL": redis, "ARENA_QUEUE": queue,
            "ARENA_LIVE_QUEUE": f"{queue}.live", "ARENA_MAILBOX_PREFIX": f"load:{uuid.uuid4().hex[:8]}:",
            "ARENA_GATEWAY_METRICS_PORT": "0", "ARENA_METRICS_PORT": "0",
            "ARENA_MAX_MATCHES_PER_BOT": str(sizes.per_bot), "ARENA_MAX_TOURNAMENT_MATCHES": "1000000",
            "ARENA_LADDER": "0",  # the schedule is the bench's own (the ladder has its bench)
        }
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        saved = dict(os.environ)  # the benches that run next get the environment back as it was
        stack.callback(lambda: (os.environ.clear(), os.environ.update(saved)))
        os.environ.update({k: env[k] for k in ("ARENA_DATABASE_URL", "ARENA_REDIS_URL", "ARENA_QUEUE",
                                                "ARENA_LIVE_QUEUE", "ARENA_MAILBOX_PREFIX",
                                                "ARENA_MAX_TOURNAMENT_MATCHES")})
        db.engine(pg)  # the schema
        processes = Processes(directory, env)
        stack.callback(processes.stop)
        addresses = [f"127.0.0.1:{services.free_port()}" for _ in range(2)]
        gateways = [processes.start(f"serve{n}", [ARENA, "serve"], {"ARENA_GRPC_ADDRESS": a})
                    for n, a in enumerate(addresses)]
        started = time.perf_counter()
        bots = register(addresses, sizes.bots)
        print(f"registered {len(bots)} bots in {time.perf_counter() - started:.1f} s", flush=True)
        serving = sum(rss_mb(p.pid) for p in gateways)  # the gateways' RSS before any bot connects
        fleets = []
        for k in range(sizes.fleets):
            gateway = k % 2
            mine = [b for b in bots if b[0] == gateway][k // 2::(sizes.fleets + 1 - gateway) // 2]
            file = directory / f"tokens{k}"
            file.write_text("".join(f"{name} {token}\n" for _, name, token in mine))
            file.chmod(0o600)
            fleets.append((len(mine), processes.start(
                f"fleet{k}", [sys.executable, "-m", "bots.fleet", "--tokens-file", str(file), "--address",
                              addresses[gateway], "--max-matches", str(sizes.per_bot), "--seed", str(100 * k)])))
        assert sum(n for n, _ in fleets) == len(bots), "every bot in one fleet"
        live = processes.start("live", [ARENA, "worker", "--live", "--concurrency", str(sizes.live)])
        house = processes.start("worker", [ARENA, "worker", "--concurrency", "1"])

        import sqlalchemy as sa

        with db.read(pg) as connection:
            ids = {name: i for i, name in connection.execute(sa.text("SELECT id, name FROM bot")).all()}
        bot_ids = [ids[name] for _, name, _ in bots]
        from arena.referee import external

        started = time.perf_counter()
        try:
            wait(lambda: external.wait_connected(bot_ids, timeout=0.5), 180, f"{len(bots)} bots to connect",
                 processes)
        finally:
            external.forget()
        connect_s = time.perf_counter() - started
        idle = {"fleets": sum(rss_mb(p.pid) for _, p in fleets), "gateways": sum(rss_mb(p.pid) for p in gateways),
                "live": rss_mb(live.pid)}
        print(f"connected {len(bots)} bots in {connect_s:.1f} s; idle RSS: fleets {idle['fleets']:.0f} MB "
              f"({1024 * idle['fleets'] / len(bots):.0f} kB/bot), gateways {idle['gateways']:.0f} MB "
              f"({1024 * idle['gateways'] / len(bots):.0f} kB/bot; {1024 * (idle['gateways'] - serving) / len(bots):.0f}"
              f" kB/bot over their {serving:.0f} MB before), live worker {idle['live']:.0f} MB", flush=True)

        names = [[name for g, name, _ in bots if g == n] for n in range(2)]
        ids_, _ = schedule(pg, names, sizes)
        sampler = Sampler(pg, redis, env["ARENA_MAILBOX_PREFIX"], {
            "fleets": [p.pid for _, p in fleets], "gateways": [p.pid for p in gateways], "live": [live.pid],
            "house": [house.pid]})
        sampler.start()
        from workers.app import app
        from workers.send import send

        before = redis_calls(redis)
        cpu0 = {role: sum(cpu_seconds(p) for p in pids) for role, pids in sampler.pids.items()}
        started = time.perf_counter()
        tasks = send(ids_, app)
        print(f"sent {len(ids_)} matches ({tasks} tasks) in {time.perf_counter() - started:.1f} s", flush=True)
        try:
            wait(lambda: finished(pg, ids_), 900, "the matches to finish", processes, poll=1.0)
        finally:
            elapsed = time.perf_counter() - started
            sampler.halt.set()
            sampler.join(10)
        after = redis_calls(redis)
        cpu = {role: sum(cpu_seconds(p) for p in pids) - cpu0[role] for role, pids in sampler.pids.items()}
        calls = {k: after.get(k, 0) - before.get(k, 0) - sampler.sent[k] for k in after}
        report(sizes, pg, ids_, elapsed, sampler, len(bots), processes, calls, cpu, floor,
               (serving, idle["gateways"]))


def redis_calls(url: str) -> dict[str, int]:
    """Commands Redis has run so far, by name (INFO commandstats)."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        return {name.removeprefix("cmdstat_"): int(stats["calls"])
                for name, stats in client.info("commandstats").items()}
    finally:
        client.close()


def _bench_platform():
    from bench import bench_platform

    return bench_platform


def report(sizes: Sizes, url: str, ids: list[int], elapsed: float, sampler: Sampler, bots: int,
           processes: Processes, calls: dict[str, int], cpu: dict[str, float], floor: Floor,
           gateways_mb: tuple[float, float]) -> None:
    from arena.store.statuses import MatchStatus

    found = outcomes(url, ids)
    done = found["states"].get(MatchStatus.DONE, 0)
    p50, p99 = percentiles(found["times"])
    running, playing = sampler.peak(MatchStatus.RUNNING), sampler.peak("playing")
    moves = max(1, sum(found["codes"].values()))
    print(f"matches: {len(ids)} sent, {done} done, other states {({k: v for k, v in found['states'].items() if k != MatchStatus.DONE})}"
          f" in {elapsed:.1f} s = {done / elapsed:.1f} matches/s, {moves / elapsed:.0f} external moves/s")
    print(f"peak in flight: {running.get(MatchStatus.RUNNING, 0):.0f} matches running (store), "
          f"{playing.get('playing', 0):.0f} with both seats in play (mailbox)")
    print(f"move round trip under load (referee's Decision.ms, {len(found['times'])} external decisions): "
          f"p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    if sizes.matches >= 1000:
        rate = done / elapsed
        print(f"goal: matches/s with {sizes.matches} sent at once >= {THROUGHPUT_GOAL:g}: {rate:.1f}, "
              f"{'met' if rate >= THROUGHPUT_GOAL else 'MISSED'}")
    if sizes.matches <= P99_AT:
        print(f"goal: move p99 under load with {sizes.matches} sent at once <= {P99_GOAL_MS:g} ms: {p99:.1f} ms, "
              f"{verdict(p99, P99_GOAL_MS)}")
    peak_rss = {role: max((s.get(f"rss_{role}", 0) for s in sampler.samples), default=0)
                for role in ("fleets", "gateways", "live", "house")}
    at_peak = running.get(MatchStatus.RUNNING, 0) or 1
    print(f"memory (peak RSS): fleets {peak_rss['fleets']:.0f} MB = {1024 * peak_rss['fleets'] / bots:.0f} kB/bot; "
          f"gateways {peak_rss['gateways']:.0f} MB = {1024 * peak_rss['gateways'] / bots:.0f} kB/connected bot; "
          f"live worker {peak_rss['live']:.0f} MB = {1024 * running.get('rss_live', 0) / at_peak:.0f} kB/match in "
          f"flight (at the peak); prefork worker {peak_rss['house']:.0f} MB")
    print(f"live worker threads (peak) {max((s['live_threads'] for s in sampler.samples), default=0):.0f}; "
          f"Redis clients (peak) {max((s['redis_clients'] for s in sampler.samples), default=0):.0f}")
    top = sorted(calls.items(), key=lambda kv: -kv[1])[:6]
    per_move = sum(calls.values()) / moves
    print(f"Redis commands per external move: {per_move:.1f} "
          f"({', '.join(f'{k} {v / moves:.1f}' for k, v in top)})")
    print(f"CPU per external move: live worker {1000 * cpu['live'] / moves:.2f} ms, gateways "
          f"{1000 * cpu['gateways'] / moves:.2f} ms, fleets {1000 * cpu['fleets'] / moves:.2f} ms "
          f"(run: live {cpu['live']:.0f} s, gateways {cpu['gateways']:.0f} s, fleets {cpu['fleets']:.0f} s, "
          f"prefork worker {cpu['house']:.0f} s of CPU in {elapsed:.0f} s)")
    against_floor(floor, p50, {role: 1000 * cpu[role] / moves for role in ("live", "gateways")},
                  [1024 * (mb - gateways_mb[0]) / bots for mb in (gateways_mb[1], peak_rss["gateways"])])
    codes = {k: v for k, v in found["codes"].items() if k != "ok"}
    print(f"goal: Redis commands per external move <= {REDIS_GOAL:g}: {per_move:.1f}, {verdict(per_move, REDIS_GOAL)}")
    print(f"strikes {found['strikes']}, forfeits {found['forfeits']}, decision codes other than ok: {codes or 'none'}")
    live_log = processes.log("live").read_text(errors="replace")
    pool, renewals = live_log.count("QueuePool limit"), live_log.count("lease renewal of matches")
    resent = {reason: 0 for reason in ("no_task", "lease_lapsed")}
    for name in processes.running:
        for line in processes.log(name).read_text(errors="replace").splitlines():
            for reason in resent:
                if f"matches sent again ({reason})" in line:
                    resent[reason] += int(line.split("supervisor: ", 1)[1].split()[0])
    print(f"matches delivered more than once (attempts > 1): {found['again']}; sent again by the supervisor: "
          f"{resent}; live worker log: {pool} database pool timeouts, {renewals} failed lease renewals")
    if pool:
        print("WARNING: the live worker waited over 30 s for one of its 10 database connections (its "
              "SQLAlchemy pool, not PostgreSQL's limit): see docs/scaling.md")
    if found["again"]:
        print("WARNING: matches delivered more than once: reserved by the live worker but not claimed within a "
              "lease (no_task), or their lease lapsed: see docs/scaling.md")
    if found["strikes"] or found["forfeits"] or codes or done < len(ids):
        print(f"WARNING: {found['strikes']} strikes, {found['forfeits']} forfeits, {codes} and "
              f"{len(ids) - done} matches not done, for bots that answer at once: the platform fell behind "
              f"(errors: {found['errors']}; logs in {processes.directory} are gone after the run)")
    if sampler.error is not None:
        print(f"(sampling failed at least once: {sampler.error!r})")
    for name in processes.running:
        text = processes.log(name).read_text(errors="replace")
        if "Traceback" in text:
            block = text[text.rfind("Traceback"):].splitlines()
            end = next((i for i, line in enumerate(block[1:], 1) if line and not line.startswith(" ")), len(block) - 1)
            print(f"WARNING: {name} logged {text.count('Traceback')} traceback(s); the last:",
                  *block[max(1, end - 6):end + 1], sep="\n")


def against_floor(floor: Floor, p50: float, cpu_ms: dict[str, float], gateway_kb: list[float]) -> None:
    """The run's figures as ratios to the floor's, and a line per goal. ``cpu_ms``: CPU per
    external move by role; ``gateway_kb``: the gateways' RSS growth per connected bot, idle
    and at the peak."""
    ratio = lambda a, b: a / b if b > 0 else float("nan")  # noqa: E731 - NaN: no floor to compare with
    floor_p50 = percentiles(floor.samples)[0]
    server = cpu_ms["live"] + cpu_ms["gateways"]
    idle, peak = (ratio(kb, floor.stream_kb) for kb in gateway_kb)
    print(f"against the floor: move p50 under load {p50:.1f} ms = {ratio(p50, floor_p50):.0f}x the floor's "
          f"{floor_p50:.3f} ms; CPU per external move: live worker {ratio(cpu_ms['live'], floor.cpu_ms):.1f}x, gateways "
          f"{ratio(cpu_ms['gateways'], floor.cpu_ms):.1f}x the floor's {floor.cpu_ms:.3f} ms per round trip; gateway RSS "
          f"growth per connected bot {gateway_kb[0]:.0f} kB idle, {gateway_kb[1]:.0f} kB at the peak = {idle:.1f}x, "
          f"{peak:.1f}x the floor's {floor.stream_kb:.1f} kB per idle stream")
    print(f"goal: server CPU per external move (live worker + gateways) {server:.2f} ms <= {CPU_GOAL:g}x the floor's"
          f" per round trip: {ratio(server, floor.cpu_ms):.1f}x, {verdict(ratio(server, floor.cpu_ms), CPU_GOAL)}")
    print(f"goal: gateway memory per connected bot (idle) <= {MEMORY_GOAL:g}x the floor's per idle stream: "
          f"{idle:.1f}x, {verdict(idle, MEMORY_GOAL)} (at the peak of the run {peak:.1f}x)")


def main() -> None:
    run(Sizes())
    if not any(name.startswith("BENCH_LOAD_") for name in os.environ):
        # The defaults also measure the move's p99 at 150 matches sent, its goal's size, in a
        # process of its own (this one's Celery client still knows the first run's broker).
        print(f"\nthe same with {P99_AT} external matches sent at once:", flush=True)
        subprocess.run([sys.executable, "-m", "bench.bench_load"], cwd=ROOT, check=False,
                       env={**os.environ, "BENCH_LOAD_MATCHES": str(P99_AT)})


if __name__ == "__main__":
    main()
