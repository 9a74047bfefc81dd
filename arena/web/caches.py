"""What the web face keeps between requests, so that readers cost the store little:

* ``replays``: the viewer's data of finished matches, by (store, match, view), least recently
  read out first once their JSON adds up to ``ARENA_REPLAY_CACHE_MB``. A finished match never
  changes, so a replay is computed once; whether it may be shown is still asked of the store
  on every request (a deal can come back into play), so nothing sealed is served from here.
* ``snapshots``: pages of running tournaments, running matches and the home page's live
  list, shared by every viewer for ``ARENA_LIVE_SNAPSHOT_SECONDS``: a hundred viewers
  refreshing cost one read per period, and such a page is never older than that.
* ``fits``: each game's maximum-likelihood list (``arena.store.ml_board``), with the
  ``version`` of the rated results it was fitted on. Its cost grows with the results
  (seconds at a million), so the store is asked whether new results arrived at most every
  ``ML_CHECK_SECONDS``, and the list is fitted again only when they did, on a thread apart
  that no reader waits for; one fit runs at a time (``fitting``).
* ``finished``: pages of finished tournaments (and their HTML), which never change again
  and hold no seed, kept until pushed out by newer ones (``FINISHED_PAGES``).

The caches of ``cachetools`` are not thread-safe and FastAPI runs the views on a thread
pool: every access holds the cache's lock (the work itself is done outside it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from cachetools import Cache, LRUCache, TTLCache

T = TypeVar("T")


class Shared:
    """A ``cachetools`` cache behind a lock."""

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.lock = threading.Lock()

    def get(self, key: Hashable) -> Any:
        with self.lock:
            return self.cache.get(key)

    def put(self, key: Hashable, value: Any) -> None:
        with self.lock:
            try:
                self.cache[key] = value
            except ValueError:  # larger than the whole cache: served, not kept
                pass

    def clear(self) -> None:
        with self.lock:
            self.cache.clear()

    def through(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The value kept under ``key``, else ``compute()`` kept and returned."""
        found = self.get(key)
        if found is None:
            found = compute()
            self.put(key, found)
        return found


def _replay_size(entry: tuple[str, str]) -> int:
    return len(entry[1])  # (etag, JSON text): the text is nearly all of it


ML_CHECK_SECONDS = 30.0  # a maximum-likelihood list may lag new results by this much
FINISHED_PAGES = 32  # a 100,000-match tournament's page is about 1 MB of data and 1 MB of HTML

replays = Shared(LRUCache(maxsize=64 << 20, getsizeof=_replay_size))
snapshots = Shared(TTLCache(maxsize=1024, ttl=2.0))
finished = Shared(LRUCache(maxsize=FINISHED_PAGES))
fits = Shared(LRUCache(maxsize=256))  # (store, game) -> (version, checked at, list)
fitting = threading.Lock()
# The (store, game) lists being fitted again: a fit that takes longer than ML_CHECK_SECONDS
# must not have another started behind it at every check.
_refitting: set[tuple[str | None, str]] = set()


def start_refit(key: tuple[str | None, str]) -> bool:
    """True (and the key marked) unless ``key``'s list is being fitted again already."""
    with fits.lock:
        if key in _refitting:
            return False
        _refitting.add(key)
        return True


def refit_done(key: tuple[str | None, str]) -> None:
    with fits.lock:
        _refitting.discard(key)


def page(key: Hashable, compute: Callable[[], T], final: Callable[[T], bool]) -> T:
    """A page kept under ``key``: for good once ``final(page)`` (it cannot change any more),
    else as a shared snapshot."""
    found = finished.get(key)
    if found is None:
        found = snapshots.get(key)
    if found is None:
        found = compute()
        (finished if final(found) else snapshots).put(key, found)
    return found


def configure(replay_bytes: int, snapshot_seconds: float) -> None:
    """Size the caches from the settings (``create_app`` calls it); empties them."""
    global replays, snapshots
    replays = Shared(LRUCache(maxsize=max(1, replay_bytes), getsizeof=_replay_size))
    snapshots = Shared(TTLCache(maxsize=1024, ttl=max(snapshot_seconds, 1e-6)))
    finished.clear()
    fits.clear()
    _refitting.clear()
