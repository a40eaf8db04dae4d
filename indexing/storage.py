"""Writes of parsed files. Idempotent: every write is an upsert on a unique key.

Dagster-free, so the MCP app's `index_file` stores overlay files through the same code. The
owner of the tables of parsed content, `file_versions`, `code_chunks`, `chunk_text_pages`,
`code_symbols` and `code_edges` (docs/architecture.md, "One owner per table"): every statement
that writes them is a function here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from core.database import DictConnection, Row
from core.sql_files import statement
from indexing.parsing.model import ParsedFile

# consecutive chunks of a file version whose texts share a row of `chunk_text_pages`: a row of a
# few kB, which PostgreSQL compresses (a chunk's own row would stay under its ~2 kB threshold);
# `codeatlas_chunk_text` (sql/migrations/015) reads a chunk's text with the same number
CHUNKS_PER_TEXT_PAGE = 32


def git_blob_sha(content: bytes) -> str:
    """The sha git gives `content` as a blob, so overlay files share content addressing."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def claim_file_version(
    conn: DictConnection,
    repository_id: int,
    blob_sha: str,
    language: str,
    parser_version: str,
    size: int,
) -> tuple[int, bool]:
    """Return (file_version id, already parsed), locking the row until the transaction ends."""
    key = {
        "repository_id": repository_id,
        "blob_sha": blob_sha,
        "language": language,
        "parser_version": parser_version,
    }
    conn.execute(statement("file_versions", "claim"), {**key, "size": size})
    row = conn.execute(statement("file_versions", "lock_claimed"), key).fetchone()
    assert row is not None
    return row["id"], row["parsed_at"] is not None


def _new_ids(conn: DictConnection, table: str, n: int) -> list[int]:
    """`n` ids from the table's own sequence, ascending: rows written by COPY know their ids
    (and those of their parents) before they are sent."""
    if n == 0:
        return []
    rows = conn.execute(statement("file_versions", "new_ids"), {"table": table, "n": n}).fetchall()
    return sorted(r["id"] for r in rows)


def store_parsed_file(
    conn: DictConnection,
    file_version_id: int,
    parsed: ParsedFile,
    lexical_lengths: Sequence[int] | None = None,
) -> list[int]:
    """Replace the symbols, chunks and edges of one file version and mark it parsed; returns
    the chunks' ids in the order of `parsed.chunks`. `lexical_lengths` (one per chunk) are the
    chunks' BM25 lengths when their postings are written in the same transaction."""
    for delete in (
        statement("file_versions", "delete_edges"),
        statement("file_versions", "delete_chunks"),
        statement("file_versions", "delete_text_pages"),
        statement("file_versions", "delete_symbols"),
    ):
        conn.execute(delete, {"file_version_id": file_version_id})
    # one COPY per table instead of a statement per row (a kernel file has hundreds of
    # symbols and thousands of calls); ids come first, so a parent declared further down the
    # file (a Go method above its receiver's type) is linked in the same COPY
    symbol_ids = _new_ids(conn, "code_symbols", len(parsed.symbols))
    chunk_ids = _new_ids(conn, "code_chunks", len(parsed.chunks))
    lengths = lexical_lengths if lexical_lengths is not None else [0] * len(parsed.chunks)
    with conn.cursor() as cur:
        with cur.copy(statement("file_versions", "copy_symbols")) as copy:
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
        with cur.copy(statement("file_versions", "copy_chunks")) as copy:
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
                        c.content_hash,
                        lengths[ordinal],
                    )
                )
        with cur.copy(statement("file_versions", "copy_text_pages")) as copy:
            texts = [stored_content(c.content) for c in parsed.chunks]
            for page, start in enumerate(range(0, len(texts), CHUNKS_PER_TEXT_PAGE)):
                copy.write_row((file_version_id, page, texts[start : start + CHUNKS_PER_TEXT_PAGE]))
        with cur.copy(statement("file_versions", "copy_edges")) as copy:
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
        statement("file_versions", "mark_parsed"),
        {
            "has_syntax_errors": parsed.has_syntax_errors,
            "redactions": parsed.redactions,
            "role": parsed.role,
            "id": file_version_id,
        },
    )
    return chunk_ids


def versions_without_role(conn: DictConnection, snapshot_id: int) -> list[dict]:
    """(id, language) of the snapshot's parsed file versions whose role was never read."""
    return conn.execute(
        statement("file_versions", "without_role"), {"snapshot": snapshot_id}
    ).fetchall()


def stored_texts(conn: DictConnection, file_version_ids: list[int]) -> dict[int, str]:
    """Each file version's stored chunk texts, in file order, joined by newlines."""
    rows = conn.execute(
        statement("file_versions", "stored_texts"), {"ids": file_version_ids}
    ).fetchall()
    return {r["file_version_id"]: r["text"] or "" for r in rows}


