"""The command line on the embedded default: create and run a tournament, follow it,
read leaderboards and transcripts, recompute ratings, cancel, the demo."""

from __future__ import annotations

import re

from arena.cli import main
from tests.support.platform import fast_games


def run(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_tournament_lifecycle_from_the_command_line(embedded, capsys):
    games = fast_games(2)
    out = run(capsys, "tournament", "create", "--game", ",".join(games), "--bots", "random,random-2,random-3",
              "--sizes", "2", "--seed", "3", "--run")
    assert re.search(r"tournament 1: 12 matches", out) and "done" in out
    status = run(capsys, "tournament", "status", "1")
    for game in games:
        assert re.search(rf"{game}\s+6/6\s+done", status)
    board = run(capsys, "leaderboard", games[0])
    assert "random-2" in board and "95% interval" in board
    shown = run(capsys, "match", "show", "1")
    assert "seat 0" in shown and "decisions in" in shown
    assert "differ" in run(capsys, "ratings", "recompute", "--check")
    assert "rebuilt" in run(capsys, "ratings", "recompute")
    assert main(["ratings", "recompute", "--check"]) == 0


def test_cancel_from_the_command_line(embedded, capsys):
    game = fast_games(1)[0]
    run(capsys, "tournament", "create", "--game", game, "--bots", "random,random-2", "--sizes", "2")
    assert "2 matches cancelled" in run(capsys, "tournament", "cancel", "1")
    assert "cancelled" in run(capsys, "tournament", "status", "1")


def test_demo_plays_and_rates_several_games(embedded, capsys):
    games = fast_games(2)
    out = run(capsys, "demo", "--games", ",".join(games), "--budget", "0.1", "--max-repetitions", "1")
    for game in games:
        assert re.search(rf"{game}\s+\d+/\d+\s+done", out)
        assert f"\n{game}\n" in out
    assert out.count("heuristic") + out.count("random") >= 6
    # Under every board: the house ladder, each step's meetings, and the tally over the games.
    assert out.count("ladder search > heuristic > random: ") >= len(games)
    # Each step judged by the sequential test of `arena test` over the duplicate pairs played.
    step = re.search(r"search against heuristic: (\d+) duplicate pairs?, LLR ([-+]\d+\.\d\d) \(bounds -2\.94, "
                     r"\+2\.94; H0 0, H1 50\): (H1 settled|H0|undecided)[^;]*; "
                     r"(Elo [-+]\d+ \[[-+]\d+, [-+]\d+\] \(95 %\)|Elo not estimated \((the one pair|all \d+ pairs) scored )", out)
    assert step and int(step.group(1)) >= 1, out
    assert re.search(rf"ladder is shown in \d of {len(games)} games; the sequential test settles search over heuristic in \d", out)
    # The gRPC round seats the example bots beside all three house bots, search among them:
    # each house bot's board shows more matches after it than before.
    first, wire = out.split("gateway on ")
    for bot in ("search", "heuristic", "random"):
        row = rf"\n\d+\s+{bot}\s+\d+\??\s+\[\d+, \d+\]\s+(\d+)"  # "?": a provisional rating
        before, after = re.search(row, first[first.index(f"\n{games[0]}\n"):]), re.search(row, wire)
        assert before and after and int(after.group(1)) > int(before.group(1)), bot
    assert "wire-random" in wire and "wire-heuristic" in wire
