"""Settings, read only from `CODEATLAS_*` environment variables (or a `.env` file).

This module is the only reader of the environment (tests/core/
test_environment_readers.py scans the others): each entry point (a CLI command, the MCP server, a
Dagster resource or storage, a celery worker) calls `load_settings()` once and passes the
`Settings`, or the piece a callee needs, down.
README.md's settings table lists every variable read here.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from core.embedding_providers import Provider, provider_named
from core.errors import ConfigurationError

APP_NAME = "codeatlas"

_DOTENV_LOADED = False
# the upper ends of the numeric settings' ranges (a value past them is a typo, not a choice)
WEEK = 7 * 24 * 3600
YEAR_HOURS = 366 * 24


def _load_dotenv() -> None:
    global _DOTENV_LOADED
    if not _DOTENV_LOADED:
        _DOTENV_LOADED = True
        env_file = Path.cwd() / ".env"
        if env_file.is_file():
            from dotenv import load_dotenv

            load_dotenv(env_file, override=False)


def _int(name: str, default: int, *, minimum: int = 1, maximum: int = 1_000_000) -> int:
    """A whole number from `minimum` to `maximum`; the error names the variable and the range."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not minimum <= value <= maximum:
        raise ConfigurationError(
            f"{name} must be a whole number from {minimum:,} to {maximum:,}, got {raw!r}"
        )
    return value


