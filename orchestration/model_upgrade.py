"""Embedding-model upgrades: a backfill of the `chunk_embeddings` asset while the old model
keeps serving.

1. Start: `repositories.upgrading_embedding_model` is set (by `codeatlas models upgrade`, which
   also records the model as the choice every process indexes with; by a backfill launched from
   the UI with the run tag `codeatlas/model`; or, while no model was ever chosen in the
   database, by `model_upgrade_sensor` or an index run when the environment configures a model
   other than the active one; an index run that embedded the whole current snapshot switches
   at once).
2. Backfill: a backfill of the job `embed_for_model` (the asset `chunk_embeddings`) over every
   partition (ready snapshot) of the upgrading repositories, tagged `codeatlas/model=<new
   model>`, so the UI lists it under Backfills and its runs under that job's name; its runs
   embed for the tagged model, only contents without a vector, so a rerun resumes.
   `codeatlas models upgrade` launches it (`--wait`: runs its partitions here), the sensor
   launches it for upgrades started otherwise, the UI can too.
3. Switch: the run that completes the last snapshot switches the active model in one
   transaction (the sensor retries each tick). Queries embed with, and search only, the active
   model (per-model partial HNSW index + `WHERE embedding_model =`), so no query ever mixes two
   models' vectors.
4. The old model's vectors are dropped with `codeatlas models drop NAME`.

A push during an upgrade moves the current snapshot; the sensor then requests runs for what the
new snapshot lacks (for the still-active model too) before switching.
"""

import json
import time
from collections.abc import Callable
from pathlib import Path

from dagster import (
    AssetSelection,
    DagsterInstance,
    DefaultSensorStatus,
    Definitions,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    define_asset_job,
    in_process_executor,
    sensor,
)

from assets import vectors
from assets.partitions import parse_partition_key, partition_key, snapshot_partitions
from assets.resources import IndexDatabase
from core.config import Settings
from core.database import DictConnection, connection
from core.errors import CodeatlasError
from indexing import chunk_embeddings, embedding_registry, repositories, snapshots
from indexing.embedding.base import Embedder
from indexing.embedding_step import coverage
from indexing.model_switch import try_switch
from orchestration.jobs import BACKGROUND_PRIORITY, PRIORITY_TAG
from orchestration.runtime.dagster_internals import (
    Backfill,
    backfills_tagged,
    launch_asset_backfill,
    launch_job_backfill,
)
from orchestration.runtime.run_liveness import live_execution, process_tags
from orchestration.runtime.run_tags import LAUNCHED_BY_TAG, MODEL_TAG, TRIGGER_TAG

EMBED_JOB = "embed_for_model"  # the upgrade's runs: its backfill's and the sensor's requests
# the code location `codeatlas dev` and its daemon load: the upgrade's backfill names it
WORKSPACE_YAML = Path(__file__).resolve().parent.parent / "workspace.yaml"


class ModelInUseError(CodeatlasError):
    """A model cannot be dropped while a repository searches or upgrades with it."""


def start_upgrade(conn: DictConnection, model: str, names: list[str] | None = None) -> dict:
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


def upgrade_progress(conn: DictConnection) -> list[dict]:
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


def drop_model(conn: DictConnection, model: str) -> int:
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
        snapshots.forget_vectors(conn, model)  # no snapshot has them any more
        embedding_registry.forget_model(conn, model, index)
    return deleted


embed_for_model_job = define_asset_job(
    name=EMBED_JOB,
    selection=AssetSelection.assets(vectors.chunk_embeddings),
    # the step runs in the run's own process, which its process tag names (runtime/run_liveness)
    executor_def=in_process_executor,
    tags={PRIORITY_TAG: BACKGROUND_PRIORITY},  # behind pushes in the run queue
    description="Embed one snapshot's chunks for the model its run tag codeatlas/model names"
    " (what a model upgrade's backfill does per partition).",
)


