"""Shared helpers for the platform tests: which registered games to use, scripted players,
small tournaments and what the store holds after them, the command line in a subprocess."""

from __future__ import annotations

import asyncio
import os
import subprocess
from dataclasses import dataclass, field

import sqlalchemy as sa

from arena import games
from arena.referee import Disconnected, Turn
from arena.store import db, queries, replay_ratings
from arena.store.models import Rating, RatingHistory, Result
from arena.tournaments import create_tournament, pending_match_ids
from tests.helpers import ARENA, ROOT

# Games known to play quickly with house bots, preferred for pipeline tests; any other
# registered game is used when none of these is registered yet.
PREFERRED = ["crazy_eights", "yaniv", "durak", "shithead", "bastard_brag"]


def fast_games(count: int = 2) -> list[str]:
    """Up to ``count`` registered games, the quick ones first."""
    registered = games.names()
    ordered = [g for g in PREFERRED if g in registered] + [g for g in registered if g not in PREFERRED]
    return ordered[:count]


def table_sizes(game: str) -> list[int]:
    """The smallest two legal table sizes of ``game`` under its default options."""
    counts = games.get(game).player_counts(games.get(game).resolve_options(None))
    return list(counts)[:2]


@dataclass
class ScriptedPlayer:
    """A player that misbehaves on cue: ``script[i]`` says what to do on its i-th turn
    ("ok", "illegal", "malformed", "slow", "disconnect", "crash"); after the script it plays
    the first legal action."""

    script: list[str] = field(default_factory=list)
    slow: float = 0.05
    in_process: bool = False
    asked: int = 0

    async def act(self, turn: Turn) -> str:
        step = self.script[self.asked] if self.asked < len(self.script) else "ok"
        self.asked += 1
        if step == "illegal":
            return "no such action"
        if step == "malformed":
            return 42  # type: ignore[return-value]
        if step == "slow":
            await asyncio.sleep(self.slow)
        if step == "disconnect":
            raise Disconnected("gone")
        if step == "crash":
            raise RuntimeError("bot bug")
        return turn.legal_actions[0]

    async def match_ended(self, result: dict) -> None:
        return None


BOTS = ["random", "random-2", "random-3"]


def ratings_table(url):
    with db.transaction(url) as connection:
        rows = connection.execute(sa.select(Rating.__table__).order_by("bot_id", "game")).all()
    return {(r.bot_id, r.game): (r.elo, r.information, r.matches, r.wins, r.rank_sum) for r in rows}


def replayed(url):
    with db.transaction(url) as connection:
        standings = replay_ratings(connection)
    return {key: (s.elo, s.information, s.matches, s.wins, s.rank_sum) for key, s in standings.items()}


def small_tournament(url, reps=1, rated=True):
    game = fast_games(1)[0]
    with db.transaction(url) as connection:
        tid = create_tournament(connection, [game], BOTS, sizes=[2], repetitions=reps, seed=7, rated=rated)
    with db.transaction(url) as connection:
        return tid, pending_match_ids(connection, tid)


def counts(url):
    with db.transaction(url) as connection:
        results = connection.execute(sa.select(sa.func.count()).select_from(Result.__table__)).scalar_one()
        dup = connection.execute(
            sa.select(Result.__table__.c.match_id).group_by(Result.__table__.c.match_id).having(sa.func.count() > 1)
        ).all()
        history = connection.execute(sa.select(sa.func.count()).select_from(RatingHistory.__table__)).scalar_one()
    return results, len(dup), history


def finished(url, tournament_id):
    with db.transaction(url) as connection:
        return queries.tournament_status(connection, tournament_id)["status"] == "done"


def cli(env, *args, timeout=120):
    """Run the arena command line in its own process with ``env``."""
    full = dict(os.environ) | {"PYTHONPATH": str(ROOT)} | env
    done = subprocess.run([ARENA, *args], env=full, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout


def make_tournament(url, bots, reps=1, games=None):
    with db.transaction(url) as connection:
        tid = create_tournament(connection, games or fast_games(2), bots, sizes=[2], repetitions=reps, seed=11)
    with db.transaction(url) as connection:
        return tid, pending_match_ids(connection, tid)


def arena(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARENA, *argv], env={**os.environ, **env}, capture_output=True, text=True, timeout=120)


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: "), done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]
