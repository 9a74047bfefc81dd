"""One pass of the ladder against a real store (``workers.ladder.Ladder``): the boards a bot's
Hello asks for, groups written whole, room counted from the store, retired versions and games
a bot does not play left out, the search bot's bound."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import sqlalchemy as sa

from arena.referee.mailbox import LocalMailbox
from arena.store import bot_tokens, db, versions
from arena.store.models import Bot, Match, Tournament
from workers.ladder import Ladder

GAME = "crazy_eights"


class Always:
    """The only server: it always leads."""

    def lead(self) -> bool:
        return True

    def release(self) -> None:
        pass


def ladder(search_matches: int = 0) -> tuple[Ladder, list[list[int]]]:
    sent: list[list[int]] = []
    return Ladder(LocalMailbox(), sent.append, Always(), 1.0, search_matches), sent


def connect(ladder: Ladder, bot_id: int, **prefs: Any) -> None:
    async def hello() -> None:
        await ladder.mailbox.set_prefs(str(bot_id), {"max_matches": 1, "games": [GAME], **prefs})
        await ladder.mailbox.claim(str(bot_id), f"stream-{bot_id}")

    asyncio.run(hello())


def register(url: str, *names: str) -> list[int]:
    with db.transaction(url) as connection:
        return [bot_tokens.register(connection, name).bot_id for name in names]


def groups(url: str) -> dict[tuple[str, int], list[list[int]]]:
    match_t, tournament_t = Match.__table__, Tournament.__table__
    with db.read(url) as connection:
        rows = connection.execute(sa.select(tournament_t.c.board, match_t.c.seed, match_t.c.seating, match_t.c.rated)
                                  .join(tournament_t, tournament_t.c.id == match_t.c.tournament_id)
                                  .where(tournament_t.c.kind == "ladder").order_by(match_t.c.id)).all()
    found: dict[tuple[str, int], list[list[int]]] = {}
    for row in rows:
        assert row.rated
        found.setdefault((row.board, row.seed), []).append(list(row.seating))
    return found


def house_ids(url: str) -> dict[str, int]:
    with db.read(url) as connection:
        return dict(connection.execute(sa.select(Bot.__table__.c.strategy, Bot.__table__.c.id)
                                       .where(Bot.__table__.c.kind == "house")).all())


def test_each_board_a_bot_asks_for_gets_whole_groups_and_room_is_counted(embedded: str) -> None:
    url = embedded
    ada, bram, cleo = register(url, "ada", "bram", "cleo")
    pairing, sent = ladder()
    for bot in (ada, bram, cleo):
        connect(pairing, bot, table_sizes=[2, 3], max_matches=5)
    first = asyncio.run(pairing.pass_once())
    assert sent == [first] and len(first) == 4  # two groups of two rotations on the quietest board
    assert {board for board, _ in groups(url)} == {f"{GAME}:2"}
    second = asyncio.run(pairing.pass_once())
    # Every bot has 2 of its 5 matches in play, room for a group of 3: the three-player board,
    # quiet so far, is next.
    assert len(second) == 3 and {board for board, _ in groups(url)} == {f"{GAME}:2", f"{GAME}:3"}
    for (board, _), seatings in groups(url).items():
        size = int(board.split(":")[1])
        assert len(seatings) == size and sorted(map(tuple, seatings)) == sorted(
            tuple(seatings[0][r:] + seatings[0][:r]) for r in range(size)), "every rotation of one deal"
    assert Counter(b for seatings in groups(url).values() for s in seatings[:1] for b in s)[ada] == 2
    assert asyncio.run(pairing.pass_once()) == [], "no bot has room for another group: 5 of 5 at once"
    assert "search" not in {strategy for strategy, bot in house_ids(url).items()
                            if any(bot in s for seatings in groups(url).values() for s in seatings)}


def test_retired_versions_and_games_not_played_stay_off(embedded: str) -> None:
    url = embedded
    old, durak_only = register(url, "old", "durak-only")
    with db.transaction(url) as connection:
        newer = versions.new_version(connection, old).bot_id
    pairing, _ = ladder()
    connect(pairing, old)
    connect(pairing, durak_only, games=["durak"])
    connect(pairing, newer)
    asyncio.run(pairing.pass_once())
    seated = {b for seatings in groups(url).values() for s in seatings for b in s}
    assert newer in seated and old not in seated
    boards = {board for board, _ in groups(url)}
    assert boards == {f"{GAME}:2", "durak:2"}
    durak = [s for (board, _), seatings in groups(url).items() if board == "durak:2" for s in seatings]
    assert all(durak_only in s for s in durak) and not any(durak_only in s for (board, _), seatings in groups(url).items()
                                                           if board != "durak:2" for s in seatings)


def test_the_search_bot_plays_only_up_to_its_bound(embedded: str) -> None:
    """A bot alone meets the house bots in turn (the one it met least); the search bot, bound
    to two matches at once, gets one group and is passed over while it plays it."""
    url = embedded
    (lonely,) = register(url, "lonely")
    pairing, _ = ladder(search_matches=2)
    connect(pairing, lonely, games=["durak"], max_matches=40)
    for _ in range(9):
        asyncio.run(pairing.pass_once())
    house = house_ids(url)
    met = Counter(b for seatings in groups(url).values() for b in set(seatings[0]) if b != lonely)
    assert met[house["search"]] == 1, met
    assert met[house["random"]] + met[house["heuristic"]] == 8 and abs(met[house["random"]] - met[house["heuristic"]]) <= 1


def test_a_ladder_killed_before_it_sends_leaves_its_matches_to_the_supervisor(embedded: str) -> None:
    """The groups are written as sent, by this process when it plays them itself: a ladder
    killed between writing its groups and sending them (here: a send that never happens)
    leaves matches the supervisor sends or plays again, not ones that wait for an operator."""
    url = embedded
    ada, bram = register(url, "ada", "bram")

    def killed(match_ids: list[int]) -> None:
        raise SystemExit("killed before the send")

    for sent_by in ("here:1", None):
        pairing = Ladder(LocalMailbox(), killed, Always(), 1.0, 0, sent_by=sent_by)
        for bot in (ada, bram):
            connect(pairing, bot)
        try:
            asyncio.run(pairing.pass_once())
        except SystemExit:
            pass
        match_t = Match.__table__
        with db.transaction(url) as connection:
            rows = connection.execute(sa.select(match_t.c.sent_at, match_t.c.claimed_by)).all()
            connection.execute(match_t.delete())  # the next pass pairs them again
        assert len(rows) == 2 and all(row.sent_at is not None for row in rows), rows
        assert {row.claimed_by for row in rows} == {sent_by}