def upgrade_tags(model: str) -> dict[str, str]:
    """Tags of a model upgrade's backfill and runs: the model, the trigger, background priority,
    and the UI's "Launched by" (else "Manually launched")."""
    return {
        MODEL_TAG: model,
        TRIGGER_TAG: "model-upgrade",
        PRIORITY_TAG: BACKGROUND_PRIORITY,
        LAUNCHED_BY_TAG: f"codeatlas model upgrade to {model}",
    }


def upgrade_partitions(
    conn: DictConnection, model: str, names: list[str] | None = None
) -> list[str]:
    """Every partition (ready snapshot) of the repositories upgrading to `model`."""
    rows = snapshots.ready_upgrading_to(conn, model, names)
    return [partition_key(r["name"], r["commit_sha"]) for r in rows]


def launch_upgrade_backfill(
    instance: DagsterInstance, conn: DictConnection, model: str, names: list[str] | None = None
) -> tuple[str, list[str]] | None:
    """Launch the backfill of `embed_for_model` for `model` over every partition of the
    repositories upgrading to it that no backfill in progress covers already; (its id, its
    partitions), or None when there are none (the command run twice launches one backfill)."""
    covered = {
        key
        for backfill in backfills_tagged(instance, MODEL_TAG, model)
        if backfill.in_progress
        for key in backfill.partitions
    }
    keys = [key for key in upgrade_partitions(conn, model, names) if key not in covered]
    if not keys:
        return None
    assert snapshot_partitions.name is not None
    instance.add_dynamic_partitions(snapshot_partitions.name, keys)
    title = f"model upgrade to {model}"
    if WORKSPACE_YAML.is_file():
        # a backfill of the job: its runs are named `embed_for_model` in the UI, not
        # `__ASSET_JOB` as an asset backfill's are (issue 48)
        backfill_id = launch_job_backfill(
            instance, str(WORKSPACE_YAML), EMBED_JOB, keys, upgrade_tags(model), title
        )
    else:  # no workspace file beside the code (an installed wheel): the asset's own backfill
        backfill_id = launch_asset_backfill(
            instance, vectors.chunk_embeddings, keys, upgrade_tags(model), title=title
        )
    return backfill_id, keys


def _lacking(conn: DictConnection, repository: str, model: str) -> list[str]:
    """Partitions (ready snapshots and the current one) of `repository` lacking `model` vectors."""
    lacking = []
    for row in snapshots.searchable_of(conn, repository):
        embedded, total = coverage(conn, row["id"], model)
        if embedded < total:
            lacking.append(partition_key(repository, row["commit_sha"]))
    return lacking


def _embed_request(model: str, key: str) -> RunRequest:
    return RunRequest(run_key=f"embed:{model}:{key}", partition_key=key, tags=upgrade_tags(model))


def plan_upgrades(
    conn: DictConnection,
    settings: Settings,
    configured: Embedder | None,
    backfills: Callable[[str], list[Backfill]] = lambda _model: [],
    log=lambda _msg: None,
    states: list[str] | None = None,
) -> tuple[list[RunRequest], list[str], list[str]]:
    """One step of the upgrade state machine: start env-configured upgrades (only while no
    model was chosen in the database), switch complete ones, and say what to embed: (runs for
    single partitions, events, models whose backfill is to be launched). `states` gets one
    line per repository still upgrading, saying where it stands."""
    states = [] if states is None else states
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
    runs: list[RunRequest] = []
    to_launch: list[str] = []
    for item in progress:
        name, active, upgrading = item["name"], item["active"], item["upgrading"]
        where = f"{name}: upgrading from {active} to {upgrading}"
        if item["partition"] is None:
            states.append(f"{where}, no snapshot published yet")
            continue
        if try_switch(conn, name, every_snapshot=True):
            events.append(f"{name}: switched to {upgrading}")
            continue
        done, total = item["coverage"].get(upgrading, (0, 0))
        where += f" ({done}/{total} chunk contents of the current snapshot have its vectors)"
        # the active model serves queries: a push during the upgrade needs its vectors too
        embedded, total = item["coverage"].get(active, (0, 0))
        if embedded < total:
            runs.append(_embed_request(active, item["partition"]))
        launched = backfills(upgrading)
        if running := [b.backfill_id for b in launched if b.in_progress]:
            states.append(f"{where}: backfill {', '.join(running)} in progress")
            continue  # its runs fill in the partitions; the last one switches
        if not launched:
            states.append(f"{where}: no backfill in progress, launching one")
            if upgrading not in to_launch:
                to_launch.append(upgrading)
            continue
        # the backfill is over and some partitions still lack vectors (a push, a failed run)
        lacking = _lacking(conn, name, upgrading)
        states.append(f"{where}: backfill over, {len(lacking)} partitions requested again")
        runs += [_embed_request(upgrading, key) for key in lacking]
    for message in events:
        log(message)
    return runs, events, to_launch


