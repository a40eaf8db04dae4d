"""Assets `code_chunks`, `code_symbols`, `code_edges`: one parse per new blob, stored together.

The three are one multi-asset because edges point at symbol ids and chunks at symbols: a file's
symbols, chunks and edges are written in the same transaction, so none exists without the others.
"""

from dagster import AssetExecutionContext, AssetSpec, MaterializeResult, multi_asset

from assets.partitions import parse_partition_key, snapshot_partitions
from assets.resources import IndexDatabase
from indexing.parse_step import parse_snapshot


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
