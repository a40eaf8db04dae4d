"""The server's typed app context: database pools (the primary, and a streaming replica for the
read tools when one is configured), settings, query embedders per model, and how a request's
principal is found (fixed for stdio, from the bearer token over HTTP)."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codeatlas.config import Settings
from codeatlas.errors import CodeatlasError, DatabaseUnavailableError
from mcp_app.limits import ServerLimits
from retrieval.principals import (
    OPERATOR_PRINCIPAL,
    DbConnection,
    Principal,
    ensure_operator,
    get_principal,
    principal_by_id,
)

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

log = logging.getLogger(__name__)


class NotAuthenticatedError(CodeatlasError):
    """A request reached a tool without a principal (no valid bearer token)."""


@dataclass
class AppState:
    """What every tool call needs; built once per server process."""

    database_url: str  # the primary: writes, token checks, and reads when no replica is set
    settings: Settings
    principal_name: str | None  # fixed principal (stdio, in-process); None: from the token
    pool_size: int = 8
    limits: ServerLimits = field(default_factory=ServerLimits)
    read_database_url: str | None = None  # a streaming replica for the read-only tools
    _pool: ConnectionPool | None = field(default=None, init=False, repr=False)
    _read_pool: ConnectionPool | None = field(default=None, init=False, repr=False)
    # token checks have their own connections: busy tools must not make valid tokens fail
    _auth_pool: ConnectionPool | None = field(default=None, init=False, repr=False)
    # re-entrant: loading an embedder opens a pooled connection under the same lock
    _lock: threading.RLock = field(default_factory=threading.RLock, init=False, repr=False)
    _embedders: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    def pool(self) -> ConnectionPool:
        """The tools' connection pool (opened on first use; psycopg_pool imported lazily)."""
        with self._lock:
            if self._pool is None:
                from pgvector.psycopg import register_vector

                self._pool = _open_pool(
                    self.database_url, self.pool_size, "codeatlas-mcp", register_vector
                )
            return self._pool

    def read_pool(self) -> ConnectionPool:
        """The read tools' pool: on the replica when one is configured, else the tools' pool."""
        if self.read_database_url is None:
            return self.pool()
        with self._lock:
            if self._read_pool is None:
                self._read_pool = _open_pool(
                    self.read_database_url, self.pool_size, "codeatlas-mcp-read", _read_only
                )
            return self._read_pool

    def auth_pool(self) -> ConnectionPool:
        """Two connections for bearer-token checks only."""
        with self._lock:
            if self._auth_pool is None:
                self._auth_pool = _open_pool(self.database_url, 2, "codeatlas-mcp-auth", None)
            return self._auth_pool

    @contextmanager
    def connection(self, *, auth: bool = False, read: bool = False) -> Iterator[DbConnection]:
        """A pooled connection whose work commits on success (rolls back on error); `auth`
        takes it from the token-check pool, `read` from the replica's (read-only) pool."""
        import psycopg
        from psycopg_pool import PoolTimeout

        try:
            pool = self.auth_pool() if auth else self.read_pool() if read else self.pool()
            with pool.connection(timeout=10) as conn:
                yield conn
        except (PoolTimeout, psycopg.OperationalError) as exc:
            log.warning("index database unavailable: %s", exc)
            raise DatabaseUnavailableError(
                "the index database is unavailable right now; try again shortly"
            ) from exc

    def close(self) -> None:
        """Close the pool (at server shutdown)."""
        with self._lock:
            for pool in (self._pool, self._read_pool, self._auth_pool):
                if pool is not None:
                    pool.close()
            self._pool = self._read_pool = self._auth_pool = None

    def replica_lag(self, replica: DbConnection) -> dict[str, Any] | None:
        """How far `replica` (a read connection) trails the primary; None without a replica."""
        from retrieval.status import replica_lag

        if self.read_database_url is None:
            return None
        # the tools' pool is on the primary and, with a replica, used by the write tools only
        with self.connection() as primary:
            return replica_lag(replica, primary)

    def embed_query(self, model: str, text: str) -> Sequence[float] | None:
        """A query vector in `model`'s space, or None when no embedder for it can be built."""
        with self._lock:
            if model not in self._embedders:
                self._embedders[model] = self._load_embedder(model)
            embedder = self._embedders[model]
        return embedder.embed_query(text) if embedder is not None else None

    def embedder_for(self, model: str) -> Any | None:
        """An embedder producing `model`'s vectors (cached), else None."""
        with self._lock:
            if model not in self._embedders:
                self._embedders[model] = self._load_embedder(model)
            return self._embedders[model]

    def _load_embedder(self, model: str) -> Any | None:
        """The embedder that produced `model`'s vectors (rebuilt from its stored spec)."""
        from assets.embedding_registry import embedder_for_model

        try:
            with self.connection(read=True) as conn:
                return embedder_for_model(model, conn, self.settings)
        except Exception as exc:  # noqa: BLE001 - a missing model only disables semantic search
            log.warning("no query embedder for %s (%s); semantic search is off for it", model, exc)
            return None

    def principal(self, conn: DbConnection) -> Principal:
        """Who is asking: the fixed principal, or the one behind the request's bearer token."""
        if self.principal_name is not None:
            if self.principal_name == OPERATOR_PRINCIPAL and not conn.read_only:
                return ensure_operator(conn)  # on a replica it exists: made at start-up
            return get_principal(conn, self.principal_name)
        from mcp.server.auth.middleware.auth_context import get_access_token

        token = get_access_token()
        subject = token.subject if token is not None else None
        principal = principal_by_id(conn, int(subject)) if subject and subject.isdigit() else None
        if principal is None:
            raise NotAuthenticatedError("authentication required: send a valid bearer token")
        return principal


def _open_pool(url: str, size: int, name: str, configure: Any) -> ConnectionPool:
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    pool = ConnectionPool(
        url,
        min_size=1,
        max_size=size,
        kwargs={"row_factory": dict_row},
        configure=configure,
        open=False,
        name=name,
    )
    pool.open(wait=False)
    return pool


def _read_only(conn: Any) -> None:
    """A replica's connections: pgvector types, and read-only sessions (a replica refuses
    writes anyway; this makes a misrouted write fail the same way on any server)."""
    from pgvector.psycopg import register_vector

    conn.read_only = True
    register_vector(conn)
    conn.commit()


EXPIRY_INTERVAL_SECONDS = 600


def _expire_overlays(state: AppState) -> None:
    from mcp_app.overlay_retention import expire

    try:
        with state.connection() as conn:
            dropped = expire(conn, state.limits)
        if dropped:
            log.info("dropped %d expired working-tree files", dropped)
    except CodeatlasError as exc:  # the database is down: the next round tries again
        log.warning("could not drop expired working-tree files: %s", exc)


def make_lifespan(state: AppState):
    """A lifespan that yields `state`, drops expired overlays now and every 10 minutes, and
    closes the pool when the server stops."""
    import anyio

    async def expire_periodically() -> None:
        while True:
            await anyio.to_thread.run_sync(_expire_overlays, state)
            await anyio.sleep(EXPIRY_INTERVAL_SECONDS)

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[AppState]:
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(expire_periodically)
                yield state
                tasks.cancel_scope.cancel()
        finally:
            state.close()

    return lifespan
