"""The web face on a large store: server time of the leaderboard page and API, of the other
pages, and of a 1,000-decision match's replay data.

The store is synthetic but made of the real schema (the migrations): ``ARENA_BENCH_WEB_MATCHES``
recorded matches (default 1,000,000) over every game, 120 bots, 2- and 3-seat tables, with
their results, seats and rating history, written straight into SQLite (playing that many
matches would take hours). One real match of more than 1,000 decisions, played by house bots,
is recorded beside them with its transcript. The file is kept under the temp folder and
reused while the code's schema is the same.

Times are the server's own (its ``Server-Timing`` header) through a real uvicorn server:
median and 95th percentile over repeated requests. Goals: leaderboard page and API at most
20 ms; replay data of 1,000 decisions at most 100 ms (first request, nothing cached).
"""

from __future__ import annotations

import json
import math
import os
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from arena import games
from arena.clock import Clock
from arena.store import db
from arena.store.statuses import MatchStatus, TournamentStatus

BOTS = 120
BOTS_PER_GAME = 40
MATCHES_PER_TOURNAMENT = 10_000
GOALS = {"leaderboard": 20.0, "replay": 100.0}
# Fisher information of one even pairwise game on the Elo scale (see arena.ratings).
INFORMATION = 0.25 * (math.log(10) / 400) ** 2


def _when(second: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(1_760_000_000 + second)) + ".000000"


def long_match(min_decisions: int = 1000) -> dict:
    """A real match of house bots with at least ``min_decisions`` decisions: its transcript."""
    from arena.referee import HousePlayer, play_match

    for game in ("yaniv", "trekking_the_world", "shithead"):
        for seed in range(60):
            result = play_match(game, [HousePlayer(game, "random", s, seed) for s in range(3)], seed)
            if len(result.decisions) >= min_decisions:
                return result.transcript()
    raise RuntimeError("no house-bot match reached 1,000 decisions")


def build(path: Path, matches: int) -> dict:
    """Write the synthetic store at ``path``; returns what the benchmark needs to know."""
    url = f"sqlite:///{path}"
    db.engine(url)  # the schema, by the migrations
    db.dispose_all()
    rng = random.Random(7)
    names = games.names()
    pools = {g: rng.sample(range(1, BOTS + 1), BOTS_PER_GAME) for g in names}
    c = sqlite3.connect(path)
    c.execute("PRAGMA synchronous=OFF")
    c.executemany("INSERT INTO bot (id, name, kind, strategy, think, created_at) VALUES (?,?,?,?,?,?)",
                  [(b, f"bot-{b:03d}", "house" if b % 4 == 0 else "external", "random" if b % 4 == 0 else None,
                    0.0, _when(0)) for b in range(1, BOTS + 1)])
    tournaments = -(-matches // MATCHES_PER_TOURNAMENT)
    c.executemany("INSERT INTO tournament (id, name, status, rated, seed, move_time, time_bank, spec, created_at, "
                  "finished_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                  [(t, f"bench {t}", TournamentStatus.DONE, 1, t, Clock().move, Clock().bank, json.dumps({"games": names, "bots": []}),
                    _when(t), _when(t + 1)) for t in range(1, tournaments + 1)])
    elo = {(b, g): 1500.0 for g in names for b in pools[g]}
    tally = {key: [0, 0.0, 0, 0.0] for key in elo}  # matches, wins, rank_sum, information
    seq = 0

    def rows():
        nonlocal seq
        for m in range(1, matches + 1):
            game = names[m % len(names)]
            seating = rng.sample(pools[game], 3 if m % 10 < 3 else 2)
            ranks = list(range(1, len(seating) + 1))
            rng.shuffle(ranks)
            seq += 1
            yield m, game, seating, ranks, seq

    batch_m, batch_r, batch_s, batch_h = [], [], [], []

    def flush():
        c.executemany("INSERT INTO match (id, tournament_id, game, options, seed, seating, rated, status, attempts, "
                      "claimed_by, created_at, started_at) VALUES (?,?,?,'{}',?,?,1,?,1,'bench:1',?,?)", batch_m)
        c.executemany("INSERT INTO result (seq, match_id, game, finished_at, duration_ms, decisions, capped) "
                      "VALUES (?,?,?,?,?,?,0)", batch_r)
        c.executemany("INSERT INTO match_seat (match_id, seat, bot_id, score, rank, strikes, forfeited) "
                      "VALUES (?,?,?,?,?,0,0)", batch_s)
        c.executemany("INSERT INTO rating_history (seq, match_id, bot_id, game, before, after) VALUES (?,?,?,?,?,?)",
                      batch_h)
        for batch in (batch_m, batch_r, batch_s, batch_h):
            batch.clear()

    for m, game, seating, ranks, s in rows():
        when = _when(m)
        batch_m.append((m, (m - 1) // MATCHES_PER_TOURNAMENT + 1, game, rng.getrandbits(48), json.dumps(seating),
                        MatchStatus.DONE, when, when))
        batch_r.append((s, m, game, when, 3.0, 120))
        for seat, (bot, rank) in enumerate(zip(seating, ranks, strict=True)):
            batch_s.append((m, seat, bot, float(len(seating) - rank), rank))
            key = (bot, game)
            before = elo[key]
            elo[key] = after = before + (8.0 if rank == 1 else -8.0 / (len(seating) - 1)) * rng.random()
            batch_h.append((s, m, bot, game, before, after))
            t = tally[key]
            t[0] += 1
            t[1] += rank == 1
            t[2] += rank
            t[3] += INFORMATION
        if len(batch_m) >= 20_000:
            flush()
    flush()
    c.executemany("INSERT INTO rating (bot_id, game, elo, information, matches, wins, rank_sum, last_played) "
                  "VALUES (?,?,?,?,?,?,?,?)",
                  [(b, g, elo[(b, g)], t[3], t[0], t[1], t[2], _when(matches)) for (b, g), t in tally.items()])
    transcript = long_match()
    m = matches + 1
    c.execute("INSERT INTO match (id, tournament_id, game, options, seed, seating, rated, status, attempts, "
              "created_at) VALUES (?,NULL,?,?,?,?,0,?,1,?)",
              (m, transcript["game"], json.dumps(transcript["options"]), transcript["seed"], json.dumps([1, 2, 3]),
               MatchStatus.DONE, _when(m)))
    c.execute("INSERT INTO result (seq, match_id, game, finished_at, duration_ms, decisions, capped) "
              "VALUES (?,?,?,?,1,?,0)", (seq + 1, m, transcript["game"], _when(m), len(transcript["decisions"])))
    c.executemany("INSERT INTO match_seat VALUES (?,?,?,?,?,0,0)",
                  [(m, s, s + 1, transcript["scores"][s], transcript["ranks"][s]) for s in range(3)])
    c.execute("INSERT INTO transcript (match_id, data) VALUES (?,?)", (m, json.dumps(transcript)))
    c.commit()
    c.execute("ANALYZE")
    c.close()
    return {"replay_match": m, "replay_game": transcript["game"], "decisions": len(transcript["decisions"])}


