from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BotMessage(_message.Message):
    __slots__ = ("hello", "move", "pong")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    PONG_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    move: Move
    pong: Pong
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., move: _Optional[_Union[Move, _Mapping]] = ..., pong: _Optional[_Union[Pong, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("games", "max_matches", "client", "want_sample_state", "challenges", "every_decision", "table_sizes", "ok_implied")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    MAX_MATCHES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    WANT_SAMPLE_STATE_FIELD_NUMBER: _ClassVar[int]
    CHALLENGES_FIELD_NUMBER: _ClassVar[int]
    EVERY_DECISION_FIELD_NUMBER: _ClassVar[int]
    TABLE_SIZES_FIELD_NUMBER: _ClassVar[int]
    OK_IMPLIED_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedScalarFieldContainer[str]
    max_matches: int
    client: str
    want_sample_state: bool
    challenges: ChallengePolicy
    every_decision: bool
    table_sizes: _containers.RepeatedScalarFieldContainer[int]
    ok_implied: bool
    def __init__(self, games: _Optional[_Iterable[str]] = ..., max_matches: _Optional[int] = ..., client: _Optional[str] = ..., want_sample_state: _Optional[bool] = ..., challenges: _Optional[_Union[ChallengePolicy, _Mapping]] = ..., every_decision: _Optional[bool] = ..., table_sizes: _Optional[_Iterable[int]] = ..., ok_implied: _Optional[bool] = ...) -> None: ...

class ChallengePolicy(_message.Message):
    __slots__ = ("accept", "games", "from_bots", "max_at_once")
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    FROM_BOTS_FIELD_NUMBER: _ClassVar[int]
    MAX_AT_ONCE_FIELD_NUMBER: _ClassVar[int]
    accept: bool
    games: _containers.RepeatedScalarFieldContainer[str]
    from_bots: _containers.RepeatedScalarFieldContainer[str]
    max_at_once: int
    def __init__(self, accept: _Optional[bool] = ..., games: _Optional[_Iterable[str]] = ..., from_bots: _Optional[_Iterable[str]] = ..., max_at_once: _Optional[int] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("match_id", "turn_id", "action", "index")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    turn_id: int
    action: str
    index: int
    def __init__(self, match_id: _Optional[str] = ..., turn_id: _Optional[int] = ..., action: _Optional[str] = ..., index: _Optional[int] = ...) -> None: ...

class Pong(_message.Message):
    __slots__ = ("nonce",)
    NONCE_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    def __init__(self, nonce: _Optional[int] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("welcome", "match_started", "turn", "move_result", "match_ended", "ping", "error")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_STARTED_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    MOVE_RESULT_FIELD_NUMBER: _ClassVar[int]
    MATCH_ENDED_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    match_started: MatchStarted
    turn: Turn
    move_result: MoveResult
    match_ended: MatchEnded
    ping: Ping
    error: GatewayError
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_started: _Optional[_Union[MatchStarted, _Mapping]] = ..., turn: _Optional[_Union[Turn, _Mapping]] = ..., move_result: _Optional[_Union[MoveResult, _Mapping]] = ..., match_ended: _Optional[_Union[MatchEnded, _Mapping]] = ..., ping: _Optional[_Union[Ping, _Mapping]] = ..., error: _Optional[_Union[GatewayError, _Mapping]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("bot_id", "bot_name", "max_matches")
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    MAX_MATCHES_FIELD_NUMBER: _ClassVar[int]
    bot_id: str
    bot_name: str
    max_matches: int
    def __init__(self, bot_id: _Optional[str] = ..., bot_name: _Optional[str] = ..., max_matches: _Optional[int] = ...) -> None: ...

class MatchStarted(_message.Message):
    __slots__ = ("match_id", "game", "options_json", "seat", "num_players", "players", "move_deadline_ms", "time_bank_ms", "tournament_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MOVE_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    options_json: str
    seat: int
    num_players: int
    players: _containers.RepeatedScalarFieldContainer[str]
    move_deadline_ms: int
    time_bank_ms: int
    tournament_id: str
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., options_json: _Optional[str] = ..., seat: _Optional[int] = ..., num_players: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., move_deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., tournament_id: _Optional[str] = ...) -> None: ...

class Turn(_message.Message):
    __slots__ = ("match_id", "turn_id", "seat", "observation_json", "legal_actions", "deadline_ms", "time_bank_ms", "last_move_latency_ms", "sample_state_json", "forced")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_JSON_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    LAST_MOVE_LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    FORCED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    turn_id: int
    seat: int
    observation_json: str
    legal_actions: _containers.RepeatedScalarFieldContainer[str]
    deadline_ms: int
    time_bank_ms: int
    last_move_latency_ms: int
    sample_state_json: str
    forced: _containers.RepeatedCompositeFieldContainer[ForcedDecision]
    def __init__(self, match_id: _Optional[str] = ..., turn_id: _Optional[int] = ..., seat: _Optional[int] = ..., observation_json: _Optional[str] = ..., legal_actions: _Optional[_Iterable[str]] = ..., deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., last_move_latency_ms: _Optional[int] = ..., sample_state_json: _Optional[str] = ..., forced: _Optional[_Iterable[_Union[ForcedDecision, _Mapping]]] = ...) -> None: ...

class ForcedDecision(_message.Message):
    __slots__ = ("turn_id", "action")
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    turn_id: int
    action: str
    def __init__(self, turn_id: _Optional[int] = ..., action: _Optional[str] = ...) -> None: ...

class MoveResult(_message.Message):
    __slots__ = ("match_id", "turn_id", "code", "applied_action", "strikes", "detail", "latency_ms")
    class Code(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CODE_UNSPECIFIED: _ClassVar[MoveResult.Code]
        OK: _ClassVar[MoveResult.Code]
        TIMEOUT: _ClassVar[MoveResult.Code]
        ILLEGAL: _ClassVar[MoveResult.Code]
        MALFORMED: _ClassVar[MoveResult.Code]
        LATE: _ClassVar[MoveResult.Code]
        REJECTED: _ClassVar[MoveResult.Code]
        DISCONNECTED: _ClassVar[MoveResult.Code]
    CODE_UNSPECIFIED: MoveResult.Code
    OK: MoveResult.Code
    TIMEOUT: MoveResult.Code
    ILLEGAL: MoveResult.Code
    MALFORMED: MoveResult.Code
    LATE: MoveResult.Code
    REJECTED: MoveResult.Code
    DISCONNECTED: MoveResult.Code
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    APPLIED_ACTION_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    turn_id: int
    code: MoveResult.Code
    applied_action: str
    strikes: int
    detail: str
    latency_ms: int
    def __init__(self, match_id: _Optional[str] = ..., turn_id: _Optional[int] = ..., code: _Optional[_Union[MoveResult.Code, str]] = ..., applied_action: _Optional[str] = ..., strikes: _Optional[int] = ..., detail: _Optional[str] = ..., latency_ms: _Optional[int] = ...) -> None: ...

class MatchEnded(_message.Message):
    __slots__ = ("match_id", "scores", "ranks", "forfeited", "reason", "game", "seat", "players", "tournament_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    scores: _containers.RepeatedScalarFieldContainer[float]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    forfeited: bool
    reason: str
    game: str
    seat: int
    players: _containers.RepeatedScalarFieldContainer[str]
    tournament_id: str
    def __init__(self, match_id: _Optional[str] = ..., scores: _Optional[_Iterable[float]] = ..., ranks: _Optional[_Iterable[int]] = ..., forfeited: _Optional[bool] = ..., reason: _Optional[str] = ..., game: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., tournament_id: _Optional[str] = ...) -> None: ...

class Ping(_message.Message):
    __slots__ = ("nonce",)
    NONCE_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    def __init__(self, nonce: _Optional[int] = ...) -> None: ...

class GatewayError(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...
