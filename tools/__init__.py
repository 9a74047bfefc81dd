"""Developer tools of the arena (not shipped)."""
