"""``arena worker``: a Celery worker with the arena's settings (needs ``ARENA_REDIS_URL``)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from arena.errors import BadInput
from arena.settings import adopt, load


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("worker", help="start a Celery worker that plays matches")
    parser.add_argument("--concurrency", type=int, default=None,
                        help="pool processes (default the CPU count); with --live, matches at once "
                             "(default ARENA_LIVE_MATCHES)")
    parser.add_argument("--live", action="store_true",
                        help="play the live matches of ARENA_LIVE_QUEUE (external or paced bots), hundreds "
                             "at once on one event loop, instead of house-bot batches")
    parser.add_argument("--loglevel", default="INFO")
    parser.add_argument("--metrics-port", type=int, default=None,
                        help="port of /metrics (default ARENA_METRICS_PORT, 0 disables)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = load()
    if config.embedded:
        raise BadInput("arena worker needs ARENA_REDIS_URL (embedded mode plays matches in-process)")
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # Pool children write their metrics to files that /metrics sums up. The client
        # library picks its storage when first imported (already done by the command
        # line's imports), so start again with the directory set from the outset (a variable
        # of prometheus_client's own, not a setting of the arena's).
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="arena-metrics-")
        os.execv(sys.executable, [sys.executable, *sys.argv])
    if args.metrics_port is not None:
        # The worker's settings, with the option's port, for all it runs (its pool's processes
        # are forked from this one).
        config = config.but(metrics_port=args.metrics_port)
        adopt(config)
    from workers.app import app

    if args.live:
        if not config.live_queue:
            raise BadInput("arena worker --live needs ARENA_LIVE_QUEUE (the queue live matches are sent to)")
        from workers import live

        matches = args.concurrency or config.live_matches
        if matches < 1:
            raise BadInput(f"--concurrency {matches}: expected at least 1")
        live.raise_open_files()
        live.size_database_pool()
        live.install(matches)
        # Celery's threads only hand tasks over to the desk: a few, whatever ``matches`` is.
        pool, queue, concurrency = "threads", config.live_queue, live.HAND_OVER_THREADS
    else:
        pool, queue, concurrency = "prefork", config.queue, args.concurrency or os.cpu_count() or 1
    if concurrency < 1:
        raise BadInput(f"--concurrency {concurrency}: expected at least 1")
    app.worker_main([
        "worker", "--loglevel", args.loglevel, "--concurrency", str(concurrency),
        "--queues", queue, "--pool", pool, "--without-gossip", "--without-mingle",
        "--hostname", f"{'live' if args.live else 'arena'}-{os.getpid()}@%h",
    ])
    return 0
