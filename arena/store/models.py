"""The store's tables. The schema itself is only ever made by the Alembic migrations in
``arena/store/migrations``; these classes describe it for queries.

Append-only: ``result``, ``match_seat``, ``transcript`` and ``rating_history`` rows are
inserted once per match and never changed. ``rating`` is a cache of the history that
``arena ratings recompute`` can rebuild; ``match.status`` and ``tournament.status`` track
scheduling (their values: ``arena.store.statuses``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from arena.clock import Clock

from .statuses import MatchStatus, TournamentStatus


def utcnow() -> datetime:
    return datetime.now(UTC)


def _when(nullable: bool = False) -> Any:
    return sa.Column(sa.DateTime(timezone=True), nullable=nullable)


class _Table(SQLModel):
    """The base of the tables below."""

    if TYPE_CHECKING:
        # SQLAlchemy's declarative mapping sets it on each table class, where the type checker
        # cannot see it; the queries build their statements on it.
        __table__: ClassVar[sa.Table]


class Bot(_Table, table=True):
    """A player identity. ``kind`` is ``house`` (``strategy`` names the house bot, ``think``
    seconds of pacing per move) or ``external`` (connects over gRPC)."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=sa.Column(sa.String(100), nullable=False, unique=True))
    kind: str = Field(default="house", max_length=16)
    strategy: str | None = Field(default=None, max_length=64)
    think: float = 0.0
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())
    # Versions (``arena.store.versions``): the first version of this bot, when it is a later
    # one; its number (1 for the first); when a newer version replaced it (it then keeps its
    # history and leaves the ladder).
    version_of: int | None = None
    version: int = Field(default=1, sa_column=sa.Column(sa.Integer, nullable=False, server_default="1"))
    retired_at: datetime | None = Field(default=None, sa_column=_when(True))


# Names are unique whatever their case (``Alice`` blocks ``alice``): the store says so itself,
# so that two registrations at once cannot both pass the check (migration 0005_names).
sa.Index("uq_bot_name_lower", sa.func.lower(Bot.__table__.c.name), unique=True)


class BotToken(_Table, table=True):
    """A token of an external bot: only its SHA-256 is kept (see ``arena.store.bot_tokens``)."""

    __tablename__ = "bot_token"
    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    token_hash: str = Field(sa_column=sa.Column(sa.String(64), nullable=False, unique=True))
    owner: str = Field(default="", max_length=200)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())
    revoked_at: datetime | None = Field(default=None, sa_column=_when(True))