@sensor(
    name="model_upgrade_sensor",
    job=embed_for_model_job,
    minimum_interval_seconds=60,
    default_status=DefaultSensorStatus.RUNNING,
    description="Launch the chunk_embeddings backfill of an embedding-model upgrade not launched"
    " yet, embed what a push added meanwhile, and switch each repository's active model once"
    " every snapshot has the new model's vectors.",
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
        states: list[str] = []
        runs, events, to_launch = plan_upgrades(
            conn,
            settings,
            configured,
            lambda model: backfills_tagged(context.instance, MODEL_TAG, model),
            context.log.info,
            states,
        )
        for model in to_launch:
            launched = launch_upgrade_backfill(context.instance, conn, model)
            if launched is not None:
                events.append(
                    f"backfill {launched[0]} of chunk_embeddings for {model} launched"
                    f" over {len(launched[1])} partitions"
                )
                context.log.info(events[-1])
    cursor = json.dumps({"checked_at": time.time(), "events": events[-5:]})
    if not runs:
        # the state of each repository still upgrading, not only what this tick did: a tick
        # with a backfill in progress said "no repository is upgrading" (issue 48)
        return SensorResult(
            skip_reason=SkipReason(
                "; ".join(events + states) or "no repository is upgrading its embedding model"
            ),
            cursor=cursor,
        )
    return SensorResult(run_requests=runs, cursor=cursor)


def run_upgrade_here(
    instance: DagsterInstance,
    conn: DictConnection,
    model: str,
    names: list[str] | None,
    definitions: Definitions,
    progress: Callable[[str], None] = print,
) -> list[dict]:
    """Execute the upgrade backfill's partitions in this process (CLI `--wait`), each a run of
    `embed_for_model` recorded in `instance`; the repositories and whether each switched."""
    keys = upgrade_partitions(conn, model, names)
    conn.commit()
    assert snapshot_partitions.name is not None
    instance.add_dynamic_partitions(snapshot_partitions.name, keys)
    job = definitions.resolve_job_def(EMBED_JOB)
    embedded: dict[str, int] = {}
    switched: set[str] = set()
    for key in keys:
        progress(f"embedding {key} for {model}")
        tags = {
            **upgrade_tags(model),
            **process_tags(),
            LAUNCHED_BY_TAG: f"codeatlas models upgrade --wait ({model})",
        }
        with live_execution(tags):
            result = job.execute_in_process(
                instance=instance, partition_key=key, tags=tags, raise_on_error=True
            )
        stats = result.asset_materializations_for_node("chunk_embeddings")[0].metadata
        name = parse_partition_key(key)[0]
        count = stats["embedded"].value
        assert isinstance(count, int)  # the asset's own metadata
        embedded[name] = embedded.get(name, 0) + count
        if stats.get("switched") and stats["switched"].value:
            switched.add(name)
    return [
        {"repository": name, "embedded": count, "switched": name in switched}
        for name, count in embedded.items()
    ]
