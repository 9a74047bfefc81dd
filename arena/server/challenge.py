"""Unrated challenges: one match against chosen opponents, to test a bot.

Seats are registered bot names or house bots (``house:heuristic``, or plainly ``heuristic``:
see ``arena.store.house_names``). Every external bot it seats must be connected when it is
asked for (``refusal``), or it is refused at once; one that drops out before the match starts
has the grace period to come back, else the challenge is aborted (nothing is recorded, no one
is rated).

A bot may seat another external bot only with its consent (``refusal``: the policy of the
Hello on its open stream, ``arena.referee.consent``), and only so many challenges at once
(``record``: ``ARENA_CHALLENGES_AT_ONCE``, and each challenged bot's own ``max_at_once``). A
challenge's seats never take the slots a bot's rated matches use
(``arena.referee.remote.RemotePlayer.challenge``). The admin seats any bot, as before.

``client_channel`` is how ``arena challenge`` reaches the server that plays it."""

from __future__ import annotations

import secrets
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import games
from arena.errors import BadInput
from arena.referee import consent, external
from arena.referee.mailbox import Mailbox
from arena.store import db, house_names
from arena.store.models import Bot, Match, utcnow
from arena.store.statuses import MatchStatus
from arena.tournaments.limits import check_clock

if TYPE_CHECKING:
    import grpc

bot_t = Bot.__table__
match_t = Match.__table__
# Counting a bot's open challenges and adding one is a single step in this process (the lock)
# and across servers (the seated bots' rows are locked, on PostgreSQL, until the commit).
_recording = threading.Lock()


class TooMany(Exception):
    """A bot is seated in as many unfinished challenges as it may be (RESOURCE_EXHAUSTED)."""


@dataclass(frozen=True)
class Seat:
    bot_id: int
    name: str
    external: bool


@dataclass(frozen=True)
class Plan:
    """A challenge checked and resolved, not yet written."""

    game: str
    options: dict[str, Any]
    seats: list[Seat]
    move_time: float
    time_bank: float


def prepare(connection: Connection, game: str, players: list[str], options: dict[str, Any],
            move_time: float, time_bank: float) -> Plan:
    """The challenge's game, options, table and seats checked and resolved (house bots are
    created on first use); ValueError (or ``BadOptions``, ``KeyError``) when one is wrong."""
    rules = games.get(game)
    resolved = rules.resolve_options(options)
    if len(players) not in rules.player_counts(resolved):
        raise ValueError(f"{game}: {len(players)} players is not a legal table")
    check_clock(move_time, time_bank)
    ids = []
    for name in players:
        stored = house_names.house_name(name)
        if stored is not None and stored.split("-", 1)[0] not in games.bot_names(game):
            raise ValueError(f"no house bot {stored!r} for {game}")
        ids.append(house_names.resolve(connection, name))
    rows = {r.id: r for r in connection.execute(sa.select(bot_t.c.id, bot_t.c.name, bot_t.c.kind)
                                                .where(bot_t.c.id.in_(ids)))}
    seats = [Seat(i, rows[i].name, rows[i].kind == "external") for i in ids]
    return Plan(game, resolved, seats, move_time, time_bank)


async def refusal(mailbox: Mailbox, plan: Plan, challenger: str | None) -> str | None:
    """Why the plan may not seat one of its external bots: one is not connected now (the
    challenger too: a challenge is played at once, and a bot that is not there would only
    abort it after the grace period), one does not play the game (its Hello's ``games``: its
    seat would be forfeited at once), or the policy of one other than ``challenger`` (a bot
    name; None for the admin, who needs no one's consent) declines; None when all is well."""
    for seat in plan.seats:
        if not seat.external:
            continue
        if await mailbox.holder(str(seat.bot_id)) is None:
            return f"bot {seat.name} is not connected: a challenge seats only a connected bot that accepts it"
        prefs = await mailbox.prefs(str(seat.bot_id))
        if not consent.plays(prefs, plan.game):
            return f"bot {seat.name} does not play {plan.game} (the games of its Hello)"
        if challenger is None or seat.name == challenger:
            continue
        reason = consent.refusal(seat.name, prefs, plan.game, challenger)
        if reason is not None:
            return reason
    return None


