"""A bot's consent: the games and table sizes of its Hello (``offered``, ``plays``: what it is
seated in and paired in on the ladder) and its ``ChallengePolicy`` (who may challenge it).

The gateway publishes the policy beside the bot's presence (``Mailbox.set_prefs``, in Redis
when distributed), so that whichever server answers ``Arena.Challenge`` reads the policy of
the stream that is open now; ``refusal`` is the one rule that reads it. Bot names are
compared case-insensitively. The default, a Hello without a policy, declines everything.
"""

from __future__ import annotations

from typing import Any

# A Hello names at most this many games or bots in its policy (each name at most MAX_NAME
# characters): the policy is read on every challenge, and a megabyte of names would be read
# just as often.
MAX_NAMES = 1000
MAX_NAME = 200


# The largest table a Hello may name (no game seats more).
MAX_TABLE = 16


def offered(hello: Any) -> dict[str, Any]:
    """What ``hello`` (a ``gateway_pb2.Hello``) plays, as the mailbox keeps it: ``games``
    (empty = every game) and ``table_sizes`` (empty = two players). Too long a list, or a
    size no game has, is a ValueError."""
    games = list(hello.games)
    if len(games) > MAX_NAMES or any(len(name) > MAX_NAME for name in games):
        raise ValueError(f"games: at most {MAX_NAMES} names of at most {MAX_NAME} characters")
    sizes = sorted(set(hello.table_sizes))
    if any(not 2 <= size <= MAX_TABLE for size in sizes):
        raise ValueError(f"table_sizes: each from 2 to {MAX_TABLE}")
    return {"games": sorted(set(games)), "table_sizes": sizes}


def plays(prefs: dict[str, Any], game: str) -> bool:
    """Whether a bot with the mailbox preferences ``prefs`` plays ``game`` (its Hello's
    ``games``; empty = every game)."""
    games = prefs.get("games") or []
    return not games or game in games


def table_sizes(prefs: dict[str, Any]) -> list[int]:
    """The table sizes a bot plays on the ladder (two players unless its Hello says more)."""
    return list(prefs.get("table_sizes") or [2])


def published(hello: Any) -> dict[str, Any]:
    """The policy of ``hello`` (a ``gateway_pb2.Hello``) as the mailbox keeps it: ``accept``,
    ``games`` (empty = every game), ``from`` (case-folded names; empty = any bot) and
    ``max_at_once``. A policy too large to keep is a ValueError."""
    policy = hello.challenges
    games = list(policy.games) or list(hello.games)  # "every game it plays"
    names = list(policy.from_bots)
    for what, listed in (("games", games), ("from_bots", names)):
        if len(listed) > MAX_NAMES or any(len(name) > MAX_NAME for name in listed):
            raise ValueError(f"challenges.{what}: at most {MAX_NAMES} names of at most {MAX_NAME} characters")
    return {"accept": policy.accept, "games": sorted(set(games)), "from": sorted({n.casefold() for n in names}),
            "max_at_once": max(1, policy.max_at_once)}


def refusal(name: str, prefs: dict[str, Any], game: str, challenger: str) -> str | None:
    """Why bot ``name``, with the mailbox preferences ``prefs``, declines a challenge in
    ``game`` from bot ``challenger``; None when it accepts."""
    policy = prefs.get("challenges") or {}
    if not policy.get("accept"):
        return f"bot {name} does not accept challenges"
    if policy.get("games") and game not in policy["games"]:
        return f"bot {name} does not accept challenges for {game}"
    if policy.get("from") and challenger.casefold() not in policy["from"]:
        return f"bot {name} does not accept challenges from {challenger}"
    return None


def max_at_once(prefs: dict[str, Any]) -> int:
    """How many challenges the bot accepts at once (1 when it never said)."""
    return max(1, int((prefs.get("challenges") or {}).get("max_at_once", 1)))
