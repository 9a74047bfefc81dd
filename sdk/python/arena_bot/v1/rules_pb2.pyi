from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class NewStateRequest(_message.Message):
    __slots__ = ("game", "num_players", "seed", "options_json")
    GAME_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    game: str
    num_players: int
    seed: int
    options_json: str
    def __init__(self, game: _Optional[str] = ..., num_players: _Optional[int] = ..., seed: _Optional[int] = ..., options_json: _Optional[str] = ...) -> None: ...

class StateReply(_message.Message):
    __slots__ = ("state_json", "to_act", "terminal", "scores", "ranks")
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    state_json: str
    to_act: _containers.RepeatedScalarFieldContainer[int]
    terminal: bool
    scores: _containers.RepeatedScalarFieldContainer[float]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, state_json: _Optional[str] = ..., to_act: _Optional[_Iterable[int]] = ..., terminal: _Optional[bool] = ..., scores: _Optional[_Iterable[float]] = ..., ranks: _Optional[_Iterable[int]] = ...) -> None: ...

class StateRequest(_message.Message):
    __slots__ = ("state_json", "seat")
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    state_json: str
    seat: int
    def __init__(self, state_json: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class LegalActionsReply(_message.Message):
    __slots__ = ("legal_actions",)
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    legal_actions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, legal_actions: _Optional[_Iterable[str]] = ...) -> None: ...

class ApplyRequest(_message.Message):
    __slots__ = ("state_json", "seat", "action")
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    state_json: str
    seat: int
    action: str
    def __init__(self, state_json: _Optional[str] = ..., seat: _Optional[int] = ..., action: _Optional[str] = ...) -> None: ...

class ObserveReply(_message.Message):
    __slots__ = ("observation_json",)
    OBSERVATION_JSON_FIELD_NUMBER: _ClassVar[int]
    observation_json: str
    def __init__(self, observation_json: _Optional[str] = ...) -> None: ...

class ResampleRequest(_message.Message):
    __slots__ = ("state_json", "seat", "seed")
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    state_json: str
    seat: int
    seed: int
    def __init__(self, state_json: _Optional[str] = ..., seat: _Optional[int] = ..., seed: _Optional[int] = ...) -> None: ...
