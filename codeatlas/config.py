"""Settings, read only from `CODEATLAS_*` environment variables (or a `.env` file)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from codeatlas.errors import ConfigurationError

_DOTENV_LOADED = False


def _load_dotenv() -> None:
    global _DOTENV_LOADED
    if not _DOTENV_LOADED:
        _DOTENV_LOADED = True
        env_file = Path.cwd() / ".env"
        if env_file.is_file():
            from dotenv import load_dotenv

            load_dotenv(env_file, override=False)


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ConfigurationError(f"{name} must be a whole number, got {raw!r}") from exc


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

    @property
    def repos_dir(self) -> Path:
        """Where bare mirror clones of remote repositories live."""
        return self.state_dir / "repos"


def load_settings() -> Settings:
    """Read the settings from the environment (and `.env` in the working directory)."""
    _load_dotenv()
    env = os.environ
    state_dir = Path(env.get("CODEATLAS_STATE_DIR") or Path.cwd() / ".state").expanduser()
    dims = env.get("CODEATLAS_EMBEDDING_DIMENSIONS")
    provider = env.get("CODEATLAS_EMBEDDING_PROVIDER", "local")
    if provider not in ("local", "openai", "fake"):
        raise ConfigurationError(
            f"CODEATLAS_EMBEDDING_PROVIDER must be local, openai or fake, got {provider!r}"
        )
    return Settings(
        state_dir=state_dir.resolve(),
        database_url=env.get("CODEATLAS_DATABASE_URL") or None,
        embedding_provider=provider,
        embedding_model=env.get("CODEATLAS_EMBEDDING_MODEL") or None,
        embedding_dimensions=int(dims) if dims else None,
        openai_base_url=env.get("CODEATLAS_OPENAI_BASE_URL") or None,
        openai_api_key=env.get("CODEATLAS_OPENAI_API_KEY") or env.get("OPENAI_API_KEY") or None,
        max_file_bytes=_int("CODEATLAS_MAX_FILE_BYTES", 1_000_000),
        chunk_max_tokens=_int("CODEATLAS_CHUNK_MAX_TOKENS", 256),
        run_wait_seconds=_int("CODEATLAS_RUN_WAIT_SECONDS", 3600),
    )
