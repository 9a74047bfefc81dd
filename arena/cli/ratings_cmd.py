"""``arena ratings recompute``: rebuild every rating from the recorded results."""

from __future__ import annotations

import argparse

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena.settings import load
from arena.store import db, queries, recompute, replay_ratings
from arena.store.models import Rating

from .jsonout import add_json_flag, print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("ratings", help="maintain ratings")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    again = actions.add_parser("recompute", help="replay all rated results in completion order")
    again.add_argument("--check", action="store_true",
                       help="only compare with the stored ratings; exit 1 if they differ")
    add_json_flag(again)
    again.set_defaults(func=run_recompute)


def stored_elos(connection: Connection) -> dict[tuple[int, str], float]:
    rating_t = Rating.__table__
    return {(r.bot_id, r.game): r.elo
            for r in connection.execute(sa.select(rating_t.c.bot_id, rating_t.c.game, rating_t.c.elo))}


def differences(connection: Connection, old: dict[tuple[int, str], float], new: dict[tuple[int, str], float],
                old_name: str, new_name: str) -> list[dict]:
    """The (bot, game) ratings whose Elo is not the same in ``old`` and ``new`` (None where
    one side has none), by game then bot, with the bots' names."""
    keys = sorted({key for key in old.keys() | new.keys() if old.get(key) != new.get(key)},
                  key=lambda key: (key[1], key[0]))
    names = {bot_id: row.name for bot_id, row in queries.bots_by_id(connection, [k[0] for k in keys]).items()}
    return [{"bot": names.get(bot, str(bot)), "game": game, old_name: old.get((bot, game)),
             new_name: new.get((bot, game))} for bot, game in keys]


def run_recompute(args: argparse.Namespace) -> int:
    k = load().elo_k
    if args.check:  # reads only: never migrates, never takes the write lock
        with db.read() as connection:
            standings = replay_ratings(connection, k)
            replayed = {key: st.elo for key, st in standings.items()}
            differ = differences(connection, stored_elos(connection), replayed, "stored", "replayed")
        if args.json:
            print_json({"check": True, "replayed": len(standings), "same": not differ, "differ": differ})
        else:
            print(f"{len(standings)} ratings replayed, {len(differ)} differ from the stored ones")
        return 1 if differ else 0
    with db.transaction() as connection:
        before = stored_elos(connection) if args.json else {}
        written = recompute(connection, k)
        changed = differences(connection, before, stored_elos(connection), "before", "after") if args.json else []
    if args.json:
        print_json({"check": False, "rebuilt": written, "changed": changed})
    else:
        print(f"{written} ratings rebuilt from the recorded results")
    return 0
