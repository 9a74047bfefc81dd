"""The ladder as a stranger meets it: ``arena serve`` started with nothing but a fresh store,
bots registered and connected with their own tokens, and no admin call: each is rated within
two minutes, in complete duplicate groups, and the leaderboard (command line and API) shows it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path

import grpc
import httpx
import pytest
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.store import db
from arena.store.models import Bot, Match, Result, Tournament
from tests.helpers import ARENA, ROOT, arena_serve, stop, wait_until
from tests.support.services import free_port

GAME = "crazy_eights"

LADDER_BOT = textwrap.dedent("""
    import os, random, sys, time
    from arena_bot.sdk import Bot, run, Connection

    class Ladderer(Bot):
        games = [sys.argv[1]]
        max_matches = 2

        def act(self, turn):
            time.sleep(float(sys.argv[2]))  # its thinking time
            return random.choice(list(turn.legal_actions))

    run(Ladderer(), Connection(address=os.environ["ARENA_ADDRESS"], token=os.environ["ARENA_BOT_TOKEN"]))
""")


@pytest.fixture
def ladder_server(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """``arena serve`` on its defaults but a quick ladder, with the web face beside it
    (``env["WEB"]`` is its address)."""
    port, web = free_port(), free_port()
    env = dict(os.environ) | {
        "PYTHONPATH": str(ROOT), "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}",
        "ARENA_GRPC_ADDRESS": f"127.0.0.1:{port}", "ARENA_GATEWAY_METRICS_PORT": "0",
        "ARENA_LADDER_SECONDS": "0.5", "ARENA_LADDER_SEARCH_MATCHES": "0", "ARENA_GRACE_SECONDS": "2",
    }
    for name in ("ARENA_REDIS_URL", "ARENA_ADMIN_TOKEN", "ARENA_LADDER"):
        env.pop(name, None)
    with arena_serve(env, tmp_path / "serve.log", "--web", f"127.0.0.1:{web}"):
        address = f"127.0.0.1:{port}"
        with grpc.insecure_channel(address) as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
        wait_until(lambda: answers(f"http://127.0.0.1:{web}/api/v1/ladder"), timeout=60, poll=0.3,
                   what="the web face to answer")
        yield address, env | {"WEB": f"http://127.0.0.1:{web}"}


def answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def connect(address: str, env: dict[str, str], token: str, game: str = GAME,
            think: float = 0.0) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", LADDER_BOT, game, str(think)], cwd=ROOT,
                            env=env | {"ARENA_ADDRESS": address, "ARENA_BOT_TOKEN": token},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def rated_groups(url: str) -> dict[tuple[int, int], list[tuple[str, list[int], bool]]]:
    """Every ladder match by its duplicate group (tournament, deal): status, seating and
    whether its Elo was applied."""
    match_t, tournament_t, result_t = Match.__table__, Tournament.__table__, Result.__table__
    with db.read(url) as connection:
        rows = connection.execute(
            sa.select(match_t.c.tournament_id, match_t.c.seed, match_t.c.status, match_t.c.seating,
                      match_t.c.rated, result_t.c.rating_round)
            .join(tournament_t, tournament_t.c.id == match_t.c.tournament_id)
            .outerjoin(result_t, result_t.c.match_id == match_t.c.id)
            .where(tournament_t.c.kind == "ladder")).all()
    groups: dict[tuple[int, int], list[tuple[str, list[int], bool]]] = defaultdict(list)
    for row in rows:
        assert row.rated
        groups[(row.tournament_id, row.seed)].append((row.status, list(row.seating), row.rating_round is not None))
    return groups


def seated_since(url: str, name: str, when: float) -> list[int]:
    """The ladder matches seating bot ``name`` written after ``when`` (epoch seconds)."""
    match_t, tournament_t, bot_t = Match.__table__, Tournament.__table__, Bot.__table__
    with db.read(url) as connection:
        bot_id = connection.execute(sa.select(bot_t.c.id).where(bot_t.c.name == name)).scalar_one()
        rows = connection.execute(
            sa.select(match_t.c.id, match_t.c.seating, match_t.c.created_at)
            .join(tournament_t, tournament_t.c.id == match_t.c.tournament_id)
            .where(tournament_t.c.kind == "ladder")).all()
    return [r.id for r in rows if bot_id in r.seating and r.created_at.replace(tzinfo=UTC).timestamp() > when]


def web_json(env: dict[str, str], path: str) -> dict:
    answer = httpx.get(env["WEB"] + path, timeout=10)
    answer.raise_for_status()
    return answer.json()


def bearer(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


@pytest.mark.timeout(240)
def test_connected_bots_are_rated_without_an_admin(ladder_server: tuple[str, dict[str, str]]) -> None:
    address, env = ladder_server
    names = ["ada", "bram", "cleo"]
    with grpc.insecure_channel(address) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        tokens = {name: stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name)).token for name in names}
        bots = [connect(address, env, tokens[name]) for name in names]
        try:
            def rated() -> dict[str, arena_pb2.LeaderboardRow] | None:
                board = {row.bot: row for row in stub.GetLeaderboard(arena_pb2.LeaderboardRequest(game=GAME)).rows}
                return board if all(board.get(name) and board[name].matches >= 2 for name in names) else None

            board = wait_until(rated, timeout=120, poll=0.5, what="every bot rated")
            # A new version of ada, with ada's own token: rated on its own, while ada (still
            # connected) leaves the ladder and keeps its history.
            newer = stub.RegisterVersion(arena_pb2.RegisterVersionRequest(), metadata=bearer(tokens["ada"]))
            assert newer.name == "ada-v2"
            with pytest.raises(grpc.RpcError) as refused:
                stub.RegisterVersion(arena_pb2.RegisterVersionRequest(), metadata=bearer(tokens["ada"]))
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "ada-v2" in refused.value.details()
            retired_at = time.time()
            bots.append(connect(address, env, newer.token))
            wait_until(lambda: any(row.bot == "ada-v2" and row.matches >= 2 for row in
                                   stub.GetLeaderboard(arena_pb2.LeaderboardRequest(game=GAME)).rows),
                       timeout=60, poll=0.5, what="the new version rated")
            # The web face: who is online in the game (the retired version is not), the board.
            ladder = wait_until(lambda: web_json(env, "/api/v1/ladder") if {
                b["bot"] for b in web_json(env, "/api/v1/ladder")["online"].get(GAME, [])} == {"bram", "cleo", "ada-v2"}
                else None, timeout=30, poll=0.5, what="the ladder page to show who is online")
            assert [b["board"] for b in ladder["boards"]] == [f"{GAME}:2"] and ladder["groups"]
            assert web_json(env, "/api/v1/bots/ada")["ladder"]["state"] == "retired"
            assert web_json(env, "/api/v1/bots/cleo")["ladder"]["state"] in ("connected", "queued", "playing")
        finally:
            for bot in bots:
                stop(bot)
    groups = rated_groups(env["ARENA_DATABASE_URL"])
    seen: set[int] = set()
    for matches in groups.values():
        seatings = [tuple(seating) for _, seating, _ in matches]
        # Whole groups: one deal in every rotation of its seats, written together.
        assert sorted(seatings) == sorted(tuple(seatings[0][r:] + seatings[0][:r]) for r in range(len(seatings[0])))
        # A group's Elo is applied to all of it once all of it is over, never to a part.
        applied = {was_applied for _, _, was_applied in matches}
        assert len(applied) == 1, matches
        if applied == {True}:
            assert {status for status, _, _ in matches} == {"done"}
            seen.update(b for seating in seatings for b in seating)
    assert len(seen) >= len(names) + 1, "the three bots and a house bot played rated groups"
    for name in names:
        assert board[name].matches % 2 == 0, "two-player groups are rated whole"
        assert board[name].provisional, "a few matches leave a newcomer's rating provisional"
    # Ada's groups begun before her retirement end and count; none began a pass after it.
    assert not seated_since(env["ARENA_DATABASE_URL"], "ada", retired_at + 1.0)
    assert seated_since(env["ARENA_DATABASE_URL"], "ada-v2", retired_at)

    def cli_and_web_agree() -> bool:
        # The bots' last matches may still be recorded (forfeits after their grace) between
        # the two reads: the two faces must agree once the store stands still.
        listed = subprocess.run([ARENA, "leaderboard", GAME, "--json"], env=env, cwd=ROOT,
                                capture_output=True, text=True, timeout=60)
        assert listed.returncode == 0, listed.stderr
        rows = {row["bot"]: row for row in json.loads(listed.stdout)["rows"]}
        assert set(names) <= set(rows)
        on_the_web = {row["bot"]: row for row in web_json(env, f"/api/v1/games/{GAME}/leaderboard")["rows"]}
        return all((on_the_web[name]["matches"], on_the_web[name]["provisional"]) ==
                   (rows[name]["matches"], rows[name]["provisional"]) for name in names)

    wait_until(cli_and_web_agree, timeout=60, poll=1.0, what="the CLI's and the web's leaderboards to agree")
    page = httpx.get(f"{env['WEB']}/bots/ada-v2", timeout=10).text
    assert "Versions" in page and "retired" in page and 'href="/bots/ada"' in page
    assert "ada-v2" in httpx.get(f"{env['WEB']}/ladder", timeout=10).text


def ladder_matches(url: str, bot_id: int) -> list[tuple[int, str, int]]:
    """(match, status, seed) of the bot's ladder matches."""
    match_t, tournament_t = Match.__table__, Tournament.__table__
    with db.read(url) as connection:
        rows = connection.execute(
            sa.select(match_t.c.id, match_t.c.status, match_t.c.seed, match_t.c.seating)
            .join(tournament_t, tournament_t.c.id == match_t.c.tournament_id)
            .where(tournament_t.c.kind == "ladder")).all()
    return [(r.id, r.status, r.seed) for r in rows if bot_id in r.seating]


