"""A bot that tries to cheat: on its first turn of every match it asks every public read path
what it can learn about the match it is playing, and prints what it got as JSON lines.

    python -m tests.referee.spy_bot   (ARENA_ADDRESS, ARENA_BOT_TOKEN, ARENA_DATABASE_URL)

Read paths: the Arena service (GetMatch of this match and of every match of its tournament,
AnalyseMatch of the others, ListMatches, FollowTournament's first status), the command line (``arena match show``,
``--json``, ``tournament status --json``), the web pages and the JSON API (when
``ARENA_WEB_URL`` is set: the matches, their replays, the tournament, the bot) and the Rules
service, with which it tries to rebuild the deal from any seed it was given (when it is the
match's first decision, so the rebuilt initial observation can be compared with the one it
holds). The test reads the lines and checks that no probe made during a live match carried
that match's seed, a transcript of its deal or a finished twin's results (ranks, scores,
decision count, duration, standings, the leaderboard), and that no rebuild succeeded.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import threading
import time

import grpc
import httpx
from arena_bot.sdk import Bot, Connection, Turn, run
from arena_bot.v1 import arena_pb2, arena_pb2_grpc, rules_pb2, rules_pb2_grpc

from tests.helpers import ARENA

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
        results_of_deal = 0  # a finished twin's ranks, scores, decisions or duration, wherever seen
        analyses_of_deal = 0  # an analysis of a twin asked for and not refused as sealed
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
            results_of_deal += bool(other.ranks or detail.summary.ranks or detail.scores)
            # An analysis of a twin would value every action on this deal: it must be refused.
            try:
                analysed = self.arena.AnalyseMatch(arena_pb2.AnalyseMatchRequest(match_id=other.match_id,
                                                                                 seat=match.seat))
                texts.append(str(analysed))
                analyses_of_deal += 1
            except grpc.RpcError as error:
                analyses_of_deal += error.code() != grpc.StatusCode.FAILED_PRECONDITION
        # The leaderboard: a duplicate group is rated once it is over, so while this seat
        # plays the deal's second rotation nothing of the first shows there either.
        board = self.arena.GetLeaderboard(arena_pb2.LeaderboardRequest(game=match.game))
        texts.append(str(board))
        results_of_deal += any(row.matches for row in board.rows)
        if os.environ.get("ARENA_WEB_URL"):
            web_decisions, web_results = self.probe_web(match, [m.match_id for m in same_game], texts)
            decisions_of_deal += web_decisions
            results_of_deal += web_results
        follow = self.arena.FollowTournament(arena_pb2.TournamentRef(tournament_id=match.tournament_id))
        texts.append(str(next(iter(follow))))
        follow.cancel()
        if any(m.status == "done" for m in same_game):  # the command line, where a sibling is over
            for argv in (["match", "show", match.match_id], ["match", "show", "--json", match.match_id],
                         *(["match", "show", m.match_id] for m in same_game),
                         ["tournament", "status", "--json", match.tournament_id]):
                done = subprocess.run([ARENA, *argv], capture_output=True,
                                      text=True, timeout=60)
                texts.append(done.stdout + done.stderr)
                if argv[:2] == ["match", "show"] and argv[-1] != match.match_id:
                    results_of_deal += "rank " in done.stdout
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
                              "decisions_of_deal": decisions_of_deal, "results_of_deal": results_of_deal,
                              "analyses_of_deal": analyses_of_deal,
                              "web": bool(os.environ.get("ARENA_WEB_URL")), "rebuilt": rebuilt}), flush=True)

    def probe_web(self, match, twins: list[str], texts: list[str]) -> tuple[int, int]:  # type: ignore[no-untyped-def]
        """The web pages and the JSON API: this match, its twins (and their replays), the
        tournament and this bot. Returns (replays of the deal served, twin results seen)."""
        decisions = results = 0
        with httpx.Client(base_url=os.environ["ARENA_WEB_URL"], timeout=30) as web:
            def get(path: str) -> httpx.Response:
                response = web.get(path)
                while response.status_code == 429:  # a reader past the rate waits as told
                    time.sleep(float(response.headers["retry-after"]))
                    response = web.get(path)
                texts.append(response.text)
                return response

            for page in (f"/matches/{match.match_id}", f"/api/v1/matches/{match.match_id}",
                         f"/tournaments/{match.tournament_id}", "/bots/spy", "/api/v1/matches?limit=200", "/"):
                get(page)
            for twin in twins:
                get(f"/matches/{twin}")
                shown = get(f"/api/v1/matches/{twin}").json()
                results += any("rank" in s for s in shown["seats"]) or shown.get("decisions") is not None
                decisions += sum(get(f"/api/v1/matches/{twin}/replay?view={v}").status_code == 200
                                 for v in ("all", "0", "1"))
            section = get(f"/api/v1/tournaments/{match.tournament_id}").json()["games"][match.game]
            results += bool(section["standings"])
            results += any("rank" in s for d in section["deal_groups"] for m in d["matches"] for s in m["seats"])
            bot = get("/api/v1/bots/spy").json()
            results += any(str(m["id"]) in twins and m["decisions"] is not None for m in bot["recent"])
            results += any(o["game"] == match.game for o in bot["opponents"])
        return decisions, results


if __name__ == "__main__":
    run(Spy(), Connection(address=os.environ["ARENA_ADDRESS"], token=os.environ["ARENA_BOT_TOKEN"]))
