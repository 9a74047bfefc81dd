"""The gRPC half of ``arena demo``: two example bots run as their own processes, connect to
a gateway started in this process, and play a rated round robin beside the house bots."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa
from prometheus_client import start_http_server

from arena.referee import external
from arena.server.embedded import BackgroundServer
from arena.server.settings import ServerSettings
from arena.store import bot_tokens, db
from arena.store.models import Bot
from arena.tournaments import create_tournament

from . import ladder
from .progress import ProgressBar
from .tournament_cmd import print_status

# The example bots, by the name they are registered under: the module that runs them.
WIRE_BOTS = {"wire-random": "arena_bot.examples.random_bot", "wire-heuristic": "bots.house_bot"}
HOUSE_LADDER = ["search", "heuristic", "random"]
WIRE_GAMES = ["crazy_eights", "durak", "card_trip_europe"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def token_for(name: str) -> tuple[int, str]:
    """Register ``name`` (or give an already registered demo bot a fresh token)."""
    with db.transaction() as connection:
        try:
            made = bot_tokens.register(connection, name, "arena demo")
            return made.bot_id, made.token
        except bot_tokens.NameTaken:
            bot_id = connection.execute(sa.select(Bot.__table__.c.id).where(Bot.__table__.c.name == name)).scalar_one()
            return int(bot_id), bot_tokens.issue(connection, bot_id, "arena demo")


def run(seed: int | None, games_wanted: list[str]) -> None:
    names = [g for g in WIRE_GAMES if g in games_wanted] or games_wanted[:1]
    metrics_port = free_port()
    start_http_server(metrics_port, addr="127.0.0.1")
    server = BackgroundServer(ServerSettings(address="127.0.0.1:0"))
    processes = []
    try:
        ids = []
        for name, module in WIRE_BOTS.items():
            bot_id, token = token_for(name)
            ids.append(bot_id)
            env = {**os.environ, "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": server.address,
                   "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
            processes.append(subprocess.Popen([sys.executable, "-m", module], env=env,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        print(f"\ngateway on {server.address}: bots {', '.join(WIRE_BOTS)} connecting as separate processes")
        if not external.wait_connected(ids, 60):
            raise RuntimeError("the demo bots did not connect")
        with db.transaction() as connection:
            # Every house bot of the first round plays this one too, so that the leaderboards
            # printed last still compare them on equal terms (search among them).
            tournament_id = create_tournament(connection, names, [*WIRE_BOTS, *HOUSE_LADDER], [2], 1,
                                              seed, name="demo over gRPC", time_bank=10.0)
        from workers.follow import run_tournament

        bar = ProgressBar(f"demo tournament {tournament_id} (gRPC bots)", force=True)
        status = run_tournament(tournament_id, wait=True, progress=bar)
        bar.close()
        print_status(status)
        with db.read() as connection:
            for name in names:
                print()
                ladder.print_board(connection, name, HOUSE_LADDER)
        print(f"\nmetrics of this gateway were at http://127.0.0.1:{metrics_port}/metrics; "
              "`arena serve` serves them on :9809, `arena worker` on :9808")
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(10)
        server.stop()
