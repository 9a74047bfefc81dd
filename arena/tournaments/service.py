"""Creating, cancelling and listing the work of tournaments in the store.

Creating a tournament only writes rows; dispatching its matches is the caller's next step,
after this transaction has committed (a task must never see a row that does not exist yet).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import games
from arena.clock import Clock
from arena.errors import BadInput, NotFound
from arena.games import house
from arena.store import house_names
from arena.store.models import Match, Tournament, utcnow
from arena.store.queries import bots_by_id
from arena.store.results import settle_groups
from arena.store.statuses import MatchStatus, TournamentStatus

from . import limits
from .schedule import new_deal_key, round_robin

match_t = Match.__table__
tournament_t = Tournament.__table__


def create_tournament(
    connection: Connection,
    game_names: Sequence[str],
    bots: Sequence[str],
    sizes: Sequence[int] | None = None,
    repetitions: int = 1,
    seed: int | None = None,
    rated: bool = True,
    name: str = "",
    move_time: float = Clock().move,
    time_bank: float = Clock().bank,
    options: dict[str, dict[str, Any]] | None = None,
    deal_key: bytes | None = None,
) -> int:
    """Write a round-robin tournament over several games and its scheduled matches.

    ``bots`` are bot names: house bots (``heuristic``, ``house:random-2``, see
    ``arena.store.house_names``) or existing bots; ``sizes`` are table sizes, each used where
    the game allows it (default: every legal size up to the number of bots). Without a
    ``seed`` the master seed is drawn from ``secrets``. Deal seeds are derived under a secret
    ``deal_key``, fresh from ``secrets`` unless given: tournaments never replay each other's
    deals unless drawn up with the same key and master seed (``same_deals``). Every range is
    checked (``limits``) before anything is built or written. Returns the tournament id."""
    if len(set(bots)) != len(bots):
        raise BadInput("a tournament's bots must be distinct")
    limits.check_tournament(game_names, len(bots), sizes or [], repetitions, move_time, time_bank, name)
    if seed is None:
        seed = secrets.randbelow(2**62)
    if deal_key is None:
        deal_key = new_deal_key()
    ids = {bot: house_names.resolve(connection, bot) for bot in bots}
    spelt: dict[int, str] = {}
    for bot, bot_id in ids.items():  # names are compared whatever their case, `house:` or not
        if bot_id in spelt:
            raise BadInput(f"{spelt[bot_id]!r} and {bot!r} name the same bot: a tournament's bots must be distinct")
        spelt[bot_id] = bot
    strategies = house_strategies(connection, list(ids.values()))  # by bot id
    chosen = []
    for game_name in game_names:
        game = games.get(game_name)
        game_options = game.resolve_options((options or {}).get(game_name))
        legal = set(game.player_counts(game_options))
        for bot in bots:
            strategy = strategies.get(ids[bot])
            if strategy is not None and strategy not in house.bot_names(game.name):
                raise BadInput(f"bot {bot}: no house bot {strategy!r} for {game.name}")
        wanted = [n for n in (sizes or sorted(legal)) if n in legal and n <= len(bots)]
        if not wanted:
            raise BadInput(f"{game_name}: no table size among {list(sizes or [])} is playable")
        chosen.append((game, game_options, wanted))
    limits.check_match_count(len(bots), [wanted for _, _, wanted in chosen], repetitions)
    plans = []
    for game, game_options, wanted in chosen:
        plans += round_robin(game.name, [ids[b] for b in bots], wanted, repetitions, seed, game_options,
                             key=deal_key)
    tournament_id = connection.execute(
        tournament_t.insert()
        .values(
            name=name or f"round robin of {', '.join(game_names)}",
            status=TournamentStatus.RUNNING if plans else TournamentStatus.DONE,
            rated=rated,
            seed=seed,
            deal_key=deal_key.hex(),
            move_time=move_time,
            time_bank=time_bank,
            spec={"games": list(game_names), "bots": list(bots), "sizes": list(sizes or []),
                  "repetitions": repetitions, "options": options or {}},
            created_at=utcnow(),
        )
        .returning(tournament_t.c.id)
    ).scalar_one()
    now = utcnow()
    rows = [
        {"tournament_id": tournament_id, "game": p.game, "options": p.options, "seed": p.seed,
         "seating": list(p.seating), "rated": rated, "status": MatchStatus.SCHEDULED, "attempts": 0, "created_at": now}
        for p in plans
    ]
    for start in range(0, len(rows), 2000):
        connection.execute(match_t.insert(), rows[start : start + 2000])
    return tournament_id


def same_deals(connection: Connection, tournament_id: int) -> tuple[int, bytes]:
    """The master seed and deal key of a tournament, for an exact rerun of its deals (the
    admin's ``arena tournament create --same-deals-as``): a tournament drawn up with both
    and the same games, table sizes, repetitions and number of bots deals every group the
    same cards.
    Server side only: the key must never be shown."""
    row = connection.execute(
        sa.select(tournament_t.c.seed, tournament_t.c.deal_key).where(tournament_t.c.id == tournament_id)
    ).first()
    if row is None:
        raise NotFound(f"no tournament {tournament_id}")
    if row.deal_key is None:
        raise BadInput(f"tournament {tournament_id} was drawn up before deals were keyed: its deals cannot be rerun")
    return int(row.seed), bytes.fromhex(row.deal_key)


def house_strategies(connection: Connection, bot_ids: list[int]) -> dict[int, str]:
    """The house strategy of each house bot among ``bot_ids``."""
    return {b.id: b.strategy for b in bots_by_id(connection, bot_ids).values() if b.kind == "house"}


def pending_match_ids(connection: Connection, tournament_id: int) -> list[int]:
    """Matches of the tournament not finished yet, in schedule order."""
    return list(
        connection.execute(
            sa.select(match_t.c.id)
            .where(match_t.c.tournament_id == tournament_id, match_t.c.status.in_(MatchStatus.PENDING))
            .order_by(match_t.c.id)
        ).scalars()
    )


def cancel_tournament(connection: Connection, tournament_id: int) -> int:
    """Stop a tournament: its matches not yet started are cancelled (a match already being
    played finishes and is recorded), and duplicate groups left without rotations to play
    are rated. Returns how many were cancelled."""
    found = connection.execute(
        sa.select(tournament_t.c.status).where(tournament_t.c.id == tournament_id)
    ).scalar_one_or_none()
    if found is None:
        raise NotFound(f"no tournament {tournament_id}")
    cancelled = connection.execute(
        match_t.update()
        .where(match_t.c.tournament_id == tournament_id, match_t.c.status == MatchStatus.SCHEDULED)
        .values(status=MatchStatus.CANCELLED)
    ).rowcount
    connection.execute(
        tournament_t.update()
        .where(tournament_t.c.id == tournament_id, tournament_t.c.status == TournamentStatus.RUNNING)
        .values(status=TournamentStatus.CANCELLED, finished_at=utcnow())
    )
    # A duplicate group whose other rotations will now never be played is rated as it stands.
    settle_groups(connection, tournament_id)
    return cancelled
