"""Tournaments keep the secret key their deal seeds are derived with; matches are found by
deal (seed) for the disclosure rule; results remember when their Elo was applied (a rated
duplicate group is rated once it is over). Results recorded before were rated as they were
recorded: their round is their own ``seq`` (0 when unrated), which replays them as before.

Revision ID: 0006
Revises: 0005_names
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005_names"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournament") as batch:
        batch.add_column(sa.Column("deal_key", sa.String(64), nullable=True))
    op.create_index("ix_match_seed_status", "match", ["seed", "status"])
    with op.batch_alter_table("result") as batch:
        batch.add_column(sa.Column("rating_round", sa.Integer, nullable=True))
        batch.add_column(sa.Column("rating_step", sa.Integer, nullable=False, server_default="0"))
    op.execute("UPDATE result SET rating_round = CASE WHEN (SELECT rated FROM match WHERE match.id = result.match_id) "
               "THEN seq ELSE 0 END")
    op.create_index("ix_result_rating_round", "result", ["rating_round"])


def downgrade() -> None:
    op.drop_index("ix_result_rating_round", table_name="result")
    with op.batch_alter_table("result") as batch:
        batch.drop_column("rating_step")
        batch.drop_column("rating_round")
    op.drop_index("ix_match_seed_status", table_name="match")
    with op.batch_alter_table("tournament") as batch:
        batch.drop_column("deal_key")
