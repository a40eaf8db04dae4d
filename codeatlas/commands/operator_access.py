"""How a command run here reaches the index as the operator: a connection (on the read replica
when one is configured), the operator's scope, an embedder for queries, a note when the replica
trails. Shared by `search`, `symbols`, `callers` (codeatlas/commands/search.py) and `locate`.

Like the commands, it imports only the standard library at module level: the client that asks
the resident query process first stays light.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from typing import Any


@contextmanager
def opened(repo: str | None) -> Iterator[tuple[Any, Any, Any]]:
    """(settings, connection, scope) for the operator reading one repository (None: every
    repository): on the replica when CODEATLAS_READ_DATABASE_URL names one, else on the
    primary."""
    from core.config import load_settings
    from core.database import connection, ensure_index_database
    from retrieval.principals import ensure_operator

    settings = load_settings()
    with connection(ensure_index_database(settings), autocommit=True) as conn:
        operator = ensure_operator(conn)  # a write: on the primary
        if not settings.read_database_url:
            yield settings, conn, operator_scope(conn, operator, repo)
            return
    with _replica(settings.read_database_url) as replica:
        yield settings, replica, operator_scope(replica, operator, repo)


def operator_scope(conn: Any, operator: Any, repo: str | None) -> Any:
    """The operator's scope over `repo` (None: every repository); an unknown name is told the
    command line's way (the retrieval layer's message names the MCP tool list_repositories)."""
    from core.errors import RepositoryNotFoundError
    from retrieval.scope import resolve_scope

    try:
        scope = resolve_scope(conn, operator, [repo] if repo else None)
    except RepositoryNotFoundError:
        raise RepositoryNotFoundError(
            f"no repository named {repo!r}; `codeatlas status` lists the indexed ones,"
            f" `codeatlas index PATH --name {repo}` adds one"
        ) from None
    if repo is None and not scope.repositories:  # an answer of nothing would look like a miss
        raise RepositoryNotFoundError(
            "no repository is indexed yet: `codeatlas index PATH` adds one"
            " (`codeatlas status` shows one still being indexed)"
        )
    return scope


@contextmanager
def _replica(url: str) -> Iterator[Any]:
    """A connection to the read replica, or an error that names its setting."""
    from urllib.parse import urlsplit

    from core.database import connect
    from core.errors import DatabaseUnavailableError

    try:
        conn = connect(url, autocommit=True)
    except DatabaseUnavailableError as exc:
        raise DatabaseUnavailableError(
            f"cannot reach the read replica at {urlsplit(url).hostname or 'its socket'}"
            " (CODEATLAS_READ_DATABASE_URL); is it running? Unset CODEATLAS_READ_DATABASE_URL"
            " to read from the primary."
        ) from exc
    with closing(conn):
        yield conn


def note_replica_lag(settings: Any, replica: Any) -> None:
    """Say on stderr when the answer came from a replica that trails the primary."""
    from core.database import connection, index_database_url
    from retrieval.status import replica_lag

    if not settings.read_database_url:
        return
    with connection(index_database_url(settings), autocommit=True) as primary:
        lag = replica_lag(replica, primary)
    if lag and lag["behind_bytes"]:
        print(
            f"note: read from a replica {lag['lag_seconds']:.1f} s behind the primary"
            f" ({lag['behind_bytes']} bytes of changes not replayed yet)",
            file=sys.stderr,
        )


def query_embedder(settings: Any, conn: Any) -> Any:
    """`embed_query(model, text)` with an embedder for the repository's active model."""
    loaded: dict[str, Any] = {}

    def embed_query(model: str, text: str) -> Sequence[float] | None:
        from core.errors import ConfigurationError
        from indexing.embedding_registry import embedder_for_model

        if model not in loaded:
            try:
                loaded[model] = embedder_for_model(model, conn, settings)
            except ConfigurationError as exc:
                print(f"note: semantic search skipped: {exc}", file=sys.stderr)
                loaded[model] = None
        embedder = loaded[model]
        return embedder.embed_query(text) if embedder is not None else None

    return embed_query
