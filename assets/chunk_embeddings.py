"""Asset `chunk_embeddings` and its check: vectors for the snapshot's chunks."""

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetExecutionContext,
    MaterializeResult,
    asset,
    asset_check,
)

from assets.partitions import parse_partition_key, snapshot_partitions
from assets.pool_slots import EMBEDDING_POOL, pool_slot
from assets.resources import EmbeddingProvider, IndexDatabase
from codeatlas.core.database import connection, transaction
from indexing import repositories, snapshots
from indexing.embedding_registry import record_model
from indexing.embedding_step import coverage, embed_snapshot
from indexing.model_switch import adopt_configured_model


@asset(
    partitions_def=snapshot_partitions,
    deps=["snapshot"],
    group_name="indexing",
    description="Vectors for every chunk content of the snapshot, for the repository's model"
    " (the one `codeatlas models upgrade` chose, else the configured one)."
    " Runs after publishing: lexical and symbol search work before vectors exist.",
)
def chunk_embeddings(
    context: AssetExecutionContext, index_db: IndexDatabase, embeddings: EmbeddingProvider
) -> MaterializeResult:
    """Embed only content hashes with no vector for the model yet."""
    repository, sha = parse_partition_key(context.partition_key)
    with transaction(index_db.database_url) as conn:
        embedder, configured = embeddings.for_repository(conn, repository)
        if configured:
            record_model(conn, embedder, embeddings.spec)
    model = embedder.model_name
    with pool_slot(context, EMBEDDING_POOL, index_db.settings):
        stats = embed_snapshot(
            index_db.database_url, repository, sha, embedder, progress=context.log.info
        )
    with connection(index_db.database_url) as conn:
        stats["activated"] = adopt_configured_model(conn, repository, model)
    if stats["activated"]:
        context.log.info(f"{repository}: {model} is now the active model (it covers the snapshot)")
    return MaterializeResult(metadata=stats)


@asset_check(asset=chunk_embeddings, description="Every chunk of the snapshot has a vector.")
def every_chunk_has_a_vector(
    context, index_db: IndexDatabase, embeddings: EmbeddingProvider
) -> AssetCheckResult:
    """Coverage of the snapshot's chunk contents for the model the run embedded with is 100%."""
    repository, sha = parse_partition_key(context.run.tags["dagster/partition"])
    with connection(index_db.database_url) as conn:
        model = embeddings.for_repository(conn, repository)[0].model_name
        repo = repositories.get(conn, repository)
        snap_id = snapshots.id_of(conn, repo.id, sha)
        embedded, total = coverage(conn, snap_id, model) if snap_id else (0, 0)
    return AssetCheckResult(
        passed=embedded == total,
        severity=AssetCheckSeverity.WARN,
        metadata={"embedded": embedded, "total": total, "model": model},
    )