async def limits_at_once(mailbox: Mailbox, plan: Plan, challenger: str, cap: int) -> dict[int, int]:
    """How many unfinished challenges each external bot of the plan may be seated in: ``cap``
    for the challenger, its policy's ``max_at_once`` (at most ``cap``) for the others."""
    allowed = {}
    for seat in plan.seats:
        if seat.external:
            asked = cap if seat.name == challenger else consent.max_at_once(await mailbox.prefs(str(seat.bot_id)))
            allowed[seat.bot_id] = min(cap, asked)
    return allowed


def open_challenges(connection: Connection, bot_ids: list[int]) -> Counter[int]:
    """The unfinished challenges each of ``bot_ids`` is seated in."""
    wanted = set(bot_ids)
    counts: Counter[int] = Counter()
    rows = connection.execute(sa.select(match_t.c.seating).where(
        match_t.c.tournament_id.is_(None), match_t.c.status.in_(MatchStatus.PENDING)))
    for (seating,) in rows:
        for bot_id in set(seating) & wanted:
            counts[bot_id] += 1
    return counts


def record(plan: Plan, seed: int | None, at_once: dict[int, int] | None = None) -> int:
    """Write the challenge's match row (unrated, no tournament); returns its id. Without a
    ``seed`` (None or 0) the deal is drawn from ``secrets``. With ``at_once`` (bot id -> the
    most unfinished challenges it may be seated in), a bot already at its most is ``TooMany``
    and nothing is written."""
    with _recording, db.transaction() as connection:
        if at_once:
            # Locks the bots' rows until the commit on PostgreSQL (SQLite has one writer anyway).
            connection.execute(sa.select(bot_t.c.id).where(bot_t.c.id.in_(list(at_once))).order_by(bot_t.c.id)
                               .with_for_update())
            counts = open_challenges(connection, list(at_once))
            for seat in plan.seats:
                most = at_once.get(seat.bot_id)
                if most is not None and counts[seat.bot_id] >= most:
                    raise TooMany(f"bot {seat.name} is seated in {counts[seat.bot_id]} unfinished challenges, "
                                  f"the most it may be at once: try again when one is over")
        return create(connection, plan, seed)


def create(connection: Connection, plan: Plan, seed: int | None) -> int:
    """Write the plan's match row in ``connection``'s transaction, unbounded; returns its id."""
    return int(connection.execute(match_t.insert().values(
        tournament_id=None, game=plan.game, options=plan.options, seed=seed or secrets.randbelow(2**62),
        seating=[s.bot_id for s in plan.seats], rated=False, status=MatchStatus.SCHEDULED, attempts=0,
        created_at=utcnow(), clock_move=plan.move_time, clock_bank=plan.time_bank,
    ).returning(match_t.c.id)).scalar_one())


def external_bots(match_id: int) -> list[int]:
    with db.transaction() as connection:
        seating = connection.execute(sa.select(match_t.c.seating).where(match_t.c.id == match_id)).scalar_one()
        rows = connection.execute(sa.select(bot_t.c.id).where(bot_t.c.id.in_(seating), bot_t.c.kind == "external"))
        return [int(r.id) for r in rows]


def play(match_id: int) -> str:
    """Play the challenge (or abort it); returns the match's final status."""
    from arena.settings import load
    from arena.tournaments.play import play_and_record

    if not external.wait_connected(external_bots(match_id), load().grace_seconds):
        with db.transaction() as connection:
            connection.execute(match_t.update().where(match_t.c.id == match_id, match_t.c.status == MatchStatus.SCHEDULED)
                               .values(status=MatchStatus.ABORTED))
        return MatchStatus.ABORTED
    play_and_record([match_id])
    return MatchStatus.DONE


def client_channel(address: str, ca: Path | None = None, tls: bool | None = None) -> grpc.Channel:
    """A channel to the server at ``address``, chosen by the Python SDK's ``Connection``, so
    that a bot author's settings serve both: TLS trusting the PEM certificate ``ca`` (default
    the file ``ARENA_TLS_CA`` names), else TLS trusting the system's roots when ``tls``
    (default ``ARENA_TLS=1``), else plaintext."""
    from arena_bot import sdk

    settings = sdk.Connection(address=address)
    if ca is not None:
        settings.tls_ca = str(ca)
    if tls is not None:
        settings.tls = tls
    try:
        return settings.blocking_channel()
    except OSError as error:
        raise BadInput(f"CA certificate {settings.tls_ca}: {error.strerror}") from None
