"""``arena db upgrade|current``: the store's schema, made only by the Alembic migrations."""

from __future__ import annotations

import argparse

from arena.settings import load
from arena.store import db

from .jsonout import add_json_flag, print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("db", help="migrate the store (ARENA_DATABASE_URL)")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("upgrade", help="run the migrations up to the newest").set_defaults(func=run_upgrade)
    current = actions.add_parser("current", help="show the schema revision; exit 1 unless it is the newest")
    add_json_flag(current)
    current.set_defaults(func=run_current)


def run_upgrade(args: argparse.Namespace) -> int:
    eng = db.make_engine(load().database_url)
    db.upgrade(eng)
    print(f"{eng.url.render_as_string(hide_password=True)}: at revision {db.current_revision(eng)}")
    return 0


def run_current(args: argparse.Namespace) -> int:
    url = load().database_url
    missing = db.missing_file(url)  # asking must not create the file (nor its directory)
    current, shown = None, missing
    if not missing:
        eng = db.make_engine(url)
        current, shown = db.current_revision(eng), eng.url.render_as_string(hide_password=True)
    head = db.head_revision()
    if args.json:
        print_json({"database": shown, "revision": current, "head": head, "up_to_date": current == head})
    elif missing:
        print(f"no database at {missing} (run `arena db upgrade`); newest {head}")
    else:
        print(f"revision {current or '(empty)'}; newest {head}")
    return 0 if current == head else 1
