"""The server's typed app context: database pool, settings, query embedders per model, and how
a request's principal is found (fixed for stdio, from the bearer token over HTTP)."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codeatlas.core.config import Settings
from codeatlas.core.errors import CodeatlasError, DatabaseUnavailableError
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

    database_url: str
    settings: Settings
    principal_name: str | None  # fixed principal (stdio, in-process); None: from the token
    pool_size: int = 8
    limits: ServerLimits = field(default_factory=ServerLimits)
    _pool: ConnectionPool | None = field(default=None, init=False, repr=False)
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

    def auth_pool(self) -> ConnectionPool:
        """Two connections for bearer-token checks only."""
        with self._lock:
            if self._auth_pool is None:
                self._auth_pool = _open_pool(self.database_url, 2, "codeatlas-mcp-auth", None)
            return self._auth_pool

    @contextmanager
    def connection(self, *, auth: bool = False) -> Iterator[DbConnection]:
        """A pooled connection whose work commits on success (rolls back on error); `auth`
        takes it from the token-check pool."""
        import psycopg
        from psycopg_pool import PoolTimeout

        try:
            pool = self.auth_pool() if auth else self.pool()
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
            for pool in (self._pool, self._auth_pool):
                if pool is not None:
                    pool.close()
            self._pool = self._auth_pool = None

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
        from indexing.embedding_registry import embedder_for_model

        try:
            with self.connection() as conn:
                return embedder_for_model(model, conn, self.settings)
        except Exception as exc:  # noqa: BLE001 - a missing model only disables semantic search
            log.warning("no query embedder for %s (%s); semantic search is off for it", model, exc)
            return None

    def principal(self, conn: DbConnection) -> Principal:
        """Who is asking: the fixed principal, or the one behind the request's bearer token."""
        if self.principal_name is not None:
            if self.principal_name == OPERATOR_PRINCIPAL:
                return ensure_operator(conn)
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
