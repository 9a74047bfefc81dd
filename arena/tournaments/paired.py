"""Paired duplicate groups for ``arena test``: the rows of each batch written into one
unrated tournament of the test's own, played by the arena's own machinery (every core
embedded, the Celery workers with Redis: ``workers.follow``), and read back from the store as
scored groups (``arena.stats.groups``).

A group, per game: one deal (a seed derived under the tournament's secret deal key) and, for
two players, the base A and the candidate B meeting in both seatings; for N players, A and B
each in every seat in turn, the other seats held by the same field bots in the same order.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import games
from arena.errors import BadInput
from arena.games import house
from arena.stats.groups import Group, rank_score
from arena.store import house_names
from arena.store.models import Match, MatchSeat, Tournament, utcnow
from arena.store.statuses import MatchStatus, TournamentStatus
from arena.tournaments.schedule import derive_seed, new_deal_key

match_t = Match.__table__
seat_t = MatchSeat.__table__
tournament_t = Tournament.__table__


# The other seats of a table of more than two, cycled, unless a test names its own field.
DEFAULT_FIELD = ("heuristic", "random")


@dataclass(frozen=True)
class Lineup:
    """Who plays: house bots by their stored names (``random-2`` is a second random bot)."""

    base: str
    candidate: str
    field: tuple[str, ...]  # the other seats at a table of more than two, in seat order
    players: int


def lineup(base: str, candidate: str, field: Sequence[str], players: int, game_names: Sequence[str],
           external: Sequence[str] = ()) -> Lineup:
    """The bots of a test, each its own identity: a house bot named twice (``random`` against
    ``random``) gets a second copy (``random-2``), so that each seat's results are its own.
    Every bot must be a house bot of every game, or one of ``external`` (registered bots, by
    their stored names, which the server has checked the caller may test)."""
    taken: set[str] = set()

    def own(name: str) -> str:
        if name in external:
            if name in taken:
                raise BadInput(f"{name} cannot be tested against itself: name two versions")
            taken.add(name)
            return name
        stored = house_names.house_name(name)
        if stored is None:
            raise BadInput(f"{name!r} is not a house bot ({', '.join(sorted(house_names.strategies()))}): "
                           "a registered bot is tested on the server where it is connected (--address HOST:PORT)")
        strategy = stored.split("-", 1)[0]
        for game in game_names:
            if strategy not in house.bot_names(game):
                raise BadInput(f"no house bot {strategy!r} for {game}")
        copy = 2
        while stored in taken:
            stored, copy = f"{strategy}-{copy}", copy + 1
        taken.add(stored)
        return stored

    base, candidate = own(base), own(candidate)
    seats = list(itertools.islice(itertools.cycle(field), players - 1)) if players > 2 else []
    if players > 2 and not field:
        raise BadInput("--field: a table of more than two players needs field bots")
    return Lineup(base, candidate, tuple(own(name) for name in seats), players)


def seatings(lineup: Lineup, base_id: int, candidate_id: int, field_ids: Sequence[int]) -> list[tuple[int, ...]]:
    """The seatings of one group, by bot id."""
    if lineup.players == 2:
        return [(base_id, candidate_id), (candidate_id, base_id)]
    out = []
    for seat in range(lineup.players):
        for tested in (base_id, candidate_id):
            others = list(field_ids)
            out.append(tuple(others[:seat]) + (tested,) + tuple(others[seat:]))
    return out


@dataclass(frozen=True)
class TestRun:
    """A test's tournament and its bots' ids."""

    tournament_id: int
    base_id: int
    candidate_id: int
    field_ids: tuple[int, ...]
    seed: int
    key: bytes


# The kind of a test's tournament (``Tournament.kind``).
KIND = "test"


def open_test(connection: Connection, lineup: Lineup, game_names: Sequence[str], seed: int, spec: dict) -> TestRun:
    """The unrated tournament that holds a test's matches (``spec`` records the test, with
    the ids of its two bots and its state, ``running`` until ``end_test``)."""
    ids = {name: house_names.resolve(connection, name) for name in (lineup.base, lineup.candidate, *lineup.field)}
    key = new_deal_key()
    tournament_id = connection.execute(
        tournament_t.insert().values(
            name=f"test {lineup.candidate} against {lineup.base} in {', '.join(game_names)}",
            kind=KIND, status=TournamentStatus.RUNNING, rated=False, seed=seed, deal_key=key.hex(),
            spec={"test": {**spec, "base_id": ids[lineup.base], "candidate_id": ids[lineup.candidate],
                           "state": RUNNING, "alive_at": time.time()}},
            created_at=utcnow(),
        ).returning(tournament_t.c.id)
    ).scalar_one()
    return TestRun(tournament_id, ids[lineup.base], ids[lineup.candidate],
                   tuple(ids[name] for name in lineup.field), seed, key)


def write_batch(connection: Connection, run: TestRun, lineup: Lineup, game_names: Sequence[str],
                first: int, count: int) -> int:
    """Groups ``first`` to ``first + count - 1`` of every game, as scheduled match rows; the
    tournament is reopened for them. Returns the number of matches written."""
    now = utcnow()
    rows = []
    for game in game_names:
        options = games.get(game).resolve_options(None)
        for index in range(first, first + count):
            deal = derive_seed(run.key, run.seed, "test", game, lineup.players, index)
            for seating in seatings(lineup, run.base_id, run.candidate_id, run.field_ids):
                rows.append({"tournament_id": run.tournament_id, "game": game, "options": options,
                             "seed": deal, "seating": list(seating), "rated": False,
                             "status": MatchStatus.SCHEDULED, "attempts": 0, "created_at": now})
    connection.execute(match_t.insert(), rows)
    connection.execute(tournament_t.update().where(tournament_t.c.id == run.tournament_id)
                       .values(status=TournamentStatus.RUNNING, finished_at=None))
    return len(rows)


# A test's states (``spec["test"]["state"]``): playing batches, or over with its report.
RUNNING, DONE, STOPPED = "running", "done", "stopped"


# A running test's player renews ``alive_at`` (seconds since the epoch) this often; a test
# whose record is older than ``STALE`` seconds lost its player (its server stopped). A test a
# server plays (``server`` in its record) is then taken over by the next server that looks
# (``orphans``, ``claim``); a server that shuts down gracefully releases its tests (``alive_at``
# 0) so that they are taken over at once. Any other test that lost its player counts as
# stopped, so that its bots may be tested again.
HEARTBEAT = 30.0
STALE = 4 * HEARTBEAT


def running_tests(connection: Connection, bot_ids: Sequence[int], now: float | None = None) -> list[int]:
    """The tests still playing in which any of ``bot_ids`` is A or B, by tournament id. One
    whose player stopped renewing it (``STALE``) is marked stopped on the way."""
    wanted = set(bot_ids)
    if not wanted:
        return []
    now = time.time() if now is None else now
    rows = connection.execute(sa.select(tournament_t.c.id, tournament_t.c.spec).where(tournament_t.c.kind == KIND)
                              .order_by(tournament_t.c.id.desc()).limit(RECENT_TESTS)).all()
    out = []
    for row in rows:
        test = (row.spec or {}).get("test", {})
        if test.get("state") != RUNNING or not {test.get("base_id"), test.get("candidate_id")} & wanted:
            continue
        if stale(test, now) and not test.get("server"):
            record_progress(connection, int(row.id), state=STOPPED, stopped="its server stopped playing it")
        else:  # a server's test that lost its player still holds its bots: it will be taken over
            out.append(int(row.id))
    return out


def orphans(connection: Connection, now: float | None = None) -> list[int]:
    """Tests a server plays that are still running but whose player is gone (released, or not
    renewed for ``STALE`` seconds), oldest first."""
    rows = connection.execute(sa.select(tournament_t.c.id, tournament_t.c.spec).where(tournament_t.c.kind == KIND)
                              .order_by(tournament_t.c.id.desc()).limit(RECENT_TESTS)).all()
    return sorted(int(row.id) for row in rows
                  if (row.spec or {}).get("test", {}).get("server") and stale(row.spec["test"], now))


def claim(connection: Connection, tournament_id: int, now: float | None = None) -> dict | None:
    """Take over an orphaned test (``orphans``): its record, renewed as of now, or None when
    another server took it first. The row is locked to the end of the transaction (on
    PostgreSQL; SQLite has one writer)."""
    spec = connection.execute(sa.select(tournament_t.c.spec).where(tournament_t.c.id == tournament_id)
                              .with_for_update()).scalar_one_or_none()
    test = (spec or {}).get("test", {})
    if not test.get("server") or not stale(test, now):
        return None
    record_progress(connection, tournament_id)
    return test


def groups_written(connection: Connection, tournament_id: int, game: str) -> int:
    """How many groups of ``game`` the test has written (each game gets as many)."""
    return int(connection.execute(
        sa.select(sa.func.count(sa.distinct(match_t.c.seed)))
        .where(match_t.c.tournament_id == tournament_id, match_t.c.game == game)).scalar_one())


def stale(test: dict, now: float | None = None) -> bool:
    """Whether a running test's player has not renewed it for ``STALE`` seconds."""
    now = time.time() if now is None else now
    return test.get("state") == RUNNING and now - float(test.get("alive_at", 0.0)) > STALE


