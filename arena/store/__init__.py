"""The store: SQLModel tables (``models``), engines, transactions and migrations (``db``),
recording results exactly once (``results``) and the reads the CLI needs (``queries``)."""

from .db import dispose_all, engine, transaction, upgrade
from .results import recompute, record_result, record_results, replay_ratings

__all__ = ["dispose_all", "engine", "record_result", "record_results", "recompute", "replay_ratings", "transaction", "upgrade"]
