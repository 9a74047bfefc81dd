"""Initial schema: bots, tournaments, matches, results, seats, transcripts, ratings.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bot",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(100), nullable=False, unique=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("strategy", sa.String(64), nullable=True),
        sa.Column("think", sa.Float, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "tournament",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("move_time", sa.Float, nullable=False),
        sa.Column("time_bank", sa.Float, nullable=False),
        sa.Column("spec", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "match",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournament.id"), nullable=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("seating", sa.JSON, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("claimed_by", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_match_tournament_id", "match", ["tournament_id"])
    # Tournament status counts done/total per game.
    op.create_index("ix_match_tournament_game_status", "match", ["tournament_id", "game", "status"])
    op.create_table(
        "result",
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("match_id", sa.Integer, sa.ForeignKey("match.id"), nullable=False, unique=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("duration_ms", sa.Float, nullable=False),
        sa.Column("decisions", sa.Integer, nullable=False),
        sa.Column("capped", sa.Boolean, nullable=False),
    )
    op.create_table(
        "match_seat",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("match.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bot.id"), nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("strikes", sa.Integer, nullable=False),
        sa.Column("forfeited", sa.Boolean, nullable=False),
    )
    op.create_index("ix_match_seat_bot_id", "match_seat", ["bot_id"])
    op.create_table(
        "transcript",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("match.id"), primary_key=True),
        sa.Column("data", sa.JSON, nullable=False),
    )
    op.create_table(
        "rating",
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bot.id"), primary_key=True),
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("elo", sa.Float, nullable=False),
        sa.Column("information", sa.Float, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("wins", sa.Float, nullable=False),
        sa.Column("rank_sum", sa.Integer, nullable=False),
        sa.Column("last_played", sa.DateTime(timezone=True), nullable=True),
    )
    # The leaderboard: one game's bots by Elo, read straight off this index.
    op.create_index("ix_rating_game_elo", "rating", ["game", "elo"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("match_id", sa.Integer, sa.ForeignKey("match.id"), nullable=False),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bot.id"), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("before", sa.Float, nullable=False),
        sa.Column("after", sa.Float, nullable=False),
        sa.UniqueConstraint("match_id", "bot_id"),
    )
    op.create_index("ix_rating_history_seq", "rating_history", ["seq"])


def downgrade() -> None:
    for table in ("rating_history", "rating", "transcript", "match_seat", "result", "match", "tournament", "bot"):
        op.drop_table(table)
