"""A bot that searches: flat Monte Carlo over determinizations, for Durak, through the
stateless ``Rules`` service. ``python -m bots.search_bot [--rules-address HOST:PORT]``.

It asks for ``Turn.sample_state`` (``want_sample_state``): a full state its seat cannot tell
apart from the true one. From it, the ``Rules`` service deals further such worlds
(``Resample``) and plays short random continuations (``LegalActions``, ``Apply``). Each
legal action is scored by the average outcome of the continuations that start with it, plus
a small prior that encodes what any Durak player knows, and the best one is played. The search stops at a fraction of the turn's deadline, so the bot
never eats into its time bank. Other games get a random legal action.

Everything goes through gRPC on purpose: a bot in any language can do the same with the
``Rules`` service and ``docs/protocol.md`` alone.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import math
import os
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc
from arena_bot.cli import connection, main
from arena_bot.sdk import Bot, Connection, MatchResult, Turn
from arena_bot.v1 import rules_pb2, rules_pb2_grpc

log = logging.getLogger("arena.bot.search")

GAME = "durak"
BUDGET_FRACTION = 0.25  # of the per-move deadline: the rest covers the round trip and slack
ROLLOUT_PLIES = 2  # a short look ahead (my move, a reply, my next): deeper was no better
PRIOR_WEIGHT = 0.5  # against rollout means in [-1, 1]
RPC_TIMEOUT = 2.0  # seconds; a Rules call slower than this means the service is in trouble


class RulesClient:
    """A thin client of ``arena.v1.Rules``: states go in and out as JSON text. Thread-safe
    (the SDK calls ``act`` from several threads when the bot plays matches at once). The
    channel is the SDK's, TLS as ``Connection`` decides (``--ca``, ARENA_TLS_CA, ARENA_TLS)."""

    def __init__(self, server: Connection) -> None:
        self.channel = server.blocking_channel()
        self.stub = rules_pb2_grpc.RulesStub(self.channel)

    def resample(self, state_json: str, seat: int, seed: int) -> str:
        """Another world ``seat`` cannot tell apart from ``state_json``."""
        request = rules_pb2.ResampleRequest(state_json=state_json, seat=seat, seed=seed)
        return str(self.stub.Resample(request, timeout=RPC_TIMEOUT).state_json)

    def legal_actions(self, state_json: str, seat: int) -> list[str]:
        request = rules_pb2.StateRequest(state_json=state_json, seat=seat)
        return list(self.stub.LegalActions(request, timeout=RPC_TIMEOUT).legal_actions)

    def apply(self, state_json: str, seat: int, action: str) -> rules_pb2.StateReply:
        request = rules_pb2.ApplyRequest(state_json=state_json, seat=seat, action=action)
        return self.stub.Apply(request, timeout=RPC_TIMEOUT)


def evaluate(reply: rules_pb2.StateReply, seat: int) -> float:
    """How good ``reply``'s state is for ``seat``, in [-1, 1].

    A finished match counts by rank; an unfinished one by cards in hand: whoever is left
    holding cards is the Durak, and a defender who takes picks up the table (durak 3.4.3)."""
    if reply.terminal:
        return 1.0 if reply.ranks[seat] == 1 else -1.0
    hands = json.loads(reply.state_json)["state"]["hands"]
    mine = len(hands[seat])
    theirs = min(len(hand) for other, hand in enumerate(hands) if other != seat)
    return math.tanh((theirs - mine) / 3.0)


RANKS = "23456789TJQKA"


def card_cost(card: str, trump: str) -> float:
    """What giving up ``card`` costs, in [0, 1]: high cards and trumps beat more."""
    return (RANKS.index(card[0]) + (len(RANKS) if card[1] == trump else 0)) / (2 * len(RANKS))


def prior(action: str, legal: list[str], observation: dict[str, Any]) -> float:
    """What a Durak player knows before any search, in [-1, 1]: never take while a defence
    exists (the defender who takes picks up the whole table, durak 3.4.3); attack and beat
    with the cheapest cards, trumps last. The search's few samples are noisy; this tips
    their near-ties the way a sensible player would."""
    words = action.split()
    trump = str(observation.get("trump") or "")
    if words[0] == "take":
        return -1.0 if any(a.startswith("defend ") for a in legal) else 0.0
    if words[0] == "attack":
        return -sum(card_cost(card, trump) for card in words[1:]) / len(words[1:])
    if words[0] == "defend":
        return -card_cost(words[-1], trump)  # the card laid to beat the attack
    return 0.0


