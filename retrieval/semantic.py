"""Semantic retriever: HNSW over `chunk_embeddings`, one embedding model at a time.

The distance expression and the model filter are written exactly as the partial index
(`(embedding::halfvec(N)) <=> q ... WHERE embedding_model = '<model>'`, model as a literal) so the
planner can prove the index applies even for prepared statements.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from pgvector import HalfVector
from psycopg import sql

from core.database import Row
from indexing import chunk_embeddings, embedding_registry
from retrieval.lexical import CANDIDATE_COLUMNS
from retrieval.scope import VISIBLE_FILES, DbConnection, Scope, visible_files_among

# (model name, query text) -> query vector, or None to skip the semantic retriever for that model
QueryEmbedder = Callable[[str, str], "Sequence[float] | None"]

MAX_EF_SEARCH = 1000
# scopes with at most this many chunks are searched exactly instead of through the HNSW index
EXACT_SEARCH_MAX = 20_000


def model_dimensions(conn: DbConnection, model: str) -> int | None:
    """Dimensions a model was registered with (None: no vector of it was ever stored)."""
    row = embedding_registry.registered_dimensions(conn, model)
    return row["dimensions"] if row else None


def _model_and_scope(conn: DbConnection, model: str, repo_ids: list[int]) -> tuple[int | None, int]:
    """The model's dimensions (as `model_dimensions`) and the chunks of the repositories'
    current snapshots (an upper bound of their vectors), in one round trip."""
    row = embedding_registry.dimensions_and_scope_size(conn, model, repo_ids)
    return (row["dims"], int(row["n"])) if row else (None, 0)


def semantic_candidates(
    conn: DbConnection,
    scope: Scope,
    model: str,
    vector: Sequence[float],
    limit: int,
) -> list[Row]:
    """Nearest chunks of the scope's repositories that use `model`, best first."""
    repo_ids = [r.repository_id for r in scope.repositories if r.active_model == model]
    if not repo_ids:
        return []
    dims, vectors = _model_and_scope(conn, model, repo_ids)
    if dims is None or len(vector) != dims:
        return []
    # distinct contents are shared by many files: over-fetch, then keep the visible ones
    candidates = min(MAX_EF_SEARCH, max(100, limit * 8))
    exact = vectors <= EXACT_SEARCH_MAX
    if exact:
        # a small scope among many repositories: an exact scan of its own vectors beats walking
        # a graph where most neighbours are filtered out
        distance = sql.SQL("e.embedding <=> %(qv)s::halfvec({dims})").format(dims=sql.Literal(dims))
        template = chunk_embeddings.nearest_template(exact=True)
        visible = VISIBLE_FILES
    else:
        distance = sql.SQL("(e.embedding::halfvec({dims})) <=> %(qv)s::halfvec({dims})").format(
            dims=sql.Literal(dims)
        )
        template = chunk_embeddings.nearest_template(exact=False)
        visible = visible_files_among("SELECT file_version_id FROM hits")
    query = sql.SQL(template).format(
        visible_files=sql.SQL(visible),
        candidate_columns=sql.SQL(CANDIDATE_COLUMNS),
        distance=distance,
        model=sql.Literal(model),
    )
    params = {
        **scope.params(),
        "qv": HalfVector(np.asarray(vector, dtype=np.float32)),
        "repo_ids": repo_ids,
        "candidates": candidates,
        "limit": limit,
    }
    with conn.transaction():
        # relaxed_order: keep scanning the graph until enough rows pass the filters
        conn.execute(
            "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),"
            " set_config('hnsw.ef_search', %s, true)",
            (str(candidates),),
        )
        return conn.execute(query, params).fetchall()
