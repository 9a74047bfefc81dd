"""The referee: the transport-agnostic match runner (``arena.referee.match``), the player
interface it talks to (``arena.referee.players``) and transcripts (``arena.referee.transcript``).

The runner never touches a socket: house bots are players in-process, external bots become
players through a mailbox that the gateway implements.
"""

from arena.clock import Clock

from .match import MatchResult, play_match, run_match
from .players import Disconnected, HousePlayer, Player, Turn
from .transcript import Decision, ReplayMismatch, replay

__all__ = [
    "Clock",
    "Decision",
    "Disconnected",
    "HousePlayer",
    "MatchResult",
    "Player",
    "ReplayMismatch",
    "Turn",
    "play_match",
    "replay",
    "run_match",
]
