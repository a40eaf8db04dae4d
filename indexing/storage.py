"""Writes of parsed files and vectors. Idempotent: every write is an upsert on a unique key.

Dagster-free, so the MCP app's `index_file` stores overlay files through the same code.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import psycopg
from pgvector import HalfVector
from psycopg import sql

from indexing.parsing.model import ParsedFile


def git_blob_sha(content: bytes) -> str:
    """The sha git gives `content` as a blob, so overlay files share content addressing."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def claim_file_version(
    conn: psycopg.Connection,
    repository_id: int,
    blob_sha: str,
    language: str,
    parser_version: str,
    size: int,
) -> tuple[int, bool]:
    """Return (file_version id, already parsed), locking the row until the transaction ends."""
    conn.execute(
        "INSERT INTO file_versions (repository_id, blob_sha, language, parser_version, size_bytes)"
        " VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
        (repository_id, blob_sha, language, parser_version, size),
    )
    row = conn.execute(
        "SELECT id, parsed_at FROM file_versions WHERE repository_id = %s AND blob_sha = %s"
        " AND language = %s AND parser_version = %s FOR UPDATE",
        (repository_id, blob_sha, language, parser_version),
    ).fetchone()
    assert row is not None
    return row["id"], row["parsed_at"] is not None


def _new_ids(conn: psycopg.Connection, table: str, n: int) -> list[int]:
    """`n` ids from the table's own sequence, ascending: rows written by COPY know their ids
    (and those of their parents) before they are sent."""
    if n == 0:
        return []
    rows = conn.execute(
        "SELECT nextval(pg_get_serial_sequence(%s, 'id')) AS id FROM generate_series(1, %s)",
        (table, n),
    ).fetchall()
    return sorted(r["id"] for r in rows)


def store_parsed_file(
    conn: psycopg.Connection,
    file_version_id: int,
    parsed: ParsedFile,
    lexical_lengths: Sequence[int] | None = None,
) -> list[int]:
    """Replace the symbols, chunks and edges of one file version and mark it parsed; returns
    the chunks' ids in the order of `parsed.chunks`. `lexical_lengths` (one per chunk) are the
    chunks' BM25 lengths when their postings are written in the same transaction."""
    conn.execute("DELETE FROM code_edges WHERE file_version_id = %s", (file_version_id,))
    conn.execute("DELETE FROM code_chunks WHERE file_version_id = %s", (file_version_id,))
    conn.execute("DELETE FROM code_symbols WHERE file_version_id = %s", (file_version_id,))
    # one COPY per table instead of a statement per row (a kernel file has hundreds of
    # symbols and thousands of calls); ids come first, so a parent declared further down the
    # file (a Go method above its receiver's type) is linked in the same COPY
    symbol_ids = _new_ids(conn, "code_symbols", len(parsed.symbols))
    chunk_ids = _new_ids(conn, "code_chunks", len(parsed.chunks))
    lengths = lexical_lengths if lexical_lengths is not None else [0] * len(parsed.chunks)
    with conn.cursor() as cur:
        with cur.copy(
            "COPY code_symbols (id, file_version_id, ordinal, name, qualified_name, kind,"
            " signature, start_line, end_line, start_byte, end_byte, parent_id) FROM STDIN"
        ) as copy:
            for ordinal, symbol in enumerate(parsed.symbols):
                copy.write_row(
                    (
                        symbol_ids[ordinal],
                        file_version_id,
                        ordinal,
                        symbol.name,
                        symbol.qualified_name,
                        symbol.kind,
                        symbol.signature[:2000],
                        symbol.start_line,
                        symbol.end_line,
                        symbol.start_byte,
                        symbol.end_byte,
                        symbol_ids[symbol.parent] if symbol.parent is not None else None,
                    )
                )
        with cur.copy(
            "COPY code_chunks (id, file_version_id, ordinal, symbol_id, symbol_name,"
            " qualified_name, symbol_kind, start_line, end_line, start_byte, end_byte, piece,"
            " piece_count, content, content_hash, lexical_length) FROM STDIN"
        ) as copy:
            for ordinal, c in enumerate(parsed.chunks):
                copy.write_row(
                    (
                        chunk_ids[ordinal],
                        file_version_id,
                        ordinal,
                        symbol_ids[c.symbol] if c.symbol is not None else None,
                        c.symbol_name,
                        c.qualified_name,
                        c.kind,
                        c.start_line,
                        c.end_line,
                        c.start_byte,
                        c.end_byte,
                        c.piece,
                        c.piece_count,
                        stored_content(c.content),
                        c.content_hash,
                        lengths[ordinal],
                    )
                )
        with cur.copy(
            "COPY code_edges (file_version_id, ordinal, caller_symbol_id, callee_name,"
            " qualifier, line, kind) FROM STDIN"
        ) as copy:
            for ordinal, e in enumerate(parsed.edges):
                copy.write_row(
                    (
                        file_version_id,
                        ordinal,
                        symbol_ids[e.caller] if e.caller is not None else None,
                        e.callee_name[:500],
                        e.qualifier[:500] if e.qualifier else None,
                        e.line,
                        e.kind,
                    )
                )
    conn.execute(
        "UPDATE file_versions SET parsed_at = now(), has_syntax_errors = %s, redactions = %s"
        " WHERE id = %s",
        (parsed.has_syntax_errors, parsed.redactions, file_version_id),
    )
    return chunk_ids


def stored_content(content: str) -> str:
    """A chunk's text as the database keeps it (PostgreSQL text holds no NUL)."""
    return content.replace("\x00", "")


def model_index_name(model: str) -> str:
    """A stable, valid index name for a model's partial HNSW index."""
    return "chunk_embeddings_hnsw_" + hashlib.sha1(model.encode()).hexdigest()[:16]


def ensure_embedding_model(conn: psycopg.Connection, model: str, dimensions: int) -> None:
    """Register a model and create its partial HNSW index (once; safe to call every run)."""
    row = conn.execute(
        "SELECT dimensions FROM embedding_models WHERE name = %s", (model,)
    ).fetchone()
    if row is not None:
        if row["dimensions"] != dimensions:
            raise ValueError(
                f"embedding model {model!r} is registered with {row['dimensions']} dimensions,"
                f" but the provider returns {dimensions}: give the new setup another model name"
            )
        return
    index = model_index_name(model)
    with conn.transaction():
        conn.execute(
            "INSERT INTO embedding_models (name, dimensions, index_name) VALUES (%s, %s, %s)"
            " ON CONFLICT DO NOTHING",
            (model, dimensions, index),
        )
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


def store_embeddings(
    conn: psycopg.Connection,
    model: str,
    content_hashes: Sequence[str],
    vectors: Sequence[Sequence[float]],
) -> None:
    """Upsert vectors for content hashes (one row per model and content, shared by every
    repository holding that content)."""
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO chunk_embeddings (embedding_model, content_hash, embedding)"
            " VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
            [
                (model, h, HalfVector(np.asarray(v, dtype=np.float32)))
                for h, v in zip(content_hashes, vectors, strict=True)
            ],
        )
