"""Every ``ARENA_*`` setting in one model: typed, ranged, documented and validated together.

Values come from the environment and, under it, from an optional TOML file named by
``ARENA_CONFIG`` whose keys are the variables' names without ``ARENA_``, in lower case::

    batch_size = 32
    registration = "admin"

An empty variable counts as unset (except ``ARENA_GRAFANA_URL``, where empty hides the link).
This is the only module that reads ``ARENA_*`` variables: everything else is handed the model
(``load()``) or a view built from it (``arena.server.settings.ServerSettings.from_settings``,
``arena.web.settings.WebSettings.from_settings``). ``arena`` validates the settings once before
any command (``check``), so that a wrong value is one line naming the variable; a process that
plays for another (the embedded pool's) is handed its parent's model (``adopt``) rather than the
environment. Nothing writes the environment to pass a value on. ``python -m arena.settings
--markdown`` prints the table that ``docs/operations.md`` carries between its ``settings``
markers.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

PREFIX = "ARENA_"
CONFIG_ENV = "ARENA_CONFIG"
# Where an empty value means something of its own rather than "unset".
EMPTY_MEANS_SOMETHING = {"grafana_url"}
# Settings whose values an error message must never repeat.
SECRETS = {"admin_token"}
# The admin token's floor: long enough and varied enough that it was not typed by hand
# (``secrets.token_urlsafe(32)`` gives 43 characters of 64 kinds, ``openssl rand -hex 32`` 64 of
# 16). Length and variety catch the short and the patterned; nothing can tell a random token
# from a chosen one, hence the docs' one way to make it.
ADMIN_TOKEN_MIN_LENGTH = 32
ADMIN_TOKEN_MIN_DISTINCT = 10
MAKE_ADMIN_TOKEN = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'


def admin_token_problem(token: str) -> str | None:
    """Why ``token`` is too weak to be the admin token, or None when it will do."""
    if len(token) < ADMIN_TOKEN_MIN_LENGTH:
        return (f"must be at least {ADMIN_TOKEN_MIN_LENGTH} characters (this one has {len(token)}); "
                f"make one with: {MAKE_ADMIN_TOKEN}")
    if len(set(token)) < ADMIN_TOKEN_MIN_DISTINCT:
        return (f"must use at least {ADMIN_TOKEN_MIN_DISTINCT} different characters (a random token does); "
                f"make one with: {MAKE_ADMIN_TOKEN}")
    if token != token.strip():
        return "must not begin or end with blanks"
    return None


class ArenaSettings(BaseSettings):
    """The arena's settings: environment over ``ARENA_CONFIG``'s TOML file over defaults."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="ignore", validate_default=True)

    config: str | None = Field(default=None,
        description="A TOML file with any of these settings (keys in lower case without `ARENA_`: "
                    "`batch_size = 32`); the environment wins over it.")
    # The store, the broker, the workers. Unset, the store is found where the process runs
    # (``_default_store``), so the value is always a URL.
    database_url: str = Field(default=None,  # type: ignore[assignment]
        description="The store (default the SQLite file `./var/arena.db`). "
                    "`postgresql://user:pass@host/db` uses psycopg 3.")
    redis_url: str | None = Field(default=None,
        description="Celery broker (and, with the gateway, the bot mailbox). Unset = embedded: tasks run "
                    "in the calling process.")
    db_pool: int = Field(default=5, ge=1, le=1000,
        description="PostgreSQL connections one process keeps open (as many again at busy moments). "
                    "`arena worker --live` keeps at least 10, whatever its `ARENA_LIVE_MATCHES`: one for each "
                    "of its threads that claim and record, and its supervisor must not queue behind them.")
    queue: str = Field(default="arena", min_length=1,
        description="Celery queue name.")
    live_queue: str = Field(default="",
        description="Queue of live matches (an external or paced bot in a seat), consumed by `arena worker "
                    "--live`, which plays hundreds of them on one event loop. Empty: they share `ARENA_QUEUE` "
                    "with the house-bot batches, one per prefork slot.")
    live_matches: int = Field(default=200, ge=1, le=10_000,
        description="Live matches one `arena worker --live` plays at once, on its one event loop.")
    embedded_processes: int = Field(default=0, ge=0, le=256,
        description="Embedded (no `ARENA_REDIS_URL`): processes that play house-bot matches at once once a "
                    "tournament has taken a second in the calling process; `0` = one per CPU core, `1` = "
                    "all in the calling process.")
    batch_size: int = Field(default=16, ge=1, le=10_000,
        description="House-bot matches per task. Matches with external or paced bots go one per task.")
    visibility_timeout: int = Field(default=3600, ge=1,
        description="Seconds before Redis redelivers an unacknowledged task. Above the longest task.")
    task_time_limit: int = Field(default=1800, ge=1,
        description="Hard limit per task in seconds. At the soft limit (30 s earlier, or a quarter of "
                    "the limit earlier when that is less) a task records what it finished and leaves "
                    "the rest to the supervisor.")
    lease_seconds: float = Field(default=20.0, ge=0, le=3600,
        description="How long a worker's claim on a match holds without renewal (renewed every third of "
                    "it while the match is played). A running match whose lease lapsed, or a sent match "
                    "with no task in the queue for this long, is sent again by the supervisor. Embedded "
                    "claims hold leases too. `0` turns leases off (a redelivered task then plays a "
                    "running match again; embedded, only matches of dead processes are healed).")
    supervisor_seconds: float = Field(default=5.0, ge=0, le=3600,
        description="How often the supervisor in `arena worker` and `arena serve` sweeps for lost "
                    "matches (one leader at a time: through Redis, or embedded through a lock on the "
                    "store); embedded, `arena serve` also sweeps once at start-up. `0` = this process "
                    "runs none.")
    max_attempts: int = Field(default=5, ge=1, le=1000,
        description="Deliveries of one match before it is marked `failed` (a match that kills its "
                    "worker).")
    outage_seconds: float = Field(default=300.0, ge=0,
        description="How long a task, or a command following a tournament, waits out one database outage "
                    "(backoff, up to 10 s between tries) before giving up. Well under "
                    "`ARENA_TASK_TIME_LIMIT`.")
    elo_k: float = Field(default=32.0, ge=0, le=1000,
        description="Elo K factor (scaled by 1/(N-1) in N-player matches).")
    metrics_port: int = Field(default=9808, ge=0, le=65535,
        description="A worker's `/metrics`; `0` disables.")
    metrics_address: str = Field(default="127.0.0.1",
        description="Address a worker's `/metrics` listens on. `0.0.0.0` or a private address where "
                    "Prometheus scrapes from another host or container.")
    max_tournament_matches: int = Field(default=100_000, ge=1,
        description="Cap on the matches of one tournament, checked (from the schedule's arithmetic) "
                    "before anything is built.")
    # The gRPC server (``arena.server.settings``, ``arena.referee.external``, ``arena.server.serve``).
    # ``ServerSettings`` takes the settings of its own name from here (``from_settings``).
    grpc_address: str = Field(default="127.0.0.1:50051",
        description="Where the gateway, Arena and Rules services listen.")
    admin_token: str | None = Field(default=None,
        description='The admin\'s token (see "Who may do what"); unset = admin calls refused. At least '
                    f"{ADMIN_TOKEN_MIN_LENGTH} characters, {ADMIN_TOKEN_MIN_DISTINCT} of them different, "
                    f"or nothing starts: make one with `{MAKE_ADMIN_TOKEN}`.")
    registration: Literal["open", "admin", "auto"] = Field(default="auto",
        description="`open`: anyone may register a bot; `admin`: only the admin; `auto`: open when the "
                    "server listens on a loopback address (an IP address in `127.0.0.0/8`, `::1`, or "
                    "`localhost` exactly), admin-only elsewhere.")
    auth_failures_per_minute: int = Field(default=20, ge=0,
        description="Failed authentications (a wrong bot or admin token) one peer address may make per "
                    "minute; past it, that address's calls with credentials get `RESOURCE_EXHAUSTED` until "
                    "its oldest counted failure is a minute old (\"try again in N s\"). `0` = no limit. "
                    "Behind a TCP proxy that hides the bots' addresses (the compose load balancer) it "
                    "counts all bots together.")
    # The Rules service runs a stranger's requests through game code: off the gateway's event
    # loop, in a pool of worker processes, each call bounded in time and memory, and rate-limited.
    rules_workers: int = Field(default=2, ge=1, le=256,
        description="Worker processes that run Rules calls, away from the loop that holds bot streams "
                    "and times moves.")
    rules_queue: int = Field(default=64, ge=1, le=100_000,
        description="Rules calls that may wait for a worker; past it a call gets `RESOURCE_EXHAUSTED`.")
    rules_call_seconds: float = Field(default=5.0, gt=0, le=3600,
        description="Wall-clock bound of one Rules call; past it the worker is killed and replaced and "
                    "the call gets `DEADLINE_EXCEEDED`.")
    rules_cpu_seconds: int = Field(default=5, ge=1, le=3600,
        description="CPU-time bound of one Rules call; past it the worker is killed and replaced and the "
                    "call gets `RESOURCE_EXHAUSTED`.")
    rules_memory_mb: int = Field(default=256, ge=128, le=1024 * 1024,
        description="Address space of one Rules worker process, in MiB (an idle one takes about 70); a "
                    "call that needs more gets `RESOURCE_EXHAUSTED`. Workers are the first the kernel "
                    "kills when memory runs out, never the gateway.")
    rules_calls_per_second: float = Field(default=2000.0, ge=0,
        description="Rules calls one peer address, and one bot token, may make per second on average; "
                    "past it calls get `RESOURCE_EXHAUSTED` (\"try again in N s\"). `0` = no limit.")
    # The two Rules settings make one moving window (``arena.ratelimit.average_with_burst``).
    rules_burst: int = Field(default=4000, ge=1, le=1_000_000,
        description="Rules calls a peer or token may make at once before `ARENA_RULES_CALLS_PER_SECOND` "
                    "applies. Exactly: at most this many calls in any window of `ARENA_RULES_BURST / "
                    "ARENA_RULES_CALLS_PER_SECOND` seconds; a window that is not a whole number of seconds "
                    "is rounded up (to 1 s at least) and then holds `ARENA_RULES_CALLS_PER_SECOND` calls "
                    "per second of it, so the average holds and the burst grows a little.")
    tls_cert: str | None = Field(default=None,
        description="PEM certificate file; set with `ARENA_TLS_KEY` for TLS (neither = plaintext).")
    tls_key: str | None = Field(default=None,
        description="PEM private key file; set with `ARENA_TLS_CERT`.")
    max_message_bytes: int = Field(default=1024 * 1024, ge=1024, le=512 * 1024 * 1024,
        description="Largest message a client may send.")
    max_streams: int = Field(default=16, ge=1, le=10_000,
        description="Concurrent streams per client connection.")
    max_matches_per_bot: int = Field(default=8, ge=1, le=10_000,
        description="Matches one bot plays at once (it may ask for fewer in its Hello).")
    # Challenges (``arena.server.challenge``): what one bot may ask of the others. The admin's
    # challenges are bound by the tournament limits only.
    challenge_move_seconds: float = Field(default=10.0, ge=0.01, le=600,
        description="Longest move clock a bot may set on its challenge (`move_deadline_ms`); longer is "
                    "`INVALID_ARGUMENT`.")
    challenge_bank_seconds: float = Field(default=60.0, ge=0, le=3600,
        description="Largest time bank a bot may set on its challenge (`time_bank_ms`); larger is "
                    "`INVALID_ARGUMENT`.")
    challenges_per_minute: int = Field(default=10, ge=0, le=10_000,
        description="Challenges one bot may ask for in any minute, refused ones included; past it "
                    "`RESOURCE_EXHAUSTED` says when to try again. Counted in `ARENA_REDIS_URL`'s Redis when set, "
                    "so every server shares it. `0` = no limit.")
    challenges_at_once: int = Field(default=8, ge=1, le=10_000,
        description="Unfinished challenges one bot may be seated in, asked or accepted (a bot's "
                    "`max_at_once` may ask for fewer of the latter); past it `RESOURCE_EXHAUSTED`.")
    # The ladder (``workers.ladder``): connected bots paired for rated matches by themselves.
    ladder: bool = Field(default=True,
        description="Whether `arena serve` runs the ladder: every connected bot is paired for rated "
                    "matches, in complete duplicate groups, in the games of its Hello (one leader for "
                    "all servers, elected as the supervisor is).")
    ladder_seconds: float = Field(default=2.0, gt=0, le=600,
        description="How often the ladder's leader pairs the connected bots that have room for a match.")
    ladder_search_matches: int = Field(default=2, ge=0, le=10_000,
        description="Ladder matches the house `search` bot plays at once, over every board (its CPU "
                    "bound); `0` keeps it off the ladder.")
    grace_seconds: float = Field(default=30.0, ge=0,
        description="How long a disconnected bot may stay away before it forfeits (not the 5 s a "
                    "stopping server gives the calls in flight).")
    # An external bot's time is measured by the gateway; the runner's own deadline is a safety
    # net this much later, for the turn's trips through the mailbox and a stalled server.
    clock_allowance: float = Field(default=5.0, gt=0, le=600,
        description="Seconds a match runner waits past an external bot's move time and bank for the "
                    "gateway's word on a turn. When none comes while the bot is connected, the server "
                    "was slow: the turn gets a random legal action with no strike and no bank spent.")
    mailbox_prefix: str = Field(default="arena:mb:", min_length=1,
        description="Redis key prefix of the bot mailbox (several arenas on one Redis).")
    gateway_metrics_port: int = Field(default=9809, ge=0, le=65535,
        description="The gateway's `/metrics`; `0` disables.")
    gateway_metrics_address: str = Field(default="127.0.0.1",
        description="Address of the gateway's `/metrics` (it does not follow `ARENA_GRPC_ADDRESS`).")
    # Reads by strangers are bounded (``arena.ratelimit``): a reader waits, the live path never does.
    read_rate: str = Field(default="20/second;600/minute",
        description="Reads of the Arena service (games, leaderboards, matches, tournaments, follow streams) "
                    "one peer address may make, as `N/second;M/minute` (every rate holds; empty = no limit); "
                    "past it, `RESOURCE_EXHAUSTED` saying when to retry. The admin token is not counted.")
    follow_streams: int = Field(default=64, ge=1, le=100_000,
        description="`FollowTournament` and `FollowTest` streams open at once on one server, all peers together; past it, "
                    "`RESOURCE_EXHAUSTED`.")
    follow_streams_per_peer: int = Field(default=4, ge=1, le=10_000,
        description="`FollowTournament` and `FollowTest` streams one peer address may hold open at once.")
    # The web face (``arena.web.settings``).
    web_address: str = Field(default="127.0.0.1:8080",
        description="Where `arena web` listens.")
    grafana_url: str = Field(default="http://127.0.0.1:3000/d/arena",
        description="The Grafana dashboard the status page links to; empty hides the link.")
    docs_dir: str | None = Field(default=None,
        description="Folder of the games' Markdown docs (default `docs/games` of the source tree the "
                    "package was installed from).")
    web_read_rate: str = Field(default="20/second;600/minute",
        description="Web pages and JSON API requests one peer address may make (static files are not "
                    "counted), as `N/second;M/minute` (empty = no limit); past it, 429 with `Retry-After`. "
                    "Behind a reverse proxy every reader shares the proxy's address.")
    replay_cache_mb: int = Field(default=64, ge=0, le=65_536,
        description="Memory of the web face's cache of replays of finished matches (least recently read "
                    "out first); `0` = no cache.")
    live_snapshot_seconds: float = Field(default=2.0, ge=0, le=3600,
        description="How long the web face reuses a running tournament's or match's page for every viewer "
                    "before reading the store again (its live refreshes read this shared snapshot); "
                    "finished tournaments are kept until pushed out of the cache.")
    # The house search bot (``arena.games.search``).
    search_iterations: int | None = Field(default=None, ge=1,
        description="Playouts per decision of the search bot, for every game (default each game's own "
                    "budget).")
    search_ms: float | None = Field(default=None, ge=0,
        description="Wall-clock cap in milliseconds per search decision (`0` = none); it makes play "
                    "depend on the machine.")
    search_rollout: Literal["heuristic", "random"] | None = Field(default=None,
        description="Play in the search bot's playouts (default `heuristic`).")

    # Analyses of finished matches (``arena.referee.analysis``): asked for by anyone, run away
    # from the loop that times moves (a Celery worker, or a process of the server's own when
    # embedded), bounded in work, time and rate.
    analysis_worlds: int = Field(default=24, ge=2, le=1000,
        description="Sampled deals on which every legal action of a decision is valued when a match is "
                    "analysed (more: narrower intervals, more marks given, longer to compute).")
    analysis_decisions: int = Field(default=120, ge=1, le=10_000,
        description="Decisions with a choice judged in one analysis; past it the analysis stops and says "
                    "it was cut short.")
    analysis_plies: int = Field(default=1_500_000, ge=100, le=1_000_000_000,
        description="Moves the playout policy may choose over one analysis's playouts, in Backpacker's "
                    "plies (a costlier game's count for more: about 80 CPU seconds by default in every game): a "
                    "long match's decisions get fewer sampled deals (at least two each, said in the analysis) so "
                    "that it ends within `ARENA_ANALYSIS_SECONDS`. A count, not a clock: an analysis stays "
                    "deterministic.")
    analysis_memory_mb: int = Field(default=512, ge=1, le=1024 * 1024,
        description="Memory one analysis may take beyond what its process holds when it starts, in MiB "
                    "(`RLIMIT_AS` while it computes); past it the analysis fails with that reason, nothing kept, "
                    "and may be asked for again.")
    analysis_seconds: float = Field(default=600.0, gt=0, le=86_400,
        description="Wall-clock bound of one analysis; past it the work is stopped and it may be asked for "
                    "again.")
    analysis_per_minute: int = Field(default=6, ge=0, le=10_000,
        description="Analyses one bot (by its token) or one anonymous peer address may ask to be computed in "
                    "any minute (a kept analysis is served without counting); past it, `RESOURCE_EXHAUSTED`. "
                    "`0` = no limit.")
    analysis_queue: int = Field(default=16, ge=1, le=10_000,
        description="Analyses one server may have waiting or running at once; past it a new one gets "
                    "`RESOURCE_EXHAUSTED`.")

    @model_validator(mode="before")
    @classmethod
    def _empty_is_unset(cls, values: Any) -> Any:
        if isinstance(values, dict):
            return {k: v for k, v in values.items() if v != "" or k in EMPTY_MEANS_SOMETHING}
        return values

    @field_validator("database_url", mode="before")
    @classmethod
    def _default_store(cls, url: str | None) -> str:
        return default_database_url() if url is None else url

    @field_validator("embedded_processes")
    @classmethod
    def _one_per_core(cls, processes: int) -> int:
        return processes or cores()

    @field_validator("admin_token")
    @classmethod
    def _strong_admin_token(cls, token: str | None) -> str | None:
        problem = admin_token_problem(token) if token is not None else None
        if problem:
            raise ValueError(problem)
        return token

    @field_validator("read_rate", "web_read_rate")
    @classmethod
    def _rates(cls, value: str) -> str:
        from arena.ratelimit import parse_rates

        try:
            parse_rates(value)
        except ValueError:
            raise ValueError("must be rates such as 20/second;600/minute, or empty for no limit") from None
        return value

    @model_validator(mode="after")
    def _tls_pair(self) -> ArenaSettings:
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ValueError("set both ARENA_TLS_CERT and ARENA_TLS_KEY, or neither")
        return self

    @property
    def queues(self) -> list[str]:
        """Every queue the arena sends tasks to."""
        return [self.queue, *([self.live_queue] if self.live_queue and self.live_queue != self.queue else [])]

    @property
    def embedded(self) -> bool:
        """True when no Redis is configured: everything runs in this process."""
        return not self.redis_url

    def but(self, **changes: Any) -> ArenaSettings:
        """A copy with ``changes`` (validated as the variables are: a wrong value raises)."""
        changed = self.model_copy()
        for name, value in changes.items():
            self.__pydantic_validator__.validate_assignment(changed, name, value)
        return changed

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings],
                                   init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource) \
            -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, toml_file=config_file(os.environ))
        return init_settings, env_settings, toml


