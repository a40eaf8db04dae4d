"""The BM25 inverted index: postings of stored chunks, and the document frequencies of each
repository's current snapshot (docs/lexical.md). Dagster-free: commits and working-tree overlays
are indexed by the same code."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import psycopg

from core.sql_files import composed, statement, statement_template
from core.terms import K1, LEXICAL_VERSION, B, LexicalDocument, chunk_document
from indexing import storage
from indexing.parsing.model import ParsedFile

# the average chunk length assumed by `impact`, which only orders a term's postings
NOMINAL_AVG_LENGTH = 80.0


def impact(tf: float, length: int) -> float:
    """BM25's term-frequency factor at the nominal average length."""
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / NOMINAL_AVG_LENGTH))


def chunk_documents(parsed: ParsedFile, path: str) -> list[LexicalDocument]:
    """The BM25 documents of a new parse's chunks, as `index_file_terms` would read them back
    from the database (the stored text: NUL bytes dropped)."""
    return [
        chunk_document(storage.stored_content(c.content), c.symbol_name, c.qualified_name, path)
        for c in parsed.chunks
    ]


def _copy_postings(
    cur: psycopg.Cursor, repository_id: int, documents: Iterable[tuple[int, LexicalDocument]]
) -> int:
    written = 0
    with cur.copy(
        "COPY lexical_postings (chunk_id, term, repository_id, tf, impact) FROM STDIN"
    ) as copy:
        for chunk_id, doc in documents:
            for term, tf in doc.tf.items():
                copy.write_row((chunk_id, term, repository_id, tf, impact(tf, doc.length)))
            written += len(doc.tf)
    return written


def write_new_file_terms(
    conn: psycopg.Connection,
    file_version_id: int,
    repository_id: int,
    chunk_ids: Sequence[int],
    documents: Sequence[LexicalDocument],
) -> int:
    """The postings of a file version's chunks just stored (their lengths stored with them, by
    `storage.store_parsed_file`): the parse's own transaction indexes its terms, without reading
    the chunks back or updating them."""
    with conn.cursor() as cur:
        written = _copy_postings(cur, repository_id, zip(chunk_ids, documents, strict=True))
    storage.set_lexical_version(conn, file_version_id, LEXICAL_VERSION)
    return written


def index_file_terms(conn: psycopg.Connection, file_version_id: int, path: str) -> int:
    """(Re)write the postings of one file version's chunks; returns how many were written."""
    rows = conn.execute(
        "SELECT c.id, c.content, c.symbol_name, c.qualified_name, fv.repository_id"
        " FROM code_chunks c JOIN file_versions fv ON fv.id = c.file_version_id"
        " WHERE c.file_version_id = %s ORDER BY c.id",
        (file_version_id,),
    ).fetchall()
    conn.execute(
        "DELETE FROM lexical_postings p USING code_chunks c"
        " WHERE c.file_version_id = %s AND p.chunk_id = c.id",
        (file_version_id,),
    )
    documents = [
        (
            row["id"],
            chunk_document(row["content"], row["symbol_name"], row["qualified_name"], path),
        )
        for row in rows
    ]
    written = 0
    if rows:
        with conn.cursor() as cur:
            written = _copy_postings(cur, rows[0]["repository_id"], documents)
    storage.set_lexical_lengths(conn, [(doc.length, chunk_id) for chunk_id, doc in documents])
    storage.set_lexical_version(conn, file_version_id, LEXICAL_VERSION)
    return written


def index_snapshot_terms(
    conn: psycopg.Connection,
    snapshot_id: int,
    progress: Callable[[str], None] = lambda _msg: None,
    batch_files: int = 50,
) -> int:
    """Tokenize the snapshot's file versions that this tokenizer has not indexed yet."""
    pending = conn.execute(
        "SELECT fv.id, min(sf.path) AS path FROM snapshot_files sf"
        " JOIN file_versions fv ON fv.id = sf.file_version_id"
        " WHERE sf.snapshot_id = %s AND fv.parsed_at IS NOT NULL"
        " AND fv.lexical_version IS DISTINCT FROM %s GROUP BY fv.id ORDER BY fv.id",
        (snapshot_id, LEXICAL_VERSION),
    ).fetchall()
    for start in range(0, len(pending), batch_files):
        with conn.transaction():
            for row in pending[start : start + batch_files]:
                ensure_file_terms(conn, row["id"], row["path"])
        done = min(start + batch_files, len(pending))
        progress(f"lexical index: {done}/{len(pending)} files")
    return len(pending)


