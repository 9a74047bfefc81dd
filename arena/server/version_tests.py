"""``StartTest``: a paired test (``arena test``) of connected bots, played by the server.

A bot's token may test the versions of its own line (``arena.store.versions``) against each
other or against house bots; the admin may test any bots. Bots are named as everywhere else
(``walker-v2``, ``house:heuristic``), or by their version number in a line: ``walker@2`` is
version 2 of the line ``walker`` belongs to. A test is unrated (no rating moves), and each of
its bots may be in one running test at a time. At a table of more than two, A and B each take
every seat of a deal against the same field of house bots (``paired.DEFAULT_FIELD`` unless
named), as ``arena test --players N`` does in-process.

The test plays on a thread of the server (``start``) through ``workers.paired``: its matches
travel the same queues, claims, leases and exactly-once recording as a tournament's. Before
each batch its external bots must be connected; one that is away past the grace period stops
the test (state ``stopped``, verdict ``stopped``, the groups played until then reported).

Its record in the store says all it is (``restore``), so a test outlives the server playing
it: a server that shuts down releases its tests (``release``), and every server takes over, at
its start and then every ``paired.HEARTBEAT``, the tests whose player is gone (``resume``),
carrying on from the groups their tournament holds."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import games
from arena.errors import BadInput, UnknownBot
from arena.referee import external
from arena.stats import sprt
from arena.store import db, house_names, versions
from arena.store.models import Bot, Tournament
from arena.tournaments import paired

log = logging.getLogger(__name__)
bot_t = Bot.__table__
tournament_t = Tournament.__table__

# The most groups a test over the server may play (and its default): at two matches a group,
# 4,000 matches, about what the sequential test needs for an edge of 5 normalized Elo.
MAX_GROUPS = 2000
# Table sizes a test may name: two (A and B meet, the seats swapped) up to a field of seven.
PLAYERS = (2, 8)
_recording = threading.Lock()  # checking a bot's running tests and opening one is one step


class NotYours(Exception):
    """A bot's token named a bot outside its own line of versions (PERMISSION_DENIED)."""


class Busy(Exception):
    """A bot of the test is already in a running test (FAILED_PRECONDITION)."""


@dataclass(frozen=True)
class Entrant:
    bot_id: int
    name: str  # its stored name
    external: bool


def resolve(connection: Connection, text: str) -> Entrant:
    """The bot ``text`` names: a house bot, a registered name, or ``name@N`` (version N of the
    line of ``name``)."""
    text = text.strip()
    name, at, number = text.rpartition("@")
    if at:
        if not number.isdigit():
            raise BadInput(f"{text!r}: a version is name@N, N its number (1 for the first)")
        line = versions.lineage(connection, house_names.resolve(connection, name))
        chosen = [v for v in line if v.version == int(number)]
        if not chosen:
            raise UnknownBot(f"{name} has no version {number}: its versions are "
                             + ", ".join(f"{v.name} ({name}@{v.version})" for v in line))
        bot_id = chosen[0].bot_id
    else:
        bot_id = house_names.resolve(connection, text)
    row = connection.execute(sa.select(bot_t.c.name, bot_t.c.kind).where(bot_t.c.id == bot_id)).one()
    return Entrant(bot_id, str(row.name), row.kind == "external")


def line_of(connection: Connection, bot_id: int) -> int:
    """The first version of ``bot_id``'s line (itself for a first version)."""
    return versions.lineage(connection, bot_id)[0].bot_id


@dataclass(frozen=True)
class Prepared:
    """A test checked and resolved, not yet opened."""

    lineup: paired.Lineup
    games: list[str]
    hypotheses: sprt.Hypotheses
    cap: int
    external: tuple[Entrant, ...]