def store(matches: int) -> tuple[str, dict]:
    """The synthetic store of ``matches`` matches, built once per schema revision."""
    path = Path(tempfile.gettempdir()) / f"arena-bench-web-{matches}-{db.head_revision()}.db"
    meta = path.with_suffix(".json")
    if not (path.exists() and meta.exists()):
        for stale in (path, meta):
            stale.unlink(missing_ok=True)
        started = time.perf_counter()
        info = build(path, matches)
        info["built_s"] = round(time.perf_counter() - started, 1)
        meta.write_text(json.dumps(info))
        print(f"built {matches:,} matches in {info['built_s']} s: {path}", flush=True)
    return f"sqlite:///{path}", json.loads(meta.read_text())


def server_ms(client: httpx.Client, path: str, runs: int) -> tuple[float, float]:
    """Median and 95th percentile of the server's time for ``path`` (after one warm-up), read
    from the store each time: the pages every viewer shares are dropped before each request."""
    from arena.web import caches

    client.get(path).raise_for_status()
    times = []
    for _ in range(runs):
        caches.snapshots.clear()
        caches.finished.clear()
        response = client.get(path)
        response.raise_for_status()
        times.append(float(response.headers["server-timing"].split("dur=")[1]))
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.95))]


def main() -> None:
    from arena.web import background, caches
    from arena.web.app import create_app

    matches = int(os.environ.get("ARENA_BENCH_WEB_MATCHES", "1000000"))
    url, info = store(matches)
    server = background.start(create_app(url))
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            with db.read(url) as c:
                game = c.exec_driver_sql("SELECT game FROM rating GROUP BY game ORDER BY count(*) DESC").scalar()
            print(f"store: {matches:,} recorded matches, {BOTS} bots, SQLite; server time, median / p95 ms")
            rows = [
                ("leaderboard page", f"/games/{game}/leaderboard", "leaderboard"),
                ("leaderboard page sorted by win rate", f"/games/{game}/leaderboard?sort=win_rate", "leaderboard"),
                ("leaderboard API", f"/api/v1/games/{game}/leaderboard", "leaderboard"),
                ("home page", "/", None),
                ("game page", f"/games/{game}", None),
                ("match page", f"/matches/{matches // 2}", None),
                ("status page", "/status", None),
                ("tournament page (10,000 matches)", "/tournaments/1", None),
                ("bot page", "/bots/bot-004", None),
            ]
            for label, path, goal in rows:
                runs = 30 if goal else 5
                median, p95 = server_ms(client, path, runs)
                verdict = "" if goal is None else ("  ok" if p95 <= GOALS[goal] else f"  over the {GOALS[goal]:.0f} ms goal")
                print(f"  {label:<38} {median:8.1f} {p95:8.1f}{verdict}")
            m = info["replay_match"]
            print(f"replay data of a {info['decisions']}-decision {info['replay_game']} match, first request "
                  "(cache emptied), median / max ms of 5")
            for view in ("all", "0"):
                times = []
                for _ in range(5):
                    caches.replays.clear()
                    response = client.get(f"/api/v1/matches/{m}/replay?view={view}")
                    response.raise_for_status()
                    times.append(float(response.headers["server-timing"].split("dur=")[1]))
                size = len(response.content) // 1024
                verdict = "  ok" if max(times) <= GOALS["replay"] else f"  over the {GOALS['replay']:.0f} ms goal"
                print(f"  view {view:<4} {statistics.median(times):8.1f} {max(times):8.1f}  ({size} KiB){verdict}")
    finally:
        server.stop()
