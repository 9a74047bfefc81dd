"""The ladder and bot versions.

- ``tournament.kind`` tells a round robin drawn up by an operator (``round_robin``) from the
  ladder's standing tournaments (``ladder``), one per board (``tournament.board``: the game and
  the number of seats, ``durak:2``), into which the ladder writes duplicate groups as it pairs.
- ``bot.version_of`` names the first version of a bot that registered new versions of itself;
  ``bot.version`` numbers them; ``bot.retired_at`` is when a newer version replaced it (a
  retired bot keeps its history and leaves the ladder).
- ``ladder_entry``: who the ladder saw connected at its last pass, with what it accepts and
  how many of its matches were in play (the web face, a process of its own, reads it).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournament") as batch:
        batch.add_column(sa.Column("kind", sa.String(16), nullable=False, server_default="round_robin"))
        batch.add_column(sa.Column("board", sa.String(80), nullable=True))
    op.create_index("ix_tournament_kind_status", "tournament", ["kind", "status"])
    with op.batch_alter_table("bot") as batch:
        batch.add_column(sa.Column("version_of", sa.Integer, nullable=True))
        batch.add_column(sa.Column("version", sa.Integer, nullable=False, server_default="1"))
        batch.add_column(sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "ladder_entry",
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bot.id"), primary_key=True),
        sa.Column("games", sa.JSON, nullable=False),
        sa.Column("table_sizes", sa.JSON, nullable=False),
        sa.Column("max_matches", sa.Integer, nullable=False),
        sa.Column("in_play", sa.Integer, nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ladder_entry")
    with op.batch_alter_table("bot") as batch:
        batch.drop_column("retired_at")
        batch.drop_column("version")
        batch.drop_column("version_of")
    # SQLite drops a column by copying the table, which loses the index on an expression
    # (names unique whatever their case, 0005): made again where it went.
    op.execute("CREATE UNIQUE INDEX IF NOT EXISTS uq_bot_name_lower ON bot (lower(name))")
    op.drop_index("ix_tournament_kind_status", table_name="tournament")
    with op.batch_alter_table("tournament") as batch:
        batch.drop_column("board")
        batch.drop_column("kind")
