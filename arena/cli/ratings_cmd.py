"""``arena ratings recompute``: rebuild every rating from the recorded results."""

from __future__ import annotations

import argparse

import sqlalchemy as sa

from arena.config import settings
from arena.store import db, recompute, replay_ratings
from arena.store.models import Rating


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("ratings", help="maintain ratings")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    again = actions.add_parser("recompute", help="replay all rated results in completion order")
    again.add_argument("--check", action="store_true",
                       help="only compare with the stored ratings; exit 1 if they differ")
    again.set_defaults(func=run_recompute)


def run_recompute(args: argparse.Namespace) -> int:
    k = settings().elo_k
    if args.check:  # reads only: never migrates, never takes the write lock
        with db.read() as connection:
            standings = replay_ratings(connection, k)
            stored = {(r.bot_id, r.game): r.elo for r in connection.execute(sa.select(Rating.__table__))}
        differ = [key for key, st in standings.items() if stored.get(key) != st.elo]
        differ += [key for key in stored if key not in standings]
        print(f"{len(standings)} ratings replayed, {len(differ)} differ from the stored ones")
        return 1 if differ else 0
    with db.transaction() as connection:
        written = recompute(connection, k)
    print(f"{written} ratings rebuilt from the recorded results")
    return 0
