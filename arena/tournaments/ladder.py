"""The ladder: connected bots paired for rated matches with nobody's help.

A *board* is a game at one table size (``durak:2``). Each board has one standing tournament of
kind ``ladder``; on every pass of its leader (``workers.ladder``) the ladder writes into it
whole duplicate groups (one deal, every rotation of the seats: the ratings count a group once
it is over, as in any tournament) for the connected bots that have room for another match, and
sends them to be played through the same queues, claims, leases and exactly-once recording as
every other match.

Who meets whom (``pair``): a bot waiting for a match is seated first with the bots it has met
least on that board among those whose rating intervals overlap its own; newcomers, whose
intervals are wide, overlap everyone and so meet a spread of opponents at once (they are
*provisional* until the interval narrows, ``arena.ratings.provisional``). The house bots (``random``,
``heuristic``, ``search``) stand on every board as fixed points, always there to play, so a bot
alone on the server is rated too; the search bot's matches at once are bounded (its CPU).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import games, ratings
from arena.clock import Clock
from arena.games import house
from arena.store import house_names
from arena.store.models import Bot, LadderEntry, Match, Rating, Tournament, utcnow
from arena.store.statuses import MatchStatus, TournamentStatus

from .schedule import derive_seed, new_deal_key, rotations

match_t, tournament_t, rating_t = Match.__table__, Tournament.__table__, Rating.__table__
bot_t, entry_t = Bot.__table__, LadderEntry.__table__

LADDER = "ladder"
# The house bots every board has, where the game has them.
FIXED_POINTS = ("random", "heuristic", "search")
# Meetings per pair read back per board: enough to spread a newcomer's opponents, bounded so a
# pass costs the same after a year of play.
MEETINGS_WINDOW = 20_000
# A house bot is a little less wanted than a bot of flesh and code at the same distance: the
# ladder is for the connected bots to meet each other.
HOUSE_COST = 0.5


@dataclass(frozen=True, order=True)
class Board:
    """A game at one table size: the ladder pairs and rates each on its own."""

    game: str
    players: int

    @property
    def key(self) -> str:
        return f"{self.game}:{self.players}"


@dataclass(frozen=True)
class Entrant:
    """A bot as the pairing sees it: its Elo and the half-width of its interval in the game."""

    bot_id: int
    elo: float = ratings.INITIAL
    half: float = 1.96 * ratings.PRIOR_SD
    house: bool = False


def boards(game_names: Iterable[str], sizes: Sequence[int]) -> list[Board]:
    """The boards of these games at these table sizes, where each game allows the size (its
    default options)."""
    found = []
    for name in game_names:
        game = games.get(name)
        legal = set(game.player_counts(game.resolve_options(None)))
        found += [Board(game.name, n) for n in sizes if n in legal]
    return found


def _cost(members: Sequence[Entrant], other: Entrant, met: Mapping[frozenset[int], int]) -> float:
    """How little is learnt by seating ``other`` with ``members``: the groups it has played
    with them, and the distance between their intervals (zero while they overlap) in hundreds
    of Elo."""
    cost = HOUSE_COST if other.house else 0.0
    for member in members:
        cost += met.get(frozenset((member.bot_id, other.bot_id)), 0)
        gap = abs(member.elo - other.elo) - (member.half + other.half)
        cost += max(0.0, gap) / 100.0
    return cost


def pair(players: int, seekers: Sequence[Entrant], fixed: Sequence[Entrant],
         met: Mapping[frozenset[int], int]) -> list[tuple[int, ...]]:
    """Groups of ``players`` bots for one board. ``seekers`` (connected bots with room for a
    match, most in need first) each get at most one group; ``fixed`` (house bots) may sit in
    any number. Each seeker in turn is seated with the least costly bots still free (``_cost``:
    fewest meetings, overlapping intervals; ties to the earlier seeker). Pure: the same input,
    the same groups."""
    free = list(seekers)
    groups = []
    while free:
        first = free.pop(0)
        members = [first]
        while len(members) < players:
            candidates = free + [f for f in fixed if all(f.bot_id != m.bot_id for m in members)]
            if not candidates:
                break
            best = min(candidates, key=lambda c: _cost(members, c, met))
            members.append(best)
            if not best.house:
                free.remove(best)
        if len(members) == players:
            groups.append(tuple(m.bot_id for m in members))
    return groups


# ----- the store ----------------------------------------------------------------------------

def board_tournament(connection: Connection, board: Board, clock: Clock) -> tuple[int, bytes]:
    """The board's standing tournament (made on first use) and its deal key; reopened if it
    was closed while it had nothing to play, in this transaction, before groups are added."""
    row = connection.execute(
        sa.select(tournament_t.c.id, tournament_t.c.deal_key, tournament_t.c.status)
        .where(tournament_t.c.kind == LADDER, tournament_t.c.board == board.key)
        .order_by(tournament_t.c.id.desc()).limit(1)
    ).first()
    if row is not None and row.deal_key:
        if row.status != TournamentStatus.RUNNING:
            connection.execute(tournament_t.update().where(tournament_t.c.id == row.id)
                               .values(status=TournamentStatus.RUNNING, finished_at=None))
        return int(row.id), bytes.fromhex(row.deal_key)
    key = new_deal_key()
    tournament_id = connection.execute(tournament_t.insert().values(
        name=f"ladder: {board.game}, {board.players} players", kind=LADDER, board=board.key,
        status=TournamentStatus.RUNNING, rated=True, seed=0, deal_key=key.hex(),
        move_time=clock.move, time_bank=clock.bank,
        spec={"ladder": {"game": board.game, "players": board.players}}, created_at=utcnow(),
    ).returning(tournament_t.c.id)).scalar_one()
    return int(tournament_id), key


def schedule(connection: Connection, board: Board, groups: Sequence[tuple[int, ...]], clock: Clock,
             nonce: str, sent_by: str | None = None) -> list[int]:
    """Write ``groups`` into the board's tournament, each as one fresh deal in every rotation
    of its seats (rated), in this transaction; returns the new match ids. ``nonce`` (fresh per
    pass) keeps every deal of the board's key new.

    The rows are written as sent (the ladder sends them right after): a ladder killed before
    it sends them leaves them to the supervisor, which sends again what has no task a lease
    later, or (embedded, ``sent_by`` the sending process's name) plays what a process that
    exists no more sent itself. Written unsent, they would wait for an operator for ever."""
    if not groups:
        return []
    tournament_id, key = board_tournament(connection, board, clock)
    options = games.get(board.game).resolve_options(None)
    now = utcnow()
    rows = []
    for number, group in enumerate(groups):
        seed = derive_seed(key, board.key, nonce, number)
        rows += [{"tournament_id": tournament_id, "game": board.game, "options": options, "seed": seed,
                  "seating": list(seating), "rated": True, "status": MatchStatus.SCHEDULED, "attempts": 0,
                  "created_at": now, "sent_at": now, "claimed_by": sent_by} for seating in rotations(group)]
    return list(connection.execute(match_t.insert().returning(match_t.c.id), rows).scalars())


def ladder_seatings(connection: Connection) -> list[tuple[str, list[int]]]:
    """(board, seating) of every ladder match not over."""
    rows = connection.execute(
        sa.select(tournament_t.c.board, match_t.c.seating)
        .join(tournament_t, tournament_t.c.id == match_t.c.tournament_id)
        .where(tournament_t.c.kind == LADDER, match_t.c.status.in_(MatchStatus.PENDING))
    ).all()
    return [(str(r.board), list(r.seating)) for r in rows]


@dataclass
class Meetings:
    """The duplicate groups every two bots have played together on one board, counted once
    per deal, kept up to date by reading only the matches written since (``update``): a pass
    then costs the same after a year of play. Started from the latest ``MEETINGS_WINDOW``
    matches of the board."""

    board: Board
    met: Counter[frozenset[int]]
    last_id: int = 0

    def update(self, connection: Connection) -> Counter[frozenset[int]]:
        query = (sa.select(match_t.c.id, match_t.c.seed, match_t.c.seating)
                 .join(tournament_t, tournament_t.c.id == match_t.c.tournament_id)
                 .where(tournament_t.c.kind == LADDER, tournament_t.c.board == self.board.key,
                        match_t.c.id > self.last_id)
                 .order_by(match_t.c.id.desc()).limit(MEETINGS_WINDOW))
        rows = connection.execute(query).all()
        # Only the board's leader writes its groups, each in one transaction: a group is read
        # whole, in one update or the next, never split between them.
        seen: set[tuple[int, frozenset[int]]] = set()
        for row in rows:
            self.last_id = max(self.last_id, int(row.id))
            for a, b in itertools.combinations(sorted(set(row.seating)), 2):
                pair_key = frozenset((a, b))
                if (row.seed, pair_key) not in seen:
                    seen.add((row.seed, pair_key))
                    self.met[pair_key] += 1
        return self.met


def meetings(board: Board) -> Meetings:
    """Fresh meeting counts of ``board`` (filled by their first ``update``)."""
    return Meetings(board, Counter())


def entrants(connection: Connection, game: str, bot_ids: Iterable[int], house_ids: Iterable[int] = ()) -> dict[int, Entrant]:
    """Each bot's Elo and interval in ``game`` (a newcomer's prior when it has none)."""
    ids, houses = set(bot_ids), set(house_ids)
    rows = {r.bot_id: r for r in connection.execute(
        sa.select(rating_t.c.bot_id, rating_t.c.elo, rating_t.c.information)
        .where(rating_t.c.game == game, rating_t.c.bot_id.in_(list(ids | houses))))}
    found = {}
    for bot_id in ids | houses:
        row = rows.get(bot_id)
        elo, information = (row.elo, row.information) if row is not None else (ratings.INITIAL, 0.0)
        low, high = ratings.interval(elo, information)
        found[bot_id] = Entrant(bot_id, elo, (high - low) / 2, bot_id in houses)
    return found


def fixed_points(connection: Connection, game: str) -> dict[str, int]:
    """The house bots standing on the game's boards, by strategy (made on first use)."""
    offered = house.bot_names(game)
    return {name: house_names.resolve(connection, name) for name in FIXED_POINTS if name in offered}


def retired(connection: Connection, bot_ids: Iterable[int]) -> set[int]:
    """Those of ``bot_ids`` a newer version replaced: they leave the ladder."""
    return set(connection.execute(
        sa.select(bot_t.c.id).where(bot_t.c.id.in_(list(bot_ids)), bot_t.c.retired_at.is_not(None))).scalars())


def record_entries(connection: Connection, entries: Sequence[dict[str, object]]) -> None:
    """Replace the ladder's view of who is connected (``LadderEntry``) with ``entries``."""
    connection.execute(entry_t.delete())
    if entries:
        now = utcnow()
        connection.execute(entry_t.insert(), [{**entry, "seen_at": now} for entry in entries])
