"""A misbehaving bot for the fault tests, written against the raw protocol (as a bot in
another language would be), not the SDK. It prints one JSON line per message it receives.

    python -m tests.referee.rogue_bot MODE   (ARENA_ADDRESS, ARENA_BOT_TOKEN from the env)

Modes: good, slow, late, illegal, illegal_once, malformed, oversized, wrong_match, wrong_turn, replay,
index, die_after_3, one_at_a_time, paced, hijack:MATCH_ID, replay_after (each move sent again once
its result is in). ``MODE,ok_implied`` sets ``Hello.ok_implied``. After a final GatewayError it
reads on, to print the stream's status."""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time

import grpc
from arena_bot.v1 import gateway_pb2, gateway_pb2_grpc


def main(mode: str) -> None:
    mode, _, flag = mode.partition(",")
    outbox: queue.Queue[gateway_pb2.BotMessage | None] = queue.Queue()
    slots = 1 if mode in ("one_at_a_time", "paced") else 4
    # The paced modes time whole matches: they ask for every decision, so a match lasts as
    # many of their moves as it has decisions (a forced one would not wait for them).
    paced = mode in ("one_at_a_time", "paced")
    outbox.put(gateway_pb2.BotMessage(hello=gateway_pb2.Hello(max_matches=slots, client="rogue", every_decision=paced,
                                                                      ok_implied=flag == "ok_implied")))

    def requests():  # type: ignore[no-untyped-def]
        while (message := outbox.get()) is not None:
            yield message

    def send_move(match_id: str, turn_id: int, **choice: object) -> None:
        outbox.put(gateway_pb2.BotMessage(move=gateway_pb2.Move(match_id=match_id, turn_id=turn_id, **choice)))

    channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"])
    stub = gateway_pb2_grpc.BotGatewayStub(channel)
    metadata = (("authorization", f"Bearer {os.environ['ARENA_BOT_TOKEN']}"),)
    turns = 0
    seen_turns: set[tuple[str, int]] = set()  # a turn sent again (a slow server) counts once
    if mode.startswith("hijack:"):  # answer for another bot's match, blindly
        for turn_id in range(40):
            send_move(mode.split(":", 1)[1], turn_id, index=0)
    try:
        for message in stub.Connect(requests(), metadata=metadata):
            kind = message.WhichOneof("body")
            if kind == "move_result":
                r = message.move_result
                code = gateway_pb2.MoveResult.Code.Name(r.code)
                print(json.dumps({"kind": kind, "turn": r.turn_id, "match": r.match_id, "code": code,
                                  "applied": r.applied_action, "latency_ms": r.latency_ms, "strikes": r.strikes}),
                      flush=True)
                if mode == "replay_after" and code == "OK":
                    send_move(r.match_id, r.turn_id, action=r.applied_action)
                continue
            if kind == "match_ended":
                ended = message.match_ended
                print(json.dumps({"kind": kind, "match": ended.match_id, "game": ended.game, "seat": ended.seat,
                                  "players": list(ended.players), "forfeited": ended.forfeited}), flush=True)
                continue
            if kind == "turn":
                print(json.dumps({"kind": kind, "match": message.turn.match_id, "turn": message.turn.turn_id}),
                      flush=True)
            else:
                print(json.dumps({"kind": kind}), flush=True)
            if kind == "error":  # replaced by a newer stream, or revoked: the status follows
                outbox.put(None)
                continue
            if kind == "ping":
                outbox.put(gateway_pb2.BotMessage(pong=gateway_pb2.Pong(nonce=message.ping.nonce)))
            if kind != "turn":
                continue
            turn = message.turn
            turns += (turn.match_id, turn.turn_id) not in seen_turns
            seen_turns.add((turn.match_id, turn.turn_id))
            first = turn.legal_actions[0]
            if mode in ("one_at_a_time", "paced"):  # one match at a time, 30 ms (paced: 300 ms) a move
                pause = 0.3 if mode == "paced" else 0.03
                threading.Timer(pause, send_move, (turn.match_id, turn.turn_id), {"action": first}).start()
            elif mode in ("good", "replay_after") or (mode == "die_after_3" and turns < 3):
                send_move(turn.match_id, turn.turn_id, action=first)
            elif mode == "die_after_3":
                os._exit(3)
            elif mode == "index":
                send_move(turn.match_id, turn.turn_id, index=len(turn.legal_actions) - 1)
            elif mode == "slow":
                pass  # never answers
            elif mode == "late":
                # Answer every turn after its time is up, on a thread, as a slow bot would.
                wait = (turn.deadline_ms + turn.time_bank_ms) / 1000 + 0.3
                threading.Timer(wait, send_move, (turn.match_id, turn.turn_id), {"action": first}).start()
            elif mode == "illegal_once":  # an illegal first move, then good ones
                send_move(turn.match_id, turn.turn_id, action=first if turns > 1 else "definitely not legal")
            elif mode == "illegal":
                send_move(turn.match_id, turn.turn_id, action="definitely not legal")
            elif mode == "malformed":
                send_move(turn.match_id, turn.turn_id)
            elif mode == "oversized":
                send_move(turn.match_id, turn.turn_id, action="x" * (2 * 1024 * 1024))
            elif mode == "wrong_match":
                send_move("no-such-match", turn.turn_id, action=first)
                send_move(turn.match_id, turn.turn_id, action=first)
            elif mode == "wrong_turn":
                send_move(turn.match_id, turn.turn_id + 1000, action=first)
                send_move(turn.match_id, turn.turn_id, action=first)
            elif mode == "replay":
                send_move(turn.match_id, turn.turn_id, action=first)
                send_move(turn.match_id, turn.turn_id, action=first)
    except grpc.RpcError as error:
        print(json.dumps({"kind": "closed", "code": error.code().name}), flush=True)
        time.sleep(0.1)
        return
    print(json.dumps({"kind": "closed", "code": "OK"}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
