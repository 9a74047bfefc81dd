from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RegisterBotRequest(_message.Message):
    __slots__ = ("name", "owner")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    name: str
    owner: str
    def __init__(self, name: _Optional[str] = ..., owner: _Optional[str] = ...) -> None: ...

class RegisterBotResponse(_message.Message):
    __slots__ = ("bot_id", "name", "token")
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    bot_id: str
    name: str
    token: str
    def __init__(self, bot_id: _Optional[str] = ..., name: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class RegisterVersionRequest(_message.Message):
    __slots__ = ("name", "owner")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    name: str
    owner: str
    def __init__(self, name: _Optional[str] = ..., owner: _Optional[str] = ...) -> None: ...

class RevokeBotRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RevokeBotResponse(_message.Message):
    __slots__ = ("revoked",)
    REVOKED_FIELD_NUMBER: _ClassVar[int]
    revoked: bool
    def __init__(self, revoked: _Optional[bool] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GameOption(_message.Message):
    __slots__ = ("name", "default_json", "choices_json", "help")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_JSON_FIELD_NUMBER: _ClassVar[int]
    CHOICES_JSON_FIELD_NUMBER: _ClassVar[int]
    HELP_FIELD_NUMBER: _ClassVar[int]
    name: str
    default_json: str
    choices_json: _containers.RepeatedScalarFieldContainer[str]
    help: str
    def __init__(self, name: _Optional[str] = ..., default_json: _Optional[str] = ..., choices_json: _Optional[_Iterable[str]] = ..., help: _Optional[str] = ...) -> None: ...

class GameInfo(_message.Message):
    __slots__ = ("name", "title", "version", "min_players", "max_players", "options", "house_bots")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MIN_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    HOUSE_BOTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    title: str
    version: str
    min_players: int
    max_players: int
    options: _containers.RepeatedCompositeFieldContainer[GameOption]
    house_bots: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., title: _Optional[str] = ..., version: _Optional[str] = ..., min_players: _Optional[int] = ..., max_players: _Optional[int] = ..., options: _Optional[_Iterable[_Union[GameOption, _Mapping]]] = ..., house_bots: _Optional[_Iterable[str]] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameInfo]
    def __init__(self, games: _Optional[_Iterable[_Union[GameInfo, _Mapping]]] = ...) -> None: ...

class TournamentGame(_message.Message):
    __slots__ = ("game", "table_sizes", "options_json")
    GAME_FIELD_NUMBER: _ClassVar[int]
    TABLE_SIZES_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    game: str
    table_sizes: _containers.RepeatedScalarFieldContainer[int]
    options_json: str
    def __init__(self, game: _Optional[str] = ..., table_sizes: _Optional[_Iterable[int]] = ..., options_json: _Optional[str] = ...) -> None: ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ("name", "games", "bots", "repetitions", "rated", "move_deadline_ms", "time_bank_ms", "seed")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    REPETITIONS_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    MOVE_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    name: str
    games: _containers.RepeatedCompositeFieldContainer[TournamentGame]
    bots: _containers.RepeatedScalarFieldContainer[str]
    repetitions: int
    rated: bool
    move_deadline_ms: int
    time_bank_ms: int
    seed: int
    def __init__(self, name: _Optional[str] = ..., games: _Optional[_Iterable[_Union[TournamentGame, _Mapping]]] = ..., bots: _Optional[_Iterable[str]] = ..., repetitions: _Optional[int] = ..., rated: _Optional[bool] = ..., move_deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., seed: _Optional[int] = ...) -> None: ...

class TournamentRef(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class GameProgress(_message.Message):
    __slots__ = ("game", "done", "total")
    GAME_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    game: str
    done: int
    total: int
    def __init__(self, game: _Optional[str] = ..., done: _Optional[int] = ..., total: _Optional[int] = ...) -> None: ...

class TournamentStatus(_message.Message):
    __slots__ = ("tournament_id", "name", "status", "progress")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    name: str
    status: str
    progress: _containers.RepeatedCompositeFieldContainer[GameProgress]
    def __init__(self, tournament_id: _Optional[str] = ..., name: _Optional[str] = ..., status: _Optional[str] = ..., progress: _Optional[_Iterable[_Union[GameProgress, _Mapping]]] = ...) -> None: ...

class LeaderboardRequest(_message.Message):
    __slots__ = ("game", "limit")
    GAME_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    game: str
    limit: int
    def __init__(self, game: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class LeaderboardRow(_message.Message):
    __slots__ = ("rank", "bot", "elo", "elo_low", "elo_high", "matches", "win_rate", "mean_rank", "last_played", "provisional")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    ELO_LOW_FIELD_NUMBER: _ClassVar[int]
    ELO_HIGH_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    WIN_RATE_FIELD_NUMBER: _ClassVar[int]
    MEAN_RANK_FIELD_NUMBER: _ClassVar[int]
    LAST_PLAYED_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot: str
    elo: float
    elo_low: float
    elo_high: float
    matches: int
    win_rate: float
    mean_rank: float
    last_played: str
    provisional: bool
    def __init__(self, rank: _Optional[int] = ..., bot: _Optional[str] = ..., elo: _Optional[float] = ..., elo_low: _Optional[float] = ..., elo_high: _Optional[float] = ..., matches: _Optional[int] = ..., win_rate: _Optional[float] = ..., mean_rank: _Optional[float] = ..., last_played: _Optional[str] = ..., provisional: _Optional[bool] = ...) -> None: ...

class LeaderboardResponse(_message.Message):
    __slots__ = ("game", "rows")
    GAME_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    game: str
    rows: _containers.RepeatedCompositeFieldContainer[LeaderboardRow]
    def __init__(self, game: _Optional[str] = ..., rows: _Optional[_Iterable[_Union[LeaderboardRow, _Mapping]]] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("tournament_id", "bot", "limit")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    bot: str
    limit: int
    def __init__(self, tournament_id: _Optional[str] = ..., bot: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class MatchSummary(_message.Message):
    __slots__ = ("match_id", "game", "status", "players", "ranks", "finished_at")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    status: str
    players: _containers.RepeatedScalarFieldContainer[str]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    finished_at: str
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., status: _Optional[str] = ..., players: _Optional[_Iterable[str]] = ..., ranks: _Optional[_Iterable[int]] = ..., finished_at: _Optional[str] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches",)
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchSummary]
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchSummary, _Mapping]]] = ...) -> None: ...

