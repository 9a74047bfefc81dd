"""Nobody off the machine reads the metrics unless the operator says so: a real ``arena
worker`` and a real ``arena serve`` serve ``/metrics`` on loopback by default (even when the
gRPC address is public), and on ``ARENA_METRICS_ADDRESS`` / ``ARENA_GATEWAY_METRICS_ADDRESS``
when set."""

from __future__ import annotations

import ipaddress
import os
import socket
import urllib.request

import pytest

from tests.helpers import ROOT, arena_serve, wait_until
from tests.support.services import free_port

LOOPBACK = "127.0.0.1"


def outward_address() -> str | None:
    """This machine's IPv4 address on its network, or None when it has only loopback."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            # Connecting a UDP socket sends nothing: the kernel only picks the route's source.
            probe.connect(("192.0.2.1", 9))
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if ipaddress.ip_address(address).is_loopback else address


@pytest.fixture
def outward() -> str:
    address = outward_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to try the metrics from")
    return address


def scrape(host: str, port: int) -> str | None:
    try:
        return urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=2).read().decode()
    except OSError:
        return None


def refused(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def assert_listens_only_on(listening: str, closed: str, port: int, metric: str) -> None:
    text = wait_until(lambda: scrape(listening, port), timeout=90, what=f"/metrics on {listening}:{port}")
    assert metric in text
    assert refused(closed, port), f"/metrics also answers on {closed}:{port}"


@pytest.mark.parametrize("configured", [False, True], ids=["default", "configured"])
def test_worker_metrics_listen_on_loopback_unless_configured(configured, outward, shared_redis, queue_name,
                                                            workers, tmp_path, monkeypatch):
    monkeypatch.delenv("ARENA_METRICS_ADDRESS", raising=False)
    env = {"ARENA_REDIS_URL": shared_redis, "ARENA_QUEUE": queue_name,
           "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}"}
    if configured:
        env["ARENA_METRICS_ADDRESS"] = outward
    port = free_port()
    workers(env, concurrency=1, command="arena", metrics_port=port)
    listening, closed = (outward, LOOPBACK) if configured else (LOOPBACK, outward)
    assert_listens_only_on(listening, closed, port, "arena_queue_depth")


@pytest.mark.parametrize("configured", [False, True], ids=["default", "configured"])
def test_gateway_metrics_listen_on_loopback_unless_configured(configured, outward, tmp_path):
    port = free_port()
    env = dict(os.environ) | {
        "PYTHONPATH": str(ROOT), "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}",
        # A public gRPC address: the metrics must not follow it there.
        "ARENA_GRPC_ADDRESS": f"{outward}:{free_port()}", "ARENA_GATEWAY_METRICS_PORT": str(port),
    }
    for name in ("ARENA_REDIS_URL", "ARENA_GATEWAY_METRICS_ADDRESS", "PROMETHEUS_MULTIPROC_DIR"):
        env.pop(name, None)
    if configured:
        env["ARENA_GATEWAY_METRICS_ADDRESS"] = outward
    with arena_serve(env, tmp_path / "serve.log"):
        listening, closed = (outward, LOOPBACK) if configured else (LOOPBACK, outward)
        assert_listens_only_on(listening, closed, port, "arena_gateway_connected_bots")
