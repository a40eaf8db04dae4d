"""Assets `code_chunks`, `code_symbols`, `code_edges`: one parse per new blob, stored together.

The three are one multi-asset because edges point at symbol ids and chunks at symbols: a file's
symbols, chunks and edges are written in the same transaction, so none exists without the others.
"""

from dagster import AssetExecutionContext, AssetSpec, MaterializeResult, multi_asset

from assets.partitions import parse_partition_key, snapshot_partitions
from assets.resources import IndexDatabase
from core.database import connection
from indexing import snapshots
from indexing.parse_step import parse_snapshot

NO_CHANGE = "no change: every file of the commit was parsed before"


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
    stats = parse_snapshot(
        index_db.database_url, index_db.settings, repository, sha, progress=context.log.info
    )
    for key, value in _metadata(index_db.database_url, repository, sha, stats).items():
        yield MaterializeResult(asset_key=key, metadata=value)


def _metadata(url: str, repository: str, sha: str, stats: dict) -> dict[str, dict]:
    """Each asset's metadata: what this run parsed (`*_parsed`), and, once the snapshot was
    published before (a re-run), its whole counts, so the UI's latest materialization never
    reads "chunks 0" for a snapshot of thousands (issue 48)."""
    common: dict = {"files_parsed": stats["files_parsed"], "seconds": stats["seconds"]}
    if stats["files_parsed"] == 0:
        common["change"] = NO_CHANGE
    with connection(url) as conn:
        published = snapshots.stats_of(conn, repository, sha)
    whole = {k: published[k] for k in ("files", "chunks", "symbols") if k in published}
    chunks = {
        **common,
        "chunks_parsed": stats["chunks"],
        "bytes_parsed": stats["bytes"],
        "redactions": stats["redactions"],
        "files_with_syntax_errors": stats["syntax_errors"],
        "skipped_by_content": stats["skipped_by_content"],
    }
    symbols = {**common, "symbols_parsed": stats["symbols"]}
    if "chunks" in whole:
        chunks["chunks_in_snapshot"] = whole["chunks"]
    if "symbols" in whole:
        symbols["symbols_in_snapshot"] = whole["symbols"]
    return {
        "code_chunks": chunks,
        "code_symbols": symbols,
        "code_edges": {**common, "edges_parsed": stats["edges"]},
    }
