"""Tournaments keep the secret key their deal seeds are derived with; matches are found by
deal (seed) for the disclosure rule.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournament") as batch:
        batch.add_column(sa.Column("deal_key", sa.String(64), nullable=True))
    op.create_index("ix_match_seed_status", "match", ["seed", "status"])


def downgrade() -> None:
    op.drop_index("ix_match_seed_status", table_name="match")
    with op.batch_alter_table("tournament") as batch:
        batch.drop_column("deal_key")