class _FromMapping(ArenaSettings):
    """The same model reading nothing but the values it is given (``load(env)``)."""

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings],
                                   init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource) \
            -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)


def default_database_url() -> str:
    """The store when ``ARENA_DATABASE_URL`` is unset: ``./var/arena.db`` of the working directory."""
    var = Path.cwd() / "var"
    return f"sqlite:///{var / 'arena.db'}"


def cores() -> int:
    """CPU cores this process may run on (a container's share, where the OS tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def config_file(env: Mapping[str, str]) -> Path | None:
    """The TOML file ``ARENA_CONFIG`` names, if any; a name that is no file is an error."""
    name = env.get(CONFIG_ENV)
    if not name:
        return None
    path = Path(name).expanduser()
    if not path.is_file():
        raise ValueError(f"{CONFIG_ENV}: no such file {name!r}")
    return path


_loaded: dict[tuple[Any, ...], ArenaSettings] = {}
_adopted: list[ArenaSettings] = []  # the settings handed to this process, if any (``adopt``)


def _environment_key() -> tuple[Any, ...]:
    """What the settings are read from: every ``ARENA_*`` variable (in any case, as
    pydantic-settings reads them), the config file's identity and last change, and the working
    directory (where the default store is)."""
    variables = tuple(sorted((k, v) for k, v in os.environ.items() if k.upper().startswith(PREFIX)))
    name = next((v for k, v in variables if k.upper() == CONFIG_ENV), None)
    stamp: Any = None
    if name:
        try:
            stat = Path(name).expanduser().stat()
            stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        except OSError:
            stamp = "missing"
    return variables, stamp, os.getcwd()


def load(env: Mapping[str, str] | None = None) -> ArenaSettings:
    """The settings from ``env`` (default the environment) and ``ARENA_CONFIG``'s file, validated;
    a mapping given is read alone, not the process's environment.
    Raises ``pydantic.ValidationError`` (a ``ValueError``) on a wrong value; ``describe`` turns
    it into one line. A process handed its settings (``adopt``) gets those, not the environment's."""
    if env is None and _adopted:
        return _adopted[-1]
    if env is None:
        # Validating costs milliseconds and the settings are asked for on every match: keep
        # the result for as long as the variables and the file's contents stay the same.
        key = _environment_key()
        settings = _loaded.get(key)
        if settings is None:
            settings = ArenaSettings()
            if len(_loaded) >= 32:
                _loaded.clear()
            _loaded[key] = settings
        return settings
    names = ArenaSettings.model_fields
    values: dict[str, Any] = {}
    path = config_file(env)
    if path is not None:
        values.update(TomlConfigSettingsSource(ArenaSettings, toml_file=path)())
    values.update({k[len(PREFIX):].lower(): v for k, v in env.items()
                   if k.startswith(PREFIX) and k[len(PREFIX):].lower() in names})
    return _FromMapping(**values)


