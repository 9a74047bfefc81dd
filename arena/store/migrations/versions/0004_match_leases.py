"""Matches remember when they were sent and who holds them until when (leases), for the
supervisor that sends lost matches again.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("match") as batch:
        batch.add_column(sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_match_status_sent_at", "match", ["status", "sent_at"])


def downgrade() -> None:
    op.drop_index("ix_match_status_sent_at", table_name="match")
    with op.batch_alter_table("match") as batch:
        batch.drop_column("lease_until")
        batch.drop_column("sent_at")
