"""Asset `chunk_embeddings` and its check: vectors for the snapshot's chunks.

A model upgrade is a backfill of this asset over every partition with the run tag `MODEL_TAG`
naming the new model (orchestration/model_upgrade.py): tagged runs embed for that model and the
last one to fill the repository's snapshots switches its active model, in one transaction.
"""

from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetCheckSeverity,
    AssetExecutionContext,
    MaterializeResult,
    asset,
    asset_check,
)

from assets.partitions import parse_partition_key, snapshot_partitions
from assets.resources import EmbeddingProvider, IndexDatabase
from core.database import connection, transaction
from indexing import repositories, snapshots
from indexing.embedding_registry import embedder_for_model, record_model
from indexing.embedding_step import coverage_since, embed_snapshot
from indexing.model_switch import adopt_configured_model, begin_upgrade, try_switch
from orchestration.runtime.pool_slots import EMBEDDING_POOL, pool_turns
from orchestration.runtime.run_tags import MODEL_TAG

__all__ = ["MODEL_TAG", "chunk_embeddings", "every_chunk_has_a_vector"]
NO_CHANGE = "no change: every chunk content of the snapshot already had a vector"


@asset(
    partitions_def=snapshot_partitions,
    deps=["snapshot"],
    group_name="indexing",
    description="Vectors for every chunk content of the snapshot, for the repository's model"
    " (the one `codeatlas models upgrade` chose, else the configured one), or for the model"
    f" named by the run tag {MODEL_TAG} (a model upgrade's backfill)."
    " Runs after publishing: lexical and symbol search work before vectors exist.",
)
def chunk_embeddings(
    context: AssetExecutionContext, index_db: IndexDatabase, embeddings: EmbeddingProvider
) -> MaterializeResult:
    """Embed only content hashes with no vector for the model yet."""
    repository, sha = parse_partition_key(context.partition_key)
    if target := context.run.tags.get(MODEL_TAG):
        return _embed_for_upgrade(context, index_db, repository, sha, target)
    with transaction(index_db.database_url) as conn:
        embedder, configured = embeddings.for_repository(conn, repository)
        if configured:
            record_model(conn, embedder, embeddings.spec)
    model = embedder.model_name
    stats = _embed(context, index_db, repository, sha, embedder)
    with connection(index_db.database_url) as conn:
        stats["activated"] = adopt_configured_model(conn, repository, model)
    if stats["activated"]:
        context.log.info(f"{repository}: {model} is now the active model (it covers the snapshot)")
    return MaterializeResult(metadata=stats)


def _embed(context, index_db: IndexDatabase, repository: str, sha: str, embedder) -> dict:
    """`embed_snapshot` taking turns at the embedding pool's slot batch by batch: a model
    upgrade's backfill hands it to a push's run between batches
    (orchestration/runtime/pool_slots.py)."""
    with pool_turns(context, EMBEDDING_POOL, index_db.settings) as turns:
        stats = embed_snapshot(
            index_db.database_url,
            repository,
            sha,
            embedder,
            progress=context.log.info,
            turn=turns.turn,
        )
    stats["slot_handovers"] = turns.handovers
    if stats["embedded"] == 0:
        stats["change"] = NO_CHANGE
    return stats


def _embed_for_upgrade(
    context: AssetExecutionContext, index_db: IndexDatabase, repository: str, sha: str, model: str
) -> MaterializeResult:
    """One partition of a model upgrade's backfill: the snapshot's vectors for `model`, then
    the switch if every ready snapshot of the repository now has them."""
    url = index_db.database_url
    with connection(url) as conn:
        snap_id = snapshots.id_of(conn, repositories.get(conn, repository).id, sha)
        if snap_id is None:  # pruned since the backfill was planned: nothing to search there
            context.log.info(f"{repository}@{sha[:12]}: no snapshot any more, nothing to embed")
            return MaterializeResult(metadata={"model": model, "embedded": 0})
        embedder = embedder_for_model(model, conn, index_db.settings)
        conn.commit()
        if begin_upgrade(conn, repository, model):
            context.log.info(f"{repository}: upgrade to {model} started by this backfill")
    stats = _embed(context, index_db, repository, sha, embedder)
    with connection(url) as conn:
        stats["switched"] = try_switch(conn, repository, every_snapshot=True)
    if stats["switched"]:
        context.log.info(f"{repository}: {model} is now the active model (every snapshot has it)")
    return MaterializeResult(metadata={"model": model, **stats})


@asset_check(asset=chunk_embeddings, description="Every chunk of the snapshot has a vector.")
def every_chunk_has_a_vector(
    context: AssetCheckExecutionContext, index_db: IndexDatabase, embeddings: EmbeddingProvider
) -> AssetCheckResult:
    """Coverage of the snapshot's chunk contents for the model the run embedded with is 100%."""
    repository, sha = parse_partition_key(context.partition_key)
    with connection(index_db.database_url) as conn:
        model = (
            context.run.tags.get(MODEL_TAG)
            or embeddings.for_repository(conn, repository)[0].model_name
        )
        repo = repositories.get(conn, repository)
        snap_id = snapshots.id_of(conn, repo.id, sha)
        # the previous snapshot's vectors were complete: then the entering files' are counted
        embedded, total, since = coverage_since(conn, snap_id, model) if snap_id else (0, 0, None)
    metadata: dict = {"embedded": embedded, "total": total, "model": model}
    if since is not None:
        metadata["counted_since_snapshot"] = since
    return AssetCheckResult(
        passed=embedded == total, severity=AssetCheckSeverity.WARN, metadata=metadata
    )
