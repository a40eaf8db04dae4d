"""Vectors of chunk contents, one per (embedding model, content hash), shared by every
repository holding that content, with one partial HNSW index per model.

The owner of the table `chunk_embeddings` (docs/architecture.md, "One owner per table"): every
statement that writes it, and every read of it outside `sql/`, is a function here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, LiteralString

import numpy as np
from pgvector import HalfVector
from psycopg import sql

from core.database import DictConnection, Row
from core.sql_files import composed, statement, statement_template
from indexing.snapshot_files import ENTERING_FILE_VERSIONS

_MISSING_IN_ENTERING_SQL = composed(
    statement_template("chunk_embeddings", "missing_in_entering"), entering=ENTERING_FILE_VERSIONS
)
_COVERAGE_OF_ENTERING_SQL = composed(
    statement_template("chunk_embeddings", "coverage_of_entering"), entering=ENTERING_FILE_VERSIONS
)


def create_model_index(conn: DictConnection, index: str, dimensions: int, model: str) -> None:
    """The partial HNSW index of one model's vectors (once; safe to call again)."""
    # DDL takes no bound parameters: the name and values are composed as quoted SQL
    conn.execute(
        sql.SQL(
            "CREATE INDEX IF NOT EXISTS {index} ON chunk_embeddings USING hnsw"
            " ((embedding::halfvec({dimensions})) halfvec_cosine_ops)"
            " WHERE embedding_model = {model}"
        ).format(
            index=sql.Identifier(index),
            dimensions=sql.Literal(int(dimensions)),
            model=sql.Literal(model),
        )
    )


def store(
    conn: DictConnection,
    model: str,
    content_hashes: Sequence[str],
    vectors: Sequence[Sequence[float]],
) -> None:
    """Upsert vectors for content hashes (one row per model and content, shared by every
    repository holding that content)."""
    with conn.cursor() as cur:
        cur.executemany(
            statement("chunk_embeddings", "store"),
            [
                {
                    "model": model,
                    "content_hash": h,
                    "embedding": HalfVector(np.asarray(v, dtype=np.float32)),
                }
                for h, v in zip(content_hashes, vectors, strict=True)
            ],
        )


def missing_in_file_version(
    conn: DictConnection, file_version_id: int, model: str
) -> list[dict[str, Any]]:
    """Distinct contents of a file version's chunks with no vector for `model` (content, and
    the first qualified name holding it), shortest first."""
    return conn.execute(
        statement("chunk_embeddings", "missing_in_file_version"),
        {"file_version_id": file_version_id, "model": model},
    ).fetchall()


def delete_unused(conn: DictConnection) -> int:
    """Delete the vectors of contents no chunk holds any more; how many."""
    return conn.execute(statement("chunk_embeddings", "delete_unused")).rowcount


def delete_unused_among(conn: DictConnection, content_hashes: list[str]) -> None:
    """Delete the vectors of these contents that no chunk of any repository holds any more."""
    conn.execute(
        statement("chunk_embeddings", "delete_unused_among"), {"content_hashes": content_hashes}
    )


def delete_model(conn: DictConnection, model: str) -> int:
    """Delete every vector of `model`; how many."""
    return conn.execute(statement("chunk_embeddings", "delete_model"), {"model": model}).rowcount


def models_overview(conn: DictConnection) -> list[dict[str, Any]]:
    """Per stored model: dimensions, provider, its vectors and the repositories using it."""
    return conn.execute(statement("chunk_embeddings", "models_overview")).fetchall()


def missing(conn: DictConnection, snapshot_id: int, model: str, base_id: int | None) -> list[Row]:
    """(content_hash, length) of the snapshot's chunk contents with no vector for `model`; with
    `base_id`, only those of the file versions that entered since that snapshot."""
    if base_id is not None:
        return conn.execute(
            _MISSING_IN_ENTERING_SQL,
            {"snapshot_id": snapshot_id, "model": model, "base_id": base_id},
        ).fetchall()
    return conn.execute(
        statement("chunk_embeddings", "missing_in_snapshot"),
        {"snapshot_id": snapshot_id, "model": model},
    ).fetchall()


def documents_to_embed(conn: DictConnection, snapshot_id: int, hashes: list[str]) -> list[Row]:
    """(content_hash, content, path, qualified_name) of each hash, at one of its paths in the
    snapshot."""
    return conn.execute(
        statement("chunk_embeddings", "documents_to_embed"),
        {"snapshot_id": snapshot_id, "hashes": hashes},
    ).fetchall()


def coverage_of_snapshot(conn: DictConnection, snapshot_id: int, model: str) -> tuple[int, int]:
    """(distinct chunk contents with a vector for `model`, distinct chunk contents)."""
    row = conn.execute(
        statement("chunk_embeddings", "coverage_of_snapshot"),
        {"snapshot_id": snapshot_id, "model": model},
    ).fetchone()
    assert row is not None
    return row["embedded"], row["total"]


def coverage_of_entering(
    conn: DictConnection, snapshot_id: int, model: str, base_id: int
) -> tuple[int, int]:
    """`coverage_of_snapshot` over the file versions that entered since `base_id`."""
    row = conn.execute(
        _COVERAGE_OF_ENTERING_SQL,
        {"snapshot_id": snapshot_id, "model": model, "base_id": base_id},
    ).fetchone()
    assert row is not None
    return row["embedded"], row["total"]


def nearest_template(exact: bool) -> LiteralString:
    """The semantic retriever's statement, whose `{field}`s it composes: an exact scan of the
    scope's vectors, or a walk of the model's HNSW index."""
    if exact:
        return statement_template("chunk_embeddings", "nearest_exact")
    return statement_template("chunk_embeddings", "nearest_by_index")
