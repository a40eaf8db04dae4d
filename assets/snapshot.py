"""Asset `snapshot`: publish the commit once its files, chunks, symbols and edges are stored."""

from dagster import AssetExecutionContext, MaterializeResult, asset

from assets.partitions import parse_partition_key, snapshot_partitions
from assets.resources import EmbeddingProvider, IndexDatabase
from core.database import connection
from indexing import lexical_index, publishing
from indexing.parse_version import effective_parser_version
from orchestration.runtime.pool_slots import DATABASE_WRITES_POOL, pool_slot


@asset(
    partitions_def=snapshot_partitions,
    deps=["code_chunks", "code_symbols", "code_edges"],
    group_name="indexing",
    description="The published snapshot: ready, and current if it is the branch's newest commit.",
)
def snapshot(
    context: AssetExecutionContext, index_db: IndexDatabase, embeddings: EmbeddingProvider
) -> MaterializeResult:
    """Mark the snapshot ready and switch the repository's current snapshot atomically."""
    repository, sha = parse_partition_key(context.partition_key)
    with (
        pool_slot(context, DATABASE_WRITES_POOL, index_db.settings),
        connection(index_db.database_url) as conn,
    ):
        model = embeddings.for_repository(conn, repository)[0].model_name
        conn.commit()  # publish runs its own transaction
        result = publishing.publish(
            conn,
            index_db.settings,
            repository,
            sha,
            effective_parser_version(index_db.settings),
            model,
        )
        # the posting rows of the commits published since the blocks were built, folded in
        # when they have grown past their share (searches are served throughout)
        built = lexical_index.build_blocks_if_due(conn, result["repository_id"])
    if built is not None:
        context.log.info(f"built the lexical blocks of {repository}: {built} postings")
    context.log.info(
        f"published {repository}@{sha[:12]}: {result['chunks']} chunks,"
        f" {result['symbols']} symbols; current: {result['current']}"
    )
    return MaterializeResult(metadata={k: v for k, v in result.items() if v is not None})
