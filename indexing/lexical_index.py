"""The BM25 inverted index: postings of stored chunks, and the document frequencies of each
repository's current snapshot (docs/lexical.md). Dagster-free: commits and working-tree overlays
are indexed by the same code."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import psycopg

from core.database import DictConnection
from core.sql_files import composed, statement, statement_template
from core.terms import K1, LEXICAL_VERSION, B, LexicalDocument, chunk_document
from indexing import snapshot_files, storage
from indexing.parsing.model import ParsedFile

# the average chunk length assumed by a posting's impact, which only orders a term's postings
NOMINAL_AVG_LENGTH = 80.0
MAX_TF = 255  # a chunk term's frequency is stored in a byte (sql/migrations/016)
# a repository's posting rows are folded into new blocks when they pass this share of the
# postings its blocks hold (and at least `BUILD_MIN_POSTINGS`): building reads every posting of
# the repository, so it is done once per share of growth, and the rows stay a small table
BUILD_SHARE = 0.05
BUILD_MIN_POSTINGS = 50_000
# a term with at most this many postings shares a row with other rare terms (block -1 of its
# bucket, sql/migrations/014): a row of its own would cost more than its postings
RARE_TERM_POSTINGS = 16
# a fold rebuilds a repository's blocks in this many parts of its terms, each replaced in a
# transaction of its own and vacuumed: the table holds one part's blocks twice, not all of them
FOLD_PARTS = 8

_BUILD_BLOCKS = statement("lexical", "build_blocks")
_POST_ROWS = statement("lexical", "post_rows")
# `pg_try_advisory_xact_lock(_BUILD_LOCK, repository id)`: one build of a repository at a time
_BUILD_LOCK = 0x1E81


def chunk_documents(parsed: ParsedFile, path: str) -> list[LexicalDocument]:
    """The BM25 documents of a new parse's chunks, as `index_file_terms` would read them back
    from the database (the stored text: NUL bytes dropped)."""
    return [
        chunk_document(storage.stored_content(c.content), c.symbol_name, c.qualified_name, path)
        for c in parsed.chunks
    ]


def _copy_chunk_terms(
    cur: psycopg.Cursor[Any], documents: Iterable[tuple[int, LexicalDocument]]
) -> int:
    written = 0
    with cur.copy(statement("lexical", "copy_chunk_terms")) as copy:
        for chunk_id, doc in documents:
            copy.write_row(
                (chunk_id, list(doc.tf), bytes(min(round(tf), MAX_TF) for tf in doc.tf.values()))
            )
            written += len(doc.tf)
    return written


def write_new_file_terms(
    conn: DictConnection,
    file_version_id: int,
    chunk_ids: Sequence[int],
    documents: Sequence[LexicalDocument],
) -> int:
    """The terms of a file version's chunks just stored (their lengths stored with them, by
    `storage.store_parsed_file`): the parse's own transaction indexes them, without reading the
    chunks back or updating them. Its postings are written when a snapshot holding it is
    published (`post_repository`) or as a working-tree file (`post_file_versions`)."""
    with conn.cursor() as cur:
        written = _copy_chunk_terms(cur, zip(chunk_ids, documents, strict=True))
    storage.set_lexical_version(conn, file_version_id, LEXICAL_VERSION)
    return written


def index_file_terms(conn: DictConnection, file_version_id: int, path: str) -> int:
    """(Re)write the terms of one file version's chunks, its postings to be written again;
    returns how many chunk terms were written."""
    rows = storage.chunk_texts(conn, file_version_id)
    of_file = {"file_version_id": file_version_id}
    conn.execute(statement("lexical", "delete_file_postings"), of_file)
    conn.execute(statement("lexical", "delete_file_chunk_terms"), of_file)
    documents = [
        (
            row["id"],
            chunk_document(row["content"], row["symbol_name"], row["qualified_name"], path),
        )
        for row in rows
    ]
    with conn.cursor() as cur:
        written = _copy_chunk_terms(cur, documents)
    storage.set_lexical_lengths(conn, [(doc.length, chunk_id) for chunk_id, doc in documents])
    storage.set_lexical_version(conn, file_version_id, LEXICAL_VERSION)
    return written


def index_snapshot_terms(
    conn: DictConnection,
    snapshot_id: int,
    progress: Callable[[str], None] = lambda _msg: None,
    batch_files: int = 50,
) -> int:
    """Tokenize the snapshot's file versions that this tokenizer has not indexed yet."""
    pending = storage.untokenized(conn, snapshot_id, LEXICAL_VERSION)
    for start in range(0, len(pending), batch_files):
        with conn.transaction():
            for row in pending[start : start + batch_files]:
                ensure_file_terms(conn, row["id"], row["path"])
        done = min(start + batch_files, len(pending))
        progress(f"lexical index: {done}/{len(pending)} files")
    return len(pending)