def prepare(connection: Connection, base: str, candidate: str, game_names: Sequence[str],
            hypotheses: sprt.Hypotheses, cap: int, caller_bot_id: int | None,
            players: int = 2, field: Sequence[str] = ()) -> Prepared:
    """Resolve and check a test: its games (each played by ``players``), its bots, the field
    of house bots at a larger table, and, for a bot's token (``caller_bot_id``), that every
    external bot is of the caller's own line."""
    if not game_names:
        raise BadInput("name at least one game")
    if len(game_names) > len(games.names()):
        raise BadInput(f"at most {len(games.names())} games")
    if not PLAYERS[0] <= players <= PLAYERS[1]:
        raise BadInput(f"players {players}: expected {PLAYERS[0]}-{PLAYERS[1]}")
    if len(field) > PLAYERS[1]:
        raise BadInput(f"a field of at most {PLAYERS[1]} bots")
    names = []
    for game in game_names:
        rules = games.get(game)  # UnknownGame (a KeyError) for a game that is none
        if players not in rules.player_counts(rules.resolve_options(None)):
            raise BadInput(f"{rules.name} is not played by {players}")
        if rules.name not in names:
            names.append(rules.name)
    if players == 2 and field:
        raise BadInput("a field is for a table of more than two players")
    field = list(field) or (list(paired.DEFAULT_FIELD) if players > 2 else [])
    for name in field:
        if house_names.house_name(name) is None:
            raise BadInput(f"the field is of house bots ({', '.join(sorted(house_names.strategies()))}): "
                           f"{name!r} is none")
    if not 1 <= cap <= MAX_GROUPS:
        raise BadInput(f"max_groups {cap}: expected 1-{MAX_GROUPS}")
    entrants = [resolve(connection, base), resolve(connection, candidate)]
    if caller_bot_id is not None:
        own = line_of(connection, caller_bot_id)
        for entrant in entrants:
            if entrant.external and line_of(connection, entrant.bot_id) != own:
                raise NotYours(f"{entrant.name} is not a version of this bot: a bot's token tests its own "
                               "versions and house bots")
    externals = tuple(e for e in entrants if e.external)
    lineup = paired.lineup(entrants[0].name, entrants[1].name, field, players, names,
                           external=[e.name for e in externals])
    return Prepared(lineup, names, hypotheses, cap, externals)


def open_test(prepared: Prepared, seed: int) -> paired.TestRun:
    """Write the test's tournament, unless one of its bots is in a running test (``Busy``)."""
    spec = {"base": prepared.lineup.base, "candidate": prepared.lineup.candidate, "games": prepared.games,
            "players": prepared.lineup.players, "field": list(prepared.lineup.field), "elo0": prepared.hypotheses.elo0, "elo1": prepared.hypotheses.elo1,
            "max_groups": prepared.cap}
    spec["server"] = True  # taken over by another server should this one stop (``resume``)
    with _recording, db.transaction() as connection:
        # Registered bots only: house bots play in any number of tests at once.
        ids = [e.bot_id for e in prepared.external]
        # Locks the bots' rows until the commit on PostgreSQL (SQLite has one writer anyway).
        connection.execute(sa.select(bot_t.c.id).where(bot_t.c.id.in_(ids)).order_by(bot_t.c.id).with_for_update())
        busy = paired.running_tests(connection, ids)
        if busy:
            names = " or ".join(e.name for e in prepared.external)
            raise Busy(f"{names} is in test {busy[0]}, still running: one test at a time per bot")
        return paired.open_test(connection, prepared.lineup, prepared.games, seed, spec)


def restore(connection: Connection, tournament_id: int, test: dict) -> tuple[Prepared, paired.TestRun]:
    """A test as its record in the store describes it (``open_test`` wrote it), to play on."""
    row = connection.execute(sa.select(tournament_t.c.seed, tournament_t.c.deal_key)
                             .where(tournament_t.c.id == tournament_id)).one()
    ids = (int(test["base_id"]), int(test["candidate_id"]))
    kinds = dict(connection.execute(sa.select(bot_t.c.id, bot_t.c.kind).where(bot_t.c.id.in_(ids))).all())
    lineup = paired.Lineup(test["base"], test["candidate"], tuple(test["field"]), int(test["players"]))
    externals = tuple(Entrant(bot_id, name, kinds[bot_id] == "external")
                      for bot_id, name in zip(ids, (lineup.base, lineup.candidate), strict=True)
                      if kinds[bot_id] == "external")
    run = paired.TestRun(tournament_id, *ids, tuple(house_names.resolve(connection, n) for n in lineup.field),
                         int(row.seed), bytes.fromhex(row.deal_key))
    prepared = Prepared(lineup, list(test["games"]), sprt.Hypotheses(test["elo0"], test["elo1"]),
                        int(test["max_groups"]), externals)
    return prepared, run


# The tests this process plays, each with the event that releases it (``release``).
_playing: dict[int, threading.Event] = {}


