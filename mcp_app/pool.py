"""A psycopg connection pool whose connections return dict rows and whose failures are one
`DatabaseUnavailableError` (built by the database's one owner, `codeatlas.core.database.open_pool`):
the tools' pool, the read tools' pool on a streaming replica, and the token checks' pool."""

from __future__ import annotations

import logging
from collections.abc import Generator
from contextlib import contextmanager

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from codeatlas.core.database import open_pool
from codeatlas.core.errors import DatabaseUnavailableError
from retrieval.concurrency import Connections, spare_connections
from retrieval.principals import DbConnection

log = logging.getLogger(__name__)

CHECKOUT_SECONDS = 10


class DatabasePool:
    """`size` connections to `url`, opened in the background; a checkout waits at most
    `checkout_seconds` for a free (or first) connection; `read_only` sessions on a replica."""

    def __init__(
        self,
        url: str,
        size: int,
        name: str,
        checkout_seconds: float = CHECKOUT_SECONDS,
        *,
        read_only: bool = False,
    ) -> None:
        self.size, self.checkout_seconds = size, checkout_seconds
        self._pool: ConnectionPool[DbConnection] = open_pool(
            url, max_size=size, name=name, read_only=read_only
        )

    @contextmanager
    def connection(self) -> Generator[DbConnection, None, None]:
        """A pooled connection whose work commits on success (rolls back on error)."""
        try:
            with self._pool.connection(timeout=self.checkout_seconds) as conn:
                yield conn
        except (PoolTimeout, psycopg.OperationalError) as exc:
            log.warning("index database unavailable: %s", exc)
            raise DatabaseUnavailableError(
                "the index database is unavailable right now; try again shortly"
            ) from exc

    def spare_connections(self) -> Connections:
        """Connections lent to a hybrid query's concurrent retrievers when one is free at once."""
        return spare_connections(self._pool)

    def close(self) -> None:
        """Close every connection (at server shutdown)."""
        self._pool.close()