def ensure_file_terms(conn: DictConnection, file_version_id: int, path: str) -> None:
    """Index one file version's terms unless this tokenizer already did (the row lock makes a
    concurrent run of the same blob wait, then find it done)."""
    if storage.lock_lexical_version(conn, file_version_id) != LEXICAL_VERSION:
        index_file_terms(conn, file_version_id, path)


# --- postings: blocks and rows ------------------------------------------------------------


def _posting_params(repository_id: int) -> dict:
    return {
        "repo": repository_id,
        "k1": K1,
        "b": B,
        "nominal": NOMINAL_AVG_LENGTH,
        "rare": RARE_TERM_POSTINGS,
    }


def post_file_versions(
    conn: DictConnection, repository_id: int, file_version_ids: Sequence[int] | None = None
) -> int:
    """Write the postings of the repository's tokenized file versions that have none yet (all,
    or those of `file_version_ids`) as rows; returns how many were written."""
    taken = storage.take_unposted(conn, repository_id, LEXICAL_VERSION, file_version_ids)
    if not taken:
        return 0
    row = conn.execute(_POST_ROWS, {**_posting_params(repository_id), "ids": taken}).fetchone()
    written = int(row["postings"]) if row else 0
    conn.execute(
        statement("lexical", "add_row_postings"), {"repo": repository_id, "written": written}
    )
    return written


def build_blocks(conn: DictConnection, repository_id: int) -> int:
    """Rebuild the repository's blocks from the chunk terms of all its tokenized file versions
    (in the caller's transaction), mark them posted and delete their posting rows; returns the
    postings the blocks hold. Searches see the old blocks and rows until it commits; a build
    of the same repository in another transaction is waited for."""
    conn.execute("SELECT pg_advisory_xact_lock(%s, %s::integer)", (_BUILD_LOCK, repository_id))
    versions = _stage_tokenized_versions(conn, repository_id, keep=False)
    storage.mark_posted(conn, versions)
    conn.execute(statement("lexical", "delete_blocks"), {"repo": repository_id})
    in_blocks = _build_part(conn, repository_id, 0, 1)
    _record_build(conn, repository_id, in_blocks)
    return in_blocks


def fold_blocks(conn: DictConnection, repository_id: int, parts: int = FOLD_PARTS) -> int:
    """Rebuild the repository's blocks (`build_blocks`' result) one part of its terms at a time,
    each part in a transaction of its own followed by a vacuum, so that the old blocks' space
    is reused by the next part instead of the table holding two copies; the caller holds the
    build lock (`build_blocks_if_due`). Searches see each term's old or new blocks, and its
    rows until its new blocks hold them."""
    with conn.transaction():
        versions = _stage_tokenized_versions(conn, repository_id, keep=True)
    in_blocks = 0
    for part in range(parts):
        with conn.transaction():
            conn.execute(
                statement("lexical", "delete_blocks_of_part"),
                {"repo": repository_id, "parts": parts, "part": part},
            )
            in_blocks += _build_part(conn, repository_id, part, parts)
        _vacuum_blocks(conn)
    with conn.transaction():
        storage.mark_posted(conn, versions)
        _record_build(conn, repository_id, in_blocks)
        conn.execute("DROP TABLE built_versions")
    return in_blocks


def _stage_tokenized_versions(conn: DictConnection, repository_id: int, keep: bool) -> list[int]:
    """The repository's tokenized file versions, also as the temporary table `built_versions`
    the build statement reads (dropped at commit, or kept for the parts of a fold)."""
    versions = storage.tokenized(conn, repository_id, LEXICAL_VERSION)
    conn.execute("DROP TABLE IF EXISTS built_versions")
    conn.execute(
        "CREATE TEMPORARY TABLE built_versions (id bigint PRIMARY KEY) ON COMMIT "
        + ("PRESERVE ROWS" if keep else "DROP")
    )
    conn.execute(statement("lexical", "insert_built_versions"), {"ids": versions})
    conn.execute("ANALYZE built_versions")
    return versions


