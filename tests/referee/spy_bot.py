"""A bot that tries to cheat: on its first turn of every match it asks every public read path
what it can learn about the match it is playing, and prints what it got as JSON lines.

    python -m tests.referee.spy_bot   (ARENA_ADDRESS, ARENA_BOT_TOKEN, ARENA_DATABASE_URL)

Read paths: the Arena service (GetMatch of this match and of every match of its tournament,
ListMatches, FollowTournament's first status), the command line (``arena match show``,
``--json``, ``tournament status --json``) and the Rules service, with which it tries to rebuild
the deal from any seed it was given (when it is the match's first decision, so the rebuilt
initial observation can be compared with the one it holds). The test reads the lines and
checks that no probe made during a live match carried that match's seed or a transcript of its
deal, and that no rebuild succeeded.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import grpc

from arena.v1 import arena_pb2, arena_pb2_grpc, rules_pb2, rules_pb2_grpc
from bots.sdk import Bot, Connection, Turn, run

_print = threading.Lock()


class Spy(Bot):
    max_matches = 1

    def __init__(self) -> None:
        self.channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"])
        self.arena = arena_pb2_grpc.ArenaStub(self.channel)
        self.rules = rules_pb2_grpc.RulesStub(self.channel)
        self.probed: set[str] = set()
        self.random = random.Random(7)

    def act(self, turn: Turn) -> str:
        match = turn.match
        if match.match_id not in self.probed:
            self.probed.add(match.match_id)
            self.probe(turn)
        return self.random.choice(turn.legal_actions)

    def probe(self, turn: Turn) -> None:
        match = turn.match
        texts: list[str] = []
        seeds: set[int] = set()
        decisions_of_deal = 0
        mine = self.arena.GetMatch(arena_pb2.MatchRef(match_id=match.match_id))
        texts.append(str(mine))
        seeds.add(mine.seed)
        listed = self.arena.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=match.tournament_id, limit=1000))
        texts.append(str(listed))
        same_game = [m for m in listed.matches if m.game == match.game and m.match_id != match.match_id]
        for other in same_game:
            detail = self.arena.GetMatch(arena_pb2.MatchRef(match_id=other.match_id))
            texts.append(str(detail))
            seeds.add(detail.seed)
            # Every match of this game in a two-bot round robin with one repetition replays
            # this match's deal: its decisions would tell this seat the deal.
            decisions_of_deal += len(detail.decisions)
        follow = self.arena.FollowTournament(arena_pb2.TournamentRef(tournament_id=match.tournament_id))
        texts.append(str(next(iter(follow))))
        follow.cancel()
        if any(m.status == "done" for m in same_game):  # the command line, where a sibling is over
            for argv in (["match", "show", match.match_id], ["match", "show", "--json", match.match_id],
                         *(["match", "show", m.match_id] for m in same_game),
                         ["tournament", "status", "--json", match.tournament_id]):
                done = subprocess.run([str(Path(sys.executable).with_name("arena")), *argv], capture_output=True,
                                      text=True, timeout=60)
                texts.append(done.stdout + done.stderr)
        rebuilt = False
        if turn.turn_id == 0:  # the match's first decision: the rebuilt deal must look the same
            for seed in seeds - {0}:
                state = self.rules.NewState(rules_pb2.NewStateRequest(
                    game=match.game, num_players=match.num_players, seed=seed, options_json=json.dumps(match.options)))
                seen = self.rules.Observe(rules_pb2.StateRequest(state_json=state.state_json, seat=match.seat))
                rebuilt |= json.loads(seen.observation_json) == turn.observation
        with _print:
            print(json.dumps({"match": match.match_id, "game": match.game, "turn": turn.turn_id,
                              "text": "\n".join(texts), "seeds": sorted(seeds),
                              "decisions_of_deal": decisions_of_deal, "rebuilt": rebuilt}), flush=True)


if __name__ == "__main__":
    run(Spy(), Connection(address=os.environ["ARENA_ADDRESS"], token=os.environ["ARENA_BOT_TOKEN"]))
