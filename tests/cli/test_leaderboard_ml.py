"""``arena leaderboard GAME --model ml``: after a real embedded tournament of house bots on a
SQLite store, the maximum-likelihood list agrees with a plain Bradley-Terry fit of the store's
two-player results written here, and reads the same as a table and as JSON."""

from __future__ import annotations

import json
import re

import sqlalchemy as sa

from arena.cli import main
from arena.stats import ml
from tests.helpers import plain_bradley_terry
from tests.support.platform import fast_games


def run(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def two_player_games(url: str, game: str) -> tuple[list[tuple[int, int, float]], dict[int, str]]:
    """Every rated two-player match of ``game`` as (bot, bot, score of the first), read
    straight from the tables."""
    engine = sa.create_engine(url)
    with engine.connect() as c:
        seats = c.execute(sa.text(
            "SELECT s.match_id, s.bot_id, s.rank FROM match_seat s JOIN match m ON m.id = s.match_id "
            "WHERE m.game = :game AND m.rated ORDER BY s.match_id, s.seat"), {"game": game}).all()
        names = dict(c.execute(sa.text("SELECT id, name FROM bot")).all())
    engine.dispose()
    by_match: dict[int, list[tuple[int, int]]] = {}
    for match_id, bot, rank in seats:
        by_match.setdefault(match_id, []).append((bot, rank))
    games = []
    for (a, ra), (b, rb) in by_match.values():
        games.append((a, b, 1.0 if ra < rb else 0.5 if ra == rb else 0.0))
    return games, names


def test_the_ml_leaderboard_agrees_with_a_plain_bradley_terry_fit(embedded, capsys):
    game = fast_games(1)[0]
    run(capsys, "tournament", "create", "--game", game, "--bots", "heuristic,random,random-2,random-3",
        "--sizes", "2", "--repetitions", "3", "--seed", "11", "--run")
    data = json.loads(run(capsys, "leaderboard", game, "--model", "ml", "--json"))
    assert data["game"] == game and data["model"] == "ml" and data["anchor"] == ml.ANCHOR

    games, names = two_player_games(embedded, game)
    assert len(games) == 6 * 2 * 3  # 6 pairs, both seatings, 3 deals each
    expected = {names[bot]: rating for bot, rating in plain_bradley_terry(games).items()}
    fitted = {r["bot"]: r["rating"] for r in data["rows"]}
    assert fitted.keys() == expected.keys()
    for bot, rating in expected.items():
        assert abs(fitted[bot] - rating) < 1e-6, (bot, fitted[bot], rating)

    rows = data["rows"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert [r["rating"] for r in rows] == sorted(fitted.values(), reverse=True)
    assert abs(sum(fitted.values()) / 4 - ml.ANCHOR) < 1e-9
    for r in rows:
        assert r["low"] <= r["rating"] <= r["high"] and r["high"] - r["low"] > 0
    assert all(0.5 <= r["los_next"] <= 1 for r in rows[:-1]) and rows[-1]["los_next"] is None

    table = run(capsys, "leaderboard", game, "--model", "ml")
    assert table.startswith(f"{game}: maximum likelihood (mean 1500)\n")
    for r in rows:
        line = next(li for li in table.splitlines() if re.match(rf"\s*{r['rank']}\s+{r['bot']}\s", li))
        assert f"{r['rating']:.0f}" in line and f"[{r['low']:.0f}, {r['high']:.0f}]" in line
        assert ("-" if r["los_next"] is None else f"{r['los_next']:.1%}") in line

    # The crosstable follows the list's order.
    crossed = json.loads(run(capsys, "leaderboard", game, "--model", "ml", "--json", "--head-to-head"))
    assert sum(m["wins"] + m["draws"] + m["losses"] for m in crossed["head_to_head"]) == 2 * len(games)

    # A list the web kept is read as it is while the results stand where it was fitted, and
    # fitted again once they have moved (kept on fewer results here).
    from arena.store import db, ml_board

    with db.transaction(embedded) as c:
        stood = ml_board.version(c, game)
        ml_board.keep(c, game, stood, [ml_board.MLRow(1, rows[-1]["bot"], 1600.0, 1500.0, 1700.0, None)])
    kept = json.loads(run(capsys, "leaderboard", game, "--model", "ml", "--json"))["rows"]
    assert [(r["bot"], r["rating"]) for r in kept] == [(rows[-1]["bot"], 1600.0)]
    with db.transaction(embedded) as c:
        ml_board.keep(c, game, (0, 0, 0), [ml_board.MLRow(1, rows[-1]["bot"], 1600.0, 1500.0, 1700.0, None)])
    assert json.loads(run(capsys, "leaderboard", game, "--model", "ml", "--json"))["rows"] == rows


def test_an_empty_ml_leaderboard_says_so(embedded, capsys):
    game = fast_games(1)[0]
    run(capsys, "db", "upgrade")
    assert json.loads(run(capsys, "leaderboard", game, "--model", "ml", "--json"))["rows"] == []
    assert "no rated matches yet" in run(capsys, "leaderboard", game, "--model", "ml")
