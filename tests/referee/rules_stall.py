"""What a Rules worker does with a call, with stalls on purpose: tests pass ``call`` as a
server's ``rules_work`` to make a Rules call as heavy as an attacker's, in a real worker
process of the real pool. An ``Observe`` for seat ``SPIN_SEAT`` burns CPU until it is stopped;
one for ``HOG_SEAT`` takes memory until there is none; every other call is the real one."""

from __future__ import annotations

from arena_bot.v1 import rules_pb2

from arena.server import rules_work

SPIN_SEAT = 900
HOG_SEAT = 901


def spin() -> bytes:
    while True:  # a runaway: only the pool's bounds stop it
        pass


def hog() -> bytes:
    hoard = []
    while True:
        hoard.append(bytearray(64 * 1024 * 1024))


def call(method: str, request: bytes, cpu_seconds: int) -> rules_work.CallResult:
    if method == "Observe":
        seat = rules_pb2.StateRequest.FromString(request).seat
        if seat in (SPIN_SEAT, HOG_SEAT):
            rules_work.bound_cpu(cpu_seconds)
            return rules_work.answer(method, spin if seat == SPIN_SEAT else hog)
    return rules_work.call(method, request, cpu_seconds)
