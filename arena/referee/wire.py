"""The one place where the gateway's mailbox messages (plain dicts) become protobuf
``RefereeMessage`` and a bot's protobuf ``Move`` becomes a mailbox move."""

from __future__ import annotations

from typing import Any

from arena_bot.v1 import gateway_pb2

from arena.games import dumps


def to_referee_message(message: dict[str, Any], want_sample_state: bool = False) -> gateway_pb2.RefereeMessage:
    """A mailbox message for a bot, as it goes down the stream."""
    kind = message["kind"]
    if kind == "match_started":
        return gateway_pb2.RefereeMessage(match_started=gateway_pb2.MatchStarted(
            match_id=message["match_id"], game=message["game"], options_json=dumps(message["options"]),
            seat=message["seat"], num_players=message["num_players"], players=message["players"],
            move_deadline_ms=message["move_deadline_ms"], time_bank_ms=message["time_bank_ms"],
            tournament_id=message.get("tournament_id", "")))
    if kind == "turn":
        turn = gateway_pb2.Turn(
            match_id=message["match_id"], turn_id=message["turn_id"], seat=message["seat"],
            observation_json=_observation_json(message), legal_actions=message["legal_actions"],
            deadline_ms=message["deadline_ms"], time_bank_ms=message["time_bank_ms"],
            last_move_latency_ms=message.get("last_move_latency_ms", 0),
            forced=[gateway_pb2.ForcedDecision(turn_id=turn_id, action=action)
                    for turn_id, action in message.get("forced", ())])
        if want_sample_state and message.get("sample_state") is not None:
            turn.sample_state_json = dumps(message["sample_state"])
        return gateway_pb2.RefereeMessage(turn=turn)
    if kind == "move_result":
        return gateway_pb2.RefereeMessage(move_result=move_result(
            message["match_id"], message["turn_id"], message["code"], message.get("detail", ""),
            latency_ms=message.get("latency_ms", 0), applied=message.get("applied_action", ""),
            strikes=message.get("strikes", 0)))
    if kind == "match_ended":
        return gateway_pb2.RefereeMessage(match_ended=gateway_pb2.MatchEnded(
            match_id=message["match_id"], scores=message["scores"], ranks=message["ranks"],
            forfeited=message.get("forfeited", False), reason=message.get("reason", "finished"),
            game=message.get("game", ""), seat=message.get("seat", 0), players=message.get("players", []),
            tournament_id=message.get("tournament_id", "")))
    raise ValueError(f"unknown mailbox message kind {kind!r}")


def _observation_json(turn: dict[str, Any]) -> str:
    """The turn's observation as the runner encoded it (a turn queued by an older runner
    carries the dict)."""
    text = turn.get("observation_json")
    return text if isinstance(text, str) else dumps(turn["observation"])


def move_result(match_id: str, turn_id: int, code: str, detail: str = "", *, latency_ms: int = 0,
                applied: str = "", strikes: int = 0) -> gateway_pb2.MoveResult:
    # ``code`` is the name of a ``MoveResult.Code``: protobuf takes the name itself (and refuses an unknown one).
    return gateway_pb2.MoveResult(match_id=match_id, turn_id=turn_id, code=code, detail=detail,
                                  latency_ms=latency_ms, applied_action=applied, strikes=strikes)


def to_mailbox_move(move: gateway_pb2.Move, latency_ms: float | None = None,
                    resent: bool = False) -> dict[str, Any]:
    """A bot's move as the runner reads it: by action id, by index, or malformed; with the
    time the bot took as the gateway measured it (``latency_ms``), and whether its turn was
    sent again on a new stream (then the runner's own clock counts: see ``remote.bot_time``)."""
    choice = move.WhichOneof("choice")
    if choice == "action":
        body: dict[str, Any] = {"action": move.action}
    elif choice == "index":
        body = {"index": move.index}
    else:
        body = {"malformed": "a move needs an action or an index"}
    return body | timing(latency_ms, resent)


def chosen(move: gateway_pb2.Move, legal: list[str]) -> str | None:
    """The legal action ``move`` names (by id or by index), or None when it names none."""
    choice = move.WhichOneof("choice")
    if choice == "action":
        return move.action if move.action in legal else None
    if choice == "index":
        return legal[move.index] if move.index < len(legal) else None
    return None


def timed_out(latency_ms: float, resent: bool = False) -> dict[str, Any]:
    """The gateway's answer for a bot whose turn's time ran out on its stream."""
    return {"timeout": True} | timing(latency_ms, resent)


def timing(latency_ms: float | None, resent: bool) -> dict[str, Any]:
    if latency_ms is None:
        return {}
    return {"latency_ms": round(latency_ms, 3), **({"resent": True} if resent else {})}

