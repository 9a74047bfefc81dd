"""Alembic migrations of the arena store (run by ``arena.store.db.upgrade``)."""