@pytest.mark.timeout(240)
def test_a_bot_gone_mid_group_forfeits_its_seats_and_leaves_the_ladder(
        ladder_server: tuple[str, dict[str, str]]) -> None:
    """A bot killed in the middle of a group: its matches end by the rules for a vanished bot
    (forfeit after the grace period), the group is rated whole, and the ladder seats it no
    more while it is away."""
    address, env = ladder_server
    url = env["ARENA_DATABASE_URL"]
    with grpc.insecure_channel(address) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        made = stub.RegisterBot(arena_pb2.RegisterBotRequest(name="fleeting"))
    bot_id = int(made.bot_id)
    bot = connect(address, env, made.token, think=0.2)
    try:
        wait_until(lambda: any(status == "running" for _, status, _ in ladder_matches(url, bot_id)),
                   timeout=60, what="a ladder match in play")
    finally:
        bot.kill()
        bot.wait(10)
    wait_until(lambda: all(status in ("done", "failed") for _, status, _ in ladder_matches(url, bot_id)),
               timeout=120, poll=0.5, what="its matches to end without it")
    played = ladder_matches(url, bot_id)
    assert {status for _, status, _ in played} == {"done"}
    with db.read(url) as connection:
        seats = connection.execute(sa.text(
            "SELECT forfeited FROM match_seat WHERE bot_id = :bot"), {"bot": bot_id}).scalars().all()
    assert any(seats), "it forfeited the seats it left"
    groups = rated_groups(url)
    for matches in groups.values():
        assert len({applied for _, _, applied in matches}) == 1, "every group rated whole"
    time.sleep(3 * 0.5 + 1)  # three passes of the ladder with the bot away
    assert len(ladder_matches(url, bot_id)) == len(played), "no new group for a bot that is away"
