"""External bots: hashed tokens (revocable), and a per-match clock for challenges.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bot_token",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bot.id"), nullable=False, index=True),
        # SHA-256 of the token: the token itself is never stored.
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    # A challenge has no tournament to carry its clock.
    with op.batch_alter_table("match") as batch:
        batch.add_column(sa.Column("clock_move", sa.Float, nullable=True))
        batch.add_column(sa.Column("clock_bank", sa.Float, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match") as batch:
        batch.drop_column("clock_bank")
        batch.drop_column("clock_move")
    op.drop_table("bot_token")
