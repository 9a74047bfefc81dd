"""Shared helpers for the web tests: the games the store is filled with, the replay frames."""

from __future__ import annotations

GAMES = ["durak", "trekking_the_world", "crazy_eights"]


def frames(data: dict) -> list[dict]:
    """The replay API's frames expanded from their differences, as the viewer does."""
    out, current = [], {}
    for diff in data["frames"]:
        current = {**current, **diff[0]}
        for key in diff[1] if len(diff) > 1 else []:
            del current[key]
        out.append(current)
    return out
