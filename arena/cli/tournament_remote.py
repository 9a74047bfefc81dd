"""``arena tournament create --address HOST:PORT``: the tournament sent to the running server
(``Arena.CreateTournament`` with the admin token), where the external bots are connected, and,
with ``--run``, followed there to its end (``Arena.FollowTournament``).

Played in the command-line process instead, a tournament could not seat an external bot: that
process has no gateway for it to connect to (``refuse_unreachable`` says so before anything is
written)."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from arena.errors import ArenaError, BadInput
from arena.store.statuses import MatchStatus

from .jsonout import human_stream, print_json
from .progress import ProgressBar
from .serve_cmd import milliseconds, quiet_grpc_core

# How long one call may take, and how long a followed tournament may run, in seconds.
CALL_SECONDS = 60
FOLLOW_SECONDS = 7 * 24 * 3600
# ListMatches returns at most this many: a larger tournament's failures are counted from its
# progress only.
LISTED = 1000


def refuse_unreachable(bots: list[str]) -> None:
    """BadInput when ``bots`` name registered (external) bots and the tournament would be played
    in this process, embedded (no ARENA_REDIS_URL): they connect to a server's gateway, and this
    process has none. Reads only: nothing is written before the refusal."""
    from arena.settings import load
    from arena.store import bot_tokens, db, house_names

    if not load().embedded:
        return  # distributed: the workers play the matches, through the gateways' mailbox
    if all(house_names.house_name(name) is not None for name in bots):
        return  # house bots alone, on a store that may not exist yet: the tournament makes it
    with db.read() as connection:
        external = bot_tokens.registered(connection, bots)
    if external:
        raise BadInput(
            f"external bots {', '.join(external)} cannot be connected to this command, which has no gateway: "
            "send the tournament to the running server with --address HOST:PORT and the admin token "
            "(ARENA_ADMIN_TOKEN or --token)")


def admin_token(args: argparse.Namespace) -> str:
    from arena.settings import load

    token = args.token or load().admin_token
    if not token:
        raise BadInput("a tournament on a server needs the admin token (--token or ARENA_ADMIN_TOKEN)")
    return str(token)


@contextmanager
def calls(address: str, what: str) -> Iterator[None]:
    """A refused or failed call as one line naming the server (and the tournament)."""
    import grpc

    try:
        yield
    except grpc.RpcError as error:
        raise ArenaError(f"{address}: {what}{error.details() or error.code().name}") from None


def request(args: argparse.Namespace, games: list[str], bots: list[str], sizes: list[int] | None,
            options: dict[str, dict]) -> Any:
    from arena_bot.v1 import arena_pb2


    if args.same_deals_as is not None:
        raise BadInput("--same-deals-as is not sent to a server: give --seed, or create it where the store is")
    return arena_pb2.CreateTournamentRequest(
        name=args.name, bots=bots, repetitions=args.repetitions, rated=not args.unrated,
        move_deadline_ms=milliseconds(args.move_time), time_bank_ms=milliseconds(args.time_bank),
        seed=args.seed or 0,
        games=[arena_pb2.TournamentGame(game=game, table_sizes=sizes or [],
                                        options_json=json.dumps(options[game]) if game in options else "")
               for game in games])


def create_on_server(args: argparse.Namespace, games: list[str], bots: list[str], sizes: list[int] | None,
                     options: dict[str, dict]) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """Create the tournament on the server at ``args.address``; with ``args.run`` follow it to
    the end and return its status and failed matches (None without ``--run``: it is created
    and plays there)."""
    quiet_grpc_core()
    from arena_bot.v1 import arena_pb2, arena_pb2_grpc

    from arena.server.challenge import client_channel

    wanted = request(args, games, bots, sizes, options)
    metadata = (("authorization", f"Bearer {admin_token(args)}"),)
    address = args.address
    with client_channel(address, args.ca, args.tls) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        with calls(address, ""):
            ref = stub.CreateTournament(wanted, metadata=metadata, timeout=CALL_SECONDS)
        label = f"tournament {ref.tournament_id}"
        if not args.run:
            print(f"{label} created on {address}: it plays there now", file=human_stream(args))
            if args.json:
                print_json({"id": int(ref.tournament_id), "address": address})
            return None
        print(f"{label} created on {address}, followed to its end", file=human_stream(args))
        bar = ProgressBar(label)
        last = None
        try:
            with calls(address, f"{label}: "):
                for last in stub.FollowTournament(ref, metadata=metadata, timeout=FOLLOW_SECONDS):
                    bar(sum(p.done for p in last.progress), sum(p.total for p in last.progress))
                listed = stub.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=ref.tournament_id, limit=LISTED),
                                          metadata=metadata, timeout=CALL_SECONDS).matches
        finally:
            bar.close()
    if last is None:
        raise ArenaError(f"{address}: {label}: the server sent no status")
    status = as_status(last, rated=not args.unrated, listed=listed)
    failed = [{"match": int(m.match_id), "game": m.game, "error": "(see `arena match show` on the server)"}
              for m in listed if m.status == MatchStatus.FAILED]
    return status | {"address": address}, failed


def as_status(followed: Any, rated: bool, listed: list[Any]) -> dict[str, Any]:
    """The server's last ``TournamentStatus`` in the shape ``tournament status --json`` prints,
    its per-game counts of done, failed and cancelled matches taken from ``listed``."""
    counted = Counter((m.game, m.status) for m in listed)
    games: dict[str, dict[str, int]] = {}
    for progress in followed.progress:
        unplayed = {str(s): counted[progress.game, s] for s in (MatchStatus.FAILED, MatchStatus.CANCELLED)}
        games[progress.game] = {"total": progress.total, MatchStatus.DONE: progress.done - sum(unplayed.values()),
                                **unplayed}
    return {"id": int(followed.tournament_id), "name": followed.name, "status": followed.status,
            "rated": rated, "games": games}
