"""The server's typed lifespan context: `app_lifespan` builds the tools' connection pool, the
query embedders and the retriever once when the server starts, and every tool reaches them
through `ctx.request_context.lifespan_context`; `tool_call` gives a tool its connection and the
principal asking (fixed for stdio, from the bearer token over HTTP). With a streaming replica
configured, the read tools (and the query embedders' loading) use a read-only pool on it and say
how far it trails; the write tools, token checks and overlay expiry stay on the primary."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncGenerator, Callable, Generator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
import psycopg
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError

from core.config import Settings
from core.errors import CodeatlasError, DatabaseUnavailableError
from core.serving_pool import RETRY_AFTER_SECONDS
from mcp_app.limits import ServerLimits
from mcp_app.pool import DatabasePool
from retrieval.concurrency import Connections
from retrieval.principals import (
    OPERATOR_PRINCIPAL,
    DbConnection,
    Principal,
    ensure_operator,
    get_principal,
    principal_by_id,
)
from retrieval.scope import Scope
from retrieval.search import SearchReport, search_code
from retrieval.semantic import QueryEmbedder
from retrieval.status import ReplicaLag, replica_lag

log = logging.getLogger(__name__)

EXPIRY_INTERVAL_SECONDS = 600
# JSON-RPC's implementation-defined server error range (-32000 to -32099): the database is down
DATABASE_UNAVAILABLE = -32050


class NotAuthenticatedError(CodeatlasError):
    """A request reached a tool without a principal (no valid bearer token)."""


@dataclass(frozen=True)
class ServerConfig:
    """What a server is built from, before it runs."""

    database_url: str  # the primary: writes, token checks, and reads when no replica is set
    settings: Settings
    principal_name: str | None  # fixed principal (stdio, in-process); None: from the token
    limits: ServerLimits = field(default_factory=ServerLimits)
    pool_size: int = 8
    read_database_url: str | None = None  # a streaming replica for the read tools


class QueryEmbedders:
    """One query embedder per embedding model, rebuilt from the spec stored when the model
    indexed and kept for the server's life; None for a model no embedder can be built for (not
    remembered when the pool had no connection free: a later query tries again)."""

    def __init__(self, settings: Settings, database: DatabasePool) -> None:
        self.settings, self.database = settings, database
        self._embedders: dict[str, Any | None] = {}
        self._lock = threading.Lock()

    def embedder_for(self, model: str) -> Any | None:
        """The embedder producing `model`'s vectors (built once), else None."""
        with self._lock:
            if model in self._embedders:
                return self._embedders[model]
            try:
                with self.database.connection() as conn:
                    embedder = self._load(model, conn)
            except DatabaseUnavailableError:  # busy or down: try again on a later query
                return None
            self._embedders[model] = embedder
            return embedder

    def embed_query(self, model: str, text: str) -> Sequence[float] | None:
        """A query vector in `model`'s space, or None when no embedder for it can be built."""
        embedder = self.embedder_for(model)
        return embedder.embed_query(text) if embedder is not None else None

    def _load(self, model: str, conn: DbConnection) -> Any | None:
        from indexing.embedding_registry import embedder_for_model

        try:
            return embedder_for_model(model, conn, self.settings)
        except Exception as exc:  # noqa: BLE001 - a missing model only disables semantic search
            log.warning("no query embedder for %s (%s); semantic search is off for it", model, exc)
            return None


@dataclass(frozen=True)
class Retriever:
    """Hybrid search (`retrieval.search`) with the server's query embedders."""

    embed_query: QueryEmbedder
    # connections for a hybrid query's other retrievers, so they run at the same time
    connections: Connections | None = None

    def search(
        self, conn: DbConnection, scope: Scope, query: str, *, limit: int, offset: int, mode: str
    ) -> SearchReport:
        """Hits for `query` in `scope`, `limit` from `offset`, with notes on skipped models."""
        return search_code(
            conn,
            scope,
            query,
            limit=limit,
            offset=offset,
            mode=mode,
            embed_query=self.embed_query,
            connections=self.connections,
        )


