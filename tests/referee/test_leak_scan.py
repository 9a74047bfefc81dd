"""The leak scan: play matches of every registered game over a real gateway, record every
message the referee sends to each seat, and prove that none carries anything that seat could
not see.

Both seats are played by raw gRPC clients in this test (real sockets, the real runner, the
real mailbox), so every seat's stream is recorded. The truth they are checked against is
rebuilt independently: the transcript is replayed from (game, seed, actions), mirroring the
runner's order of asking (simultaneous decisions are asked on one state with consecutive turn
ids), which gives, for every turn id, the state the seat was asked on.

Checks:
(a) every Turn carries exactly ``observation(seat)`` of that state (the same JSON text the
    referee would write) and exactly ``legal_actions(seat)``: nothing else goes down the wire;
(b) for games of standard cards, no card that is in another seat's hand at that moment, is
    not in the seat's observation and was never sent to it before appears anywhere in a
    message to it: legal actions, move results, match start or end, any field;
(c) the match seed, from which every deal follows, appears in no message.

Games of named cards (backpacker's ``good_timing``) deal many copies of a name and move cards
between hands and piles in ways only their rules know; for them (a) stands alone, and their
observations are proven leak-free by the conformance suite's resampling test.
"""

from __future__ import annotations

import asyncio
import json
import queue
import random
import re
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from arena_bot.v1 import gateway_pb2, gateway_pb2_grpc
from google.protobuf import text_format

from arena import games
from arena.referee import Clock, run_match
from arena.referee.mailbox import LocalMailbox
from arena.referee.match import MatchResult
from arena.referee.remote import MatchInfo, RemotePlayer
from tests.support.grpc import ServerThread, wait_online

# Matches per game (both seats are scanned in each). Long seeds, so that (c) can look for
# them in the messages: the seed determines every deal.
SEEDS = (7_340_117_911, 7_340_117_912)
CARD = re.compile(r"\b(?:[2-9TJQKA][CDHS]|RJ|BJ)\b")
BOTS = {0: ("tok-alice", "1", "alice"), 1: ("tok-bob", "2", "bob")}


@dataclass
class Recorder:
    """A raw bot: one stream, random legal answers by index, every message kept."""

    address: str
    token: str
    seed: int
    received: list[gateway_pb2.RefereeMessage] = field(default_factory=list)
    outbox: queue.Queue[gateway_pb2.BotMessage | None] = field(default_factory=queue.Queue)

    def requests(self) -> Iterator[gateway_pb2.BotMessage]:
        yield gateway_pb2.BotMessage(hello=gateway_pb2.Hello(max_matches=8, client="leak-scan"))
        while (message := self.outbox.get()) is not None:
            yield message

    def run(self) -> None:
        rng = random.Random(self.seed)
        with grpc.insecure_channel(self.address) as channel:
            stream = gateway_pb2_grpc.BotGatewayStub(channel).Connect(
                self.requests(), metadata=(("authorization", f"Bearer {self.token}"),))
            try:
                for message in stream:
                    self.received.append(message)
                    if message.WhichOneof("body") == "turn":
                        turn = message.turn
                        self.outbox.put(gateway_pb2.BotMessage(move=gateway_pb2.Move(
                            match_id=turn.match_id, turn_id=turn.turn_id,
                            index=rng.randrange(len(turn.legal_actions)))))
                    elif message.WhichOneof("body") == "ping":
                        self.outbox.put(gateway_pb2.BotMessage(pong=gateway_pb2.Pong(nonce=message.ping.nonce)))
            except grpc.RpcError:
                pass  # the server closed the stream at the end of the test

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, daemon=True)
        thread.start()
        return thread


def match_id(game: str, seed: int) -> str:
    return f"leak-{game}-{SEEDS.index(seed)}"  # not the seed itself: (c) looks for it


async def play_all(mailbox: LocalMailbox) -> dict[str, MatchResult]:
    """Every game, every seed, all at once: two raw bots hold both seats of every match."""
    # Each waiting runner holds a thread of the default pool; give it enough for all matches.
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(64))
    jobs = {}
    for game in games.names():
        for seed in SEEDS:
            mid = match_id(game, seed)
            players = [RemotePlayer(mailbox, BOTS[seat][1], MatchInfo(
                mid, game, {}, seat, 2, ["alice", "bob"], 10_000, 30_000), grace=20) for seat in (0, 1)]
            jobs[mid] = run_match(game, players, seed, clock=Clock(move=10, bank=30), match_id=mid)
    results = await asyncio.gather(*jobs.values())
    return dict(zip(jobs, results, strict=True))


def asked_states(result: MatchResult) -> dict[int, tuple[int, games.State]]:
    """turn id -> (seat, the state it was asked on), by replaying the transcript the way the
    runner asks: one turn per seat in ``to_act()``, consecutive ids, then the applied actions
    of that round in order (a re-asked seat's first answer is not in the transcript)."""
    state = games.get(result.game).new_state(result.num_players, result.seed, result.options)
    decisions = list(result.decisions)
    asked: dict[int, tuple[int, games.State]] = {}
    next_id = 0
    while seats := state.to_act():
        snapshot = state.clone()
        ids = range(next_id, next_id + len(seats))
        for turn_id, seat in zip(ids, seats, strict=True):
            asked[turn_id] = (seat, snapshot)
        next_id += len(seats)
        while decisions and decisions[0].turn in ids:
            decision = decisions.pop(0)
            state.apply(decision.seat, decision.action)
    assert not decisions, "the transcript does not replay the way the runner asks"
    return asked


