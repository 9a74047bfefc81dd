"""Bot names are unique whatever their case: a unique index on lower(name).

Rows that would break it, or that the name rules now refuse, are renamed first, never
deleted: ``<name>~<id>`` keeps the bot's id (so its tokens, matches and ratings), is readable,
and can never be registered again (``~`` is outside the names' alphabet). Renamed are
- every bot but one of names equal whatever their case: a house bot keeps its name (the
  house bot is found by it), else the oldest registration;
- external bots in the house namespace by case (``Heuristic``, ``RANDOM-2``, ``House``): the
  house bot of that name could otherwise never be created;
- external bots whose names the old pattern let through (``alice\\n``).
Each rename is logged (``alembic.runtime.migration`` at warning level) for the operator to
tell the bot's owner. The downgrade drops the index; renames stay.

Revision ID: 0005_names
Revises: 0004
Create Date: 2026-12-02
"""

import logging
import re

import sqlalchemy as sa
from alembic import op

revision = "0005_names"
down_revision = "0004"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

# The name rules and house strategies as they stood when this ran (migrations are history:
# they must not follow later code).
NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
STRATEGIES = {"random", "heuristic", "search"}


def house_namespace(name: str) -> bool:
    folded = name.lower()
    return folded.startswith("house") or ":" in folded or folded.split("-", 1)[0] in STRATEGIES


def renames(rows: list[tuple[int, str, str]]) -> dict[int, str]:
    """New names by bot id for ``(id, name, kind)`` rows, oldest first."""
    changed: dict[int, str] = {}
    keepers: dict[str, int] = {}
    # House bots first: they keep their names whatever came before them.
    for bot_id, name, kind in sorted(rows, key=lambda r: (r[2] != "house", r[0])):
        bad = kind != "house" and (not NAME.fullmatch(name) or house_namespace(name))
        if bad or name.lower() in keepers:
            base = re.sub(r"[^A-Za-z0-9_.-]", "", name)[:64] or "bot"
            changed[bot_id] = f"{base}~{bot_id}"
        else:
            keepers[name.lower()] = bot_id
    return changed


def upgrade() -> None:
    bot = sa.table("bot", sa.column("id", sa.Integer), sa.column("name", sa.String), sa.column("kind", sa.String))
    connection = op.get_bind()
    rows = [(int(r.id), str(r.name), str(r.kind)) for r in connection.execute(sa.select(bot.c.id, bot.c.name, bot.c.kind))]
    olds = {bot_id: name for bot_id, name, _ in rows}
    for bot_id, new in sorted(renames(rows).items()):
        log.warning("bot %d renamed %r -> %r: its name clashed with another's whatever the case, "
                    "or is no longer allowed", bot_id, olds[bot_id], new)
        connection.execute(bot.update().where(bot.c.id == bot_id).values(name=new))
    op.create_index("uq_bot_name_lower", "bot", [sa.text("lower(name)")], unique=True)


def downgrade() -> None:
    op.drop_index("uq_bot_name_lower", table_name="bot")
