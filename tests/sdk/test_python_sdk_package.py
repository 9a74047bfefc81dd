"""The Python bot SDK as a bot author gets it: the ``arena-bot`` wheel built from sdk/python,
installed into a clean virtualenv (grpcio and protobuf from the registry, nothing of the arena),
its example bot run from there as a real process against ``arena serve``, and a challenge asked
for with the SDK's own protocol code and played to the end."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.referee import external
from arena.server.embedded import BackgroundServer
from arena.server.settings import ServerSettings
from arena.store import db
from tests.support.grpc import GAME, register, wait_connected

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sdk" / "python"
# One clean virtualenv per wheel content, kept between runs.
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "arena" / "python-sdk"
# pip's words for a registry it cannot reach (no network, no DNS, a proxy in the way).
OFFLINE = ("NewConnectionError", "Temporary failure in name resolution", "Name or service not known",
           "ConnectTimeout", "ReadTimeout", "ProxyError", "Network is unreachable", "Connection refused",
           "No matching distribution found for grpcio", "No matching distribution found for protobuf")
# What a bot author must not get with the SDK.
ABSENT = ["arena", "sqlmodel", "sqlalchemy", "celery", "redis", "fastapi", "grpc_tools"]

# A challenge asked for as a bot author would: the SDK's own Arena stub, the bot's token, the bot
# in a seat.
CHALLENGE = """\
import os, grpc
from arena_bot.v1 import arena_pb2, arena_pb2_grpc
with grpc.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
    request = arena_pb2.ChallengeRequest(game="{game}", players=["wheel-bot", "house:random"])
    bearer = (("authorization", "Bearer " + os.environ["ARENA_BOT_TOKEN"]),)
    print(arena_pb2_grpc.ArenaStub(channel).Challenge(request, metadata=bearer).match_id)
"""


def clean_env() -> dict[str, str]:
    """The environment for the clean venv's processes: nothing that points back at the repository
    or the main venv."""
    return {key: value for key, value in os.environ.items()
            if key not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP"}}


def build_wheel(out: Path) -> Path:
    """``pip wheel`` from a copy of sdk/python, so the build leaves nothing in the working tree."""
    source = out / "source"
    shutil.copytree(SDK, source, ignore=shutil.ignore_patterns("*.egg-info", "build", "__pycache__"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--disable-pip-version-check",
                           "-w", str(out / "dist"), str(source)], capture_output=True, text=True, timeout=300)
    if done.returncode != 0 and any(word in done.stdout + done.stderr for word in OFFLINE):
        pytest.skip(f"the package registry cannot be reached to build the wheel: {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, f"pip wheel failed:\n{done.stdout}\n{done.stderr}"
    (wheel,) = (out / "dist").glob("arena_bot-*.whl")
    return wheel


def content_hash(wheel: Path) -> str:
    """The hash of what the wheel holds (names and bytes), not of the zip, whose timestamps vary."""
    digest = hashlib.sha256()
    with zipfile.ZipFile(wheel) as archive:
        for name in sorted(archive.namelist()):
            digest.update(name.encode() + b"\0" + archive.read(name) + b"\0")
    return digest.hexdigest()[:16]


def clean_venv(wheel: Path) -> Path:
    """A venv that does not see the main venv's packages, with the wheel installed; made once per
    wheel content, under a lock (a venv cannot be moved into place once built)."""
    target = CACHE / content_hash(wheel)
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / ".ready").exists():
            return target
        shutil.rmtree(target, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(target)], check=True, timeout=120, env=clean_env())
        assert "include-system-site-packages = false" in (target / "pyvenv.cfg").read_text()
        done = subprocess.run([str(target / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                               "--retries", "2", "--timeout", "30", str(wheel)],
                              capture_output=True, text=True, timeout=600, env=clean_env(), cwd=target)
        if done.returncode != 0:
            shutil.rmtree(target, ignore_errors=True)
            if any(word in done.stdout + done.stderr for word in OFFLINE):
                pytest.skip(f"the package registry cannot be reached to install grpcio and protobuf: "
                            f"{done.stderr.strip()[-300:]}")
            raise AssertionError(f"pip install of the wheel failed:\n{done.stdout}\n{done.stderr}")
        (target / ".ready").touch()
    # Sweep venvs of older wheels: only the current one is worth keeping.
    for old in CACHE.iterdir():
        if old.is_dir() and old.name != target.name and not old.name.startswith("."):
            shutil.rmtree(old, ignore_errors=True)
            (CACHE / f"{old.name}.lock").unlink(missing_ok=True)
    return target


def in_venv(venv: Path, code: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run ``code`` with the clean venv's Python, away from the repository; return its stdout."""
    done = subprocess.run([str(venv / "bin" / "python"), "-c", code], capture_output=True, text=True,
                          timeout=60, env=env or clean_env(), cwd=cwd)
    assert done.returncode == 0, f"{code}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return clean_venv(build_wheel(tmp_path_factory.mktemp("wheel")))


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[BackgroundServer]:
    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'arena.db'}")
    monkeypatch.delenv("ARENA_REDIS_URL", raising=False)
    external.forget()
    running = BackgroundServer(ServerSettings(address="127.0.0.1:0", admin_token="admin-secret"))
    yield running
    running.stop()
    db.dispose_all()


