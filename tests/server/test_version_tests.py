"""`StartTest` and `FollowTest` on `arena serve` (embedded default, a real SQLite store) with
real SDK bot processes: a bot's token tests its own two versions and gets a verdict, unrated;
it may not test another author's bot, nor may an anonymous caller; a bot is in one test at a
time; and a bot that goes away mid-test stops the test with what was played until then."""

from __future__ import annotations

import json

import grpc
import pytest
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.server.embedded import BackgroundServer
from arena.store import db
from arena.store.models import Bot, Match, Rating, Tournament
from tests.support.grpc import GAME, bearer, playing, register

# Durak: the heuristic beats random in nearly every duplicate pair (docs/games/README.md), so a
# test of H1 at 50 normalized Elo settles within a few dozen pairs.
DECISIVE_GAME = "durak"


def refusal(call, *args, **kwargs) -> grpc.RpcError:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.RpcError) as caught:
        call(*args, **kwargs)
    return caught.value


def versions(arena: arena_pb2_grpc.ArenaStub, name: str) -> tuple[str, str]:
    """Tokens of a bot's first and second versions (``name``, ``name-v2``)."""
    first = register(arena, name)
    second = arena.RegisterVersion(arena_pb2.RegisterVersionRequest(), metadata=bearer(first))
    assert second.name == f"{name}-v2"
    return first, second.token


def follow(arena: arena_pb2_grpc.ArenaStub, test_id: str) -> list[arena_pb2.TestProgress]:
    return list(arena.FollowTest(arena_pb2.TestRef(test_id=test_id), timeout=300))


def test_a_bot_tests_its_versions_and_gets_an_unrated_verdict(arena: arena_pb2_grpc.ArenaStub,
                                                              server: BackgroundServer) -> None:
    first, second = versions(arena, "walker")
    stranger = register(arena, "stranger")
    request = arena_pb2.StartTestRequest(base="walker@1", candidate="walker@2", games=[DECISIVE_GAME],
                                         elo1=50, max_groups=200)
    # Not connected yet: refused at once, naming the bot.
    error = refusal(arena.StartTest, request, metadata=bearer(second))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and "walker is not connected" in error.details()
    with playing("arena_bot.examples.random_bot", server.address, first), \
            playing("bots.house_bot", server.address, second):
        # Another author's token, and no token at all, are refused before anything is written.
        error = refusal(arena.StartTest, request, metadata=bearer(stranger))
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED and "walker is not a version of" in error.details()
        assert refusal(arena.StartTest, request).code() == grpc.StatusCode.UNAUTHENTICATED
        ref = arena.StartTest(request, metadata=bearer(second))
        # One running test per bot: the same bot against a house bot must wait.
        busy = arena_pb2.StartTestRequest(base="house:random", candidate="walker-v2", games=[DECISIVE_GAME])
        error = refusal(arena.StartTest, busy, metadata=bearer(second))
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and "one test at a time" in error.details()
        updates = follow(arena, ref.test_id)
        # Once over, the bot may be tested again: against a house bot this time.
        again = arena_pb2.StartTestRequest(base="walker-v2", candidate="house:heuristic", games=[DECISIVE_GAME],
                                           max_groups=1)
        after = follow(arena, arena.StartTest(again, metadata=bearer(second)).test_id)[-1]
        assert after.state == "done" and json.loads(after.report_json)["groups"] == 1
    last = updates[-1]
    assert [u.state for u in updates[:-1]] == ["running"] * (len(updates) - 1) and last.state == "done"
    report = json.loads(last.report_json)
    assert report["verdict"] == "H1" and report["llr"] >= report["upper"] == pytest.approx(last.upper)
    assert report["base"] == "walker" and report["candidate"] == "walker-v2" and report["elo"] > 0
    assert 0 < report["groups"] == last.groups <= 200 and report["matches"] == 2 * report["groups"]
    with db.read() as connection:
        tournament = connection.execute(sa.select(Tournament.__table__).where(
            Tournament.__table__.c.id == int(ref.test_id))).one()
        matches = connection.execute(sa.select(Match.__table__.c.rated, Match.__table__.c.status)).all()
        ratings = connection.execute(sa.select(sa.func.count()).select_from(Rating.__table__)).scalar_one()
    # Unrated: every match recorded, and not one rating row made for anybody.
    assert tournament.kind == "test" and not tournament.rated
    assert len(matches) >= 2 * report["groups"] + 2 and not any(rated for rated, _ in matches)
    assert ratings == 0 and not arena.GetLeaderboard(arena_pb2.LeaderboardRequest(game=DECISIVE_GAME)).rows


def test_a_bot_that_goes_away_mid_test_stops_it(arena: arena_pb2_grpc.ArenaStub, server: BackgroundServer) -> None:
    first, second = versions(arena, "roamer")
    request = arena_pb2.StartTestRequest(base="roamer@1", candidate="roamer@2", games=[GAME], max_groups=2000)
    with playing("arena_bot.examples.random_bot", server.address, second):
        with playing("arena_bot.examples.random_bot", server.address, first):
            ref = arena.StartTest(request, metadata=bearer(second))
            stream = arena.FollowTest(arena_pb2.TestRef(test_id=ref.test_id), timeout=300)
            seen = [next(stream)]
            while seen[-1].groups == 0:  # the first batch is over: the first version leaves
                seen.append(next(stream))
        seen.extend(stream)
    last = seen[-1]
    assert last.state == "stopped" and 0 < last.groups < 2000
    report = json.loads(last.report_json)
    assert report["verdict"] == "stopped" and report["stopped"] == "bot roamer is not connected"
    assert report["groups"] == last.groups and report["base"] == "roamer"