def _build_part(conn: DictConnection, repository_id: int, part: int, parts: int) -> int:
    """Write the blocks of one part of the terms (those whose bucket, the last 17 bits of their
    hash, falls in the part's share of the buckets: a bucket row is in its terms' part) and
    delete the built versions' rows of those terms; the postings written."""
    written = conn.execute(
        _BUILD_BLOCKS, {**_posting_params(repository_id), "part": part, "parts": parts}
    ).fetchone()
    conn.execute(
        statement("lexical", "delete_built_rows"),
        {"repo": repository_id, "parts": parts, "part": part},
    )
    return int(written["postings"]) if written else 0


def _vacuum_blocks(conn: DictConnection) -> None:
    """Make the space of the blocks just replaced reusable (VACUUM runs outside a transaction)."""
    autocommit = conn.autocommit
    conn.autocommit = True
    try:
        conn.execute("VACUUM lexical_blocks")
    finally:
        conn.autocommit = autocommit


def _record_build(conn: DictConnection, repository_id: int, in_blocks: int) -> None:
    rows = conn.execute(statement("lexical", "row_postings"), {"repo": repository_id}).fetchone()
    conn.execute(
        statement("lexical", "record_build"),
        {
            "repo": repository_id,
            "block_postings": in_blocks,
            "row_postings": rows["n"] if rows else 0,
        },
    )


def _built(conn: DictConnection, repository_id: int) -> dict | None:
    """The postings the repository's blocks hold and its rows since (None: never built)."""
    return conn.execute(statement("lexical", "built"), {"repo": repository_id}).fetchone()


def _build_due(built: dict | None, new_postings: int) -> bool:
    if built is None:
        return True
    return new_postings > max(BUILD_MIN_POSTINGS, BUILD_SHARE * built["block_postings"])


def post_repository(conn: DictConnection, repository_id: int) -> dict:
    """Give the repository's tokenized file versions without postings theirs (publishing: in
    its transaction, so the snapshot is searchable when it is current): as rows, or by building
    the blocks again when they are many (a repository's first snapshot, a new tokenizer)."""
    built = _built(conn, repository_id)
    unposted = conn.execute(
        statement("lexical", "unposted_terms"),
        {"repo": repository_id, "version": LEXICAL_VERSION},
    ).fetchone()
    pending = int(unposted["n"]) if unposted else 0
    if _build_due(built, pending):
        return {"built": True, "postings": build_blocks(conn, repository_id)}
    return {"built": False, "postings": post_file_versions(conn, repository_id)}


def build_blocks_if_due(conn: DictConnection, repository_id: int) -> int | None:
    """Fold the repository's posting rows into new blocks (`fold_blocks`, in transactions of
    its own) when they pass their share (`BUILD_SHARE`) and no other build of it runs; the
    postings the blocks hold, or None when nothing was built."""
    with conn.transaction():
        built = _built(conn, repository_id)
        if built is not None and not _build_due(built, built["row_postings"]):
            return None
        locked = conn.execute(
            "SELECT pg_try_advisory_lock(%s, %s::integer) AS ok", (_BUILD_LOCK, repository_id)
        ).fetchone()
    if not (locked and locked["ok"]):
        return None
    try:
        return fold_blocks(conn, repository_id)
    finally:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_unlock(%s, %s::integer)", (_BUILD_LOCK, repository_id))


_DELTA = snapshot_files.FILE_VERSION_DELTA
_TERM_STATS_DELTA_SQL = composed(
    statement_template("lexical", "apply_term_stats_delta"), delta=_DELTA
)
_CORPUS_TOTALS_DELTA_SQL = composed(
    statement_template("lexical", "corpus_totals_delta"), delta=_DELTA
)


def refresh_corpus_stats(conn: DictConnection, repository_id: int, snapshot_id: int) -> None:
    """Make the repository's document frequencies those of `snapshot_id` (call in the
    transaction that makes it current): a delta from the snapshot they describe, or a rebuild."""
    corpus = conn.execute(statement("lexical", "lock_corpus"), {"repo": repository_id}).fetchone()
    incremental = (
        corpus is not None
        and corpus["snapshot_id"] is not None
        and corpus["lexical_version"] == LEXICAL_VERSION
    )
    if incremental and corpus and corpus["snapshot_id"] == snapshot_id:
        return
    if not incremental:
        conn.execute(statement("lexical", "delete_term_stats"), {"repo": repository_id})
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
            statement("lexical", "corpus_totals"), {"snapshot_id": snapshot_id}
        ).fetchone()
        assert totals is not None
    conn.execute(
        statement("lexical", "record_corpus"),
        {
            "repo": repository_id,
            "snap": snapshot_id,
            "version": LEXICAL_VERSION,
            "docs": totals["documents"],
            "length": totals["total_length"],
        },
    )
