"""Settings, read only from `CODEATLAS_*` environment variables (or a `.env` file)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from codeatlas.core.errors import ConfigurationError

APP_NAME = "codeatlas"

_DOTENV_LOADED = False


def _load_dotenv() -> None:
    global _DOTENV_LOADED
    if not _DOTENV_LOADED:
        _DOTENV_LOADED = True
        env_file = Path.cwd() / ".env"
        if env_file.is_file():
            from dotenv import load_dotenv

            load_dotenv(env_file, override=False)


def _int(name: str, default: int, *, minimum: int = 1) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or value < minimum:
        kind = "a whole number" if minimum <= 0 else f"a whole number of at least {minimum}"
        raise ConfigurationError(f"{name} must be {kind}, got {raw!r}")
    return value


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
    embedding_provider: str  # local | openai | fake
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
    # searches answered by a resident process that keeps the model and a connection warm
    # (codeatlas/resident.py); off: every command answers in its own process
    query_process: bool = True

    @property
    def repos_dir(self) -> Path:
        """Where bare mirror clones of remote repositories live."""
        return self.state_dir / "repos"


def load_settings() -> Settings:
    """Read the settings from the environment (and `.env` in the working directory)."""
    _load_dotenv()
    env = os.environ
    configured_state = env.get("CODEATLAS_STATE_DIR")
    state_dir = Path(configured_state).expanduser() if configured_state else default_state_dir()
    provider = env.get("CODEATLAS_EMBEDDING_PROVIDER", "local")
    if provider not in ("local", "openai", "fake"):
        raise ConfigurationError(
            f"CODEATLAS_EMBEDDING_PROVIDER must be local, openai or fake, got {provider!r}"
        )
    launcher = env.get("CODEATLAS_RUN_LAUNCHER", "warm")
    if launcher not in ("warm", "celery"):
        raise ConfigurationError(f"CODEATLAS_RUN_LAUNCHER must be warm or celery, got {launcher!r}")
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
        embedding_dimensions=_int("CODEATLAS_EMBEDDING_DIMENSIONS", 0) or None,
        openai_base_url=env.get("CODEATLAS_OPENAI_BASE_URL") or None,
        openai_api_key=env.get("CODEATLAS_OPENAI_API_KEY") or env.get("OPENAI_API_KEY") or None,
        max_file_bytes=_int("CODEATLAS_MAX_FILE_BYTES", 1_000_000),
        chunk_max_tokens=_int("CODEATLAS_CHUNK_MAX_TOKENS", 256),
        run_wait_seconds=_int("CODEATLAS_RUN_WAIT_SECONDS", 3600, minimum=0),
        state_dir_from="CODEATLAS_STATE_DIR" if configured_state else "default",
        max_concurrent_runs=_int("CODEATLAS_MAX_CONCURRENT_RUNS", 10),
        run_launcher=launcher,
        celery_broker_url=broker,
        read_database_url=env.get("CODEATLAS_READ_DATABASE_URL") or None,
        openai_concurrency=_int("CODEATLAS_OPENAI_CONCURRENCY", 4),
        openai_batch_size=_int("CODEATLAS_OPENAI_BATCH_SIZE", 96),
        server_idle_seconds=_int("CODEATLAS_SERVER_IDLE_SECONDS", 600, minimum=0),
        query_process=_switch("CODEATLAS_QUERY_PROCESS", default=True),
    )
