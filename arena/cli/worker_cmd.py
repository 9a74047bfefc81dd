"""``arena worker``: a Celery worker with the arena's settings (needs ``ARENA_REDIS_URL``)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from arena.config import settings


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("worker", help="start a Celery worker that plays matches")
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 1, help="pool processes")
    parser.add_argument("--loglevel", default="INFO")
    parser.add_argument("--metrics-port", type=int, default=None,
                        help="port of /metrics (default ARENA_METRICS_PORT, 0 disables)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = settings()
    if config.embedded:
        raise ValueError("arena worker needs ARENA_REDIS_URL (embedded mode plays matches in-process)")
    if args.metrics_port is not None:
        os.environ["ARENA_METRICS_PORT"] = str(args.metrics_port)
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # Pool children write their metrics to files that /metrics sums up. The client
        # library picks its storage when first imported (already done by the command
        # line's imports), so start again with the directory set from the outset.
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="arena-metrics-")
        os.execv(sys.executable, [sys.executable, *sys.argv])
    from workers.app import app

    app.worker_main([
        "worker", "--loglevel", args.loglevel, "--concurrency", str(args.concurrency),
        "--queues", config.queue, "--pool", "prefork", "--without-gossip", "--without-mingle",
    ])
    return 0