class MatchRef(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("seat", "action", "ms", "code")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    MS_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action: str
    ms: int
    code: str
    def __init__(self, seat: _Optional[int] = ..., action: _Optional[str] = ..., ms: _Optional[int] = ..., code: _Optional[str] = ...) -> None: ...

class SeatResult(_message.Message):
    __slots__ = ("seat", "bot", "score", "rank", "strikes", "forfeited")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bot: str
    score: float
    rank: int
    strikes: int
    forfeited: bool
    def __init__(self, seat: _Optional[int] = ..., bot: _Optional[str] = ..., score: _Optional[float] = ..., rank: _Optional[int] = ..., strikes: _Optional[int] = ..., forfeited: _Optional[bool] = ...) -> None: ...

class MatchDetail(_message.Message):
    __slots__ = ("summary", "options_json", "seed", "scores", "decisions", "sealed", "seats")
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    SEALED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    summary: MatchSummary
    options_json: str
    seed: int
    scores: _containers.RepeatedScalarFieldContainer[float]
    decisions: _containers.RepeatedCompositeFieldContainer[Decision]
    sealed: bool
    seats: _containers.RepeatedCompositeFieldContainer[SeatResult]
    def __init__(self, summary: _Optional[_Union[MatchSummary, _Mapping]] = ..., options_json: _Optional[str] = ..., seed: _Optional[int] = ..., scores: _Optional[_Iterable[float]] = ..., decisions: _Optional[_Iterable[_Union[Decision, _Mapping]]] = ..., sealed: _Optional[bool] = ..., seats: _Optional[_Iterable[_Union[SeatResult, _Mapping]]] = ...) -> None: ...

class ChallengeRequest(_message.Message):
    __slots__ = ("game", "players", "options_json", "seed", "move_deadline_ms", "time_bank_ms")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MOVE_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    game: str
    players: _containers.RepeatedScalarFieldContainer[str]
    options_json: str
    seed: int
    move_deadline_ms: int
    time_bank_ms: int
    def __init__(self, game: _Optional[str] = ..., players: _Optional[_Iterable[str]] = ..., options_json: _Optional[str] = ..., seed: _Optional[int] = ..., move_deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class StartTestRequest(_message.Message):
    __slots__ = ("base", "candidate", "games", "elo0", "elo1", "max_groups", "seed", "players", "field")
    BASE_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    ELO0_FIELD_NUMBER: _ClassVar[int]
    ELO1_FIELD_NUMBER: _ClassVar[int]
    MAX_GROUPS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    base: str
    candidate: str
    games: _containers.RepeatedScalarFieldContainer[str]
    elo0: float
    elo1: float
    max_groups: int
    seed: int
    players: int
    field: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, base: _Optional[str] = ..., candidate: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ..., elo0: _Optional[float] = ..., elo1: _Optional[float] = ..., max_groups: _Optional[int] = ..., seed: _Optional[int] = ..., players: _Optional[int] = ..., field: _Optional[_Iterable[str]] = ...) -> None: ...

class TestRef(_message.Message):
    __slots__ = ("test_id",)
    TEST_ID_FIELD_NUMBER: _ClassVar[int]
    test_id: str
    def __init__(self, test_id: _Optional[str] = ...) -> None: ...

class TestProgress(_message.Message):
    __slots__ = ("test_id", "state", "groups", "llr", "lower", "upper", "report_json")
    TEST_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    LLR_FIELD_NUMBER: _ClassVar[int]
    LOWER_FIELD_NUMBER: _ClassVar[int]
    UPPER_FIELD_NUMBER: _ClassVar[int]
    REPORT_JSON_FIELD_NUMBER: _ClassVar[int]
    test_id: str
    state: str
    groups: int
    llr: float
    lower: float
    upper: float
    report_json: str
    def __init__(self, test_id: _Optional[str] = ..., state: _Optional[str] = ..., groups: _Optional[int] = ..., llr: _Optional[float] = ..., lower: _Optional[float] = ..., upper: _Optional[float] = ..., report_json: _Optional[str] = ...) -> None: ...

class AnalyseMatchRequest(_message.Message):
    __slots__ = ("match_id", "seat")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class AnalysisReply(_message.Message):
    __slots__ = ("status", "analysis_json", "reason")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ANALYSIS_JSON_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    status: str
    analysis_json: str
    reason: str
    def __init__(self, status: _Optional[str] = ..., analysis_json: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...
