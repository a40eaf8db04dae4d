"""The MCP server's connection pools (the tools' pool, the read tools' pool on a streaming
replica, the token checks' pool): `ServingPool`s, whose failures are one typed
`DatabaseUnavailableError` (`DatabaseDownError` while PostgreSQL is down, answered at once), with
the hybrid search's spare connections on top."""

from __future__ import annotations

from core.serving_pool import ServingPool
from retrieval.concurrency import Connections, spare_connections


class DatabasePool(ServingPool):
    """`size` connections to `url` with dict rows and pgvector types (see `ServingPool`)."""

    def spare_connections(self) -> Connections:
        """Connections lent to a hybrid query's concurrent retrievers when one is free at once."""
        return spare_connections(self._pool)