def cards_in(value: Any) -> set[str]:
    return set(CARD.findall(value if isinstance(value, str) else json.dumps(value)))


def other_hands(state: games.State, seat: int) -> set[str]:
    """The named cards (strings) in every other seat's hand, as the rules hold them."""
    cards: set[str] = set()
    for other in range(state.num_players):
        if other != seat:
            cards |= {c for c in state.observation(other).get("hand") or [] if isinstance(c, str)}
    return cards


def check_seat(result: MatchResult, seat: int, messages: list[gateway_pb2.RefereeMessage],
               asked: dict[int, tuple[int, games.State]]) -> int:
    """Check every message to ``seat`` of one match, in the order it was sent; returns how
    many turns were checked. A card in another seat's hand is secret unless the seat's
    observation shows it or an earlier message to this seat did."""
    standard = bool(cards_in(asked[0][1].to_json()["state"])) if asked else False
    seen: set[str] = set()
    secret: set[str] = set()
    turns = 0
    for message in messages:
        kind = message.WhichOneof("body")
        text = text_format.MessageToString(message)
        assert str(result.seed) not in text, f"{result.game}: the match seed was sent in {kind}"
        if kind == "turn":
            turn = message.turn
            asked_seat, state = asked[turn.turn_id]
            assert asked_seat == seat == turn.seat, f"turn {turn.turn_id} went to the wrong seat"
            # (a) exactly the observation and the legal actions, nothing else
            assert turn.observation_json == games.dumps(state.observation(seat)), (
                f"{result.game} turn {turn.turn_id}: observation differs from observation({seat})")
            assert list(turn.legal_actions) == state.legal_actions(seat)
            assert not turn.sample_state_json, "a sample state was sent unasked"
            # What the observation shows is shown: (a) ties it to the rules, and the rules'
            # own resampling test proves it hides what it must. A showdown may reveal a card
            # of the last round that the new deal gave to another hand again (yaniv).
            secret = other_hands(state, seat) - seen - cards_in(state.observation(seat))
            turns += 1
        if not standard:
            continue
        # (b) a standard card of another hand, never sent before, anywhere in the message
        sent = cards_in(text)
        leaked = sent & secret
        assert not leaked, f"{result.game}: seat {seat} was sent {sorted(leaked)}, in another hand, in {text[:2000]}"
        seen |= sent
    return turns


def test_no_message_to_a_seat_carries_what_it_cannot_see(gateway: tuple[ServerThread, LocalMailbox]) -> None:
    server, mailbox = gateway
    recorders = {seat: Recorder(server.address, token, seed=seat) for seat, (token, _, _) in BOTS.items()}
    threads = [recorder.start() for recorder in recorders.values()]
    for _, bot_id, _ in BOTS.values():
        wait_online(mailbox, bot_id)
    results = asyncio.run(play_all(mailbox))
    for recorder in recorders.values():
        recorder.outbox.put(None)
    for thread in threads:
        thread.join(10)

    checked: dict[str, int] = {}
    for mid, result in results.items():
        assert set(result.codes()) - {"forced"} == {"ok"}, f"{mid}: {result.codes()}"
        asked = asked_states(result)
        for seat, recorder in recorders.items():
            mine = [m for m in recorder.received if _match_of(m) == mid]
            assert mine and mine[0].WhichOneof("body") == "match_started"
            assert mine[-1].WhichOneof("body") == "match_ended"
            checked[result.game] = checked.get(result.game, 0) + check_seat(result, seat, mine, asked)
        # Nothing was lost on the way: every decision a seat was asked for reached it as a Turn,
        # and a later Turn told it of its own forced decisions only.
        for seat, recorder in recorders.items():
            turns = [m.turn for m in recorder.received if m.WhichOneof("body") == "turn" and m.turn.match_id == mid]
            mine = [d for d in result.decisions if d.seat == seat]
            assert {t.turn_id for t in turns} >= {d.turn for d in mine if d.code != "forced"}
            assert {(f.turn_id, f.action) for t in turns for f in t.forced} <= {
                (d.turn, d.action) for d in mine if d.code == "forced"}
    assert set(checked) == set(games.names()) and all(checked.values()), checked


def _match_of(message: gateway_pb2.RefereeMessage) -> str:
    kind = message.WhichOneof("body")
    return getattr(getattr(message, kind), "match_id", "") if kind else ""


@pytest.mark.parametrize("game", games.names())
def test_a_sample_state_does_not_give_away_the_deal(game: str) -> None:
    """``Turn.sample_state_json`` goes down the wire to search bots: a match rebuilt from the
    sample's seed and played with the same actions must not reproduce the true hidden cards
    (some games deal only after the first decisions, so a few are played first)."""
    state = games.get(game).new_state(2, 7_340_117_913)
    seat = state.to_act()[0]
    sample = state.resample_hidden(seat, random.Random(1)).to_json()
    rebuilt = games.get(game).new_state(2, sample["state"]["seed"], sample["state"]["options"])
    rng = random.Random(2)
    for _ in range(6):
        if not state.to_act():
            break
        mover = state.to_act()[0]
        action = rng.choice(state.legal_actions(mover))
        if action not in rebuilt.legal_actions(mover):
            return  # the worlds already differ in what can be done: nothing was given away
        state.apply(mover, action)
        rebuilt.apply(mover, action)
    truth = state.to_json()["state"]
    again = rebuilt.to_json()["state"]
    truth.pop("seed")
    again.pop("seed")
    assert again != truth, "the sample's seed re-deals the truth"