def set_roles(conn: DictConnection, roles: list[tuple[str, int]]) -> None:
    """Each file version's role read from its content, as (role, file version id) pairs."""
    with conn.cursor() as cur:
        cur.executemany(
            statement("file_versions", "set_role"), [{"role": r, "id": i} for r, i in roles]
        )


def stored_content(content: str) -> str:
    """A chunk's text as the database keeps it (PostgreSQL text holds no NUL)."""
    return content.replace("\x00", "")


def lock_unused_file_versions(conn: DictConnection, file_version_ids: list[int]) -> list[int]:
    """Those of the file versions no snapshot or overlay uses, locked; one an indexing run
    holds is skipped (its lock is never waited for)."""
    rows = conn.execute(
        statement("file_versions", "lock_unused"), {"ids": file_version_ids}
    ).fetchall()
    return [r["id"] for r in rows]


def content_hashes_of(conn: DictConnection, file_version_ids: list[int]) -> list[str]:
    """The distinct contents of the file versions' chunks."""
    rows = conn.execute(
        statement("file_versions", "content_hashes"), {"ids": file_version_ids}
    ).fetchall()
    return [r["content_hash"] for r in rows]


def delete_file_versions(conn: DictConnection, file_version_ids: list[int]) -> None:
    """Delete file versions with their chunks, symbols, edges and postings (cascades)."""
    conn.execute(statement("file_versions", "delete"), {"ids": file_version_ids})


def delete_unused_file_versions(conn: DictConnection) -> int:
    """Delete the parsed file versions no snapshot or overlay uses; how many."""
    return conn.execute(statement("file_versions", "delete_unused")).rowcount


def set_lexical_lengths(conn: DictConnection, lengths: list[tuple[int, int]]) -> None:
    """Each chunk's length in lexical terms, as (length, chunk id) pairs (the lexical index)."""
    with conn.cursor() as cur:
        cur.executemany(
            statement("file_versions", "set_lexical_length"),
            [{"length": n, "id": i} for n, i in lengths],
        )


def chunk_texts(conn: DictConnection, file_version_id: int) -> list[Row]:
    """A file version's chunks (id, stored text, symbol names) in file order, to tokenize."""
    return conn.execute(
        statement("file_versions", "chunk_texts"), {"file_version_id": file_version_id}
    ).fetchall()


def untokenized(conn: DictConnection, snapshot_id: int, version: str) -> list[Row]:
    """(id, one path) of the snapshot's parsed file versions not tokenized at `version`."""
    return conn.execute(
        statement("file_versions", "untokenized"), {"snapshot_id": snapshot_id, "version": version}
    ).fetchall()


def lock_lexical_version(conn: DictConnection, file_version_id: int) -> str | None:
    """The lexical version of the file version's terms (None: none, or no such file version),
    its row locked until the transaction ends: a concurrent tokenizer of it waits."""
    row = conn.execute(
        statement("file_versions", "lock_lexical_version"), {"id": file_version_id}
    ).fetchone()
    return row["lexical_version"] if row else None


def tokenized(conn: DictConnection, repository_id: int, version: str) -> list[int]:
    """The repository's parsed file versions whose terms are written at `version`."""
    rows = conn.execute(
        statement("file_versions", "tokenized"), {"repo": repository_id, "version": version}
    ).fetchall()
    return [r["id"] for r in rows]


def set_lexical_version(conn: DictConnection, file_version_id: int, version: str) -> None:
    """The file version's chunk terms are written at this lexical version; its postings are
    not (`take_unposted`, `mark_posted`)."""
    conn.execute(
        statement("file_versions", "set_lexical_version"),
        {"version": version, "id": file_version_id},
    )


def take_unposted(
    conn: DictConnection, repository_id: int, version: str, ids: Sequence[int] | None
) -> list[int]:
    """The repository's file versions tokenized at `version` without postings (all, or those
    of `ids`), marked posted: the caller writes their postings in the same transaction."""
    rows = conn.execute(
        statement("file_versions", "take_unposted"),
        {"repo": repository_id, "version": version, "ids": list(ids) if ids is not None else None},
    ).fetchall()
    return [r["id"] for r in rows]


def mark_posted(conn: DictConnection, file_version_ids: Sequence[int]) -> None:
    """The file versions' postings are written (the blocks just built hold them)."""
    conn.execute(statement("file_versions", "mark_posted"), {"ids": list(file_version_ids)})


def counts(conn: DictConnection, file_version_id: int) -> Row | None:
    """What one stored file version holds (its chunks and symbols), for the overlay's answer."""
    return conn.execute(statement("file_versions", "counts"), {"fv": file_version_id}).fetchone()