def adopt(settings: ArenaSettings | None) -> None:
    """Make ``settings`` this process's own: ``load()`` returns them from now on instead of
    reading the environment (a process that plays for another, handed its parent's settings;
    a command that changes one setting for what it runs). None: read the environment again."""
    _adopted.clear()
    if settings is not None:
        _adopted.append(settings)


@contextlib.contextmanager
def using(settings: ArenaSettings) -> Iterator[ArenaSettings]:
    """``adopt`` ``settings`` within the block, then go back to what held before."""
    before = list(_adopted)
    adopt(settings)
    try:
        yield settings
    finally:
        _adopted[:] = before


def variable(field: str) -> str:
    return PREFIX + field.upper()


def describe(error: ValidationError) -> str:
    """The first problem of a validation error on one line: ``ARENA_BATCH_SIZE: must be an
    integer (got 'x')``."""
    problem = error.errors()[0]
    loc = [str(part) for part in problem.get("loc", ()) if isinstance(part, str)]
    kind, ctx, got = problem.get("type", ""), problem.get("ctx") or {}, problem.get("input")
    if kind in ("int_parsing", "int_from_float", "int_type"):
        what = "must be an integer"
    elif kind in ("float_parsing", "float_type"):
        what = "must be a number"
    elif kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        word = {"greater_than_equal": "at least", "greater_than": "above",
                "less_than_equal": "at most", "less_than": "below"}[kind]
        what = f"must be {word} {next(iter(ctx.values()))}"
    elif kind == "literal_error":
        what = f"must be {ctx.get('expected', '').replace(chr(39), '')}"
    elif kind == "string_too_short":
        what = "must not be empty"
    else:
        what = str(problem.get("msg", "invalid")).removeprefix("Value error, ")
    if not loc:
        return what
    if loc[0] in SECRETS:
        got = None  # a secret, even a weak one, never goes to a log
    return f"{variable(loc[0])}: {what} (got {got!r})" if got is not None and not isinstance(got, dict) \
        else f"{variable(loc[0])}: {what}"


