"""A live worker's desk (``workers.live.LiveDesk``) in-process, on a real store: many paced
matches in play at once on one loop while the process's threads stay the same; a desk with
no room makes its hand-over wait; every match recorded once, ratings equal to a replay."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from arena.store import db
from arena.store.queries import ensure_house_bot
from arena.tournaments import create_tournament, pending_match_ids
from tests.helpers import wait_until
from tests.support.platform import counts, finished, ratings_table, replayed
from workers import live

pytestmark = pytest.mark.timeout(180)


def paced_matches(url: str, bots: int, think: float = 0.03, seed: int = 3) -> tuple[int, list[int]]:
    """A Crazy 8s round robin of paced random bots (about 40 decisions a match, both seat
    orders), not yet sent; the bots are made on first use."""
    names = [f"paced-{i}" for i in range(bots)]
    with db.transaction(url) as connection:
        for name in names:
            ensure_house_bot(connection, name, "random", think=think)
        tid = create_tournament(connection, ["crazy_eights"], names, sizes=[2], repetitions=1, seed=seed)
    with db.transaction(url) as connection:
        return tid, pending_match_ids(connection, tid)


def test_forty_matches_in_play_on_the_same_threads(embedded):
    tid, ids = paced_matches(embedded, bots=5)  # 10 pairs, both seat orders: 20 matches
    more_tid, more = paced_matches(embedded, bots=5, seed=4)
    ids += more
    desk = live.LiveDesk(len(ids))
    # Every thread the desk may ever start, started before counting: its store threads and
    # the lease renewal, which start on first use.
    before = threading.active_count() + live.STORE_THREADS + 1
    for match_id in ids:
        assert desk.hand_over([match_id]) == [match_id]  # room for all: none waits
    most_in_play, most_threads = 0, 0
    while desk.in_play():
        most_in_play = max(most_in_play, desk.in_play())
        most_threads = max(most_threads, threading.active_count())
        time.sleep(0.02)
    assert most_in_play >= 30, f"only {most_in_play} matches were in play at once"
    assert most_threads <= before, f"{most_threads} threads for {most_in_play} matches (at most {before})"
    assert desk.drain(timeout=1)
    assert finished(embedded, tid) and finished(embedded, more_tid)
    assert counts(embedded) == (len(ids), 0, 2 * len(ids))  # every match once
    assert ratings_table(embedded) == replayed(embedded)


def test_matches_that_end_together_are_recorded_together_each_once(embedded, monkeypatch):
    """Batches that end within the gathering time share one recording (one transaction, one
    commit); each match is still recorded once, each batch told its own ids, and the ratings
    are those of a replay."""
    monkeypatch.setattr(live, "GATHER", 3.0)  # the whole tournament ends within it
    recordings: list[int] = []
    real = live.record_and_close

    def counted(batches: list[Any]) -> list[int]:  # the real recording, counted
        recordings.append(len(batches))
        return real(batches)

    monkeypatch.setattr(live, "record_and_close", counted)
    tid, ids = paced_matches(embedded, bots=4, think=0.0)  # 12 matches
    desk = live.LiveDesk(len(ids))
    for match_id in ids:
        assert desk.hand_over([match_id]) == [match_id]
    assert desk.drain(timeout=60)
    assert sum(recordings) == len(ids) and len(recordings) < len(ids), recordings
    assert finished(embedded, tid)
    assert counts(embedded) == (len(ids), 0, 2 * len(ids))
    assert ratings_table(embedded) == replayed(embedded)


def test_a_full_desk_makes_the_next_hand_over_wait(embedded):
    # Two matches of a second or more each: a bot thinks only on its real choices (forced
    # decisions are the referee's), about a dozen a match, and at 0.03 s each the matches
    # sometimes ended before the check below.
    tid, ids = paced_matches(embedded, bots=2, think=0.1)
    _, more = paced_matches(embedded, bots=2, seed=9)
    desk = live.LiveDesk(2)
    assert desk.hand_over(ids[:1]) == ids[:1] and desk.hand_over(ids[1:2]) == ids[1:2]
    handed: list[list[int]] = []
    waiter = threading.Thread(target=lambda: handed.append(desk.hand_over(more[:1])))
    waiter.start()
    time.sleep(0.3)
    assert not handed and desk.in_play() == 2, "a third match was taken with no room for it"
    waiter.join(timeout=60)
    assert handed == [more[:1]]  # once one of the first two ended
    assert desk.drain(timeout=60)
    wait_until(lambda: finished(embedded, tid), timeout=10, what="the first tournament to close")
    assert counts(embedded)[0] == 3


def test_a_match_claimed_elsewhere_is_not_taken_and_frees_its_room(embedded):
    tid, ids = paced_matches(embedded, bots=2)
    desk = live.LiveDesk(1)
    assert desk.hand_over(ids[:1]) == ids[:1]
    assert desk.drain(timeout=60)
    assert desk.hand_over(ids[:1]) == []  # recorded already: a duplicate delivery takes nothing
    assert desk.hand_over(ids[1:2]) == ids[1:2]  # and its room was given back
    assert desk.drain(timeout=60)
    assert counts(embedded) == (2, 0, 4)
