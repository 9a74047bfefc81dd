"""Unrated challenges: one match against chosen opponents, to test a bot.

Seats are registered bot names or house bots (``house:heuristic``, or plainly ``heuristic``:
see ``arena.store.house_names``). The match waits up
to the grace period for its external bots to be connected; if one never shows up the
challenge is aborted (nothing is recorded, no one is rated).

``client_channel`` is how ``arena challenge`` reaches the server that plays it."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import games
from arena.referee import external
from arena.store import db, house_names
from arena.store.models import Bot, Match, utcnow
from arena.tournaments.limits import check_clock

if TYPE_CHECKING:
    import grpc

bot_t = Bot.__table__
match_t = Match.__table__


def create(connection: Connection, game: str, players: list[str], options: dict[str, Any], seed: int | None,
           move_time: float, time_bank: float) -> int:
    """Write the challenge's match row (unrated, no tournament); returns its id. Without a
    ``seed`` (None or 0) the deal is drawn from ``secrets``."""
    rules = games.get(game)
    resolved = rules.resolve_options(options)
    if len(players) not in rules.player_counts(resolved):
        raise ValueError(f"{game}: {len(players)} players is not a legal table")
    check_clock(move_time, time_bank)
    seating = []
    for name in players:
        stored = house_names.house_name(name)
        if stored is not None and stored.split("-", 1)[0] not in games.bot_names(game):
            raise ValueError(f"no house bot {stored!r} for {game}")
        seating.append(house_names.resolve(connection, name))
    return int(connection.execute(match_t.insert().values(
        tournament_id=None, game=game, options=resolved, seed=seed or secrets.randbelow(2**62),
        seating=seating, rated=False, status="scheduled", attempts=0, created_at=utcnow(),
        clock_move=move_time, clock_bank=time_bank,
    ).returning(match_t.c.id)).scalar_one())


def external_bots(match_id: int) -> list[int]:
    with db.transaction() as connection:
        seating = connection.execute(sa.select(match_t.c.seating).where(match_t.c.id == match_id)).scalar_one()
        rows = connection.execute(sa.select(bot_t.c.id).where(bot_t.c.id.in_(seating), bot_t.c.kind == "external"))
        return [int(r.id) for r in rows]


def play(match_id: int) -> str:
    """Play the challenge (or abort it); returns the match's final status."""
    from arena.tournaments.play import play_and_record

    if not external.wait_connected(external_bots(match_id), external.grace_seconds()):
        with db.transaction() as connection:
            connection.execute(match_t.update().where(match_t.c.id == match_id, match_t.c.status == "scheduled")
                               .values(status="aborted"))
        return "aborted"
    play_and_record([match_id])
    return "done"


def client_channel(address: str, ca: Path | None = None, tls: bool | None = None) -> grpc.Channel:
    """A channel to the server at ``address``, chosen the way the Python SDK's ``Connection``
    chooses, so that a bot author's settings serve both: TLS trusting the PEM certificate
    ``ca`` (default the file ``ARENA_TLS_CA`` names), else TLS trusting the system's roots when
    ``tls`` (default ``ARENA_TLS=1``), else plaintext."""
    import grpc

    ca_file = ca or (Path(os.environ["ARENA_TLS_CA"]) if os.environ.get("ARENA_TLS_CA") else None)
    if tls is None:
        tls = os.environ.get("ARENA_TLS") == "1"
    if ca_file is not None:
        try:
            roots: bytes | None = ca_file.read_bytes()
        except OSError as error:
            raise ValueError(f"CA certificate {ca_file}: {error.strerror}") from None
    else:
        roots = None
    if roots is not None or tls:
        return grpc.secure_channel(address, grpc.ssl_channel_credentials(roots))  # None: the system's roots
    return grpc.insecure_channel(address)
