"""A game's last maximum-likelihood list, kept across restarts of the web processes.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ml_fit",
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("version", sa.JSON, nullable=True),
        sa.Column("rows", sa.JSON, nullable=False),
        sa.Column("fitted_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ml_fit")