def ensure_file_terms(conn: psycopg.Connection, file_version_id: int, path: str) -> None:
    """Index one file version's terms unless this tokenizer already did (the row lock makes a
    concurrent run of the same blob wait, then find it done)."""
    row = conn.execute(
        "SELECT lexical_version FROM file_versions WHERE id = %s FOR UPDATE", (file_version_id,)
    ).fetchone()
    if row is None or row["lexical_version"] != LEXICAL_VERSION:
        index_file_terms(conn, file_version_id, path)


_DELTA = statement("snapshot_files", "file_version_delta")
_TERM_STATS_DELTA_SQL = composed(
    statement_template("lexical", "apply_term_stats_delta"), delta=_DELTA
)
_CORPUS_TOTALS_DELTA_SQL = composed(
    statement_template("lexical", "corpus_totals_delta"), delta=_DELTA
)


def refresh_corpus_stats(conn: psycopg.Connection, repository_id: int, snapshot_id: int) -> None:
    """Make the repository's document frequencies those of `snapshot_id` (call in the
    transaction that makes it current): a delta from the snapshot they describe, or a rebuild."""
    corpus = conn.execute(
        "SELECT snapshot_id, lexical_version, documents, total_length FROM lexical_corpus"
        " WHERE repository_id = %s FOR UPDATE",
        (repository_id,),
    ).fetchone()
    incremental = (
        corpus is not None
        and corpus["snapshot_id"] is not None
        and corpus["lexical_version"] == LEXICAL_VERSION
    )
    if incremental and corpus and corpus["snapshot_id"] == snapshot_id:
        return
    if not incremental:
        conn.execute("DELETE FROM lexical_term_stats WHERE repository_id = %s", (repository_id,))
    old = corpus["snapshot_id"] if incremental and corpus else None
    # documents that enter (+n) or leave (-n) the corpus change their terms' document counts
    conn.execute(
        _TERM_STATS_DELTA_SQL,
        {"new": snapshot_id, "old": old, "repo": repository_id},
    )
    if old is not None and corpus:  # the totals move by the chunks that enter or leave
        moved = conn.execute(_CORPUS_TOTALS_DELTA_SQL, {"new": snapshot_id, "old": old}).fetchone()
        assert moved is not None
        totals = {
            "documents": corpus["documents"] + moved["documents"],
            "total_length": corpus["total_length"] + moved["total_length"],
        }
    else:
        totals = conn.execute(
            "SELECT count(*) AS documents, coalesce(sum(c.lexical_length), 0) AS total_length"
            " FROM snapshot_files sf JOIN code_chunks c ON c.file_version_id = sf.file_version_id"
            " WHERE sf.snapshot_id = %s",
            (snapshot_id,),
        ).fetchone()
        assert totals is not None
    conn.execute(
        "INSERT INTO lexical_corpus (repository_id, snapshot_id, lexical_version, documents,"
        " total_length) VALUES (%(repo)s, %(snap)s, %(version)s, %(docs)s, %(length)s)"
        " ON CONFLICT (repository_id) DO UPDATE SET snapshot_id = EXCLUDED.snapshot_id,"
        " lexical_version = EXCLUDED.lexical_version, documents = EXCLUDED.documents,"
        " total_length = EXCLUDED.total_length, updated_at = now()",
        {
            "repo": repository_id,
            "snap": snapshot_id,
            "version": LEXICAL_VERSION,
            "docs": totals["documents"],
            "length": totals["total_length"],
        },
    )