def test_the_wheel_holds_the_sdk_and_its_protocol_code_and_needs_only_grpc(venv: Path, tmp_path: Path) -> None:
    found = in_venv(venv, "import importlib.util, sys, arena_bot, arena_bot.aio, arena_bot.cli, arena_bot.v1.gateway_pb2_grpc, "
                          "arena_bot.v1.arena_pb2_grpc, arena_bot.v1.rules_pb2_grpc\n"
                          f"print(arena_bot.__file__)\n"
                          f"print(*[name for name in {ABSENT!r} if importlib.util.find_spec(name)])", tmp_path)
    where, present = found.splitlines()
    assert Path(where).is_relative_to(venv), f"arena_bot came from {where}, not the clean venv"
    assert present == "", f"the clean venv can import {present}"
    requires = in_venv(venv, "from importlib.metadata import requires; print(*requires('arena-bot'), sep='\\n')", tmp_path)
    assert sorted(r.split(">")[0].split("<")[0] for r in requires.split()) == ["grpcio", "protobuf"]
    assert (venv / "bin" / "arena-random-bot").exists()


def test_the_example_bot_from_the_clean_venv_plays_a_challenge_to_the_end(
        venv: Path, server: BackgroundServer, tmp_path: Path) -> None:
    with grpc.insecure_channel(server.address) as channel:
        arena = arena_pb2_grpc.ArenaStub(channel)
        token = register(arena, "wheel-bot")
        env = {**clean_env(), "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": server.address}
        bot = subprocess.Popen([str(venv / "bin" / "arena-random-bot")], env=env, cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            wait_connected(token)
            match_id = in_venv(venv, CHALLENGE.format(game=GAME), tmp_path, env).strip()
            ref = arena_pb2.MatchRef(match_id=match_id)
            deadline = time.monotonic() + 60
            while arena.GetMatch(ref).summary.status not in {"done", "aborted"} and time.monotonic() < deadline:
                time.sleep(0.2)
            detail = arena.GetMatch(ref)
        finally:
            bot.terminate()
            output = bot.communicate(timeout=10)[0].decode()
    assert detail.summary.status == "done", (detail.summary, output)
    assert "wheel-bot" in detail.summary.players
    assert 0 in {d.seat for d in detail.decisions}, "the bot in seat 0 made decisions"
    assert {d.code for d in detail.decisions} - {"forced"} == {"ok"}, output
    assert "connected as wheel-bot" in output and token not in output
