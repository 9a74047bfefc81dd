"""The analysis of a finished match: one row per (match, seat, budget), its JSON computed once.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analysis",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("match.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("budget", sa.String(80), primary_key=True),
        sa.Column("data", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("analysis")