@dataclass(frozen=True)
class AppContext:
    """What every tool call needs; built once per server run by `app_lifespan`."""

    config: ServerConfig
    database: DatabasePool  # the primary
    replica: DatabasePool | None  # read-only, on CODEATLAS_READ_DATABASE_URL when set
    embedders: QueryEmbedders
    retriever: Retriever

    @property
    def reads(self) -> DatabasePool:
        """The read tools' pool: the replica's when one is configured, else the primary's."""
        return self.replica if self.replica is not None else self.database

    def replica_lag(self, replica: DbConnection) -> ReplicaLag | None:
        """How far `replica` (a connection of the replica's pool) trails the primary."""
        with self.database.connection() as primary:
            return replica_lag(replica, primary)

    @property
    def settings(self) -> Settings:
        """The codeatlas settings the server started with."""
        return self.config.settings

    @property
    def limits(self) -> ServerLimits:
        """The per-principal limits the server started with."""
        return self.config.limits


ToolContext = Context[AppContext, Any]


def request_principal(conn: DbConnection, principal_name: str | None) -> Principal:
    """Who is asking: the fixed principal (the operator 'local' is created on first use), or
    the one behind the request's bearer token."""
    if principal_name is not None:
        if principal_name == OPERATOR_PRINCIPAL and not conn.read_only:
            return ensure_operator(conn)  # on a replica it exists: made at start-up
        return get_principal(conn, principal_name)
    from mcp.server.auth.middleware.auth_context import get_access_token

    token = get_access_token()
    subject = token.subject if token is not None else None
    principal = principal_by_id(conn, int(subject)) if subject and subject.isdigit() else None
    if principal is None:
        raise NotAuthenticatedError("authentication required: send a valid bearer token")
    return principal


@dataclass(frozen=True)
class ToolCall:
    """One tool call: the app context, a pooled connection, the principal asking and, on a
    replica, how far it trailed the primary when the call began (the answer is no older)."""

    app: AppContext
    conn: DbConnection
    principal: Principal
    replica: ReplicaLag | None = None


@contextmanager
def tool_call(ctx: ToolContext, *, writes: bool = False) -> Generator[ToolCall, None, None]:
    """A connection for the call (committed when it succeeds) and its principal: on the replica
    unless the tool `writes`. Errors users can cause become one-line tool errors (never a
    traceback or a database message)."""
    app = ctx.request_context.lifespan_context
    try:
        pool = app.database if writes else app.reads
        with pool.connection() as conn:
            lag = app.replica_lag(conn) if pool is app.replica else None
            principal = request_principal(conn, app.config.principal_name)
            yield ToolCall(app, conn, principal, lag)
    except DatabaseUnavailableError as exc:
        # not the tool's answer but the server's state: a JSON-RPC error a client can retry on
        retry_after = getattr(exc, "retry_after", RETRY_AFTER_SECONDS)
        raise MCPError(DATABASE_UNAVAILABLE, str(exc), {"retry_after": retry_after}) from None
    except CodeatlasError as exc:
        raise ToolError(str(exc)) from None
    except psycopg.DataError as exc:  # a value PostgreSQL cannot take, missed by validation
        log.warning("tool call: database rejected an argument: %s", exc)
        raise ToolError("an argument holds characters the index cannot search for") from None


def _expire_overlays(app: AppContext) -> None:
    from mcp_app.overlay_retention import expire

    try:
        with app.database.connection() as conn:
            dropped = expire(conn)
        if dropped:
            log.info("dropped %d expired working-tree files", dropped)
    except CodeatlasError as exc:  # the database is down: the next round tries again
        log.warning("could not drop expired working-tree files: %s", exc)


def app_lifespan(
    config: ServerConfig,
) -> Callable[[Any], AbstractAsyncContextManager[AppContext]]:
    """The server's lifespan: build the context, drop expired overlays now and every 10
    minutes while serving, close the pools when the server stops."""

    async def expire_periodically(app: AppContext) -> None:
        while True:
            await anyio.to_thread.run_sync(_expire_overlays, app)
            await anyio.sleep(EXPIRY_INTERVAL_SECONDS)

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncGenerator[AppContext, None]:
        database = DatabasePool(config.database_url, config.pool_size, "codeatlas-mcp")
        replica = None
        if config.read_database_url is not None:
            replica = DatabasePool(
                config.read_database_url, config.pool_size, "codeatlas-mcp-read", read_only=True
            )
        embedders = QueryEmbedders(config.settings, replica or database)
        retriever = Retriever(embedders.embed_query, (replica or database).spare_connections())
        app = AppContext(config, database, replica, embedders, retriever)
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(expire_periodically, app)
                yield app
                tasks.cancel_scope.cancel()
        finally:
            database.close()
            if replica is not None:
                replica.close()

    return lifespan