def start(prepared: Prepared, run: paired.TestRun, grace: float) -> None:
    """Play the test on a thread of its own (named ``test-<id>``)."""
    with _recording:
        released = _playing[run.tournament_id] = threading.Event()
    threading.Thread(target=play, args=(prepared, run, grace, released), name=f"test-{run.tournament_id}",
                     daemon=True).start()


def release() -> None:
    """This server is stopping: hand its tests over to the next server at once (their
    players stop before their next batch and write nothing more)."""
    with _recording:
        playing = list(_playing.items())
        _playing.clear()
    for tournament_id, released in playing:
        released.set()
        try:
            with db.transaction() as connection:
                if (paired.test_state(connection, tournament_id) or {}).get("state") == paired.RUNNING:
                    paired.record_progress(connection, tournament_id, alive_at=0.0)
        except Exception:  # the store is away: the test is taken over once STALE instead
            log.warning("test %s: could not release it", tournament_id, exc_info=True)


def resume(grace: float) -> list[int]:
    """Take over and play on every test whose server stopped; returns their ids. A test that
    cannot be restored ends as ``stopped`` with the reason."""
    with db.read() as connection:
        found = paired.orphans(connection)
    taken = []
    for tournament_id in found:
        with db.transaction() as connection:
            test = paired.claim(connection, tournament_id)
            if test is None:
                continue
            try:
                prepared, run = restore(connection, tournament_id, test)
            except Exception as error:
                log.exception("test %s could not be resumed", tournament_id)
                paired.record_progress(connection, tournament_id, state=paired.STOPPED,
                                       stopped=f"the server could not resume it: {error}")
                continue
        log.info("test %s: taken over from a server that stopped", tournament_id)
        start(prepared, run, grace)
        taken.append(tournament_id)
    return taken


async def resume_forever() -> None:
    """``resume`` at the server's start and every ``paired.HEARTBEAT`` after (a test whose
    server was killed is found once ``paired.STALE``), with the settings' grace period."""
    from arena.settings import load

    while True:
        try:
            await asyncio.to_thread(resume, load().grace_seconds)
        except Exception:  # the store is away: the next round tries again
            log.warning("could not look for tests to take over", exc_info=True)
        await asyncio.sleep(paired.HEARTBEAT)


def play(prepared: Prepared, run: paired.TestRun, grace: float, released: threading.Event | None = None) -> None:
    """Play the test to its end and record its report; whatever goes wrong ends it as
    ``stopped`` with the reason, so that no follower waits for ever. Once ``released`` (the
    server is stopping) it stops before its next batch and writes nothing more."""
    from workers import paired as playing

    plan = playing.Plan(run, prepared.lineup, prepared.games, prepared.hypotheses, prepared.cap)
    started = time.monotonic()
    released = released or threading.Event()

    def away() -> str | None:
        if released.is_set():
            return "released"
        for entrant in prepared.external:
            if not external.wait_connected([entrant.bot_id], grace):
                return f"bot {entrant.name} is not connected"
        return None

    writing = threading.Lock()  # the record is read, merged and written whole: one writer at a time
    over = threading.Event()

    def record(**fields: object) -> None:
        with writing, db.transaction() as connection:
            if not released.is_set():
                paired.record_progress(connection, run.tournament_id, **fields)

    def heartbeat() -> None:
        while not over.wait(paired.HEARTBEAT):
            try:
                record()
            except Exception:  # an outage: the next beat tries again, well within STALE
                log.warning("test %s: could not renew its record", run.tournament_id, exc_info=True)

    threading.Thread(target=heartbeat, name=f"beat-{run.tournament_id}", daemon=True).start()
    try:
        played, llr, stopped = playing.play_until_decided(
            plan, lambda llr, groups: record(progress={"llr": llr, "groups": groups}), away, notice=None)
    except Exception as error:  # the server's fault: the test ends, said so, rather than hang
        log.exception("test %s failed", run.tournament_id)
        played, llr, stopped = paired.Played({}, 0), 0.0, f"the server could not play the test: {error}"
    finally:
        over.set()
    with _recording:
        _playing.pop(run.tournament_id, None)
    if released.is_set():
        return  # the next server plays on
    report = playing.summary(plan, played, llr, time.monotonic() - started, stopped)
    record(state=paired.STOPPED if stopped else paired.DONE, progress={"llr": llr, "groups": report["groups"]},
           report=report)