def check() -> str | None:
    """Validate the current settings once: None when they are good, else one line naming the
    variable and the problem. (The processes this one starts read the same environment, and
    with it the same ``ARENA_CONFIG`` file.)"""
    try:
        load()
    except ValidationError as error:
        return describe(error)
    except ValueError as error:  # the file: missing, or not TOML
        return str(error) if str(error).startswith(CONFIG_ENV) else f"{CONFIG_ENV}: {error}"
    return None


def markdown() -> str:
    """The settings table of ``docs/operations.md``, made from the model."""
    rows = ["| Variable | Type | Default | Range | Meaning |", "|---|---|---|---|---|"]
    for name, field in ArenaSettings.model_fields.items():
        rows.append(f"| `{variable(name)}` | {kind_of(field.annotation)} | {default_of(field.default)} "
                    f"| {range_of(field.metadata)} | {field.description} |")
    return "\n".join(rows) + "\n"


def kind_of(annotation: Any) -> str:
    text = str(annotation).replace("typing.", "").replace("<class '", "").replace("'>", "")
    text = text.replace(" | None", "").replace("Optional[", "").rstrip("]") if "Literal" not in text else text
    if "Literal" in text:
        choices = text.split("Literal[", 1)[1].split("]", 1)[0].replace("'", "").split(", ")
        return " / ".join(f"`{c}`" for c in choices)
    return {"str": "text", "int": "integer", "float": "number"}.get(text, text)


def default_of(default: Any) -> str:
    if default is None:
        return "unset"
    if isinstance(default, float) and default.is_integer():
        default = int(default)
    return f"`{default}`"


def range_of(metadata: list[Any]) -> str:
    low = next((m.ge for m in metadata if getattr(m, "ge", None) is not None), None)
    high = next((m.le for m in metadata if getattr(m, "le", None) is not None), None)
    if low is None and high is None:
        return ""
    if high is None:
        return f"≥ {low}"
    return f"{low}–{high}" if low is not None else f"≤ {high}"


if __name__ == "__main__":
    if sys.argv[1:] == ["--markdown"]:
        sys.stdout.write(markdown())
    else:
        problem = check()
        print(problem or "settings are valid", file=sys.stderr if problem else sys.stdout)
        sys.exit(2 if problem else 0)
