"""Playing by hand with nothing but the SDK: `python -m arena_bot.examples.by_hand` prints each
turn and reads the move from its input, against a real server."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.server.embedded import BackgroundServer
from tests.helpers import ROOT
from tests.support.grpc import GAME, bearer, register, wait_connected


def test_a_person_plays_a_challenge_from_the_keyboard(arena: arena_pb2_grpc.ArenaStub, server: BackgroundServer) -> None:
    token = register(arena, "by-hand")
    # This repository's SDK, as a bot author's installed one.
    env = {**os.environ, "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": server.address,
           "PYTHONPATH": os.pathsep.join([str(ROOT / "sdk" / "python"), str(ROOT)])}
    person = subprocess.Popen([sys.executable, "-m", "arena_bot.examples.by_hand"], env=env, cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        # A typo first (asked again), then the first legal action every time.
        person.stdin.write("nonsense\n" + "0\n" * 2000)  # type: ignore[union-attr]
        person.stdin.flush()  # type: ignore[union-attr]
        wait_connected(token)
        ref = arena.Challenge(arena_pb2.ChallengeRequest(game=GAME, players=["by-hand", "house:random"]),
                              metadata=bearer(token))
        deadline = time.monotonic() + 60
        while (detail := arena.GetMatch(ref)).summary.status in ("scheduled", "running"):
            assert time.monotonic() < deadline, "the match never ended"
            time.sleep(0.2)
    finally:
        person.terminate()
        shown = person.communicate(timeout=10)[0]
    assert detail.summary.status == "done"
    mine = [d for d in detail.decisions if d.seat == 0]
    assert mine and {d.code for d in mine} - {"forced"} == {"ok"}, "every typed move was legal and in time"
    assert f"--- match {ref.match_id} ({GAME}), seat 0, turn " in shown and "  [0] " in shown
    assert shown.count("not a legal action: give its number or its exact id") == 1
    assert f"--- match {ref.match_id} over: rank " in shown