class RemoteSearchBot(Bot):
    """Flat Monte Carlo with determinization for ``GAME``; random elsewhere."""

    want_sample_state = True
    max_matches = 2

    def __init__(self, rules: RulesClient, seed: int | None = None, fraction: float = BUDGET_FRACTION,
                 rollouts: int | None = None) -> None:
        self.rules = rules
        self.fraction = fraction
        # At most this many continuations a decision (None: as many as the time allows). With a
        # seed, a bot that reaches its count before its time plays the same on any machine.
        self.per_decision = rollouts
        self._seed = random.Random(seed)
        self._lock = threading.Lock()
        self.searches = 0  # decisions that were searched (for tests and logs)
        self.rollouts = 0

    def _rng(self) -> random.Random:
        with self._lock:  # one seeded stream, shared by the threads of concurrent matches
            return random.Random(self._seed.getrandbits(64))

    def act(self, turn: Turn) -> str:
        rng = self._rng()
        legal = turn.legal_actions
        if len(legal) == 1:
            return legal[0]
        if turn.sample_state is None or turn.sample_state.get("game") != GAME:
            return rng.choice(legal)
        try:
            return self.search(turn, rng)
        except grpc.RpcError as error:  # no Rules service: play on rather than time out
            log.warning("search failed (%s); playing at random", error.code().name)
            return rng.choice(legal)

    def on_match_end(self, result: MatchResult) -> None:
        log.info("match %s over: rank %d; %d decisions searched so far, %.1f rollouts each",
                 result.match.match_id, result.rank, self.searches, self.rollouts / max(1, self.searches))

    def search(self, turn: Turn, rng: random.Random) -> str:
        """The legal action with the best mean rollout value within the time budget (and the
        count of continuations, when one is set)."""
        stop = time.monotonic() + self.fraction * turn.deadline_ms / 1000
        left = self.per_decision if self.per_decision is not None else math.inf
        seat = int(turn.observation["seat"])
        legal = list(turn.legal_actions)
        total = dict.fromkeys(legal, 0.0)
        count = dict.fromkeys(legal, 0)
        sample = json.dumps(turn.sample_state)
        world = sample
        while time.monotonic() < stop and left > 0:
            rng.shuffle(legal)  # no action is favoured when the budget ends mid-sweep
            for action in legal:
                if time.monotonic() >= stop or left <= 0:
                    break
                total[action] += self.rollout(world, seat, action, rng, stop)
                count[action] += 1
                self.rollouts += 1
                left -= 1
            # A fresh world for every sweep: the sample is one guess at the hidden cards.
            world = self.rules.resample(sample, seat, rng.getrandbits(62))
        self.searches += 1
        return max(legal, key=lambda a: (
            (total[a] / count[a] if count[a] else -2.0) + PRIOR_WEIGHT * prior(a, legal, turn.observation), a))

    def rollout(self, world: str, seat: int, action: str, rng: random.Random, stop: float) -> float:
        """Play ``action`` in ``world``, then random legal actions for a few plies."""
        reply = self.rules.apply(world, seat, action)
        for _ in range(ROLLOUT_PLIES):
            if reply.terminal or time.monotonic() >= stop:
                break
            actor = reply.to_act[0]
            moves = self.rules.legal_actions(reply.state_json, actor)
            reply = self.rules.apply(reply.state_json, actor, rng.choice(moves))
        return evaluate(reply, seat)


def rules_from_argv(argv: list[str]) -> tuple[RulesClient, argparse.Namespace, list[str]]:
    """The Rules client from ``--rules-address`` (default: ARENA_RULES_ADDRESS, else the
    gateway's ``--address``: one server offers both), the search's own options (``--seed``,
    ``--rollouts``) and the arguments left for the SDK. TLS is the SDK's, as for the gateway:
    ``--ca``, else ARENA_TLS_CA, else ARENA_TLS=1."""
    ours = argparse.ArgumentParser(add_help=False)
    ours.add_argument("--rules-address", default=os.environ.get("ARENA_RULES_ADDRESS"))
    ours.add_argument("--seed", type=int, default=None, help="the search's random seed")
    ours.add_argument("--rollouts", type=int, default=None,
                      help="at most this many continuations a decision (default: as many as time allows)")
    mine, rest = ours.parse_known_args(argv)
    sdk = argparse.ArgumentParser(add_help=False)  # peeks at the SDK's own options
    sdk.add_argument("--address", default=os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051"))
    sdk.add_argument("--ca", type=Path)
    known, _ = sdk.parse_known_args(rest)
    gateway = connection(known, token="")  # the address and TLS settings the SDK will use
    return RulesClient(dataclasses.replace(gateway, address=mine.rules_address or gateway.address)), mine, rest


if __name__ == "__main__":
    client, options, args = rules_from_argv(sys.argv[1:])
    main(RemoteSearchBot(client, seed=options.seed, rollouts=options.rollouts),
         "Flat Monte Carlo search over the Rules service (Durak).", args)