# Tests looked at by ``running_tests``, newest first: tests start at a bounded rate, so a test
# still running is among the recent ones.
RECENT_TESTS = 1000


def test_state(connection: Connection, tournament_id: int) -> dict | None:
    """The test's record (its spec, ``progress`` and, once over, ``report``), or None when
    ``tournament_id`` is no test."""
    row = connection.execute(sa.select(tournament_t.c.kind, tournament_t.c.spec)
                             .where(tournament_t.c.id == tournament_id)).first()
    if row is None or row.kind != KIND:
        return None
    return dict(row.spec.get("test", {}))


def record_progress(connection: Connection, tournament_id: int, **fields: object) -> None:
    """Merge ``fields`` into the test's record (``state``, ``progress``, ``report``), which is
    then alive as of now."""
    spec = connection.execute(sa.select(tournament_t.c.spec).where(tournament_t.c.id == tournament_id)).scalar_one()
    spec = {**spec, "test": {**spec.get("test", {}), "alive_at": time.time(), **fields}}
    connection.execute(tournament_t.update().where(tournament_t.c.id == tournament_id).values(spec=spec))


@dataclass
class Played:
    """The groups a test has played, per game, and those lost to a failed match."""

    groups: dict[str, list[Group]]
    dropped: int


def read_groups(connection: Connection, run: TestRun, lineup: Lineup) -> Played:
    """Every finished group of the test, scored, in the order they were written; a group with a
    match that did not finish (failed, cancelled) is dropped whole."""
    rows = connection.execute(
        sa.select(match_t.c.id, match_t.c.game, match_t.c.seed, match_t.c.seating, match_t.c.status,
                  seat_t.c.seat, seat_t.c.rank)
        .select_from(match_t.outerjoin(seat_t, seat_t.c.match_id == match_t.c.id))
        .where(match_t.c.tournament_id == run.tournament_id)
        .order_by(match_t.c.id, seat_t.c.seat)
    ).all()
    matches: dict[int, dict] = {}
    for row in rows:
        match = matches.setdefault(row.id, {"game": row.game, "seed": row.seed, "seating": row.seating,
                                            "status": row.status, "ranks": {}})
        if row.seat is not None:
            match["ranks"][row.seat] = row.rank
    by_group: dict[tuple[str, int], list[dict]] = {}
    for match in matches.values():
        by_group.setdefault((match["game"], match["seed"]), []).append(match)
    played = Played({}, 0)
    for (game, _), members in by_group.items():
        if any(m["status"] in MatchStatus.PENDING for m in members):
            continue  # still in play
        if any(m["status"] != MatchStatus.DONE for m in members):
            played.dropped += 1
            continue
        played.groups.setdefault(game, []).append(score_group(members, run, lineup.players))
    return played


def score_group(members: list[dict], run: TestRun, players: int) -> Group:
    """A group's match scores, by the seat A or B held."""
    candidate: dict[int, float] = {}
    base: dict[int, float] = {}
    for match in members:
        seating = match["seating"]
        for seat, bot in enumerate(seating):
            score = rank_score(match["ranks"][seat], players)
            if bot == run.candidate_id:
                candidate[seat] = score
            elif bot == run.base_id:
                base[seat] = score
    return Group(tuple(candidate[s] for s in sorted(candidate)), tuple(base[s] for s in sorted(base)),
                 shared=players == 2)
