"""Embedding-model upgrades as a managed migration, while the old model keeps serving.

1. Start: `repositories.upgrading_embedding_model` is set (by `codeatlas models upgrade`, which
   also records the model as the choice every process indexes with; or, while no model was ever
   chosen that way, by `model_upgrade_sensor` or an index run when the environment configures a
   model other than the active one; an index run that embedded the whole current snapshot
   switches at once).
2. Backfill: the `embed_model_backfill` job (partitioned like every snapshot, so the UI shows,
   backfills and resumes it) embeds every chunk content of a repository's current snapshot into
   the new model's vectors; only contents without a vector are embedded, so a rerun resumes.
3. Switch: once the current snapshot's coverage is complete, one transaction makes the new model
   active. Queries embed with, and search only, the active model (per-model partial HNSW index +
   `WHERE embedding_model =`), so no query ever mixes two models' vectors.
4. The old model's vectors are dropped with `codeatlas models drop NAME`.

A push during an upgrade moves the current snapshot; the sensor then backfills the new snapshot
(and keeps the still-active model complete for it) before switching.
"""

import json
import time

import psycopg
from dagster import (
    Config,
    DefaultSensorStatus,
    OpExecutionContext,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    in_process_executor,
    job,
    op,
    sensor,
)
from dagster import MetadataValue as MV

from assets.partitions import parse_partition_key, partition_key, snapshot_partitions
from assets.pool_slots import EMBEDDING_POOL, pool_slot
from assets.resources import IndexDatabase
from codeatlas.core.config import Settings
from codeatlas.core.database import connection
from codeatlas.core.errors import CodeatlasError
from indexing import chunk_embeddings, embedding_registry, repositories
from indexing.embedding.base import Embedder
from indexing.embedding_step import coverage, embed_snapshot
from indexing.model_switch import try_switch
from orchestration.jobs import BACKGROUND_PRIORITY, PRIORITY_TAG

BACKFILL_JOB = "embed_model_backfill"


class ModelInUseError(CodeatlasError):
    """A model cannot be dropped while a repository searches or upgrades with it."""


def start_upgrade(conn: psycopg.Connection, model: str, names: list[str] | None = None) -> dict:
    """Set `model` as the upgrade target of the repositories (all by default); returns by status.

    Repositories with no active model yet take it as active at once: there is nothing to migrate.
    """
    result: dict[str, list[str]] = {"upgrading": [], "activated": [], "already": []}
    with conn.transaction():
        rows = repositories.lock_models_of(conn, names)
        for name in names or []:
            if name not in {r["name"] for r in rows}:
                repositories.get(conn, name)  # raises the friendly error
        for row in rows:
            if row["active"] == model:
                repositories.set_upgrading_model(conn, row["name"], None)
                result["already"].append(row["name"])
            elif row["active"] is None:
                repositories.activate_model(conn, row["name"], model)
                result["activated"].append(row["name"])
            else:
                repositories.set_upgrading_model(conn, row["name"], model)
                result["upgrading"].append(row["name"])
    return result


def upgrade_progress(conn: psycopg.Connection) -> list[dict]:
    """Per repository in an upgrade: current partition, models, coverage of the current snapshot."""
    rows = repositories.upgrading(conn)
    out = []
    for row in rows:
        item = {**row, "partition": None, "coverage": {}}
        if row["current_snapshot_id"] is not None:
            item["partition"] = partition_key(row["name"], row["commit_sha"])
            for model in (row["active"], row["upgrading"]):
                if model:
                    item["coverage"][model] = coverage(conn, row["current_snapshot_id"], model)
        out.append(item)
    return out


def backfill(
    url: str, repository: str, commit_sha: str, embedder: Embedder, progress=lambda _msg: None
) -> dict:
    """Embed one snapshot into `embedder`'s model, then switch the repository if it is complete."""
    stats = embed_snapshot(url, repository, commit_sha, embedder, progress=progress)
    with connection(url) as conn:
        stats["switched"] = try_switch(conn, repository)
    return stats


def drop_model(conn: psycopg.Connection, model: str) -> int:
    """Delete a model's vectors and index; refuses while any repository uses it. Returns rows."""
    with conn.transaction():
        users = repositories.using_model(conn, model)
        if users:
            names = ", ".join(users)
            raise ModelInUseError(
                f"model {model!r} is still active or being upgraded to in: {names};"
                " finish the upgrade (`codeatlas status` shows coverage) before dropping it"
            )
        index = embedding_registry.index_name(conn, model)
        if index is None:
            raise CodeatlasError(f"no embedding model named {model!r}; `codeatlas models list`")
        deleted = chunk_embeddings.delete_model(conn, model)
        embedding_registry.forget_model(conn, model, index)
    return deleted


class BackfillConfig(Config):
    """The model whose vectors the run fills in (a stored model name)."""

    model: str


