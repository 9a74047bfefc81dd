"""A bot's consent to being challenged: the ``ChallengePolicy`` of its Hello.

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