def test_a_bot_tests_its_versions_at_a_table_of_three(arena: arena_pb2_grpc.ArenaStub,
                                                      server: BackgroundServer) -> None:
    """Three players: each version takes every seat of each deal against the same field of
    house bots (heuristic and random by default), two real bot processes connected."""
    first, second = versions(arena, "trio")
    request = arena_pb2.StartTestRequest(base="trio@1", candidate="trio@2", games=[GAME], players=3, max_groups=2)
    with playing("arena_bot.examples.random_bot", server.address, first), \
            playing("bots.house_bot", server.address, second):
        updates = follow(arena, arena.StartTest(request, metadata=bearer(second)).test_id)
    last = updates[-1]
    report = json.loads(last.report_json)
    assert last.state == "done" and report["players"] == 3 and report["field"] == ["heuristic", "random"]
    assert report["groups"] == 2 and report["matches"] == 2 * 3 * 2 and report["verdict"] == "undecided"
    with db.read() as connection:
        names = dict(connection.execute(sa.select(Bot.__table__.c.id, Bot.__table__.c.name)).all())
        seatings = [[names[b] for b in m.seating] for m in connection.execute(
            sa.select(Match.__table__.c.seating, Match.__table__.c.status, Match.__table__.c.rated)
            .where(Match.__table__.c.tournament_id == int(report["tournament"]))).all()
                    if m.status == "done" and not m.rated]
    # Per deal: each version in each of the three seats, the field in the others in order.
    assert len(seatings) == 12
    for tested in ("trio", "trio-v2"):
        mine = [s for s in seatings if tested in s]
        assert sorted(s.index(tested) for s in mine) == [0, 0, 1, 1, 2, 2]
        assert all([b for b in s if b != tested] == ["heuristic", "random"] for s in mine)


@pytest.mark.parametrize("fields, code, gist", [
    ({"base": "nobody@1", "candidate": "house:random", "games": [GAME]}, grpc.StatusCode.INVALID_ARGUMENT,
     "no bot named 'nobody'"),
    ({"base": "solo@3", "candidate": "house:random", "games": [GAME]}, grpc.StatusCode.INVALID_ARGUMENT,
     "solo has no version 3"),
    ({"base": "solo", "candidate": "house:random", "games": ["nope"]}, grpc.StatusCode.INVALID_ARGUMENT, "nope"),
    ({"base": "solo", "candidate": "house:random", "games": [GAME], "max_groups": 2001},
     grpc.StatusCode.INVALID_ARGUMENT, "max_groups 2001: expected 1-2000"),
    ({"base": "solo", "candidate": "house:random", "games": [GAME], "elo0": 5, "elo1": 5},
     grpc.StatusCode.INVALID_ARGUMENT, "elo0 5, elo1 5"),
    ({"base": "solo", "candidate": "solo@1", "games": [GAME]}, grpc.StatusCode.INVALID_ARGUMENT,
     "cannot be tested against itself"),
    ({"base": "solo", "candidate": "house:random", "games": [GAME], "seed": 7}, grpc.StatusCode.PERMISSION_DENIED,
     "seed is the admin's choice"),
    ({"base": "solo", "candidate": "house:random", "games": [GAME], "players": 9}, grpc.StatusCode.INVALID_ARGUMENT,
     "players 9: expected 2-8"),
    ({"base": "solo", "candidate": "house:random", "games": ["shithead"], "players": 6},
     grpc.StatusCode.INVALID_ARGUMENT, "shithead is not played by 6"),
    ({"base": "solo", "candidate": "house:random", "games": [GAME], "players": 3, "field": ["solo"]},
     grpc.StatusCode.INVALID_ARGUMENT, "the field is of house bots (heuristic, random, search): 'solo' is none"),
    ({"base": "solo", "candidate": "house:random", "games": [GAME], "field": ["random"]},
     grpc.StatusCode.INVALID_ARGUMENT, "a field is for a table of more than two players"),
])
def test_bad_requests_are_refused_with_a_clear_reason(arena: arena_pb2_grpc.ArenaStub, fields, code, gist) -> None:
    token = register(arena, "solo")
    error = refusal(arena.StartTest, arena_pb2.StartTestRequest(**fields), metadata=bearer(token))
    assert error.code() == code and gist in error.details(), error.details()
    with db.read() as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(Tournament.__table__)).scalar_one() == 0


def test_the_admin_tests_any_bots_and_a_bots_tests_are_rate_limited(arena: arena_pb2_grpc.ArenaStub) -> None:
    admin = bearer("admin-secret")
    # The admin: house bots, and a chosen master seed.
    ref = arena.StartTest(arena_pb2.StartTestRequest(base="random", candidate="heuristic", games=[GAME],
                                                     max_groups=4, seed=7), metadata=admin)
    report = json.loads(follow(arena, ref.test_id)[-1].report_json)
    assert report["groups"] == 4 and report["base"] == "random" and report["verdict"] == "undecided"
    with db.read() as connection:
        assert connection.execute(sa.select(Tournament.__table__.c.seed)).scalar_one() == 7
    # Following no test, or a tournament that is not one, is NOT_FOUND.
    for test_id, code in (("999", grpc.StatusCode.NOT_FOUND), ("x", grpc.StatusCode.INVALID_ARGUMENT)):
        error = refusal(follow, arena, test_id)
        assert error.code() == code, error.details()
    # A bot's tests count as challenges: ten a minute (refused ones included), then a wait.
    token = register(arena, "eager")
    bad = arena_pb2.StartTestRequest(base="eager", candidate="house:random", games=["nope"])
    for _ in range(10):
        assert refusal(arena.StartTest, bad, metadata=bearer(token)).code() == grpc.StatusCode.INVALID_ARGUMENT
    error = refusal(arena.StartTest, bad, metadata=bearer(token))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "try again in" in error.details()
