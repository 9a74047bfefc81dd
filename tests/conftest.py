"""Fixtures shared by every test folder: the Redis servers tests run against."""

from __future__ import annotations

import pytest

from tests.platform.services import private_redis, redis_answers


@pytest.fixture(scope="session")
def shared_redis(tmp_path_factory):
    """A Redis URL: the machine's Redis when it answers, else a private server."""
    if redis_answers("127.0.0.1", 6379):
        yield "redis://127.0.0.1:6379/0"
        return
    with private_redis(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture
def own_redis(tmp_path):
    """A private Redis server on a free port, for tests that kill or restart it."""
    with private_redis(tmp_path) as url:
        yield url