@op(
    description="Embed the snapshot's chunks into one model's vectors;"
    " switch the repository's active model when the upgrade's coverage is complete.",
)
def embed_snapshot_for_model(
    context: OpExecutionContext, config: BackfillConfig, index_db: IndexDatabase
) -> None:
    """One partition of a model backfill (resumable: only missing vectors are embedded)."""
    repository, sha = parse_partition_key(context.partition_key)
    url = index_db.database_url
    with connection(url) as conn:
        embedder = embedding_registry.embedder_for_model(config.model, conn, index_db.settings)
    with pool_slot(context, EMBEDDING_POOL, index_db.settings):
        stats = backfill(url, repository, sha, embedder, progress=context.log.info)
    context.log.info(f"{repository}@{sha[:12]} into {config.model}: {stats}")
    context.add_output_metadata({k: MV.text(str(v)) for k, v in stats.items()})


@job(
    name=BACKFILL_JOB,
    partitions_def=snapshot_partitions,
    # the step runs in the run's own process, which its process tag names (assets/run_liveness)
    executor_def=in_process_executor,
    tags={PRIORITY_TAG: BACKGROUND_PRIORITY},  # behind pushes in the run queue
    description="Embed snapshots into a new embedding model's vectors (model upgrade backfill).",
)
def embed_model_backfill_job():
    """A one-op job; run config: ops.embed_snapshot_for_model.config.model."""
    embed_snapshot_for_model()


def backfill_run_config(model: str) -> dict:
    """Run config of `embed_model_backfill` for one model."""
    return {"ops": {"embed_snapshot_for_model": {"config": {"model": model}}}}


def plan_upgrades(
    conn: psycopg.Connection, settings: Settings, configured: Embedder | None, log=lambda _msg: None
) -> tuple[list[RunRequest], list[str]]:
    """Start env-configured upgrades (only while no model was chosen in the database), switch
    complete ones, request backfills for the rest."""
    events: list[str] = []
    if configured is not None and embedding_registry.chosen_model(conn) is None:
        embedding_registry.record_model(
            conn, configured, embedding_registry.configured_spec(settings)
        )
        conn.commit()
        started = repositories.upgrade_to_everywhere(conn, configured.model_name)
        events += [
            f"{name}: upgrade to {configured.model_name} started (configured by the environment)"
            for name in started
        ]
    progress = upgrade_progress(conn)
    conn.commit()  # each switch below is a transaction of its own, not a savepoint of this one
    runs = []
    for item in progress:
        if item["partition"] is None:
            continue
        if try_switch(conn, item["name"]):
            events.append(f"{item['name']}: switched to {item['upgrading']}")
            continue
        for model, (embedded, total) in item["coverage"].items():
            if embedded < total:
                runs.append(
                    RunRequest(
                        run_key=f"embed:{model}:{item['partition']}",
                        partition_key=item["partition"],
                        run_config=backfill_run_config(model),
                        tags={"codeatlas/trigger": "model-upgrade", "codeatlas/model": model},
                    )
                )
    for message in events:
        log(message)
    return runs, events


@sensor(
    name="model_upgrade_sensor",
    job=embed_model_backfill_job,
    minimum_interval_seconds=60,
    default_status=DefaultSensorStatus.RUNNING,
    description="Backfill vectors for repositories upgrading their embedding model, and switch"
    " each one's active model once its current snapshot is fully covered.",
)
def model_upgrade_sensor(context: SensorEvaluationContext, index_db: IndexDatabase):
    """One tick of the upgrade state machine."""
    settings = index_db.settings
    with connection(index_db.database_url) as conn:
        chosen = embedding_registry.chosen_model(conn)
        conn.commit()
        configured = None
        if chosen is None:  # no model chosen in the database: the environment configures it
            try:
                configured = embedding_registry.embedder_for_spec(
                    embedding_registry.configured_spec(settings), settings
                )
            except Exception as exc:  # noqa: BLE001 - a broken provider must not stop switching
                context.log.warning(f"configured embedding model unavailable: {exc}")
        runs, events = plan_upgrades(conn, settings, configured, context.log.info)
    cursor = json.dumps({"checked_at": time.time(), "events": events[-5:]})
    if not runs:
        return SensorResult(
            skip_reason=SkipReason(
                "; ".join(events) or "no repository is upgrading its embedding model"
            ),
            cursor=cursor,
        )
    return SensorResult(run_requests=runs, cursor=cursor)


def run_backfill_now(
    url: str, model: str, names: list[str] | None, settings: Settings, progress=print
) -> list[dict]:
    """Embed every upgrading repository's current snapshot in-process (CLI `--wait`)."""
    with connection(url) as conn:
        embedder = embedding_registry.embedder_for_model(model, conn, settings)
        items = [
            i
            for i in upgrade_progress(conn)
            if i["upgrading"] == model and (names is None or i["name"] in names)
        ]
    results = []
    for item in items:
        if item["partition"] is None:
            continue
        repository, sha = parse_partition_key(item["partition"])
        stats = backfill(url, repository, sha, embedder, progress=progress)
        results.append({"repository": repository, **stats})
    return results