class Tournament(_Table, table=True):
    """A set of matches over one or more games; ``spec`` keeps how it was drawn up. ``kind``
    is ``round_robin`` (drawn up whole by an operator) or ``ladder`` (one per ``board``, the
    game and table size as ``durak:2``, into which the ladder writes groups as it pairs bots:
    ``arena.tournaments.ladder``)."""

    __table_args__ = (sa.Index("ix_tournament_kind_status", "kind", "status"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(default="", max_length=200)
    kind: str = Field(default="round_robin", sa_column=sa.Column(sa.String(16), nullable=False,
                                                                 server_default="round_robin"))
    board: str | None = Field(default=None, sa_column=sa.Column(sa.String(80), nullable=True))
    status: str = Field(default=TournamentStatus.RUNNING, max_length=16)  # a ``TournamentStatus``
    rated: bool = True
    seed: int = Field(default=0, sa_column=sa.Column(sa.BigInteger, nullable=False))
    # The secret key its deal seeds are derived with (hex; ``arena.tournaments.schedule``).
    # It never leaves the server: no read path selects it, only a rerun of the same deals
    # (``arena tournament create --same-deals-as``) copies it. None for tournaments drawn up
    # before deals were keyed.
    deal_key: str | None = Field(default=None, sa_column=sa.Column(sa.String(64), nullable=True))
    move_time: float = Clock().move
    time_bank: float = Clock().bank
    spec: dict[str, Any] = Field(default_factory=dict, sa_column=sa.Column(sa.JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())
    finished_at: datetime | None = Field(default=None, sa_column=_when(True))


class Match(_Table, table=True):
    """One scheduled match: game, options, seed and the bot in each seat (``seating``)."""

    __table_args__ = (
        sa.Index("ix_match_tournament_game_status", "tournament_id", "game", "status"),
        sa.Index("ix_match_status_sent_at", "status", "sent_at"),
        # The disclosure rule asks, for a deal, whether any match still plays it, whatever
        # its tournament (``arena.store.disclosure``): one seek per seed.
        sa.Index("ix_match_seed_status", "seed", "status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int | None = Field(default=None, foreign_key="tournament.id", index=True)
    game: str = Field(max_length=64)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=sa.Column(sa.JSON, nullable=False))
    seed: int = Field(sa_column=sa.Column(sa.BigInteger, nullable=False))
    seating: list[int] = Field(sa_column=sa.Column(sa.JSON, nullable=False))
    rated: bool = True
    status: str = Field(default=MatchStatus.SCHEDULED, max_length=16)  # a ``MatchStatus``
    attempts: int = 0
    claimed_by: str | None = Field(default=None, max_length=200)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())
    started_at: datetime | None = Field(default=None, sa_column=_when(True))
    # A challenge's own clock (tournament matches use their tournament's).
    clock_move: float | None = None
    clock_bank: float | None = None
    # Why a ``failed`` match failed (the exception it raised while set up or played, or too
    # many deliveries); cleared when it is scheduled again.
    error: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
    # When the match was last sent to the workers (None: never; the supervisor resends only
    # what was sent once, so a tournament created without ``--run`` waits for its operator).
    sent_at: datetime | None = Field(default=None, sa_column=_when(True))
    # Until when the worker playing it holds it (renewed while it plays); a ``running`` match
    # whose lease lapsed is the supervisor's to send again (see ``arena.tournaments.leases``).
    lease_until: datetime | None = Field(default=None, sa_column=_when(True))


class Result(_Table, table=True):
    """A finished match, once: ``seq`` is the completion order that ratings replay."""

    seq: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(sa_column=sa.Column(sa.Integer, sa.ForeignKey("match.id"), nullable=False, unique=True))
    game: str = Field(max_length=64)
    finished_at: datetime = Field(default_factory=utcnow, sa_column=_when())
    duration_ms: float = 0.0
    decisions: int = 0
    capped: bool = False
    # When its Elo was applied, for ratings replay: (``rating_round``, ``rating_step``), then
    # ``seq``. A rated duplicate group is rated once none of its rotations is still to be
    # played (``arena.store.results``): until then ``rating_round`` is None. 0 for unrated
    # matches. ``rating_round`` is the largest ``seq`` when it was applied; ``rating_step``
    # orders the groups rated later with no new result (a twin failed or was cancelled).
    rating_round: int | None = Field(default=None, index=True)
    rating_step: int = 0


class MatchSeat(_Table, table=True):
    """Who sat where in a finished match and how they finished."""

    __tablename__ = "match_seat"
    match_id: int = Field(foreign_key="match.id", primary_key=True)
    seat: int = Field(primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    score: float
    rank: int
    strikes: int = 0
    forfeited: bool = False


class Transcript(_Table, table=True):
    """The full transcript of a finished match (see ``arena.referee.transcript``)."""

    match_id: int = Field(foreign_key="match.id", primary_key=True)
    data: dict[str, Any] = Field(sa_column=sa.Column(sa.JSON, nullable=False))


class Rating(_Table, table=True):
    """Current Elo of a bot in a game, with the Fisher information behind its interval and
    the running tallies the leaderboard shows."""

    __table_args__ = (sa.Index("ix_rating_game_elo", "game", "elo"),)

    bot_id: int = Field(foreign_key="bot.id", primary_key=True)
    game: str = Field(max_length=64, primary_key=True)
    elo: float = 1500.0
    information: float = 0.0
    matches: int = 0
    wins: float = 0.0
    rank_sum: int = 0
    last_played: datetime | None = Field(default=None, sa_column=_when(True))


class RatingHistory(_Table, table=True):
    """One bot's Elo before and after one rated match, in completion order ``seq``."""

    __tablename__ = "rating_history"
    __table_args__ = (sa.UniqueConstraint("match_id", "bot_id"),)
    id: int | None = Field(default=None, primary_key=True)
    seq: int = Field(index=True)
    match_id: int = Field(foreign_key="match.id")
    bot_id: int = Field(foreign_key="bot.id")
    game: str = Field(max_length=64)
    before: float
    after: float


class LadderEntry(_Table, table=True):
    """A bot the ladder saw connected at its last pass: the games and table sizes it accepts
    (empty: every game; two seats), the matches at once it asked for and how many of its ladder
    matches were in play. Rewritten by the ladder's leader on every pass; the web face reads it."""

    __tablename__ = "ladder_entry"
    bot_id: int = Field(foreign_key="bot.id", primary_key=True)
    games: list[str] = Field(default_factory=list, sa_column=sa.Column(sa.JSON, nullable=False))
    table_sizes: list[int] = Field(default_factory=list, sa_column=sa.Column(sa.JSON, nullable=False))
    max_matches: int = 1
    in_play: int = 0
    seen_at: datetime = Field(default_factory=utcnow, sa_column=_when())


class Analysis(_Table, table=True):
    """The analysis of one seat's decisions in a finished match under one budget
    (``arena.referee.analysis``): computed once, as it is deterministic, and kept."""

    match_id: int = Field(foreign_key="match.id", primary_key=True)
    seat: int = Field(primary_key=True)
    # ``AnalysisBudget.key``: the same match and seat analysed with more worlds is another row.
    budget: str = Field(sa_column=sa.Column(sa.String(80), primary_key=True))
    data: dict[str, Any] = Field(sa_column=sa.Column(sa.JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())


class MLFit(_Table, table=True):
    """A game's last maximum-likelihood list (``arena.store.ml_board``), kept so that a web
    process that starts shows it at once instead of fitting first (seconds at a million
    results). ``version`` is where the rated results stood when it was fitted: the list is
    current while it has not moved, and shown while a new fit runs when it has."""

    __tablename__ = "ml_fit"
    game: str = Field(sa_column=sa.Column(sa.String(64), primary_key=True))
    version: list[int] | None = Field(default=None, sa_column=sa.Column(sa.JSON, nullable=True))
    rows: list[dict[str, Any]] = Field(sa_column=sa.Column(sa.JSON, nullable=False))
    fitted_at: datetime = Field(default_factory=utcnow, sa_column=_when())
