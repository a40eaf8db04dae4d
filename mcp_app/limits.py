"""What one principal may use of a shared server: overlay lifetime and quota, the time
`index_file` may spend embedding, HTTP request rates and concurrency, failed-token attempts,
and the Host names the HTTP server answers to. Read from `CODEATLAS_MCP_*` / `CODEATLAS_OVERLAY_*`
environment variables when the server starts."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from codeatlas.core.errors import ConfigurationError


@dataclass(frozen=True)
class ServerLimits:
    """Limits of one server process; the defaults suit a team sharing one server."""

    overlay_ttl_hours: float = 24.0  # working-tree files are dropped this long after indexing
    overlay_max_files: int = 200  # per principal, over all repositories
    overlay_max_chunks: int = 3000  # index_file refuses files that parse into more chunks
    index_file_seconds: float = 4.5  # index_file embeds what it can until this much has passed
    max_concurrent_requests: int = 4  # per principal, HTTP requests in flight (429 beyond)
    requests_per_minute: int = 300  # per principal (429 with Retry-After beyond)
    failed_tokens_per_minute: int = 20  # per client address; further attempts get 429
    allowed_hosts: tuple[str, ...] = field(default_factory=tuple)  # extra Host values (HTTP)

    @classmethod
    def from_env(cls) -> ServerLimits:
        """Defaults overridden by the environment (a clear error for a malformed value)."""
        env = os.environ
        hosts = env.get("CODEATLAS_MCP_ALLOWED_HOSTS", "")
        return cls(
            overlay_ttl_hours=_number("CODEATLAS_OVERLAY_TTL_HOURS", cls.overlay_ttl_hours),
            overlay_max_files=int(_number("CODEATLAS_OVERLAY_MAX_FILES", cls.overlay_max_files)),
            overlay_max_chunks=int(_number("CODEATLAS_OVERLAY_MAX_CHUNKS", cls.overlay_max_chunks)),
            index_file_seconds=_number("CODEATLAS_INDEX_FILE_SECONDS", cls.index_file_seconds),
            max_concurrent_requests=int(
                _number("CODEATLAS_MCP_MAX_CONCURRENT", cls.max_concurrent_requests)
            ),
            requests_per_minute=int(
                _number("CODEATLAS_MCP_REQUESTS_PER_MINUTE", cls.requests_per_minute)
            ),
            failed_tokens_per_minute=int(
                _number("CODEATLAS_MCP_FAILED_TOKENS_PER_MINUTE", cls.failed_tokens_per_minute)
            ),
            allowed_hosts=tuple(h.strip() for h in hosts.split(",") if h.strip()),
        )


def _number(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigurationError(f"{name} must be a number, got {raw!r}") from None
    if value < 0:
        raise ConfigurationError(f"{name} must not be negative, got {raw!r}")
    return value
