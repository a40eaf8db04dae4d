"""What one principal may use of a shared server: overlay lifetime and quota, the time
`index_file` may spend embedding, HTTP request rates and concurrency, failed-token attempts,
and the Host names the HTTP server answers to. Taken from the settings (`CODEATLAS_MCP_*` /
`CODEATLAS_OVERLAY_*`, core/config.py) when the server starts."""

from __future__ import annotations

from dataclasses import dataclass

from core.config import Settings


@dataclass(frozen=True)
class ServerLimits:
    """Limits of one server process; the defaults (the settings' own, documented there) suit a
    team sharing one server."""

    overlay_ttl_hours: float = Settings.overlay_ttl_hours
    overlay_max_files: int = Settings.overlay_max_files
    overlay_max_chunks: int = Settings.overlay_max_chunks
    index_file_seconds: float = Settings.index_file_seconds
    max_concurrent_requests: int = Settings.mcp_max_concurrent
    requests_per_minute: int = Settings.mcp_requests_per_minute
    failed_tokens_per_minute: int = Settings.mcp_failed_tokens_per_minute
    allowed_hosts: tuple[str, ...] = Settings.mcp_allowed_hosts  # extra Host values (HTTP)
    request_seconds: float = Settings.request_seconds  # one search's or locate's time budget
    request_memory_mb: float = Settings.request_memory_mb  # and its memory budget

    @classmethod
    def from_settings(cls, settings: Settings) -> ServerLimits:
        """The limits the settings give."""
        return cls(
            overlay_ttl_hours=settings.overlay_ttl_hours,
            overlay_max_files=settings.overlay_max_files,
            overlay_max_chunks=settings.overlay_max_chunks,
            index_file_seconds=settings.index_file_seconds,
            max_concurrent_requests=settings.mcp_max_concurrent,
            requests_per_minute=settings.mcp_requests_per_minute,
            failed_tokens_per_minute=settings.mcp_failed_tokens_per_minute,
            allowed_hosts=settings.mcp_allowed_hosts,
            request_seconds=settings.request_seconds,
            request_memory_mb=settings.request_memory_mb,
        )
