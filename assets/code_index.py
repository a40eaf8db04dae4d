"""Assets `code_chunks`, `code_symbols`, `code_edges`: one parse per new blob, stored together.

The three are one multi-asset because edges point at symbol ids and chunks at symbols: a file's
symbols, chunks and edges are written in the same transaction, so none exists without the others.
"""

import time
from collections.abc import Callable, Iterator

from dagster import AssetExecutionContext, AssetSpec, MaterializeResult, multi_asset

from indexing import git_source, lexical_index, repositories, storage
from indexing.parse_version import effective_parser_version
from indexing.parsing.file_rules import skip_reason
from indexing.parsing.languages import detect_language
from indexing.parsing.parser import parse_file
from assets.partitions import parse_partition_key, snapshot_partitions
from assets.resources import IndexDatabase
from codeatlas.core.database import analyze, connect, transaction

BATCH_FILES = 50
ANALYZE_AFTER_FILES = 50


def _pending_blobs(conn, snapshot_id: int, version: str) -> list[dict]:
    return conn.execute(
        "SELECT sf.blob_sha, sf.language, max(sf.size_bytes) AS size, min(sf.path) AS path"
        " FROM snapshot_files sf LEFT JOIN file_versions fv ON fv.id = sf.file_version_id"
        " WHERE sf.snapshot_id = %s AND sf.skip_reason IS NULL"
        " AND (fv.id IS NULL OR fv.parsed_at IS NULL OR fv.parser_version <> %s)"
        " GROUP BY sf.blob_sha, sf.language ORDER BY min(sf.path)",
        (snapshot_id, version),
    ).fetchall()


def _batches(items: list[dict], size: int) -> Iterator[list[dict]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def parse_snapshot(
    db: IndexDatabase,
    repository_name: str,
    commit_sha: str,
    progress: Callable[[str], None] = lambda _msg: None,
) -> dict:
    """Parse every blob of the snapshot not parsed before at this parser version."""
    started = time.monotonic()
    settings = db.settings
    version = effective_parser_version(settings)
    url = db.database_url
    conn = connect(url)
    try:
        repo = repositories.get(conn, repository_name)
        snap_id = repositories.snapshot_id(conn, repo, commit_sha)
        if snap_id is None:
            raise RuntimeError(f"{repository_name}@{commit_sha}: materialize source_files first")
        pending = _pending_blobs(conn, snap_id, version)
    finally:
        conn.close()
    checkout = repositories.git_dir(settings, repo.origin)
    totals = {
        "files_parsed": 0,
        "chunks": 0,
        "symbols": 0,
        "edges": 0,
        "syntax_errors": 0,
        "redactions": 0,
        "skipped_by_content": 0,
        "bytes": 0,
    }
    done = 0
    for batch in _batches(pending, BATCH_FILES):
        by_sha = {(b["blob_sha"], b["language"]): b for b in batch}
        contents = dict(git_source.read_blobs(checkout, sorted({b["blob_sha"] for b in batch})))
        with transaction(url) as tx:
            for (blob_sha, language), item in by_sha.items():
                content = contents[blob_sha]
                reason = skip_reason(
                    item["path"], len(content), content, max_bytes=settings.max_file_bytes
                )
                language = detect_language(item["path"], content) or language
                if reason:
                    tx.execute(
                        "UPDATE snapshot_files SET skip_reason = %s, file_version_id = NULL"
                        " WHERE snapshot_id = %s AND blob_sha = %s",
                        (reason, snap_id, blob_sha),
                    )
                    totals["skipped_by_content"] += 1
                    continue
                fv_id, parsed_before = storage.claim_file_version(
                    tx, repo.id, blob_sha, language, version, len(content)
                )
                if not parsed_before:
                    parsed = parse_file(item["path"], content, max_tokens=settings.chunk_max_tokens)
                    storage.store_parsed_file(tx, fv_id, parsed)
                    totals["files_parsed"] += 1
                    totals["chunks"] += len(parsed.chunks)
                    totals["symbols"] += len(parsed.symbols)
                    totals["edges"] += len(parsed.edges)
                    totals["syntax_errors"] += int(parsed.has_syntax_errors)
                    totals["redactions"] += parsed.redactions
                    totals["bytes"] += len(content)
                tx.execute(
                    "UPDATE snapshot_files SET file_version_id = %s WHERE snapshot_id = %s"
                    " AND blob_sha = %s AND skip_reason IS NULL",
                    (fv_id, snap_id, blob_sha),
                )
        done += len(batch)
        elapsed = time.monotonic() - started
        rate = done / elapsed if elapsed else 0.0
        eta = (len(pending) - done) / rate if rate else 0.0
        progress(f"parsed {done}/{len(pending)} files ({rate:.0f} files/s, ETA {eta:.0f}s)")
    conn = connect(url, autocommit=True)
    try:
        totals["files_tokenized"] = lexical_index.index_snapshot_terms(conn, snap_id, progress)
    finally:
        conn.close()
    if totals["files_parsed"] >= ANALYZE_AFTER_FILES:
        # fresh statistics, or the first queries plan as if the tables were empty
        analyze(
            url,
            (
                "file_versions",
                "snapshot_files",
                "code_symbols",
                "code_chunks",
                "code_edges",
                "lexical_postings",
            ),
        )
    totals["seconds"] = round(time.monotonic() - started, 3)
    totals["files_pending"] = len(pending)
    return totals


@multi_asset(
    specs=[
        AssetSpec("code_chunks", deps=["source_files"], description="Symbol-sized chunks."),
        AssetSpec("code_symbols", deps=["source_files"], description="The symbol table."),
        AssetSpec(
            "code_edges", deps=["source_files"], description="Calls, imports and inheritance."
        ),
    ],
    partitions_def=snapshot_partitions,
    group_name="indexing",
)
def code_index(context: AssetExecutionContext, index_db: IndexDatabase):
    """Parse only the blobs of this commit not parsed before at this parser version."""
    repository, sha = parse_partition_key(context.partition_key)
    stats = parse_snapshot(index_db, repository, sha, progress=context.log.info)
    common = {"files_parsed": stats["files_parsed"], "seconds": stats["seconds"]}
    yield MaterializeResult(
        asset_key="code_chunks",
        metadata={
            **common,
            "chunks": stats["chunks"],
            "bytes_parsed": stats["bytes"],
            "redactions": stats["redactions"],
            "files_with_syntax_errors": stats["syntax_errors"],
            "skipped_by_content": stats["skipped_by_content"],
        },
    )
    yield MaterializeResult(
        asset_key="code_symbols", metadata={**common, "symbols": stats["symbols"]}
    )
    yield MaterializeResult(asset_key="code_edges", metadata={**common, "edges": stats["edges"]})