def _number(
    name: str, default: float, *, minimum: float = 0.0, maximum: float, above: bool = False
) -> float:
    """A finite number from `minimum` (or, `above`, more than it) to `maximum`: `nan` and `inf`
    parse as floats, and an overlay kept `nan` hours made every `index_file` fail (issue 47)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    low_ok = value > minimum if above else value >= minimum
    if not (math.isfinite(value) and low_ok and value <= maximum):
        low = f"more than {minimum:g}" if above else f"at least {minimum:g}"
        raise ConfigurationError(
            f"{name} must be a number {low} and at most {maximum:g}, got {raw!r}"
        )
    return value


def _choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name) or default
    if value not in choices:
        allowed = ", ".join(choices[:-1]) + f" or {choices[-1]}"
        raise ConfigurationError(f"{name} must be {allowed}, got {value!r}")
    return value


def environment_variable(name: str) -> str:
    """The value of a variable the user names on the command line (`--from-env NAME`), or ''."""
    return os.environ.get(name, "")


def _switch(name: str, *, default: bool) -> bool:
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "on", "true", "yes"):
        return True
    if raw in ("0", "off", "false", "no"):
        return False
    raise ConfigurationError(f"{name} must be on or off, got {raw!r}")


def default_state_dir() -> Path:
    """The per-user data folder (`$XDG_DATA_HOME/codeatlas`, `~/.local/share/codeatlas`, or the
    platform's equivalent), so every working directory sees the same index."""
    import platformdirs

    return platformdirs.user_data_path(APP_NAME, appauthor=False)


def parse_listen(value: str, option: str = "--listen") -> tuple[str, int]:
    """(host, port) of HOST:PORT (IPv6 hosts in brackets); `option` names it in the error."""
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigurationError(f"{option} wants HOST:PORT, got {value!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def redacted_url(url: str) -> str:
    """A database URL fit to print: any password replaced by `***`."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


@dataclass(frozen=True)
class Settings:
    """Everything configurable; defaults give the embedded, zero-set-up setup."""

    state_dir: Path
    database_url: str | None  # None: start the embedded PostgreSQL in state_dir
    embedding_provider: Provider
    embedding_model: str | None  # provider-specific model name (None: provider default)
    embedding_dimensions: int | None
    openai_base_url: str | None
    openai_api_key: str | None
    max_file_bytes: int
    chunk_max_tokens: int
    run_wait_seconds: int  # longest wait of a run for a slot held by another live run
    state_dir_from: str = "default"  # where state_dir came from: default | CODEATLAS_STATE_DIR
    max_concurrent_runs: int = 10  # runs in progress at once under the daemon
    run_launcher: str = "warm"  # warm (forks on this host) | celery (runs on celery workers)
    celery_broker_url: str | None = None  # redis://host:port/db for the celery launcher
    # a streaming replica for searches and the MCP read tools (None: read from database_url)
    read_database_url: str | None = None
    openai_concurrency: int = 4  # embedding requests in flight at once
    openai_batch_size: int = 96  # texts per embedding request (TEI accepts 32 by default)
    # how long the embedded server stays up after its last command exits (0: stop at once)
    server_idle_seconds: int = 600
    local_runtime: str = "ct2"  # ct2 | torch: the local model's runtime when its name says none
    git_token: str | None = None  # for cloning private remotes over HTTPS (never stored)
    git_username: str = "x-access-token"  # the user name sent with git_token
    secret_key: str | None = None  # seals webhook secrets at rest (orchestration/webhooks)
    # the Dagster instance's storage (SQLAlchemy URL); None: derived from database_url or the
    # embedded server. `codeatlas dev` and `codeatlas index` export it for their children.
    dagster_storage_url: str | None = None
    # the Dagster webserver (`codeatlas dev`'s UI) through which the webhook receiver launches a
    # push's run at once (orchestration/webhooks/launch.py); None: the sensor's next pass
    dagster_url: str | None = None
    principal: str | None = None  # the MCP server's principal over stdio (None: the operator)
    # what one principal may use of a shared MCP server (mcp_app/limits.py)
    overlay_ttl_hours: float = 24.0  # working-tree files are dropped this long after indexing
    overlay_max_files: int = 200  # per principal, over all repositories
    overlay_max_chunks: int = 3000  # index_file refuses files that parse into more chunks
    index_file_seconds: float = 4.5  # index_file embeds what it can until this much has passed
    mcp_max_concurrent: int = 4  # per principal, HTTP requests in flight (429 beyond)
    mcp_requests_per_minute: int = 300  # per principal (429 with Retry-After beyond)
    mcp_failed_tokens_per_minute: int = 20  # per client address; further attempts get 429
    # a search's or a locate's time budget, the same for the MCP tools and the CLI: a request
    # still running past it is stopped with an error (retrieval/request_budget.py)
    request_seconds: float = 30.0
    # how much a search or a locate may grow the process's resident memory before it is stopped
    # (the same paths; four pathological requests at once took 166 MiB, issue 47)
    request_memory_mb: float = 1024.0
    mcp_allowed_hosts: tuple[str, ...] = ()  # Host values the HTTP server answers besides its own
    # searches answered by a resident process that keeps the model and a connection warm
    # (codeatlas/resident.py); off: every command answers in its own process
    query_process: bool = True
    # processes that parse and tokenize files while the index run writes (0 or 1: none)
    parse_workers: int = 0

    def __post_init__(self) -> None:
        # `replace(settings, embedding_provider="fake")` (tests, benchmarks) is typed all the same
        provider = provider_named(self.embedding_provider)
        object.__setattr__(self, "embedding_provider", provider)

    @property
    def repos_dir(self) -> Path:
        """Where bare mirror clones of remote repositories live."""
        return self.state_dir / "repos"

    @property
    def git_credentials(self) -> tuple[str, str] | None:
        """(user name, token) for cloning private remotes over HTTPS, when a token is set."""
        return (self.git_username, self.git_token) if self.git_token else None


def load_settings() -> Settings:
    """Read the settings from the environment (and `.env` in the working directory)."""
    _load_dotenv()
    env = os.environ
    configured_state = env.get("CODEATLAS_STATE_DIR")
    state_dir = Path(configured_state).expanduser() if configured_state else default_state_dir()
    provider = provider_named(
        env.get("CODEATLAS_EMBEDDING_PROVIDER", Provider.LOCAL), "CODEATLAS_EMBEDDING_PROVIDER"
    )
    launcher = _choice("CODEATLAS_RUN_LAUNCHER", "warm", ("warm", "celery"))
    broker = env.get("CODEATLAS_CELERY_BROKER_URL") or None
    if launcher == "celery" and broker is None:
        raise ConfigurationError(
            "CODEATLAS_RUN_LAUNCHER=celery needs CODEATLAS_CELERY_BROKER_URL, e.g."
            ' redis://127.0.0.1:6379/0 (README, "Scaling out")'
        )
    return Settings(
        state_dir=state_dir.resolve(),
        database_url=env.get("CODEATLAS_DATABASE_URL") or None,
        embedding_provider=provider,
        embedding_model=env.get("CODEATLAS_EMBEDDING_MODEL") or None,
        embedding_dimensions=_int("CODEATLAS_EMBEDDING_DIMENSIONS", 0, maximum=16_000) or None,
        openai_base_url=env.get("CODEATLAS_OPENAI_BASE_URL") or None,
        openai_api_key=env.get("CODEATLAS_OPENAI_API_KEY") or env.get("OPENAI_API_KEY") or None,
        max_file_bytes=_int("CODEATLAS_MAX_FILE_BYTES", 1_000_000, maximum=1_000_000_000),
        chunk_max_tokens=_int("CODEATLAS_CHUNK_MAX_TOKENS", 256, maximum=100_000),
        run_wait_seconds=_int("CODEATLAS_RUN_WAIT_SECONDS", 3600, minimum=0, maximum=WEEK),
        state_dir_from="CODEATLAS_STATE_DIR" if configured_state else "default",
        max_concurrent_runs=_int("CODEATLAS_MAX_CONCURRENT_RUNS", 10, maximum=10_000),
        run_launcher=launcher,
        celery_broker_url=broker,
        read_database_url=env.get("CODEATLAS_READ_DATABASE_URL") or None,
        openai_concurrency=_int("CODEATLAS_OPENAI_CONCURRENCY", 4, maximum=1_000),
        openai_batch_size=_int("CODEATLAS_OPENAI_BATCH_SIZE", 96, maximum=10_000),
        server_idle_seconds=_int("CODEATLAS_SERVER_IDLE_SECONDS", 600, minimum=0, maximum=WEEK),
        local_runtime=_choice("CODEATLAS_LOCAL_RUNTIME", "ct2", ("ct2", "torch")),
        git_token=env.get("CODEATLAS_GIT_TOKEN") or None,
        git_username=env.get("CODEATLAS_GIT_USERNAME") or Settings.git_username,
        secret_key=env.get("CODEATLAS_SECRET_KEY") or None,
        dagster_storage_url=env.get("CODEATLAS_DAGSTER_STORAGE_URL") or None,
        dagster_url=env.get("CODEATLAS_DAGSTER_URL") or None,
        principal=env.get("CODEATLAS_PRINCIPAL") or None,
        # (0 hours: an overlay answered with success that no call ever sees)
        overlay_ttl_hours=_number(
            "CODEATLAS_OVERLAY_TTL_HOURS",
            Settings.overlay_ttl_hours,
            maximum=YEAR_HOURS,
            above=True,
        ),
        overlay_max_files=_int("CODEATLAS_OVERLAY_MAX_FILES", Settings.overlay_max_files),
        overlay_max_chunks=_int("CODEATLAS_OVERLAY_MAX_CHUNKS", Settings.overlay_max_chunks),
        index_file_seconds=_number(
            "CODEATLAS_INDEX_FILE_SECONDS", Settings.index_file_seconds, maximum=600
        ),
        mcp_max_concurrent=_int(
            "CODEATLAS_MCP_MAX_CONCURRENT", Settings.mcp_max_concurrent, maximum=10_000
        ),
        mcp_requests_per_minute=_int(
            "CODEATLAS_MCP_REQUESTS_PER_MINUTE",
            Settings.mcp_requests_per_minute,
            maximum=100_000_000,
        ),
        mcp_failed_tokens_per_minute=_int(
            "CODEATLAS_MCP_FAILED_TOKENS_PER_MINUTE", Settings.mcp_failed_tokens_per_minute
        ),
        request_seconds=_number(
            "CODEATLAS_REQUEST_SECONDS", Settings.request_seconds, maximum=3600, above=True
        ),
        request_memory_mb=_number(
            "CODEATLAS_REQUEST_MEMORY_MB", Settings.request_memory_mb, maximum=65_536, above=True
        ),
        mcp_allowed_hosts=tuple(
            host.strip()
            for host in env.get("CODEATLAS_MCP_ALLOWED_HOSTS", "").split(",")
            if host.strip()
        ),
        query_process=_switch("CODEATLAS_QUERY_PROCESS", default=True),
        parse_workers=_int(
            "CODEATLAS_PARSE_WORKERS", os.cpu_count() or 1, minimum=0, maximum=1_024
        ),
    )
